//! `stackproof rules`: documentation of the assertion kinds (`list`, `explain KIND`,
//! `readme` for `rules/README.md`).

use crate::rules::{assert, docs};

/// Arguments of `stackproof rules`.
#[derive(clap::Args, Debug, Clone)]
pub struct RulesArgs {
    #[command(subcommand)]
    pub command: RulesCommand,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum RulesCommand {
    /// List the assertion kinds.
    List,
    /// Explain an assertion kind: what it checks, why, an example.
    Explain {
        /// The kind (`san-covers`).
        kind: String,
    },
    /// Print the rule reference (`rules/README.md`).
    Readme,
}

/// `stackproof rules`.
pub fn run(args: &RulesArgs) -> i32 {
    match &args.command {
        RulesCommand::List => {
            print!("{}", docs::list());
            0
        }
        RulesCommand::Explain { kind } => match assert::kind(kind) {
            Some(k) => {
                print!("{}", docs::explain(k));
                0
            }
            None => {
                eprintln!(
                    "error: unknown assertion kind `{kind}`; known kinds: {}",
                    assert::KINDS
                        .iter()
                        .map(|k| k.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                2
            }
        },
        RulesCommand::Readme => {
            print!("{}", docs::readme());
            0
        }
    }
}
