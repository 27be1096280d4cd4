//! Tests for Go `fmt`/`strconv` printing. The golden cases in `testdata/fmt/` were
//! rendered by the real Helm binaries (see `testdata/fmt/gen.sh`); each case is a
//! template call (`printf`, `print`, `println`) whose literal arguments this file turns
//! into the values Go would see.

use super::*;
use crate::template::value::{IntType, List, Map, UintType};
use std::sync::Arc;

// ---- a tiny reader for the template literals used by the golden cases ---------------

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
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
                call(&f, args)
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

fn call(f: &str, args: Vec<Value>) -> Value {
    match f {
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

/// Evaluates one golden case (`printf "..." args`, `print args`, `println args`).
fn eval_case(case: &str) -> String {
    let mut r = Reader {
        s: case.as_bytes(),
        i: 0,
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
        other => panic!("unsupported {other}"),
    }
}

#[test]
fn golden_cases_match_helm() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/fmt");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("testdata/fmt")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "golden"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "golden files missing in {dir}");
    let mut failures = Vec::new();
    let mut n = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).expect("golden file");
        for line in text.lines() {
            let (case, want) = line.split_once('\t').expect("tab");
            let want: String = serde_json::from_str(want).expect("json");
            let got = eval_case(case);
            n += 1;
            if got != want {
                failures.push(format!("{case}\n   got: {got:?}\n  want: {want:?}"));
            }
        }
    }
    assert!(n > 200, "too few golden cases: {n}");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- strconv ----------------------------------------------------------------------

#[test]
fn format_float_matches_strconv() {
    let cases: &[(f64, u8, i32, &str)] = &[
        (1e6, b'g', -1, "1e+06"),
        (123456.0, b'g', -1, "123456"),
        (0.0001, b'g', -1, "0.0001"),
        (1e-5, b'g', -1, "1e-05"),
        (-0.0, b'g', -1, "-0"),
        (1e21, b'f', -1, "1000000000000000000000"),
        (1e-7, b'e', -1, "1e-07"),
        (1.5, b'e', -1, "1.5e+00"),
        (1e100, b'e', 3, "1.000e+100"),
        (2.5, b'f', 0, "2"),
        (0.5, b'f', 0, "0"),
        (0.6, b'f', 0, "1"),
        (9.5, b'f', 0, "10"),
        (99.99, b'g', 3, "100"),
        (123456789.0, b'f', -1, "123456789"),
        (0.1, b'f', 20, "0.10000000000000000555"),
        (f64::INFINITY, b'g', -1, "+Inf"),
        (f64::NEG_INFINITY, b'f', 2, "-Inf"),
        (f64::NAN, b'e', -1, "NaN"),
        (1.0, b'b', -1, "4503599627370496p-52"),
        (5e-324, b'b', -1, "1p-1074"),
        (1.0, b'x', -1, "0x1p+00"),
        (3.0, b'X', 2, "0X1.80P+01"),
        (0.0, b'x', -1, "0x0p+00"),
        (5e-324, b'g', -1, "5e-324"),
        (f64::MAX, b'e', -1, "1.7976931348623157e+308"),
        (1.0, b'q', 2, "%q"),
    ];
    for &(v, f, p, want) in cases {
        assert_eq!(format_float(v, f, p), want, "{v} {} {p}", f as char);
    }
}

