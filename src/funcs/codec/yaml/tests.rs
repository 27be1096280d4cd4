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

#[test]
fn resolved_documents_apply_merges_and_keep_text() {
    let text = "base: &b {a: 1, v: 1.10}\nr:\n  <<: *b\n  a: 2\n---\nx: y\n";
    let docs = resolve_documents(text, false).expect("resolve");
    assert_eq!(docs.len(), 2);
    let Some(RNode {
        kind: RKind::Map(top),
        ..
    }) = &docs[0]
    else {
        panic!("map expected")
    };
    let r = &top[1];
    assert_eq!((r.key_text.as_str(), r.key_line), ("r", 2));
    let RKind::Map(entries) = &r.value.kind else {
        panic!("map expected")
    };
    // The merged keys come first; the explicit `a` replaces the merged value in place.
    let shown: Vec<String> = entries
        .iter()
        .map(|e| match &e.value.kind {
            RKind::Scalar { text, tag, .. } => {
                format!("{}={text}{tag}@{}", e.key_text, e.value.line)
            }
            other => format!("{}={other:?}", e.key_text),
        })
        .collect();
    assert_eq!(shown, vec!["a=2!!int@4", "v=1.10!!float@1"]);
    let e = resolve_documents(text, true).expect_err("strict");
    assert_eq!(
        e.message,
        "yaml: unmarshal errors:\n  line 4: key \"a\" already set in map"
    );
}

#[test]
fn v2_json_keys_keeps_scalar_types() {
    let opts = DecodeOptions {
        mode: Mode::V2JsonKeys,
        strict: false,
    };
    let v = decode("version: 1.10\n1: x\non: 2\n", &opts).expect("decode");
    assert_eq!(
        format!("{v:?}"),
        r#"{"1": "x", "true": 2, "version": float64(1.1)}"#
    );
    let e = decode("~: x\n", &opts).expect_err("null key");
    assert_eq!(
        e.message,
        "error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: \"x\""
    );
}

#[test]
fn spans_follow_last_write() {
    let text = "a: {b: 1}\na: 2\nc: &x {d: [q]}\ne: *x\nf:\n  <<: *x\n  g: 3\n";
    let (_, spans) = decode_with_spans(text, &DecodeOptions::HELMFILE_MAP).expect("decode");
    let k =
        |p: &[&str]| -> Vec<PathSeg> { p.iter().map(|s| PathSeg::Key(s.to_string())).collect() };
    // `a` was replaced by a scalar: its old child is gone, its span is the new value.
    assert!(!spans.contains_key(&k(&["a", "b"])));
    let a = spans.get(&k(&["a"])).expect("a");
    assert_eq!(&text[a.value.range()], "2");
    assert_eq!(
        a.key
            .map(|s| crate::source::line_col(text, s.start as usize).0),
        Some(2)
    );
    // Values reached through an alias or a merge point at the anchored text.
    let mut p = k(&["e", "d"]);
    p.push(PathSeg::Index(0));
    let ed = spans.get(&p).expect("e.d.0");
    assert_eq!(crate::source::line_col(text, ed.value.start as usize).0, 3);
    let fd = spans.get(&k(&["f", "d"])).expect("f.d");
    assert_eq!(&text[fd.value.range()], "[q]");
    let fg = spans.get(&k(&["f", "g"])).expect("f.g");
    assert_eq!(&text[fg.value.range()], "3");
    assert_eq!(
        &text[spans.get(&Vec::new()).expect("root").value.range()].len(),
        &text.trim_end().len()
    );
}

