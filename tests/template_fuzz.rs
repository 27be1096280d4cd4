//! Property test: the lexer, parser and executor never panic, whatever the input.
//!
//! Feeds random bytes, random token soup, mutated fixture templates and pathological
//! nesting to the parser (and runs whatever parses), with a small seeded PRNG so
//! failures reproduce. Any panic fails the test with the offending input.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use stackproof::funcs::control;
use stackproof::template::{
    ErrorKind, Host, LanguageLevel, MissingKey, Options, Registry, TemplateSet,
};

/// xorshift64*: tiny, seeded, good enough to shake inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{{", "}}", "{{-", "-}}", " ", "(", ")", "|", "$", "$x", ":=", "=", ".", ".a", ".Values",
    ".b.c", "\"s\"", "`r`", "'c'", "1", "-2", "0x1F", "1e3", "1_0", "if", "else", "end", "range",
    "with", "define", "template", "block", "break", "continue", "nil", "true", "and", "or", "not",
    "eq", "len", "index", "printf", "print", "include", "tpl", "required", "\n", "/*", "*/", ",",
    "\"x\"", "$y", "é", "\t", "\\", "\"",
];

fn set() -> TemplateSet {
    let mut reg = Registry::new();
    reg.register(control::HELM3);
    TemplateSet::new(
        "gotpl",
        Arc::new(reg),
        Options::new(LanguageLevel::Go122, MissingKey::Zero),
    )
}

fn data() -> stackproof::template::Value {
    common::yaml_to_value("a: 1\nb: {c: [1, x, null]}\nValues: {x: y, l: [1, 2]}\n")
}

/// Parses and, when that works, executes `text`; panics propagate.
fn exercise(text: &str) {
    let mut s = set();
    if s.parse("t", text).is_ok() {
        let _ = s.execute("t", &data(), &Host::default());
    }
}

fn check(text: &str) {
    let r = catch_unwind(AssertUnwindSafe(|| exercise(text)));
    assert!(r.is_ok(), "panic on input {text:?}");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x5EED_0001);
    for _ in 0..3000 {
        let len = rng.below(60);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn token_soup_never_panics() {
    let mut rng = Rng(0x5EED_0002);
    for _ in 0..6000 {
        let n = rng.below(24);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
        check(&s);
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/template");
    let mut templates = Vec::new();
    for e in std::fs::read_dir(dir).expect("fixtures").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "txt") {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            let fx = common::parse_fixture(&name, &std::fs::read_to_string(&p).expect("read"));
            templates.extend(fx.templates.into_iter().map(|t| t.1));
        }
    }
    templates.sort();
    let mut rng = Rng(0x5EED_0003);
    for _ in 0..3000 {
        let base = &templates[rng.below(templates.len())];
        let mut chars: Vec<char> = base.chars().collect();
        for _ in 0..=rng.below(4) {
            let at = rng.below(chars.len() + 1);
            match rng.below(3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 if at < chars.len() => {
                    let piece = PIECES[rng.below(PIECES.len())];
                    chars.splice(at..at + 1, piece.chars());
                }
                _ => {
                    let piece = PIECES[rng.below(PIECES.len())];
                    chars.splice(at..at, piece.chars());
                }
            }
        }
        check(&chars.into_iter().collect::<String>());
    }
}

#[test]
fn deep_parens_give_go_error() {
    let text = format!("{{{{ {}1{} }}}}", "(".repeat(100_000), ")".repeat(100_000));
    let err = set().parse("t", &text).expect_err("too deep");
    assert_eq!(err.kind, ErrorKind::Parse);
    assert_eq!(
        err.to_string(),
        "template: t:1: max expression depth exceeded"
    );
}

#[test]
fn deep_control_nesting_works() {
    let n = 20_000;
    let text = format!("{}x{}", "{{if 1}}".repeat(n), "{{end}}".repeat(n));
    let mut s = set();
    s.parse("t", &text).expect("parses");
    assert_eq!(
        s.execute("t", &data(), &Host::default()).expect("runs"),
        "x"
    );
    let unclosed = "{{if 1}}".repeat(n);
    let err = set().parse("t", &unclosed).expect_err("unclosed");
    assert_eq!(err.to_string(), "template: t:1: unexpected EOF");
}

#[test]
fn malformed_inputs_give_clear_errors() {
    let cases: &[(&str, &str)] = &[
        ("{{ .a ", "template: t:1: unclosed action"),
        ("{{ 0x }}", "template: t:1: illegal number syntax: \"0x\""),
        ("{{ 1x }}", "template: t:1: bad number syntax: \"1x\""),
        ("{{ nope }}", "template: t:1: function \"nope\" not defined"),
        ("{{ $u }}", "template: t:1: undefined variable \"$u\""),
        ("{{ break }}", "template: t:1: {{break}} outside {{range}}"),
        ("{{ \"abc }}", "template: t:1: unterminated quoted string"),
        ("{{ 1i }}", ""),
    ];
    for (text, want) in cases {
        let mut s = set();
        match s.parse("t", text) {
            Err(e) => assert_eq!(&e.to_string(), want, "{text}"),
            Ok(()) => {
                // Imaginary constants parse (as in Go) but are refused at execution.
                let e = s
                    .execute("t", &data(), &Host::default())
                    .expect_err("complex");
                assert!(e.to_string().contains("complex constant 1i"), "{e}");
            }
        }
    }
}
