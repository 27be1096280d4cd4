//! Go's `fmt` and `strconv` printing, for template values.
//!
//! Everything a template prints goes through Go's `%v` rules (`map[a:1 b:2]`, `[1 2]`,
//! `<nil>`, `1e+06`), and `printf` exposes the full verb and flag language, so byte
//! identity with Helm depends on reproducing `fmt` exactly, including its error
//! notations (`%!d(string=x)`, `%!(EXTRA int=1)`), its float formatting (shortest
//! round-trip digits, two-digit exponents, round-half-even on the exact binary value)
//! and `strconv.Quote`'s idea of which runes are printable.
//!
//! The printer works on bytes, like Go's, because `[]byte` operands may hold invalid
//! UTF-8 and widths count runes of the produced bytes; the final text is converted
//! lossily, which only matters for `%s` of invalid bytes.
//!
//! Known approximations: host objects ([`Object`](super::value::Object)) print through
//! their own `%v` text for every verb (Go would walk struct fields with the verb), and
//! `%p` prints a fixed fake address since Go's is a memory address.

use super::value::{Kind, Value};

mod strconv;

pub use strconv::{
    append_float, can_backquote, format_int, format_uint, is_print, quote_bytes_with, quote_rune,
    quote_rune_ascii,
};

/// Go `fmt.Sprint`: operands printed with `%v`, with a space between two operands
/// when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut p = Printer::new();
    let mut prev_string = false;
    for (i, a) in args.iter().enumerate() {
        let is_string = a.kind() == Kind::String;
        if i > 0 && !is_string && !prev_string {
            p.buf.push(b' ');
        }
        p.print_arg(a, 'v');
        prev_string = is_string;
    }
    p.finish()
}

/// Go `fmt.Sprintln`: operands with `%v`, always space-separated, newline appended.
pub fn sprintln(args: &[Value]) -> String {
    let mut p = Printer::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            p.buf.push(b' ');
        }
        p.print_arg(a, 'v');
    }
    p.buf.push(b'\n');
    p.finish()
}

/// Go `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut p = Printer::new();
    p.do_printf(format, args);
    p.finish()
}

/// Go `%v` of a value (what `{{ . }}` and `print` show).
pub fn format_value(v: &Value) -> String {
    let mut p = Printer::new();
    p.print_arg(v, 'v');
    p.finish()
}

/// Go `%+v` of a value (struct fields are named).
pub fn format_value_plus(v: &Value) -> String {
    let mut p = Printer::new();
    p.f.plus_v = true;
    p.print_arg(v, 'v');
    p.finish()
}

/// Go `strconv.FormatFloat(f, fmt, prec, 64)` for `fmt` in `b'e'`, `b'E'`, `b'f'`,
/// `b'g'`, `b'G'`, `b'b'`, `b'x'`, `b'X'` (`prec` -1 means the shortest
/// representation that round-trips).
pub fn format_float(f: f64, fmt: u8, prec: i32) -> String {
    let mut buf = Vec::new();
    append_float(&mut buf, f, fmt, prec);
    // Float formatting only ever produces ASCII.
    String::from_utf8_lossy(&buf).into_owned()
}

/// Go `strconv.Quote`: a double-quoted Go string literal; printable runes stay as
/// they are, others become `\n`, `\x7f`, `\u2028`, `\U0001f600`-style escapes.
pub fn quote(s: &str) -> String {
    quote_bytes_with(&super::gostr::to_bytes(s), b'"', false)
}

/// Go `strconv.QuoteToASCII`: like [`quote`] but every non-ASCII rune is escaped.
pub fn quote_ascii(s: &str) -> String {
    quote_bytes_with(&super::gostr::to_bytes(s), b'"', true)
}

/// Go `strconv.Quote` of a byte string that may hold invalid UTF-8 (each invalid byte
/// becomes `\xNN`).
pub fn quote_bytes(b: &[u8]) -> String {
    quote_bytes_with(b, b'"', false)
}

/// The flags and sizes of one formatting directive (Go's `fmtFlags` plus width and
/// precision).
#[derive(Clone, Copy, Default)]
struct Flags {
    wid: usize,
    prec: usize,
    wid_present: bool,
    prec_present: bool,
    minus: bool,
    plus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    /// `%+v`: the plus flag moved aside so it only names struct fields.
    plus_v: bool,
    /// `%#v`: Go-syntax representation.
    sharp_v: bool,
}