#[test]
fn quoting_matches_strconv() {
    assert_eq!(quote("a\"b\\"), r#""a\"b\\""#);
    assert_eq!(quote("é\u{a0}\x01\t"), r#""é\u00a0\x01\t""#);
    assert_eq!(quote("😀\u{e0001}"), "\"😀\\U000e0001\"");
    assert_eq!(quote_ascii("é😀"), r#""\u00e9\U0001f600""#);
    assert_eq!(quote_bytes(b"a\xffb"), r#""a\xffb""#);
    assert_eq!(quote_rune('\''), r"'\''");
    assert_eq!(quote_rune('"'), "'\"'");
    assert_eq!(quote_rune_ascii('☺'), r"'\u263a'");
    assert!(can_backquote(b"a\tb"));
    assert!(!can_backquote(b"a`b"));
    assert!(!can_backquote(b"\xff"));
    assert!(!can_backquote("\u{feff}".as_bytes()));
    assert!(is_print('é') && is_print(' ') && is_print('\u{301}'));
    assert!(!is_print('\u{a0}') && !is_print('\u{ad}') && !is_print('\u{2028}'));
}

#[test]
fn integers_format_in_any_base() {
    assert_eq!(format_int(-255, 16), "-ff");
    assert_eq!(format_int(i64::MIN, 10), "-9223372036854775808");
    assert_eq!(format_uint(u64::MAX, 36), "3w5e11264sgsf");
    assert_eq!(format_uint(5, 2), "101");
}

// ---- values the golden cases cannot express -------------------------------------------

#[test]
fn bytes_print_like_go_byte_slices() {
    let b = Value::Bytes(Arc::from(&b"ab\xff"[..]));
    assert_eq!(format_value(&b), "[97 98 255]");
    assert_eq!(
        sprintf("%s|%x|%X|%q", &[b.clone(), b.clone(), b.clone(), b.clone()]),
        "ab\u{fffd}|6162ff|6162FF|\"ab\\xff\""
    );
    assert_eq!(
        sprintf("%#v", std::slice::from_ref(&b)),
        "[]byte{0x61, 0x62, 0xff}"
    );
    assert_eq!(
        sprintf("%c|%o|%T", &[b.clone(), b.clone(), b.clone()]),
        "[a b ÿ]|[141 142 377]|[]uint8"
    );
    assert_eq!(
        sprintf("%t", std::slice::from_ref(&b)),
        "[%!t(uint8=97) %!t(uint8=98) %!t(uint8=255)]"
    );
    assert_eq!(
        sprintf("%5s|", &[Value::Bytes(Arc::from(&b"ab"[..]))]),
        "   ab|"
    );
    assert_eq!(sprintf("%d", &[Value::list(vec![b])]), "[[97 98 255]]");
}

#[test]
fn nil_and_typed_collections() {
    let nil_list = Value::List(List::nil(crate::template::ListType::Interface));
    assert_eq!(format_value(&nil_list), "[]");
    assert_eq!(sprintf("%#v", &[nil_list]), "[]interface {}(nil)");
    let strs = Value::string_list(["a", "b"]);
    assert_eq!(sprintf("%#v", &[strs]), "[]string{\"a\", \"b\"}");
    let named = Map::with_type(crate::template::MapType::Named("chartutil.Values"));
    named.insert("a", Value::int(1));
    assert_eq!(format_value(&Value::Map(named.clone())), "map[a:1]");
    assert_eq!(
        sprintf("%T|%d", &[Value::Map(named.clone()), Value::str("x")]),
        "chartutil.Values|%!d(string=x)"
    );
    assert_eq!(
        sprintf("%d", &[Value::str("x"), Value::Map(named)]),
        "%!d(string=x)%!(EXTRA chartutil.Values=map[a:1])"
    );
    assert_eq!(
        sprintf(
            "%v|%#v|%x",
            &[
                Value::Uint(10, UintType::Uint64),
                Value::Uint(10, UintType::Uint64),
                Value::Uint(u64::MAX, UintType::Uint64)
            ]
        ),
        "10|0xa|ffffffffffffffff"
    );
}

#[test]
fn sprint_spacing_rules() {
    let args = [
        Value::int(1),
        Value::int(2),
        Value::str("a"),
        Value::str("b"),
        Value::int(3),
    ];
    assert_eq!(sprint(&args), "1 2ab3");
    assert_eq!(sprint(&[]), "");
    assert_eq!(sprintln(&[]), "\n");
    assert_eq!(format_value(&Value::Float(-0.0)), "-0");
}

#[test]
fn format_verbs_in_width_survive_multibyte() {
    // Widths count runes, not bytes.
    assert_eq!(
        sprintf("%-4s|%4s", &[Value::str("é"), Value::str("日本")]),
        "é   |  日本"
    );
    // The verb itself may be a multi-byte rune.
    assert_eq!(sprintf("%é", &[Value::int(1)]), "%!é(int=1)");
    assert_eq!(sprintf("%", &[]), "%!(NOVERB)");
    assert_eq!(
        sprintf("%9999999999d", &[Value::int(1)]),
        "%!(NOVERB)%!(EXTRA int=1)"
    );
}
