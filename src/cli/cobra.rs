//! `stackproof helmfile`'s command line read the way helmfile's cobra and pflag
//! read it, then handed to clap in a form clap parses the same way.
//!
//! Cobra finds the subcommand first, skipping the flags before it by a rough rule
//! (`--flag value` and `-f value` take the next word unless the root knows the
//! flag as a boolean; a `--flag=value` or a group like `-qe` takes none), then
//! parses every flag, before or after the subcommand, as that subcommand's. So
//! `helmfile --output json list` works, `helmfile -qe prod list` fails ("prod" is
//! taken for the subcommand), and words that are not flags are left to the
//! subcommand, which helmfile's `list`, `write-values` and `template` ignore.
//! Clap alone would reject the first and accept the second. pflag's rules apply
//! to values as well: the last of a repeated single-valued flag wins, a boolean
//! takes `--flag=false`, a group `-qeprod` ends in its value.
//!
//! Cobra's errors are helmfile's text and helmfile's exit code 3. The flags are
//! stackproof's (clap's definitions): its own (`--chart-source`, `--overlay`, ...)
//! are read by the same rules.

use clap::{ArgAction, Args};

use super::helmfile::HelmfileArgs;

/// Helmfile 0.166's commands in the order it adds them (the order cobra suggests
/// them in), `completion` last; `help` is never suggested.
const HELMFILE_COMMANDS: &[&str] = &[
    "init",
    "apply",
    "build",
    "cache",
    "deps",
    "destroy",
    "fetch",
    "list",
    "repos",
    "lint",
    "write-values",
    "test",
    "template",
    "sync",
    "diff",
    "status",
    "show-dag",
    "version",
    "charts",
    "delete",
    "completion",
];

/// How pflag treats a flag.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A boolean (`NoOptDefVal` "true"): alone it is true, `--flag=V` parses V.
    Bool,
    /// A value that may be left out (`--skip-needs`, `--skip-needs=false`).
    OptionalBool,
    /// One value; the last one given wins.
    Single,
    /// Repeatable; every value is kept.
    Multi,
    /// `-h`/`--help`.
    Help,
}

struct Flag {
    long: String,
    short: Option<char>,
    kind: Kind,
    /// pflag's `int` (`--concurrency`): values are checked as Go parses them.
    int: bool,
}

impl Flag {
    /// How pflag names the flag in `invalid argument` errors.
    fn display(&self) -> String {
        match self.short {
            Some(c) => format!("-{c}, --{}", self.long),
            None => format!("--{}", self.long),
        }
    }

    fn takes_no_value(&self) -> bool {
        matches!(self.kind, Kind::Bool | Kind::OptionalBool | Kind::Help)
    }
}

fn flags_of(cmd: &clap::Command) -> Vec<Flag> {
    cmd.get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?.to_string();
            let optional = a
                .get_num_args()
                .is_some_and(|r| r.min_values() == 0 && r.max_values() == 1);
            // A flag that may take a value (`--skip-needs=false`) is given one
            // always: its default need not be false.
            let kind = match a.get_action() {
                _ if optional => Kind::OptionalBool,
                ArgAction::SetTrue | ArgAction::SetFalse => Kind::Bool,
                ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong => Kind::Help,
                ArgAction::Append => Kind::Multi,
                _ => Kind::Single,
            };
            Some(Flag {
                long,
                short: a.get_short(),
                kind,
                int: a.get_value_parser().type_id() == std::any::TypeId::of::<i64>(),
            })
        })
        .collect()
}

/// The `helmfile` command with its subcommands, global flags propagated.
fn helmfile_command() -> clap::Command {
    let mut cmd = HelmfileArgs::augment_args(clap::Command::new("helmfile"));
    cmd.build();
    cmd
}

/// Cobra's `stripFlags` as `Find` uses it: the position of the first word that
/// names the command, skipping each flag's value by the root's flags.
fn command_word(args: &[String], root: &[Flag]) -> Option<usize> {
    let no_value_long = |name: &str| root.iter().any(|f| f.long == name && f.takes_no_value());
    let no_value_short = |c: &str| {
        root.iter()
            .any(|f| f.short.is_some_and(|s| c.starts_with(s)) && f.takes_no_value())
    };
    let mut i = 0;
    while i < args.len() {
        let s = args[i].as_str();
        i += 1;
        if s == "--" {
            return None;
        }
        let takes_next = (s.starts_with("--") && !s.contains('=') && !no_value_long(&s[2..]))
            || (s.starts_with('-')
                && !s.starts_with("--")
                && !s.contains('=')
                && s.len() == 2
                && !no_value_short(&s[1..]));
        if takes_next {
            if args.len() - i <= 1 {
                return None;
            }
            i += 1;
            continue;
        }
        if !s.is_empty() && !s.starts_with('-') {
            return Some(i - 1);
        }
    }
    None
}

