//! `stackproof template ...` read without clap, for the command lines scripts and
//! hooks actually write: words that are the chart (and release name), and the
//! common `helm template` flags in their ordinary spellings.
//!
//! Why: a pre-commit hook or a corpus run starts one process per chart, and clap
//! builds all of `template`'s ninety-odd flags before it reads a word. That took
//! 0.16 ms of a 3 ms render (median of 100 runs, jaeger's chart; timed around the
//! parse in a quick musl build). Reading the words against a table of the common
//! flags takes a few microseconds: a one-template chart 0.87 -> 0.77 ms (`perf
//! stat -r 200`, quick musl builds), corpus median per-case ratio 0.967, and
//! 1/1.026 in the other order (`scripts/ab.py corpus 3`).
//!
//! It never decides anything clap would decide differently: any word it is not
//! sure of (an unknown or help flag, `--`, a value that starts with `-` or is empty,
//! a short flag joined to its value, text that is not UTF-8, a `--helm-version`
//! clap would refuse) makes it give up, and clap parses the whole line as before,
//! errors and help included. The tests compare both parsers over every flag of the
//! table in every spelling it accepts, and check the table against clap's own
//! definitions.

use std::ffi::OsString;

use super::template::TemplateArgs;

/// How a flag takes its value, as clap's definition in [`TemplateArgs`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Repeatable, each value appended (`--set a=1 --set b=2`); `split` is clap's
    /// `value_delimiter = ','`.
    Append { split: bool },
    /// One value, the last given wins (the command's `args_override_self`).
    Set,
    /// Helm's boolean flags: bare is `"true"`, else only `--flag=VALUE`.
    OptBool,
    /// A bare switch (`--pretty-errors`).
    Switch,
}

struct Flag {
    long: &'static str,
    short: Option<char>,
    kind: Kind,
    /// Stores one value, already checked by `valid`.
    set: Setter,
    /// Whether clap's value parser accepts the value (`None`: any text).
    valid: Option<fn(&str) -> bool>,
}

type Setter = fn(&mut TemplateArgs, String);

const fn flag(long: &'static str, short: Option<char>, kind: Kind, set: Setter) -> Flag {
    Flag {
        long,
        short,
        kind,
        set,
        valid: None,
    }
}

const fn append(long: &'static str, short: Option<char>, split: bool, set: Setter) -> Flag {
    flag(long, short, Kind::Append { split }, set)
}

const fn one(long: &'static str, short: Option<char>, set: Setter) -> Flag {
    flag(long, short, Kind::Set, set)
}

const fn opt_bool(long: &'static str, set: Setter) -> Flag {
    flag(long, None, Kind::OptBool, set)
}

impl Flag {
    const fn checked(self, valid: fn(&str) -> bool) -> Flag {
        Flag {
            valid: Some(valid),
            ..self
        }
    }
}

/// The flags read here; every other flag goes to clap.
const FLAGS: &[Flag] = &[
    append("values", Some('f'), true, |a, v| a.values.push(v)),
    append("set", None, false, |a, v| a.set.push(v)),
    append("set-string", None, false, |a, v| a.set_string.push(v)),
    append("set-file", None, false, |a, v| a.set_file.push(v)),
    append("set-json", None, false, |a, v| a.set_json.push(v)),
    append("set-literal", None, false, |a, v| a.set_literal.push(v)),
    one("namespace", Some('n'), |a, v| a.namespace = Some(v)),
    one("kube-version", None, |a, v| a.kube_version = Some(v)),
    append("api-versions", Some('a'), true, |a, v| {
        a.api_versions.push(v)
    }),
    append("show-only", Some('s'), false, |a, v| a.show_only.push(v)),
    opt_bool("include-crds", |a, v| a.include_crds = Some(v)),
    opt_bool("skip-crds", |a, v| a.skip_crds = Some(v)),
    opt_bool("skip-tests", |a, v| a.skip_tests = Some(v)),
    opt_bool("no-hooks", |a, v| a.no_hooks = Some(v)),
    opt_bool("is-upgrade", |a, v| a.is_upgrade = Some(v)),
    opt_bool("release-name", |a, v| a.release_name = Some(v)),
    opt_bool("skip-schema-validation", |a, v| {
        a.skip_schema_validation = Some(v)
    }),
    opt_bool("debug", |a, v| a.debug = Some(v)),
    one("helm-version", None, |a, v| a.helm_version = v).checked(|v| v == "3" || v == "4"),
    flag("pretty-errors", None, Kind::Switch, |a, _| {
        a.pretty_errors = true
    }),
    // Digits only: what else clap's u64 parser takes (a `+`) is left to it.
    one("seed", None, |a, v| a.repro.seed = v.parse().ok())
        .checked(|v| v.bytes().all(|b| b.is_ascii_digit()) && v.parse::<u64>().is_ok()),
    one("now", None, |a, v| a.repro.now = Some(v)),
];

