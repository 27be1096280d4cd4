//! Tests for Go `fmt`/`strconv` printing. The golden cases in `testdata/fmt/` were
//! rendered by the real Helm binaries (see `testdata/fmt/gen.sh`); each case is a
//! template call (`printf`, `print`, `println`) whose literal arguments this file turns
//! into the values Go would see.

use super::testlit::eval_case;
use super::*;
use crate::template::value::{List, Map, UintType};
use std::sync::Arc;

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
            let got = eval_case(case, &|_, _| None);
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
    // `%s` writes the bytes themselves; the one that is not UTF-8 stays a raw byte.
    let printed = sprintf("%s|%x|%X|%q", &[b.clone(), b.clone(), b.clone(), b.clone()]);
    assert_eq!(
        crate::template::gostr::to_bytes(&printed).as_ref(),
        &b"ab\xff|6162ff|6162FF|\"ab\\xff\""[..]
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
