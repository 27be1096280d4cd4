//! `stackproof render TEMPLATE_FILE`: runs one Go template file with data, for
//! trying the engine directly and for comparing it with Go by hand.
//!
//! Exit codes: 0 success, 1 execution error, 2 parse error or bad input (unreadable
//! files, undecodable data, bad flags).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use crate::funcs::{helm_registry, helmfile_registry, Flavor};
use crate::source::SourceFile;
use crate::template::{
    ErrorKind, Host, LanguageLevel, MissingKey, Options, Registry, TemplateSet, Value,
};

/// Flags of `stackproof render`.
#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Exit status: 0 on success, 1 when execution fails, 2 when the \
template does not parse or an input cannot be read."
)]
pub struct RenderArgs {
    /// The template file to execute.
    pub template: PathBuf,
    /// Data passed as `.` and `$`: a YAML or JSON file, decoded the way Helm reads
    /// values (every number a float64).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Go's missingkey option: default (or invalid), zero, error.
    #[arg(long, default_value = "default")]
    pub missingkey: String,
    /// The Go release whose template language to imitate: 1.22 (Helm 3, Helmfile)
    /// or 1.27 (Helm 4).
    #[arg(long = "go-level", default_value = "1.22")]
    pub go_level: String,
    /// Remove every `<no value>` from the output, as Helm does.
    #[arg(long = "helm-strip-no-value")]
    pub helm_strip_no_value: bool,
    /// Function set: go (builtins only), helm3, helm4, helmfile.
    #[arg(long, default_value = "helm3")]
    pub funcs: String,
    /// Left and right action delimiters.
    #[arg(long, num_args = 2, value_names = ["LEFT", "RIGHT"])]
    pub delims: Option<Vec<String>>,
    #[command(flatten)]
    pub repro: super::repro::ReproArgs,
}

fn fail_input(msg: String) -> i32 {
    eprintln!("error: {msg}");
    2
}

/// Runs `stackproof render`; returns the exit code.
pub fn run(args: &RenderArgs) -> i32 {
    let Some(missing) = MissingKey::parse(&args.missingkey) else {
        return fail_input(format!("unknown --missingkey value {:?}", args.missingkey));
    };
    let Some(level) = LanguageLevel::parse(&args.go_level) else {
        return fail_input(format!("unknown --go-level value {:?}", args.go_level));
    };
    let registry = match args.funcs.as_str() {
        "go" => Registry::new(),
        "helm3" => helm_registry(Flavor::Helm3),
        "helm4" => helm_registry(Flavor::Helm4),
        "helmfile" => helmfile_registry(),
        other => return fail_input(format!("unknown --funcs value {other:?}")),
    };
    let (seed, now) = match args.repro.resolve() {
        Ok(r) => r,
        Err(e) => return fail_input(e),
    };
    let name = args.template.display().to_string();
    let text = match std::fs::read_to_string(&args.template) {
        Ok(t) => t,
        Err(e) => return fail_input(format!("read {name}: {e}")),
    };
    let data = match &args.data {
        None => Value::Nil,
        Some(p) => {
            let raw = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(e) => return fail_input(format!("read {}: {e}", p.display())),
            };
            let opts = crate::funcs::codec::yaml::DecodeOptions::HELM_MAP;
            match crate::funcs::codec::yaml::decode(&raw, &opts) {
                Ok(v) => v,
                Err(e) => return fail_input(format!("{}: {e}", p.display())),
            }
        }
    };
    let mut options = Options::new(level, missing);
    if let Some(d) = &args.delims {
        options = options.with_delims(&d[0], &d[1]);
    }
    let mut set = TemplateSet::new(&name, Arc::new(registry), options);
    let result = set
        .parse_source(&name, SourceFile::new(name.as_str(), text))
        .and_then(|()| set.execute(&name, &data, &Host::with(seed, now)));
    match result {
        Ok(mut out) => {
            if args.helm_strip_no_value {
                out = out.replace("<no value>", "");
            }
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(out.as_bytes());
            let _ = stdout.flush();
            0
        }
        Err(e) => {
            let shown = e.innermost();
            match shown.editor_position() {
                Some((l, c)) => eprintln!("{}:{l}:{c}: {}", shown.template, e),
                None => eprintln!("{e}"),
            }
            if shown.source.is_some() {
                let mut inner = shown.clone();
                inner.inner = None;
                eprintln!("{:?}", inner.to_report());
            }
            if e.kind == ErrorKind::Parse {
                2
            } else {
                1
            }
        }
    }
}