/// `args` (the whole command line, program name first) as clap would parse it,
/// when it is `stackproof template` followed only by words this module reads for
/// certain; `None` otherwise.
pub(crate) fn template_args(args: &[OsString]) -> Option<TemplateArgs> {
    let words: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    if words.get(1) != Some(&"template") {
        return None;
    }
    let mut out = TemplateArgs {
        helm_version: "3".to_string(),
        ..TemplateArgs::default()
    };
    let mut rest = words[2..].iter();
    while let Some(&word) = rest.next() {
        if !word.starts_with('-') {
            out.args.push(word.to_string());
            continue;
        }
        let (flag, inline) = if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            (FLAGS.iter().find(|f| f.long == name)?, inline)
        } else {
            // Only a lone short flag (`-n`); `-nns`, `-n=ns` and groups go to clap.
            let mut chars = word[1..].chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return None;
            };
            let flag = FLAGS.iter().find(|f| f.short == Some(c))?;
            (flag, None)
        };
        let value = match (flag.kind, inline) {
            (Kind::Switch, None) => String::new(),
            (Kind::Switch, Some(_)) => return None,
            (Kind::OptBool, None) => "true".to_string(),
            (Kind::OptBool, Some(v)) => v.to_string(),
            (_, Some(v)) => v.to_string(),
            (_, None) => rest.next()?.to_string(),
        };
        if flag.kind != Kind::Switch && (value.is_empty() || value.starts_with('-')) {
            return None;
        }
        if flag.valid.is_some_and(|ok| !ok(&value)) {
            return None;
        }
        match flag.kind {
            Kind::Append { split: true } => {
                if value.split(',').any(str::is_empty) {
                    return None;
                }
                for part in value.split(',') {
                    (flag.set)(&mut out, part.to_string());
                }
            }
            _ => (flag.set)(&mut out, value),
        }
    }
    if out.args.is_empty() {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{ArgAction, Args, Command, Parser};

    /// clap's parse of the same words, through the full command line.
    fn by_clap(words: &[&str]) -> Result<String, String> {
        let argv: Vec<&str> = ["stackproof"].iter().chain(words).copied().collect();
        match super::super::Cli::try_parse_from(&argv) {
            Ok(super::super::Cli {
                command: super::super::Command::Template(t),
            }) => Ok(format!("{t:?}")),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e.to_string()),
        }
    }

    fn fast(words: &[&str]) -> Option<String> {
        let argv: Vec<OsString> = ["stackproof"]
            .iter()
            .chain(words)
            .map(OsString::from)
            .collect();
        template_args(&argv).map(|t| format!("{t:?}"))
    }

    /// Where the fast parse answers, clap answers the same; returns whether it did.
    fn agrees(words: &[&str]) -> bool {
        match fast(words) {
            Some(f) => {
                assert_eq!(Ok(f), by_clap(words), "{words:?}");
                true
            }
            None => false,
        }
    }

    /// A value each flag's parser accepts, for building command lines.
    fn sample(f: &Flag) -> &'static str {
        match f.long {
            "helm-version" => "4",
            "seed" => "42",
            "now" => "2026-01-01T00:00:00Z",
            _ if f.kind == Kind::OptBool => "false",
            _ => "x=1",
        }
    }

    #[test]
    fn every_spelling_of_every_flag_parses_as_clap_parses_it() {
        let mut answered = 0;
        for f in FLAGS {
            let long = format!("--{}", f.long);
            let v = sample(f);
            let eq = format!("{long}={v}");
            let mut lines: Vec<Vec<&str>> = vec![
                vec!["template", "rel", "./chart", &long],
                vec!["template", "./chart", &eq],
                vec!["template", &eq, "rel", "./chart", &eq],
                vec!["template", "rel", &long, v, "./chart"],
                vec!["template", "./chart", &long, v, &long, "y,z"],
            ];
            let short = f.short.map(|c| format!("-{c}"));
            if let Some(s) = &short {
                lines.push(vec!["template", "./chart", s, v]);
                lines.push(vec!["template", s, "a,b", "./chart", &long, v]);
            }
            for line in &lines {
                answered += usize::from(agrees(line));
            }
        }
        // Each flag answers at least its `--flag=VALUE` lines.
        assert!(answered >= 2 * FLAGS.len(), "answered {answered}");
    }

    #[test]
    fn everything_else_is_left_to_clap() {
        let unsure: &[&[&str]] = &[
            &["template"],
            &["template", "--help"],
            &["template", "-h"],
            &["template", "--version"],
            &["template", "--namespace", "ns"],
            &["template", "./c", "--", "--x"],
            &["template", "./c", "-nns"],
            &["template", "./c", "-n=ns"],
            &["template", "./c", "-n", "-x"],
            &["template", "./c", "--namespace="],
            &["template", "./c", "--namespace"],
            &["template", "./c", "-f", "a,,b"],
            &["template", "./c", "--helm-version", "5"],
            &["template", "./c", "--seed", "+5"],
            &["template", "./c", "--seed", "x"],
            &["template", "./c", "--pretty-errors=true"],
            &["template", "./c", "--include-crds="],
            &["template", "./c", "--reuse-values"],
            &["template", "./c", "--post-renderer", "x"],
            &["check"],
            &["--seed", "1", "template", "./c"],
        ];
        for line in unsure {
            assert_eq!(fast(line), None, "{line:?}");
        }
        assert!(agrees(&["template", "./c"]));
        assert!(agrees(&[
            "template",
            "rel",
            "./c",
            "-n",
            "ns",
            "-f",
            "a.yaml,b.yaml"
        ]));
    }

    /// The table says of each flag what clap's definition says.
    #[test]
    fn the_table_matches_clap() {
        let cmd = TemplateArgs::augment_args(Command::new("template"));
        for f in FLAGS {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(f.long))
                .unwrap_or_else(|| panic!("clap has no --{}", f.long));
            assert_eq!(arg.get_short(), f.short, "--{}", f.long);
            let delim = arg.get_value_delimiter().is_some();
            // At most one value, possibly none: Helm's `--flag[=BOOL]` (what a bare
            // one means is compared by the spelling test above).
            let optional = arg
                .get_num_args()
                .is_some_and(|r| r.min_values() == 0 && r.max_values() == 1);
            let kind = match arg.get_action() {
                ArgAction::Append => Kind::Append { split: delim },
                ArgAction::SetTrue => Kind::Switch,
                ArgAction::Set if optional && arg.is_require_equals_set() => Kind::OptBool,
                ArgAction::Set if !optional && !delim => Kind::Set,
                other => panic!("--{}: unexpected action {other:?}", f.long),
            };
            assert_eq!(kind, f.kind, "--{}", f.long);
        }
    }
}
