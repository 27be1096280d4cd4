//! The command line: flag definitions and dispatch to the library. Exit codes follow
//! ripgrep's convention: 0 success, 1 findings (or a failed render), 2 usage, config
//! or input errors.

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
    /// Render a Helm chart exactly as `helm template` would (Helm 3 or 4).
    Template(Box<template::TemplateArgs>),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
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
