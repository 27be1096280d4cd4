//! Unit tests for the YAML codec's public API (behaviour verified against Helm and
//! Helmfile; see `testdata/yaml/` for the data-driven cases).

use super::*;

fn helm(text: &str) -> Result<Value, YamlError> {
    decode(text, &DecodeOptions::HELM_MAP)
}

fn hf(text: &str) -> Result<Value, YamlError> {
    decode(text, &DecodeOptions::HELMFILE_MAP)
}

#[test]
fn helm_numbers_are_floats() {
    let v = helm("a: 1\nb: 1.5\nc: 0777\nd: on\n1: x\n").expect("decode");
    assert_eq!(
        format!("{v:?}"),
        r#"{"1": "x", "a": float64(1.0), "b": float64(1.5), "c": float64(511.0), "d": true}"#
    );
}

#[test]
fn helmfile_numbers_are_ints() {
    let v = hf("a: 1\nb: 12345678901234567890\nc: .inf\n").expect("decode");
    assert_eq!(
        format!("{v:?}"),
        r#"{"a": 1, "b": uint64(12345678901234567890), "c": float64(inf)}"#
    );
}

#[test]
fn syntax_error_texts() {
    let e = helm("a: b: c").expect_err("error");
    assert_eq!(
        e.message,
        "error converting YAML to JSON: yaml: mapping values are not allowed in this context"
    );
    let e = hf("a: 1\nb: c: d\n").expect_err("error");
    assert_eq!(
        e.message,
        "yaml: line 2: mapping values are not allowed in this context"
    );
}

#[test]
fn strict_duplicates() {
    let opts = DecodeOptions::HELMFILE_MAP.strict();
    let e = decode("a: 1\na: 2\n", &opts).expect_err("dup");
    assert_eq!(
        e.message,
        "yaml: unmarshal errors:\n  line 2: key \"a\" already set in map"
    );
    let e = decode("b: &b {x: 1}\nc:\n  <<: *b\n  x: 2\n", &opts).expect_err("merge dup");
    assert_eq!(
        e.message,
        "yaml: unmarshal errors:\n  line 4: key \"x\" already set in map"
    );
}

#[test]
fn encode_v2_basics() {
    let v = hf("b: [1, x]\na: {}\nc: \"on\"\nd: \"line1\\nline2\"\n").expect("decode");
    assert_eq!(
        encode_v2(&v).expect("encode"),
        "a: {}\nb:\n- 1\n- x\nc: \"on\"\nd: |-\n  line1\n  line2\n"
    );
}

#[test]
fn helm_to_yaml_goes_through_json() {
    let v = helm("a: 1000000\nb: 1e21\nc: 0.00001\n").expect("decode");
    assert_eq!(
        helm_to_yaml(&v).expect("encode"),
        "a: 1000000\nb: 1e+21\nc: 1e-05\n"
    );
}

#[test]
fn spans_point_at_keys() {
    let text = "a:\n  b: 1\n  c: [x, y]\n";
    let (_, spans) = decode_with_spans(text, &DecodeOptions::HELM_MAP).expect("decode");
    let p = vec![
        PathSeg::Key("a".into()),
        PathSeg::Key("c".into()),
        PathSeg::Index(1),
    ];
    let s = spans.get(&p).expect("span");
    assert_eq!(&text[s.value.range()], "y");
    let p = vec![PathSeg::Key("a".into()), PathSeg::Key("b".into())];
    let s = spans.get(&p).expect("span");
    assert_eq!(s.key.map(|k| &text[k.range()]), Some("b"));
}
