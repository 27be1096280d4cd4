//! The Sprig functions of the string, conversion, math, list, dict, default,
//! reflection, path, regex, semver and URL families are registered for every program
//! stackproof imitates, under exactly Sprig's names (taken from `genericMap` in Sprig
//! 3.2.3 and 3.3.0, which agree on these families), and the version-specific ones
//! differ where the Go dependencies differ.

use stackproof::funcs::{helm_registry, helmfile_registry, Flavor};
use stackproof::template::{FuncImpl, Registry, Value};

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

/// Every function of these families has a fixture `testdata/funcs/NAME.txt` (its
/// expected output is checked against helm by the fixture runner).
#[test]
fn every_family_function_has_a_fixture() {
    use stackproof::funcs::{
        conversion, defaults, dicts, lists, math, paths, reflection, regex, semver, strings, url,
    };
    let tables: &[&[stackproof::template::FuncDef]] = &[
        strings::FUNCS,
        strings::FUNCS_SPRIG_3_2,
        strings::FUNCS_SPRIG_3_3,
        conversion::FUNCS,
        math::FUNCS,
        lists::FUNCS,
        dicts::FUNCS,
        dicts::FUNCS_MERGO_0_3_13,
        dicts::FUNCS_MERGO_0_3_16,
        defaults::FUNCS,
        reflection::FUNCS,
        paths::FUNCS,
        regex::FUNCS,
        semver::FUNCS_SEMVER_3_2,
        semver::FUNCS_SEMVER_3_5,
        url::FUNCS,
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/funcs");
    let mut missing: Vec<&str> = tables
        .iter()
        .flat_map(|t| t.iter().map(|d| d.name))
        .filter(|name| !dir.join(format!("{name}.txt")).exists())
        .collect();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "functions without a fixture: {missing:?}"
    );
}
