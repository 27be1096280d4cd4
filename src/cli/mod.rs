//! The command line: flag definitions and dispatch to the library. Exit codes follow
//! ripgrep's convention: 0 success, 1 findings (or a failed render), 2 usage, config
//! or input errors.

mod cobra;
mod fastargs;
mod goflags;
pub mod render;
pub mod repro;
pub mod template;

use clap::{Parser, Subcommand};

pub mod check;
pub mod diff;
pub mod helmfile;
pub mod rules_cmd;
pub mod schema;

/// Prove Helm charts and Helmfile stacks correct before they ship.
#[derive(Parser, Debug)]
#[command(name = "stackproof", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the version and exit.
    Version,
    /// Render every cell of every target and check the rules on it.
    Check(check::CheckArgs),
    /// Show what a change does to rendered output: releases, values and manifests of
    /// every cell, against a git revision or another directory.
    Diff(diff::DiffArgs),
    /// Print or write the JSON Schemas of the configuration and of rule files.
    Schema(schema::SchemaArgs),
    /// Explain the assertion kinds rules can use.
    Rules(rules_cmd::RulesArgs),
    /// Execute one Go template file with data and print the output.
    Render(render::RenderArgs),
    /// Render a Helmfile stack natively (`list`, `write-values`, `template`).
    Helmfile(Box<helmfile::HelmfileArgs>),
    #[command(about = TEMPLATE_ABOUT, args_override_self = true)]
    Template(Box<template::TemplateArgs>),
}

const TEMPLATE_ABOUT: &str = "Render a Helm chart exactly as `helm template` would (Helm 3 or 4).";

/// Parses the command line as [`Cli::try_parse_from`] would.
///
/// `stackproof template ...` is how a pre-commit hook or a script calls it once per
/// chart, so its start-up is paid per chart: building the flags of every command
/// was about 4% of rendering a typical chart. The common command lines are read
/// without clap ([`fastargs`]); for the others, [`TemplateOnly`] builds the top
/// level and `template` only, with the same attributes, so help, errors and parsed
/// flags are the same (`fast_template_parse_is_the_full_parse`).
pub fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    if let Some(t) = fastargs::template_args(&args) {
        return Ok(Cli {
            command: Command::Template(Box::new(t)),
        });
    }
    if args.get(1).and_then(|a| a.to_str()) == Some("template") {
        let TemplateOnly {
            command: TemplateOnlyCommand::Template(t),
        } = TemplateOnly::try_parse_from(args)?;
        return Ok(Cli {
            command: Command::Template(t),
        });
    }
    Cli::try_parse_from(args)
}

/// [`Cli`] with only its `template` command (see [`parse_args`]); the attributes
/// must stay those of `Cli` and `Command::Template`.
#[derive(Parser, Debug)]
#[command(name = "stackproof", version, about, long_about = None)]
struct TemplateOnly {
    #[command(subcommand)]
    command: TemplateOnlyCommand,
}

#[derive(Subcommand, Debug)]
enum TemplateOnlyCommand {
    #[command(about = TEMPLATE_ABOUT, args_override_self = true)]
    Template(Box<template::TemplateArgs>),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).and_then(|a| a.to_str()) == Some("helmfile") {
        // Helmfile's words are read as cobra reads them (see `cobra`); words that
        // are not UTF-8 are left to clap.
        let words: Option<Vec<String>> = argv[2..]
            .iter()
            .map(|a| a.to_str().map(String::from))
            .collect();
        if let Some(words) = words {
            match cobra::helmfile_argv(&words) {
                Ok(words) => {
                    argv.truncate(2);
                    argv.extend(words.into_iter().map(Into::into));
                }
                Err(message) => {
                    // Helmfile prints cobra's errors as they are and exits 3.
                    eprintln!("{message}");
                    return 3;
                }
            }
        }
    }
    let cli = match parse_args(argv.clone()) {
        Ok(c) => c,
        Err(e) => {
            if let Some(line) = helm_unknown_flag(&e, &argv) {
                eprintln!("Error: {line}");
                return 2;
            }
            if let Some(help) = helmfile_without_command(&e, &argv) {
                let _ = help.print();
                return 0;
            }
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Version => {
            println!("stackproof {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Command::Check(args) => check::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Rules(args) => rules_cmd::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Helmfile(args) => helmfile::run(*args),
        Command::Template(args) => template::run(&args),
    }
}

/// Helmfile run without a command, flags or not, prints its help on stdout and
/// exits 0 (cobra's root command has nothing else to do); a script that probes
/// `helmfile` that way sees the same from `stackproof helmfile`. The help is
/// stackproof's own, for the commands it has.
fn helmfile_without_command(e: &clap::Error, argv: &[std::ffi::OsString]) -> Option<clap::Error> {
    use clap::error::ErrorKind;
    let missing = matches!(
        e.kind(),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if !missing || argv.get(1)?.to_str()? != "helmfile" {
        return None;
    }
    parse_args(["stackproof", "helmfile", "--help"]).err()
}

/// Helm's one-line text for a flag `template` does not know (`unknown flag:
/// --reuse-values`, `unknown shorthand flag: 'o' in -o`), which scripts switching
/// from `helm template` expect, instead of clap's usage block.
fn helm_unknown_flag(e: &clap::Error, argv: &[std::ffi::OsString]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument || argv.get(1)?.to_str()? != "template" {
        return None;
    }
    let ContextValue::String(arg) = e.get(ContextKind::InvalidArg)? else {
        return None;
    };
    if arg.starts_with("--") {
        return Some(format!("unknown flag: {arg}"));
    }
    // A short flag may sit in a group (`-xo`): Helm names the letter and the group.
    let letter = arg.strip_prefix('-')?.chars().next()?;
    let group = argv.iter().skip(2).filter_map(|a| a.to_str()).find(|a| {
        !a.starts_with("--") && a.strip_prefix('-').is_some_and(|g| g.contains(letter))
    })?;
    Some(format!("unknown shorthand flag: '{letter}' in {group}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a parse gives, as text: the parsed flags, or clap's rendered message and
    /// whether it goes to stderr (help and version do not).
    fn outcome(r: Result<Cli, clap::Error>) -> String {
        match r {
            Ok(c) => format!("{c:?}"),
            Err(e) => format!("{} {:?}\n{}", e.use_stderr(), e.kind(), e.render()),
        }
    }

    #[test]
    fn fast_template_parse_is_the_full_parse() {
        let cases: &[&[&str]] = &[
            &["template"],
            &["template", "--help"],
            &["template", "-h"],
            &["template", "--version"],
            &["template", "./chart"],
            &[
                "template", "rel", "./chart", "-n", "ns", "-f", "a.yaml", "--set", "a=1",
            ],
            &["template", "--bogus", "./chart"],
            &["template", "rel", "./chart", "--helm-version", "5"],
            &["template", "a", "b", "c"],
            &["template", "--set"],
            &["template", "./chart", "--show-only"],
            &["template", "./chart", "--seed", "x"],
            &["template", "--", "--chart"],
        ];
        for case in cases {
            let argv: Vec<&str> = std::iter::once("stackproof")
                .chain(case.iter().copied())
                .collect();
            assert_eq!(
                outcome(parse_args(&argv)),
                outcome(Cli::try_parse_from(&argv)),
                "{case:?}"
            );
        }
    }
}