/// Cobra's Levenshtein distance (case-insensitive).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `unknown command "X" for "helmfile"` with cobra's suggestions.
fn unknown_command(word: &str) -> String {
    let suggestions: Vec<&str> = HELMFILE_COMMANDS
        .iter()
        .copied()
        .filter(|c| distance(word, c) <= 2 || c.starts_with(&word.to_lowercase()))
        .collect();
    let mut msg = format!("unknown command {word:?} for \"helmfile\"");
    if !suggestions.is_empty() {
        msg.push_str("\n\nDid you mean this?\n");
        for s in suggestions {
            msg.push_str(&format!("\t{s}\n"));
        }
    }
    msg
}

/// The flags given, in the order first seen, with pflag's final values.
#[derive(Default)]
struct Given {
    order: Vec<usize>,
    values: Vec<Vec<String>>,
    help: bool,
}

impl Given {
    fn set(&mut self, flags: &[Flag], at: usize, value: &str) -> Result<(), String> {
        let f = &flags[at];
        let invalid = |reason: String| super::goflags::invalid(value, &f.display(), &reason);
        let value = match f.kind {
            Kind::Bool | Kind::OptionalBool | Kind::Help => super::goflags::parse_bool(value)
                .map_err(invalid)?
                .to_string(),
            _ if f.int => super::goflags::parse_int(value)
                .map_err(invalid)?
                .to_string(),
            _ => value.to_string(),
        };
        if f.kind == Kind::Help {
            self.help = value == "true";
            return Ok(());
        }
        if self.values.len() < flags.len() {
            self.values.resize(flags.len(), Vec::new());
        }
        if !self.order.contains(&at) {
            self.order.push(at);
        }
        let slot = &mut self.values[at];
        if f.kind != Kind::Multi {
            slot.clear();
        }
        slot.push(value);
        Ok(())
    }
}

/// pflag's `Parse` of `args` against `flags`: errors as pflag words them.
/// Words that are not flags are dropped (helmfile's commands take none).
fn parse(args: &[String], flags: &[Flag]) -> Result<Given, String> {
    let mut given = Given::default();
    let mut i = 0;
    while i < args.len() {
        let s = args[i].as_str();
        i += 1;
        if s.len() < 2 || !s.starts_with('-') {
            continue;
        }
        if s == "--" {
            break;
        }
        if let Some(name) = s.strip_prefix("--") {
            if name.starts_with(['-', '=']) {
                return Err(format!("bad flag syntax: {s}"));
            }
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (name, None),
            };
            let Some(at) = flags.iter().position(|f| f.long == name) else {
                return Err(format!("unknown flag: --{name}"));
            };
            let value = match inline {
                Some(v) => v.to_string(),
                None if flags[at].takes_no_value() => "true".to_string(),
                None if i < args.len() => {
                    i += 1;
                    args[i - 1].clone()
                }
                None => return Err(format!("flag needs an argument: {s}")),
            };
            given.set(flags, at, &value)?;
            continue;
        }
        // A group of shorthands: each takes the rest of the group or, last in the
        // group, the next word as its value when it needs one.
        let mut rest: &str = &s[1..];
        while let Some(c) = rest.chars().next() {
            let Some(at) = flags.iter().position(|f| f.short == Some(c)) else {
                return Err(format!("unknown shorthand flag: '{c}' in -{rest}"));
            };
            let after = &rest[c.len_utf8()..];
            let value = if let Some(v) = after.strip_prefix('=').filter(|_| after.len() > 1) {
                rest = "";
                v.to_string()
            } else if flags[at].takes_no_value() {
                rest = after;
                "true".to_string()
            } else if !after.is_empty() {
                rest = "";
                after.to_string()
            } else if i < args.len() {
                i += 1;
                rest = "";
                args[i - 1].clone()
            } else {
                return Err(format!("flag needs an argument: '{c}' in -{rest}"));
            };
            given.set(flags, at, &value)?;
        }
    }
    Ok(given)
}

