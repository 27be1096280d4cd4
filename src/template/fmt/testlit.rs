//! Test support: reads the template expressions of golden cases (`printf "%d" (list
//! 1 2)`, `toJson (dict "a" 1.5)`) into the values Go would see, so cases rendered by
//! the real Helm can be replayed against this crate without the template engine.

use super::*;
use crate::template::value::{IntType, List, Map, UintType};

/// Functions a test adds to the built-in literal constructors.
pub(crate) type Ext<'a> = &'a dyn Fn(&str, &[Value]) -> Option<Value>;

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
    ext: Ext<'a>,
}

impl Reader<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.i >= self.s.len() || self.s[self.i] == b')'
    }

    fn word(&mut self) -> String {
        self.skip_ws();
        let start = self.i;
        while self.i < self.s.len() && !matches!(self.s[self.i], b' ' | b')' | b'(') {
            self.i += 1;
        }
        String::from_utf8(self.s[start..self.i].to_vec()).expect("utf8")
    }

    fn string_lit(&mut self) -> String {
        let q = self.s[self.i];
        self.i += 1;
        let start = self.i;
        if q == b'`' {
            while self.s[self.i] != b'`' {
                self.i += 1;
            }
            self.i += 1;
            return String::from_utf8(self.s[start..self.i - 1].to_vec()).expect("utf8");
        }
        while self.s[self.i] != q {
            if self.s[self.i] == b'\\' {
                self.i += 1;
            }
            self.i += 1;
        }
        self.i += 1;
        let raw = std::str::from_utf8(&self.s[start..self.i - 1]).expect("utf8");
        go_unescape(raw)
    }

    fn value(&mut self) -> Value {
        self.skip_ws();
        match self.s[self.i] {
            b'"' | b'`' => Value::str(self.string_lit()),
            b'\'' => {
                let s = self.string_lit();
                Value::int(s.chars().next().expect("char") as i64)
            }
            b'(' => {
                self.i += 1;
                let f = self.word();
                let mut args = Vec::new();
                while !self.at_end() {
                    args.push(self.value());
                }
                self.i += 1; // ')'
                call(&f, args, self.ext)
            }
            _ => {
                let w = self.word();
                literal(&w)
            }
        }
    }
}

fn go_unescape(raw: &str) -> String {
    let mut out: Vec<u8> = Vec::new();
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        let simple = match c {
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(10),
            b'r' => Some(13),
            b't' => Some(9),
            b'v' => Some(11),
            b'\\' => Some(b'\\'),
            b'"' => Some(b'"'),
            b'\'' => Some(b'\''),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let n = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => panic!("escape {c}"),
        };
        let v = u32::from_str_radix(&raw[i..i + n], 16).expect("hex");
        i += n;
        if c == b'x' {
            out.push(v as u8);
        } else {
            let ch = char::from_u32(v).expect("rune");
            out.extend_from_slice(ch.to_string().as_bytes());
        }
    }
    // Cases with invalid UTF-8 in string literals are compared lossily, like the
    // printer's own output.
    String::from_utf8_lossy(&out).into_owned()
}

fn literal(w: &str) -> Value {
    match w {
        "nil" => return Value::Nil,
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    let (neg, body) = match w.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, w),
    };
    let int = if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if body.contains(['.', 'e', 'E']) {
        None
    } else {
        body.parse::<i64>().ok()
    };
    match int {
        Some(i) => Value::int(if neg { -i } else { i }),
        None => Value::Float(w.parse::<f64>().expect("float literal")),
    }
}

fn call(f: &str, args: Vec<Value>, ext: Ext<'_>) -> Value {
    if let Some(v) = ext(f, &args) {
        return v;
    }
    match f {
        "printf" => Value::str(sprintf(args[0].as_str().expect("format"), &args[1..])),
        "list" => Value::list(args),
        "dict" => {
            let m = Map::new();
            for kv in args.chunks(2) {
                let k = kv[0].as_str().expect("dict key").to_string();
                m.insert(k, kv.get(1).cloned().unwrap_or(Value::Nil));
            }
            Value::Map(m)
        }
        "toStrings" => {
            let items = args[0]
                .as_list()
                .expect("list")
                .iter()
                .map(|v| Value::str(format_value(v)))
                .collect();
            Value::List(List::of_strings(items))
        }
        "int64" => match &args[0] {
            Value::Int(i, _) => Value::Int(*i, IntType::Int64),
            other => panic!("int64 {other:?}"),
        },
        "float64" => match &args[0] {
            Value::Int(i, _) => Value::Float(*i as f64),
            Value::Float(x) => Value::Float(*x),
            Value::String(s) => Value::Float(match s.as_ref() {
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                "NaN" => f64::NAN,
                other => other.parse().expect("float"),
            }),
            other => panic!("float64 {other:?}"),
        },
        "index" => {
            let s = args[0].as_str().expect("string");
            let Value::Int(i, _) = args[1] else {
                panic!("index")
            };
            Value::Uint(u64::from(s.as_bytes()[i as usize]), UintType::Uint8)
        }
        other => panic!("unsupported call {other}"),
    }
}

/// Evaluates one golden case: `printf "..." args`, `print args`, `println args`, or a
/// call `ext` knows whose result is printed with `%v`.
pub(crate) fn eval_case(case: &str, ext: Ext<'_>) -> String {
    let mut r = Reader {
        s: case.as_bytes(),
        i: 0,
        ext,
    };
    let f = r.word();
    let mut args = Vec::new();
    while !r.at_end() {
        args.push(r.value());
    }
    match f.as_str() {
        "printf" => {
            let fmt = args.remove(0);
            sprintf(fmt.as_str().expect("format"), &args)
        }
        "print" => sprint(&args),
        "println" => sprintln(&args),
        other => match ext(other, &args) {
            Some(v) => format_value(&v),
            None => panic!("unsupported {other}"),
        },
    }
}