/// Random YAML-ish inputs must never panic, in any mode, and whatever decodes must
/// re-encode.
#[test]
fn random_inputs_do_not_panic() {
    const ALPHABET: &[&str] = &[
        "a",
        "b",
        "1",
        "0x",
        "-",
        "- ",
        ": ",
        ":",
        "?",
        "? ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "\n",
        "\n  ",
        "  ",
        "\t",
        "#",
        "&a ",
        "*a",
        "!!int ",
        "!!str ",
        "!",
        "<<: ",
        "'",
        "\"",
        "\\",
        "|",
        ">",
        "|-",
        "---\n",
        "...\n",
        "%YAML 1.1\n",
        "~",
        "null",
        "yes",
        ".inf",
        "é",
        "😀",
        "\r\n",
        "\u{1}",
        "\u{feff}",
        "%",
        "@",
        "`",
        "0777",
        "1e3",
        "2024-01-01",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let modes = [
        DecodeOptions::HELM_MAP,
        DecodeOptions::HELMFILE_MAP.strict(),
        DecodeOptions {
            mode: Mode::V2,
            strict: false,
        },
        DecodeOptions {
            mode: Mode::V2JsonKeys,
            strict: true,
        },
    ];
    for _ in 0..3000 {
        let len = (next() % 24) as usize;
        let text: String = (0..len)
            .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
            .collect();
        for opts in &modes {
            if let Ok((v, _)) = decode_with_spans(&text, opts) {
                let _ = encode_v2(&v);
                let _ = helm_to_yaml(&v);
                let _ = encode_v3_pretty(&v);
            }
            let _ = decode_documents(&text, opts);
        }
        let _ = resolve_documents(&text, true);
    }
}

/// `toYaml` builds what yaml.v2 re-reads from the JSON text directly when it can
/// (`json::reread_by_yaml_v2`); on every value it accepts, the YAML must be the
/// bytes the JSON text path gives. Values are drawn from a seeded generator over
/// scalars chosen for the re-read's pitfalls.
#[test]
fn to_yaml_shortcut_matches_the_json_text_path() {
    use crate::template::value::{IntType, List, ListType, Map, UintType};
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    let long = "k".repeat(1030);
    let strings: Vec<String> = [
        "",
        "a",
        "true",
        "1",
        "0x1F",
        "1e3",
        "~",
        "null",
        "<<",
        "a: b",
        "- x",
        "#c",
        " lead",
        "trail ",
        "\t",
        "\n",
        "\r\n",
        "\u{85}",
        "\u{2028}",
        "é",
        "日本",
        "\u{7f}",
        "\u{feff}",
        "\u{fffe}",
        "\u{10000}",
        "\"q\"",
        "\\",
        "<>&",
        "\u{0}",
        "\u{1b}",
        "{}",
        "[]",
        "'",
        "`",
        ":",
        "? x",
        "%x",
        "@x",
        "|",
        ">",
        "*a",
        "&a",
        "!t",
        "2001-12-14",
        "0o17",
        "+1",
        ".5",
        "1_000",
        "1:20",
        "Yes",
        "off",
        "=",
        "-",
        "---",
        "...",
        "a\u{a0}b",
        "\u{9f}",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([long.clone(), format!("{long}\u{85}")])
    .collect();
    let floats = [
        0.0,
        -0.0,
        1.0,
        1.5,
        1e6,
        1e21,
        1e20,
        9.223_372_036_854_776e18,
        1.8446744073709552e19,
        1e-7,
        123456789.123,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -3.0,
        f64::NAN,
        f64::INFINITY,
    ];
    let ints = [0, -1, i64::MIN, i64::MAX, 42];
    let uints = [0, u64::MAX, 1 << 63, 7];

    fn value(
        rng: &mut ChaCha20Rng,
        depth: u32,
        s: &[String],
        f: &[f64],
        i: &[i64],
        u: &[u64],
    ) -> Value {
        let pick = |rng: &mut ChaCha20Rng, n: usize| (rng.next_u32() as usize) % n;
        let top = if depth >= 4 { 8 } else { 11 };
        match pick(rng, top) {
            0 => Value::Nil,
            1 => Value::Bool(rng.next_u32() % 2 == 0),
            2 => Value::Int(i[pick(rng, i.len())], IntType::Int64),
            3 => Value::Uint(u[pick(rng, u.len())], UintType::Uint64),
            4 | 5 => Value::Float(f[pick(rng, f.len())]),
            6 | 7 => Value::str(s[pick(rng, s.len())].as_str()),
            8 => {
                if rng.next_u32() % 5 == 0 {
                    Value::List(List::nil(ListType::Interface))
                } else {
                    let n = pick(rng, 4);
                    Value::list((0..n).map(|_| value(rng, depth + 1, s, f, i, u)).collect())
                }
            }
            _ => {
                let m = Map::new();
                for _ in 0..pick(rng, 5) {
                    let k = s[pick(rng, s.len())].clone();
                    m.insert(k, value(rng, depth + 1, s, f, i, u));
                }
                Value::Map(m)
            }
        }
    }

    let text = |r: Result<String, YamlError>| r.map_err(|e| e.to_string());
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let (mut shortcut, mut total) = (0, 0);
    for _ in 0..20_000 {
        let v = value(&mut rng, 0, &strings, &floats, &ints, &uints);
        total += 1;
        if let Some(go) = json::reread_by_yaml_v2(&v) {
            shortcut += 1;
            assert_eq!(
                text(encode_go(&go)),
                text(helm_to_yaml_through_json(&v)),
                "value {v:?}"
            );
        }
    }
    // The comparison above must have run on many values, and plain values must take
    // the shortcut.
    assert!(shortcut > total / 4, "shortcut taken {shortcut} of {total}");
    let plain = crate::vmap! {"a" => 1.0, "b" => "x", "c" => Value::list(vec![Value::from(true)])};
    assert!(json::reread_by_yaml_v2(&plain).is_some());
}
