//! `stackproof schema`: the JSON Schemas of `stackproof.yaml` and of rule files,
//! generated from the Rust types that read them (committed under `schemas/`, where a
//! test keeps them current).

use std::path::PathBuf;

use crate::matrix::config::ConfigFile;
use crate::rules::model::RuleFile;

/// Which schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Which {
    Config,
    Rules,
}

/// Arguments of `stackproof schema`.
#[derive(clap::Args, Debug, Clone)]
pub struct SchemaArgs {
    /// Print this schema.
    #[arg(value_enum)]
    pub which: Option<Which>,
    /// Write both schemas into DIR (`config.schema.json`, `rules.schema.json`).
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
}

/// The schema text (pretty JSON with a trailing newline).
pub fn schema_text(which: Which) -> String {
    let schema = match which {
        Which::Config => schemars::schema_for!(ConfigFile),
        Which::Rules => schemars::schema_for!(RuleFile),
    };
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// The file name a schema is committed under.
pub fn file_name(which: Which) -> &'static str {
    match which {
        Which::Config => "config.schema.json",
        Which::Rules => "rules.schema.json",
    }
}

/// `stackproof schema`.
pub fn run(args: &SchemaArgs) -> i32 {
    if let Some(dir) = &args.write {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot create {}: {e}", dir.display());
            return 2;
        }
        for w in [Which::Config, Which::Rules] {
            let path = dir.join(file_name(w));
            if let Err(e) = std::fs::write(&path, schema_text(w)) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return 2;
            }
        }
        return 0;
    }
    match args.which {
        Some(w) => {
            print!("{}", schema_text(w));
            0
        }
        None => {
            eprintln!("error: name a schema (config or rules) or pass --write DIR");
            2
        }
    }
}