/// The words clap is given for `stackproof helmfile ARGS` (without `helmfile`):
/// the subcommand, then every flag as `--name=value`; `args` unchanged when cobra
/// would not run one of stackproof's subcommands (help, no subcommand, a helmfile
/// command stackproof lacks: clap reports those). `Err` is cobra's error message,
/// which helmfile prints as it is and exits 3 with.
pub fn helmfile_argv(args: &[String]) -> Result<Vec<String>, String> {
    let cmd = helmfile_command();
    let root = flags_of(&cmd);
    let Some(at) = command_word(args, &root) else {
        // The root command itself: only its flags' errors are cobra's.
        parse(args, &root)?;
        return Ok(args.to_vec());
    };
    let word = args[at].as_str();
    let Some(sub) = cmd.find_subcommand(word).filter(|_| word != "help") else {
        if word == "help" || HELMFILE_COMMANDS.contains(&word) {
            return Ok(args.to_vec());
        }
        return Err(unknown_command(word));
    };
    let flags = flags_of(sub);
    let rest: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, a)| a.clone())
        .collect();
    let given = parse(&rest, &flags)?;
    let mut out = vec![word.to_string()];
    if given.help {
        out.push("--help".to_string());
        return Ok(out);
    }
    for &i in &given.order {
        let f = &flags[i];
        for v in &given.values[i] {
            match f.kind {
                Kind::Bool if v == "true" => out.push(format!("--{}", f.long)),
                Kind::Bool | Kind::Help => {}
                _ => out.push(format!("--{}={v}", f.long)),
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Result<Vec<String>, String> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        helmfile_argv(&args)
    }

    fn ok(s: &str) -> String {
        argv(s)
            .map(|v| v.join(" "))
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn subcommand_flags_before_the_subcommand() {
        assert_eq!(ok("--output json list"), "list --output=json");
        assert_eq!(ok("--set x=1 template"), "template --set=x=1");
        assert_eq!(
            ok("--output-file-template out/x.yaml write-values"),
            "write-values --output-file-template=out/x.yaml"
        );
        assert_eq!(
            ok("--output json -l name=a list"),
            "list --output=json --selector=name=a"
        );
        assert_eq!(ok("--skip-tests=true template"), "template --skip-tests");
        // The root does not know `--skip-tests`: it takes `template` as its value.
        assert_eq!(
            ok("--skip-tests template"),
            "ERR unknown flag: --skip-tests"
        );
    }

    #[test]
    fn stray_words_are_ignored() {
        assert_eq!(ok("list extra"), "list");
        assert_eq!(ok("list -- extra --output json"), "list");
        assert_eq!(ok("- list"), "list");
        assert_eq!(
            ok("template --skip-needs false"),
            "template --skip-needs=true"
        );
    }

    #[test]
    fn shorthand_groups() {
        assert_eq!(
            ok("-qe default list"),
            "ERR unknown command \"default\" for \"helmfile\""
        );
        assert_eq!(
            ok("-q -e default list"),
            "list --quiet --environment=default"
        );
        assert_eq!(ok("-qedefault list"), "list --quiet --environment=default");
        assert_eq!(ok("-e= list"), "list --environment==");
        assert_eq!(ok("list -qe"), "ERR flag needs an argument: 'e' in -e");
        assert_eq!(ok("list -qx"), "ERR unknown shorthand flag: 'x' in -x");
    }

    #[test]
    fn pflag_values() {
        assert_eq!(ok("-e a list -e b"), "list --environment=b");
        assert_eq!(
            ok("-l a=1 list -l b=2"),
            "list --selector=a=1 --selector=b=2"
        );
        assert_eq!(ok("--quiet=false list"), "list");
        assert_eq!(
            ok("list --quiet=x"),
            "ERR invalid argument \"x\" for \"-q, --quiet\" flag: strconv.ParseBool: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            ok("template --concurrency=x"),
            "ERR invalid argument \"x\" for \"--concurrency\" flag: strconv.ParseInt: parsing \"x\": invalid syntax"
        );
        assert_eq!(ok("template --concurrency -1"), "template --concurrency=-1");
        assert_eq!(ok("list --output"), "ERR flag needs an argument: --output");
        assert_eq!(ok("list ---x"), "ERR bad flag syntax: ---x");
        assert_eq!(ok("list --bogus"), "ERR unknown flag: --bogus");
        assert_eq!(ok("--bogus=1 list"), "ERR unknown flag: --bogus");
        assert_eq!(ok("list --help=false"), "list");
        assert_eq!(ok("--help list"), "list --help");
        // stackproof's own flags are read the same way.
        assert_eq!(
            ok("--chart-source a template --allow-exec"),
            "template --chart-source=a --allow-exec"
        );
    }

    #[test]
    fn unknown_commands_and_suggestions() {
        assert_eq!(
            ok("lis"),
            "ERR unknown command \"lis\" for \"helmfile\"\n\nDid you mean this?\n\tlist\n\tlint\n"
        );
        assert_eq!(ok("hel"), "ERR unknown command \"hel\" for \"helmfile\"");
        // Helmfile's commands that stackproof lacks, help and the bare root are
        // clap's to report.
        assert_eq!(ok("sync --bogus"), "sync --bogus");
        assert_eq!(ok("help list"), "help list");
        assert_eq!(ok("-- list"), "-- list");
        assert_eq!(ok("--bogus"), "ERR unknown flag: --bogus");
    }
}
