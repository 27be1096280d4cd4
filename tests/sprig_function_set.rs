//! The Sprig functions of the string, conversion, math, list, dict, default,
//! reflection, path, regex, semver and URL families are registered for every program
//! stackproof imitates, under exactly Sprig's names (taken from `genericMap` in Sprig
//! 3.2.3 and 3.3.0, which agree on these families), and the version-specific ones
//! differ where the Go dependencies differ; and every function registered for Helm 3,
//! Helm 4 or Helmfile is exercised by a fixture in `testdata/funcs/`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use stackproof::funcs::{helm_registry, helmfile_registry, Flavor};
use stackproof::template::{FuncDef, FuncImpl, LanguageLevel, Registry, Value};

const NAMES: &[&str] = &[
    "hello",
    "abbrev",
    "abbrevboth",
    "trunc",
    "trim",
    "upper",
    "lower",
    "title",
    "untitle",
    "substr",
    "repeat",
    "trimall",
    "trimAll",
    "trimSuffix",
    "trimPrefix",
    "nospace",
    "initials",
    "swapcase",
    "shuffle",
    "snakecase",
    "camelcase",
    "kebabcase",
    "wrap",
    "wrapWith",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "quote",
    "squote",
    "cat",
    "indent",
    "nindent",
    "replace",
    "plural",
    "toString",
    "atoi",
    "int64",
    "int",
    "float64",
    "seq",
    "toDecimal",
    "split",
    "splitList",
    "splitn",
    "toStrings",
    "until",
    "untilStep",
    "add1",
    "add",
    "sub",
    "div",
    "mod",
    "mul",
    "add1f",
    "addf",
    "subf",
    "divf",
    "mulf",
    "biggest",
    "max",
    "min",
    "maxf",
    "minf",
    "ceil",
    "floor",
    "round",
    "join",
    "sortAlpha",
    "default",
    "empty",
    "coalesce",
    "all",
    "any",
    "compact",
    "mustCompact",
    "ternary",
    "deepCopy",
    "mustDeepCopy",
    "typeOf",
    "typeIs",
    "typeIsLike",
    "kindOf",
    "kindIs",
    "deepEqual",
    "base",
    "dir",
    "clean",
    "ext",
    "isAbs",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "tuple",
    "list",
    "dict",
    "get",
    "set",
    "unset",
    "hasKey",
    "pluck",
    "keys",
    "pick",
    "omit",
    "merge",
    "mergeOverwrite",
    "mustMerge",
    "mustMergeOverwrite",
    "values",
    "append",
    "push",
    "mustAppend",
    "mustPush",
    "prepend",
    "mustPrepend",
    "first",
    "mustFirst",
    "rest",
    "mustRest",
    "last",
    "mustLast",
    "initial",
    "mustInitial",
    "reverse",
    "mustReverse",
    "uniq",
    "mustUniq",
    "without",
    "mustWithout",
    "has",
    "mustHas",
    "slice",
    "mustSlice",
    "concat",
    "dig",
    "chunk",
    "mustChunk",
    "semver",
    "semverCompare",
    "regexMatch",
    "mustRegexMatch",
    "regexFindAll",
    "mustRegexFindAll",
    "regexFind",
    "mustRegexFind",
    "regexReplaceAll",
    "mustRegexReplaceAll",
    "regexReplaceAllLiteral",
    "mustRegexReplaceAllLiteral",
    "regexSplit",
    "mustRegexSplit",
    "regexQuoteMeta",
    "urlParse",
    "urlJoin",
];

fn registries() -> Vec<(&'static str, Registry)> {
    vec![
        ("helm3", helm_registry(Flavor::Helm3)),
        ("helm4", helm_registry(Flavor::Helm4)),
        ("helmfile", helmfile_registry()),
    ]
}

fn call(r: &Registry, name: &str, args: &[Value]) -> String {
    let Some(def) = r.get(name) else {
        return format!("{name} missing");
    };
    match def.imp {
        FuncImpl::Plain(f) => match f(args) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("ERR {e}"),
        },
        FuncImpl::Ctx(_) => format!("{name} needs a context"),
    }
}

