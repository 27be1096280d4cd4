//! Scratch tool: decodes a YAML file with each mode and prints results (dev aid).
use stackproof::funcs::codec::yaml::{self, DecodeOptions, HelmTarget, Mode};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("read");
    for (name, opts) in [
        (
            "helm",
            DecodeOptions {
                mode: Mode::Helm(HelmTarget::Any),
                strict: false,
            },
        ),
        ("helmfile", DecodeOptions::HELMFILE_MAP),
        ("helmfile-strict", DecodeOptions::HELMFILE_MAP.strict()),
        (
            "v2-strict",
            DecodeOptions {
                mode: Mode::V2,
                strict: true,
            },
        ),
    ] {
        match yaml::decode(&text, &opts) {
            Ok(v) => println!("{name}: {v:?}"),
            Err(e) => println!("{name}: ERR {:?} line={:?}", e.message, e.line),
        }
    }
}
