//! Tests for the JSON codec. The golden cases in `testdata/json/` were rendered by
//! Helm 3.15.3 and Helm 4.3.1 (see `testdata/json/gen.sh`) and are replayed here
//! through the function tables, with each Helm's decoding dialect.

use super::*;
use crate::funcs::json::{HELM4_FUNCS, HELM_FUNCS, SPRIG_FUNCS};
use crate::template::fmt::testlit::eval_case;
use crate::template::{FuncDef, FuncImpl};

fn lookup(tables: &[&[FuncDef]], name: &str) -> Option<FuncDef> {
    tables
        .iter()
        .find_map(|t| t.iter().find(|d| d.name == name).copied())
}

fn replay(case: &str, tables: &[&[FuncDef]]) -> String {
    let ext = |name: &str, args: &[Value]| -> Option<Value> {
        if name == "repeat" {
            let n = match args.first() {
                Some(Value::Int(n, _)) => *n as usize,
                _ => 0,
            };
            let s = args.get(1).and_then(Value::as_str).unwrap_or("");
            return Some(Value::str(s.repeat(n)));
        }
        let def = lookup(tables, name)?;
        let FuncImpl::Plain(f) = def.imp else {
            return None;
        };
        Some(match f(args) {
            Ok(v) => v,
            Err(e) => Value::str(format!("ERROR: {e}")),
        })
    };
    eval_case(case, &ext)
}

#[test]
fn golden_cases_match_helm3_and_helm4() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/json");
    let helm3: &[&[FuncDef]] = &[HELM_FUNCS, SPRIG_FUNCS];
    let helm4: &[&[FuncDef]] = &[HELM4_FUNCS, SPRIG_FUNCS];
    let mut failures = Vec::new();
    let mut n = 0;
    for name in ["encode", "decode"] {
        let text = std::fs::read_to_string(format!("{dir}/{name}.golden")).expect("golden");
        for line in text.lines() {
            let mut cols = line.split('\t');
            let case = cols.next().expect("case");
            for (label, tables) in [("v3", helm3), ("v4", helm4)] {
                let want: String =
                    serde_json::from_str(cols.next().expect("column")).expect("json");
                let got = replay(case, tables);
                n += 1;
                if got != want {
                    failures.push(format!(
                        "[{label}] {case}\n   got: {got:?}\n  want: {want:?}"
                    ));
                }
            }
        }
    }
    assert!(n > 250, "too few golden cases: {n}");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn floats_use_go_json_layout() {
    let cases: &[(f64, &str)] = &[
        (0.0, "0"),
        (-0.0, "-0"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-10, "1.5e-10"),
        (1e-100, "1e-100"),
        (123456789.0, "123456789"),
        (12345678901234567890.0, "12345678901234567000"),
    ];
    for &(f, want) in cases {
        assert_eq!(encode_float(f).as_deref(), Ok(want), "{f}");
    }
    assert_eq!(
        encode_float(f64::NAN).map_err(|e| e.to_string()),
        Err("json: unsupported value: NaN".to_string())
    );
}

#[test]
fn bytes_encode_as_base64() {
    for (raw, want) in [
        (&b""[..], "\"\""),
        (b"a", "\"YQ==\""),
        (b"ab", "\"YWI=\""),
        (b"abc", "\"YWJj\""),
        (b"\xff\xfe\xfd\x00", "\"//79AA==\""),
    ] {
        let v = Value::Bytes(std::sync::Arc::from(raw));
        assert_eq!(encode(&v, true).as_deref(), Ok(want));
    }
}

#[test]
fn nil_lists_are_null_empty_ones_are_not() {
    let nil = Value::List(List::nil(ListType::Interface));
    assert_eq!(encode(&nil, true).as_deref(), Ok("null"));
    assert_eq!(encode(&Value::list(vec![]), true).as_deref(), Ok("[]"));
    assert_eq!(encode_indent(&nil, "", "  ").as_deref(), Ok("null"));
}

#[test]
fn indent_uses_prefix_after_newlines_only() {
    let v = crate::vmap! {"a" => Value::list(vec![Value::int(1), Value::int(2)])};
    assert_eq!(
        encode_indent(&v, ">", "\t").as_deref(),
        Ok("{\n>\t\"a\": [\n>\t\t1,\n>\t\t2\n>\t]\n>}")
    );
}

#[test]
fn self_containing_maps_are_reported_not_followed() {
    let m = Map::new();
    m.insert("self", Value::Map(m.clone()));
    let e = encode(&Value::Map(m.clone()), true).map_err(|e| e.to_string());
    assert_eq!(
        e,
        Err("json: unsupported value: encountered a cycle via map[string]interface {}".to_string())
    );
    // Break the cycle so the map can be freed.
    m.remove("self");
}

#[test]
fn decode_into_typed_targets() {
    assert_eq!(
        decode_into_map("[1]", Dialect::V1)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err(
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
                .to_string()
        )
    );
    assert_eq!(
        decode_into_list("{}", Dialect::V2)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err("json: cannot unmarshal object into Go value of type []interface {}".to_string())
    );
    let m = decode_into_map(r#"{"a":{"b":[true,null,"x"]},"a":{"c":1}}"#, Dialect::V1);
    assert_eq!(
        m.map(|m| crate::template::fmt::format_value(&Value::Map(m)))
            .ok()
            .as_deref(),
        Some("map[a:map[c:1]]")
    );
    let l = decode_into_list("null", Dialect::V1).ok();
    assert!(l.is_some_and(|l| l.is_nil()));
    assert!(matches!(decode(" 1.5e3 ", Dialect::V1), Ok(Value::Float(f)) if f == 1500.0));
    assert!(matches!(decode("\"\\u00e9\\/\"", Dialect::V1), Ok(Value::String(s)) if &*s == "é/"));
}

#[test]
fn deep_nesting_is_limited_without_overflowing_the_stack() {
    // Decoding is iterative, but dropping a 10000-level value recurses through the
    // value model, which needs more than a test thread's default stack.
    let run = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(deep_nesting_checks)
        .expect("thread");
    assert!(run.join().is_ok());
}

fn deep_nesting_checks() {
    let ok = format!("{}1{}", "[".repeat(10000), "]".repeat(10000));
    assert!(decode(&ok, Dialect::V1).is_ok());
    let deep = format!("{}1{}", "[".repeat(10001), "]".repeat(10001));
    assert_eq!(
        decode(&deep, Dialect::V1)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err("invalid character '[' exceeded max depth".to_string())
    );
    assert_eq!(
        decode(&deep, Dialect::V2)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err("exceeded max depth".to_string())
    );
}