#[test]
fn every_family_function_is_registered() {
    for (which, r) in registries() {
        for name in NAMES {
            // Helmfile shadows Sprig's `get` with its own path-based one.
            if which == "helmfile" && *name == "get" {
                continue;
            }
            assert!(r.contains(name), "{which}: {name} is not registered");
        }
    }
}

#[test]
fn dependency_versions_follow_the_program() {
    let [h3, h4, hf] = [
        helm_registry(Flavor::Helm3),
        helm_registry(Flavor::Helm4),
        helmfile_registry(),
    ];
    let s = |x: &str| Value::str(x);
    // xstrings 1.4 vs 1.5.
    assert_eq!(call(&h3, "camelcase", &[s("HTTPServer")]), "\"HTTPServer\"");
    assert_eq!(call(&hf, "camelcase", &[s("HTTPServer")]), "\"HTTPServer\"");
    assert_eq!(call(&h4, "camelcase", &[s("HTTPServer")]), "\"Httpserver\"");
    // semver 3.2.1 vs 3.5.0.
    let c = [s(">=1.20.0-0 <1.21.0"), s("1.20.5-rc.1")];
    assert_eq!(call(&h3, "semverCompare", &c), "false");
    assert_eq!(call(&h4, "semverCompare", &c), "true");
}

/// The functions each fixture group calls: Helm fixtures (`testdata/funcs/*.txt`) by
/// language level, Helmfile fixtures (`testdata/funcs/helmfile/*.txt`).
fn fixture_calls() -> [BTreeSet<String>; 3] {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/funcs");
    let mut calls: [BTreeSet<String>; 3] = Default::default();
    for (sub, helmfile) in [(dir.clone(), false), (dir.join("helmfile"), true)] {
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.extension().is_none_or(|x| x != "txt") {
                continue;
            }
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let text = std::fs::read_to_string(&path).expect("read fixture");
            let fx = common::parse_fixture(name, &text);
            let group = match (helmfile, fx.level) {
                (true, _) => 2,
                (false, LanguageLevel::Go122) => 0,
                (false, _) => 1,
            };
            for (_, t) in &fx.templates {
                calls[group].extend(common::funcs::action_words(t));
            }
        }
    }
    calls
}

fn impl_addr(d: &FuncDef) -> usize {
    match d.imp {
        FuncImpl::Plain(f) => f as usize,
        FuncImpl::Ctx(f) => f as usize,
    }
}

/// Whether two registrations are the same Go function (name, signature, code).
fn same_def(a: &FuncDef, b: &FuncDef) -> bool {
    a.name == b.name
        && a.sig.params == b.sig.params
        && a.sig.variadic == b.sig.variadic
        && impl_addr(a) == impl_addr(b)
}

/// Every function of every program stackproof imitates is called by a fixture of
/// that program (a Helm 3, Helm 4 or Helmfile fixture), or by a fixture of another
/// program that registers the very same function; the fixture runner and the oracle
/// check then hold it to the real program's output.
#[test]
fn every_registered_function_has_a_fixture() {
    let registries = registries();
    let calls = fixture_calls();
    let mut missing = Vec::new();
    for (i, (which, reg)) in registries.iter().enumerate() {
        for name in reg.names() {
            let Some(def) = reg.get(name) else { continue };
            let covered = calls[i].contains(name)
                || registries.iter().enumerate().any(|(j, (_, other))| {
                    j != i
                        && calls[j].contains(name)
                        && other.get(name).is_some_and(|d| same_def(d, def))
                });
            if !covered {
                missing.push(format!("{which}: {name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "registered functions without a fixture:\n{}",
        missing.join("\n")
    );
}

/// The coverage scanner sees calls, not strings, fields or variables.
#[test]
fn action_words_are_calls_and_bare_words() {
    let words = common::funcs::action_words(
        r#"x {{ upper "lower" | quote }} {{- $v := .Values.trim }}{{ printf `%s` (b64enc $v) 1e5 }} {{/* b64dec */}}"#,
    );
    assert_eq!(words, vec!["upper", "quote", "printf", "b64enc"]);
}