const LDIGITS: &[u8; 17] = b"0123456789abcdefx";
const UDIGITS: &[u8; 17] = b"0123456789ABCDEFX";

/// Widths and precisions beyond this are treated as malformed, as Go does.
const TOO_LARGE: i64 = 1_000_000;

/// Go's printer state (`pp` and `fmt` merged).
struct Printer {
    buf: Vec<u8>,
    f: Flags,
    reordered: bool,
    good_arg_num: bool,
}

/// Runes in a byte string, counting each invalid byte as one rune (Go's
/// `utf8.RuneCount`).
fn rune_count(b: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        let w = strconv::decode_rune(&b[i..]).1;
        i += w.max(1);
        n += 1;
    }
    n
}

impl Printer {
    fn new() -> Printer {
        Printer {
            buf: Vec::new(),
            f: Flags::default(),
            reordered: false,
            good_arg_num: true,
        }
    }

    /// The printed bytes; those that are not UTF-8 stay raw bytes (see `gostr`).
    fn finish(self) -> String {
        super::gostr::from_bytes(self.buf)
    }

    // ---- padding (Go format.go) -------------------------------------------------

    fn write_padding(&mut self, n: usize) {
        let b = if self.f.zero { b'0' } else { b' ' };
        self.buf.extend(std::iter::repeat_n(b, n));
    }

