//! Go's `fmt` and `strconv` printing, for template values.
//!
//! Everything a template prints goes through Go's `%v` rules (`map[a:1 b:2]`, `[1 2]`,
//! `<nil>`, `1e+06`), and `printf` exposes the full verb and flag language, so byte
//! identity with Helm depends on reproducing `fmt` exactly, including its error
//! notations (`%!d(string=x)`, `%!(EXTRA int=1)`).
//!
//! NOTE: placeholder implementations; the full verb set is being built.

use super::value::Value;

/// Go `fmt.Sprint`: operands printed with `%v`, with a space between two operands
/// when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, Value::String(_)) && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        out.push_str(&format_value(a));
    }
    out
}

/// Go `fmt.Sprintln`: operands with `%v`, always space-separated, newline appended.
pub fn sprintln(args: &[Value]) -> String {
    let mut out = args.iter().map(format_value).collect::<Vec<_>>().join(" ");
    out.push('\n');
    out
}

/// Go `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let _ = args;
    format.to_string()
}

/// Go `%v` of a value.
pub fn format_value(v: &Value) -> String {
    match v {
        Value::Nil => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i, _) => i.to_string(),
        Value::Uint(u, _) => u.to_string(),
        Value::Float(f) => format_float(*f, b'g', -1),
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => format!(
            "[{}]",
            b.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Value::List(l) => format!(
            "[{}]",
            l.iter().map(format_value).collect::<Vec<_>>().join(" ")
        ),
        Value::Map(m) => format!(
            "map[{}]",
            m.entries()
                .iter()
                .map(|(k, v)| format!("{k}:{}", format_value(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Value::Object(o) => o.fmt_v(false),
    }
}

/// Go `strconv.FormatFloat(f, fmt, prec, 64)` for `fmt` in `b'e'`, `b'f'`, `b'g'`
/// (`prec` -1 means the shortest representation that round-trips).
pub fn format_float(f: f64, fmt: u8, prec: i32) -> String {
    let _ = (fmt, prec);
    if f == f.trunc() && f.abs() < 1e21 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// Go `strconv.Quote`.
pub fn quote(s: &str) -> String {
    format!("{s:?}")
}