    fn pad(&mut self, s: &[u8]) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.extend_from_slice(s);
            return;
        }
        let width = self.f.wid.saturating_sub(rune_count(s));
        if !self.f.minus {
            self.write_padding(width);
            self.buf.extend_from_slice(s);
        } else {
            self.buf.extend_from_slice(s);
            self.write_padding(width);
        }
    }

    fn pad_str(&mut self, s: &str) {
        self.pad(s.as_bytes());
    }

    /// `pad` with zero padding suppressed (numbers handle zeros themselves).
    fn pad_no_zero(&mut self, s: &[u8]) {
        let old = self.f.zero;
        self.f.zero = false;
        self.pad(s);
        self.f.zero = old;
    }

    fn fmt_boolean(&mut self, v: bool) {
        self.pad_str(if v { "true" } else { "false" });
    }

    fn truncate<'a>(&self, s: &'a [u8]) -> &'a [u8] {
        if self.f.prec_present {
            let mut n = self.f.prec;
            let mut i = 0;
            while i < s.len() {
                if n == 0 {
                    return &s[..i];
                }
                n -= 1;
                i += strconv::decode_rune(&s[i..]).1.max(1);
            }
        }
        s
    }

    fn fmt_s(&mut self, s: &[u8]) {
        let t = self.truncate(s);
        self.pad(t);
    }

    /// `%x`/`%X` of a string or byte slice: hex of each byte.
    fn fmt_sbx(&mut self, s: &[u8], digits: &[u8; 17]) {
        let mut length = s.len();
        if self.f.prec_present && self.f.prec < length {
            length = self.f.prec;
        }
        let mut width = 2 * length;
        if width > 0 {
            if self.f.space {
                if self.f.sharp {
                    width *= 2;
                }
                width += length - 1;
            } else if self.f.sharp {
                width += 2;
            }
        } else {
            if self.f.wid_present {
                self.write_padding(self.f.wid);
            }
            return;
        }
        if self.f.wid_present && self.f.wid > width && !self.f.minus {
            self.write_padding(self.f.wid - width);
        }
        if self.f.sharp {
            self.buf.push(b'0');
            self.buf.push(digits[16]);
        }
        for (i, &c) in s[..length].iter().enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(b' ');
                if self.f.sharp {
                    self.buf.push(b'0');
                    self.buf.push(digits[16]);
                }
            }
            self.buf.push(digits[(c >> 4) as usize]);
            self.buf.push(digits[(c & 0xF) as usize]);
        }
        if self.f.wid_present && self.f.wid > width && self.f.minus {
            self.write_padding(self.f.wid - width);
        }
    }

    fn fmt_q(&mut self, s: &[u8]) {
        let s = self.truncate(s);
        if self.f.sharp && can_backquote(s) {
            let mut q = Vec::with_capacity(s.len() + 2);
            q.push(b'`');
            q.extend_from_slice(s);
            q.push(b'`');
            self.pad(&q);
            return;
        }
        let q = quote_bytes_with(s, b'"', self.f.plus);
        self.pad_str(&q);
    }

    fn fmt_c(&mut self, c: u64) {
        let r = rune_or_replacement(c);
        let mut tmp = [0u8; 4];
        let s = r.encode_utf8(&mut tmp);
        self.pad_str(s);
    }

    fn fmt_qc(&mut self, c: u64) {
        let r = rune_or_replacement(c);
        let q = if self.f.plus {
            quote_rune_ascii(r)
        } else {
            quote_rune(r)
        };
        self.pad_str(&q);
    }

    fn fmt_unicode(&mut self, mut u: u64) {
        let mut prec = 4usize;
        if self.f.prec_present && self.f.prec > 4 {
            prec = self.f.prec;
        }
        // Built right to left, like Go.
        let mut rev: Vec<u8> = Vec::new();
        if self.f.sharp && u <= 0x10FFFF {
            if let Some(ch) = char::from_u32(u as u32).filter(|c| is_print(*c)) {
                let mut tmp = [0u8; 4];
                let enc = ch.encode_utf8(&mut tmp).as_bytes();
                rev.push(b'\'');
                rev.extend(enc.iter().rev());
                rev.push(b'\'');
                rev.push(b' ');
            }
        }
        let mut ndig = 0usize;
        loop {
            rev.push(UDIGITS[(u & 0xF) as usize]);
            ndig += 1;
            u >>= 4;
            if u == 0 {
                break;
            }
        }
        while ndig < prec {
            rev.push(b'0');
            ndig += 1;
        }
        rev.push(b'+');
        rev.push(b'U');
        rev.reverse();
        self.pad_no_zero(&rev);
    }

    /// Go `fmt.fmtInteger`: `u` holds the two's complement bits when `signed`.
    fn fmt_integer(&mut self, u: u64, base: u64, signed: bool, verb: char, digits: &[u8; 17]) {
        let negative = signed && (u as i64) < 0;
        let mut u = if negative { u.wrapping_neg() } else { u };
        let mut prec = 0usize;
        if self.f.prec_present {
            prec = self.f.prec;
            if prec == 0 && u == 0 {
                let old = self.f.zero;
                self.f.zero = false;
                self.write_padding(self.f.wid);
                self.f.zero = old;
                return;
            }
        } else if self.f.zero && self.f.wid_present {
            prec = self.f.wid;
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        let mut rev: Vec<u8> = Vec::with_capacity(24);
        loop {
            rev.push(digits[(u % base) as usize]);
            u /= base;
            if u == 0 {
                break;
            }
        }
        while rev.len() < prec {
            rev.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => {
                    rev.push(digits[16]);
                    rev.push(b'0');
                }
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if self.f.plus {
            rev.push(b'+');
        } else if self.f.space {
            rev.push(b' ');
        }
        rev.reverse();
        self.pad_no_zero(&rev);
    }

    /// Go `fmt.fmtFloat`.
    fn fmt_float(&mut self, v: f64, verb: u8, prec: i32) {
        let prec = if self.f.prec_present {
            self.f.prec as i32
        } else {
            prec
        };
        let mut num: Vec<u8> = vec![b'+'];
        append_float(&mut num, v, verb, prec);
        if num[1] == b'-' || num[1] == b'+' {
            num.remove(0);
        }
        if self.f.space && num[0] == b'+' && !self.f.plus {
            num[0] = b' ';
        }
        if num[1] == b'I' || num[1] == b'N' {
            let old = self.f.zero;
            self.f.zero = false;
            if num[1] == b'N' && !self.f.space && !self.f.plus {
                num.remove(0);
            }
            self.pad(&num);
            self.f.zero = old;
            return;
        }
        if self.f.sharp && verb != b'b' {
            let mut digits: i32 = 0;
            if matches!(verb, b'v' | b'g' | b'G' | b'x') {
                digits = if prec == -1 { 6 } else { prec };
            }
            let mut tail: Vec<u8> = Vec::new();
            let mut has_point = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                let c = num[i];
                match c {
                    b'.' => has_point = true,
                    b'p' | b'P' => {
                        tail.extend_from_slice(&num[i..]);
                        num.truncate(i);
                        break;
                    }
                    b'e' | b'E' if verb != b'x' && verb != b'X' => {
                        tail.extend_from_slice(&num[i..]);
                        num.truncate(i);
                        break;
                    }
                    _ => {
                        if c != b'0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_point {
                if num.len() == 2 && num[1] == b'0' {
                    digits -= 1;
                }
                num.push(b'.');
            }
            while digits > 0 {
                num.push(b'0');
                digits -= 1;
            }
            num.extend_from_slice(&tail);
        }
        if self.f.plus || num[0] != b'+' {
            if self.f.zero && self.f.wid_present && self.f.wid > num.len() {
                self.buf.push(num[0]);
                self.write_padding(self.f.wid - num.len());
                self.buf.extend_from_slice(&num[1..]);
                return;
            }
            self.pad(&num);
            return;
        }
        self.pad(&num[1..]);
    }

    // ---- dispatch (Go print.go) ---------------------------------------------------

    fn bad_verb(&mut self, v: &Value, verb: char) {
        self.buf.extend_from_slice(b"%!");
        push_char(&mut self.buf, verb);
        self.buf.push(b'(');
        if v.is_nil() {
            self.buf.extend_from_slice(b"<nil>");
        } else {
            self.buf.extend_from_slice(v.type_name().as_bytes());
            self.buf.push(b'=');
            self.print_value(v, 'v', 0);
        }
        self.buf.push(b')');
    }

    fn fmt_bool(&mut self, v: &Value, b: bool, verb: char) {
        match verb {
            't' | 'v' => self.fmt_boolean(b),
            _ => self.bad_verb(v, verb),
        }
    }

    fn fmt_0x64(&mut self, u: u64, leading0x: bool) {
        let sharp = self.f.sharp;
        self.f.sharp = leading0x;
        self.fmt_integer(u, 16, false, 'v', LDIGITS);
        self.f.sharp = sharp;
    }

    fn fmt_int_verb(&mut self, v: &Value, u: u64, signed: bool, verb: char) {
        match verb {
            'v' => {
                if self.f.sharp_v && !signed {
                    self.fmt_0x64(u, true);
                } else {
                    self.fmt_integer(u, 10, signed, verb, LDIGITS);
                }
            }
            'd' => self.fmt_integer(u, 10, signed, verb, LDIGITS),
            'b' => self.fmt_integer(u, 2, signed, verb, LDIGITS),
            'o' | 'O' => self.fmt_integer(u, 8, signed, verb, LDIGITS),
            'x' => self.fmt_integer(u, 16, signed, verb, LDIGITS),
            'X' => self.fmt_integer(u, 16, signed, verb, UDIGITS),
            'c' => self.fmt_c(u),
            'q' => self.fmt_qc(u),
            'U' => self.fmt_unicode(u),
            _ => self.bad_verb(v, verb),
        }
    }

    fn fmt_float_verb(&mut self, v: &Value, x: f64, verb: char) {
        match verb {
            'v' => self.fmt_float(x, b'g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => self.fmt_float(x, verb as u8, -1),
            'f' | 'e' | 'E' => self.fmt_float(x, verb as u8, 6),
            'F' => self.fmt_float(x, b'f', 6),
            _ => self.bad_verb(v, verb),
        }
    }

    fn fmt_string(&mut self, v: &Value, s: &[u8], verb: char) {
        match verb {
            'v' => {
                if self.f.sharp_v {
                    self.fmt_q(s);
                } else {
                    self.fmt_s(s);
                }
            }
            's' => self.fmt_s(s),
            'x' => self.fmt_sbx(s, LDIGITS),
            'X' => self.fmt_sbx(s, UDIGITS),
            'q' => self.fmt_q(s),
            _ => self.bad_verb(v, verb),
        }
    }

    fn fmt_bytes(&mut self, b: &[u8], verb: char, type_string: &str, depth: usize) {
        match verb {
            'v' | 'd' => {
                if self.f.sharp_v {
                    self.buf.extend_from_slice(type_string.as_bytes());
                    self.buf.push(b'{');
                    for (i, &c) in b.iter().enumerate() {
                        if i > 0 {
                            self.buf.extend_from_slice(b", ");
                        }
                        self.fmt_0x64(u64::from(c), true);
                    }
                    self.buf.push(b'}');
                } else {
                    self.buf.push(b'[');
                    for (i, &c) in b.iter().enumerate() {
                        if i > 0 {
                            self.buf.push(b' ');
                        }
                        self.fmt_integer(u64::from(c), 10, false, verb, LDIGITS);
                    }
                    self.buf.push(b']');
                }
            }
            's' => self.fmt_s(b),
            'x' => self.fmt_sbx(b, LDIGITS),
            'X' => self.fmt_sbx(b, UDIGITS),
            'q' => self.fmt_q(b),
            _ => {
                // Any other verb applies to each byte as a uint8.
                self.buf.push(b'[');
                for (i, &c) in b.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(b' ');
                    }
                    let e = Value::Uint(u64::from(c), super::value::UintType::Uint8);
                    self.print_value(&e, verb, depth + 1);
                }
                self.buf.push(b']');
            }
        }
    }

    /// Go `printArg`: a top-level operand.
    fn print_arg(&mut self, v: &Value, verb: char) {
        if v.is_nil() {
            match verb {
                'T' | 'v' => self.pad_str("<nil>"),
                _ => self.bad_verb(v, verb),
            }
            return;
        }
        match verb {
            'T' => {
                let t = v.type_name();
                self.fmt_s(t.as_bytes());
                return;
            }
            'p' => {
                self.fmt_pointer(v, 'p');
                return;
            }
            _ => {}
        }
        self.print_value(v, verb, 0);
    }

    /// `%p`: Go prints the address of reference values; there is none to print here,
    /// so a fixed plausible address stands in for it.
    fn fmt_pointer(&mut self, v: &Value, verb: char) {
        match v {
            Value::Map(_) | Value::List(_) | Value::Bytes(_) | Value::Object(_) => {
                self.fmt_0x64(0x00c0_0001_0000, !self.f.sharp);
            }
            _ => self.bad_verb(v, verb),
        }
    }

    /// Go `printValue`: an operand or a value nested `depth` levels inside one.
    fn print_value(&mut self, v: &Value, verb: char, depth: usize) {
        match v {
            Value::Nil => {
                if depth == 0 {
                    // Only reached from `bad_verb` of a nil operand's element; Go
                    // prints a nil interface this way.
                    self.buf.extend_from_slice(b"<nil>");
                } else if self.f.sharp_v {
                    self.buf.extend_from_slice(b"interface {}(nil)");
                } else {
                    self.buf.extend_from_slice(b"<nil>");
                }
            }
            Value::Bool(b) => self.fmt_bool(v, *b, verb),
            Value::Int(i, _) => self.fmt_int_verb(v, *i as u64, true, verb),
            Value::Uint(u, _) => self.fmt_int_verb(v, *u, false, verb),
            Value::Float(x) => self.fmt_float_verb(v, *x, verb),
            Value::String(s) => self.fmt_string(v, &super::gostr::to_bytes(s), verb),
            Value::Bytes(b) => {
                let ty = if depth == 0 { "[]byte" } else { "[]uint8" };
                self.fmt_bytes(b, verb, ty, depth);
            }
            Value::List(l) => {
                if self.f.sharp_v {
                    self.buf.extend_from_slice(l.ty().go_name().as_bytes());
                    if l.is_nil() {
                        self.buf.extend_from_slice(b"(nil)");
                        return;
                    }
                    self.buf.push(b'{');
                    for (i, e) in l.iter().enumerate() {
                        if i > 0 {
                            self.buf.extend_from_slice(b", ");
                        }
                        self.print_value(e, verb, depth + 1);
                    }
                    self.buf.push(b'}');
                } else {
                    self.buf.push(b'[');
                    for (i, e) in l.iter().enumerate() {
                        if i > 0 {
                            self.buf.push(b' ');
                        }
                        self.print_value(e, verb, depth + 1);
                    }
                    self.buf.push(b']');
                }
            }
            Value::Map(m) => {
                if self.f.sharp_v {
                    self.buf.extend_from_slice(m.ty().go_name().as_bytes());
                    self.buf.push(b'{');
                } else {
                    self.buf.extend_from_slice(b"map[");
                }
                // Keys in byte order, which is Go's `fmtsort` order for strings.
                let entries = m.entries();
                for (i, (k, val)) in entries.iter().enumerate() {
                    if i > 0 {
                        if self.f.sharp_v {
                            self.buf.extend_from_slice(b", ");
                        } else {
                            self.buf.push(b' ');
                        }
                    }
                    let key = Value::str(k.as_str());
                    self.print_value(&key, verb, depth + 1);
                    self.buf.push(b':');
                    self.print_value(val, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { b'}' } else { b']' });
            }
            Value::Object(o) => {
                let text = o.fmt_v(self.f.plus_v);
                match verb {
                    'x' => self.fmt_sbx(text.as_bytes(), LDIGITS),
                    'X' => self.fmt_sbx(text.as_bytes(), UDIGITS),
                    'q' => self.fmt_q(text.as_bytes()),
                    _ => self.fmt_s(text.as_bytes()),
                }
            }
        }
    }

    // ---- Printf -----------------------------------------------------------------

    /// Go `argNumber`: an explicit `[n]` index at `format[i..]`.
    fn arg_number(
        &mut self,
        arg_num: usize,
        format: &[u8],
        i: usize,
        num_args: usize,
    ) -> (usize, usize, bool) {
        if format.len() <= i || format[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(&format[i..]);
        if ok && index >= 0 && (index as usize) < num_args {
            return (index as usize, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    fn do_printf(&mut self, format: &str, args: &[Value]) {
        let fmt = format.as_bytes();
        let end = fmt.len();
        let mut arg_num = 0usize;
        let mut after_index;
        self.reordered = false;
        let mut i = 0usize;
        'format: while i < end {
            self.good_arg_num = true;
            let lasti = i;
            while i < end && fmt[i] != b'%' {
                i += 1;
            }
            if i > lasti {
                self.buf.extend_from_slice(&fmt[lasti..i]);
            }
            if i >= end {
                break;
            }
            i += 1;

            self.f = Flags::default();
            while i < end {
                match fmt[i] {
                    b'#' => self.f.sharp = true,
                    // Zero padding only ever applies on the left.
                    b'0' => self.f.zero = !self.f.minus,
                    b'+' => self.f.plus = true,
                    b'-' => {
                        self.f.minus = true;
                        self.f.zero = false;
                    }
                    b' ' => self.f.space = true,
                    _ => break,
                }
                i += 1;
            }

            (arg_num, i, after_index) = self.arg_number(arg_num, fmt, i, args.len());

            if i < end && fmt[i] == b'*' {
                i += 1;
                let (w, ok, next) = int_from_arg(args, arg_num);
                arg_num = next;
                self.f.wid_present = ok;
                if !ok {
                    self.buf.extend_from_slice(b"%!(BADWIDTH)");
                }
                if w < 0 {
                    self.f.minus = true;
                    self.f.zero = false;
                }
                self.f.wid = w.unsigned_abs() as usize;
                after_index = false;
            } else {
                let (w, ok, ni) = parse_num(fmt, i, end);
                self.f.wid = w;
                self.f.wid_present = ok;
                i = ni;
                if after_index && self.f.wid_present {
                    self.good_arg_num = false;
                }
            }

            if i + 1 < end && fmt[i] == b'.' {
                i += 1;
                if after_index {
                    self.good_arg_num = false;
                }
                (arg_num, i, after_index) = self.arg_number(arg_num, fmt, i, args.len());
                if i < end && fmt[i] == b'*' {
                    i += 1;
                    let (p, ok, next) = int_from_arg(args, arg_num);
                    arg_num = next;
                    self.f.prec_present = ok;
                    self.f.prec = if p < 0 { 0 } else { p as usize };
                    if p < 0 {
                        self.f.prec_present = false;
                    }
                    if !self.f.prec_present {
                        self.buf.extend_from_slice(b"%!(BADPREC)");
                    }
                    after_index = false;
                } else {
                    let (p, ok, ni) = parse_num(fmt, i, end);
                    i = ni;
                    self.f.prec = p;
                    self.f.prec_present = true;
                    if !ok {
                        self.f.prec = 0;
                    }
                }
            }

            if !after_index {
                (arg_num, i, after_index) = self.arg_number(arg_num, fmt, i, args.len());
            }
            let _ = after_index;

            if i >= end {
                self.buf.extend_from_slice(b"%!(NOVERB)");
                break 'format;
            }

            let (verb, size) = match format[i..].chars().next() {
                Some(c) => (c, c.len_utf8()),
                None => break 'format,
            };
            i += size;

            if verb == '%' {
                self.buf.push(b'%');
            } else if !self.good_arg_num {
                self.buf.extend_from_slice(b"%!");
                push_char(&mut self.buf, verb);
                self.buf.extend_from_slice(b"(BADINDEX)");
            } else if arg_num >= args.len() {
                self.buf.extend_from_slice(b"%!");
                push_char(&mut self.buf, verb);
                self.buf.extend_from_slice(b"(MISSING)");
            } else {
                if verb == 'v' || verb == 'w' {
                    self.f.sharp_v = self.f.sharp;
                    self.f.sharp = false;
                    self.f.plus_v = self.f.plus;
                    self.f.plus = false;
                }
                if verb == 'w' {
                    // `%w` is only meaningful in `fmt.Errorf`.
                    self.bad_verb(&args[arg_num], verb);
                } else {
                    self.print_arg(&args[arg_num], verb);
                }
                arg_num += 1;
            }
        }

        if !self.reordered && arg_num < args.len() {
            self.f = Flags::default();
            self.buf.extend_from_slice(b"%!(EXTRA ");
            for (k, a) in args[arg_num..].iter().enumerate() {
                if k > 0 {
                    self.buf.extend_from_slice(b", ");
                }
                if a.is_nil() {
                    self.buf.extend_from_slice(b"<nil>");
                } else {
                    self.buf.extend_from_slice(a.type_name().as_bytes());
                    self.buf.push(b'=');
                    self.print_arg(a, 'v');
                }
            }
            self.buf.push(b')');
        }
    }
}

fn push_char(buf: &mut Vec<u8>, c: char) {
    let mut tmp = [0u8; 4];
    buf.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
}

/// The rune Go's `%c`/`%q` print for an integer: invalid code points (surrogates,
/// negatives, beyond U+10FFFF) become U+FFFD.
fn rune_or_replacement(c: u64) -> char {
    u32::try_from(c)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}')
}

/// Go `parsenum`: decimal digits at `s[start..end]`; on overflow the whole rest of
/// the format is consumed.
fn parse_num(s: &[u8], start: usize, end: usize) -> (usize, bool, usize) {
    if start >= end {
        return (0, false, end);
    }
    let mut num: i64 = 0;
    let mut isnum = false;
    let mut i = start;
    while i < end && s[i].is_ascii_digit() {
        if !(-TOO_LARGE..=TOO_LARGE).contains(&num) {
            return (0, false, end);
        }
        num = num * 10 + i64::from(s[i] - b'0');
        isnum = true;
        i += 1;
    }
    (num as usize, isnum, i)
}

/// Go `parseArgNumber`: `[n]` at the start of `s`, returned zero-based, with the
/// number of bytes consumed.
fn parse_arg_number(s: &[u8]) -> (i64, usize, bool) {
    if s.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..s.len() {
        if s[i] == b']' {
            let (w, ok, newi) = parse_num(s, 1, i);
            if !ok || newi != i {
                return (0, i + 1, false);
            }
            return (w as i64 - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

/// Go `intFromArg`: the `*` width or precision operand, which must be an integer.
fn int_from_arg(args: &[Value], arg_num: usize) -> (i64, bool, usize) {
    let mut new_arg_num = arg_num;
    let mut num = 0i64;
    let mut is_int = false;
    if let Some(a) = args.get(arg_num) {
        match a {
            Value::Int(i, _) => {
                num = *i;
                is_int = true;
            }
            Value::Uint(u, _) => {
                if let Ok(i) = i64::try_from(*u) {
                    num = i;
                    is_int = true;
                }
            }
            _ => {}
        }
        new_arg_num = arg_num + 1;
        if !(-TOO_LARGE..=TOO_LARGE).contains(&num) {
            num = 0;
            is_int = false;
        }
    }
    (num, is_int, new_arg_num)
}

#[cfg(test)]
pub(crate) mod testlit;
#[cfg(test)]
mod tests;
