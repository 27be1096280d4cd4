//! Times Sprig's key and certificate generators through the public registry:
//! `cargo bench --bench sprig_keys` (debug numbers: `cargo bench --profile dev ...`).
//!
//! Each run uses fresh seeds so the per-seed key cache never answers.

use std::time::Instant;

use stackproof::funcs::{helm_registry, Flavor};
use stackproof::template::{CallCtx, Engine, FuncError, FuncImpl, Host, Value};

struct NoEngine;

impl Engine for NoEngine {
    fn include(&mut self, _: &str, _: &Value) -> Result<String, FuncError> {
        Err(FuncError::call("no engine"))
    }
    fn tpl(&mut self, _: &std::sync::Arc<str>, _: &Value) -> Result<String, FuncError> {
        Err(FuncError::call("no engine"))
    }
    fn current_template(&self) -> String {
        String::new()
    }
}

fn time(label: &str, runs: u64, func: &str, args: &[Value]) {
    let reg = helm_registry(Flavor::Helm3);
    let Some(def) = reg.get(func) else {
        eprintln!("{func} not registered");
        return;
    };
    let FuncImpl::Ctx(f) = def.imp else {
        eprintln!("{func} is not a context function");
        return;
    };
    let mut total = 0.0;
    for seed in 0..runs {
        let host = Host::new(1_000_000 + seed * 7919 + label.len() as u64);
        let mut engine = NoEngine;
        let mut ctx = CallCtx {
            engine: &mut engine,
            host: &host,
        };
        let start = Instant::now();
        if let Err(e) = f(&mut ctx, args) {
            eprintln!("{label}: {e}");
            return;
        }
        total += start.elapsed().as_secs_f64();
    }
    println!(
        "{label:<28} {:>9.1} ms/call ({runs} runs)",
        total * 1000.0 / runs as f64
    );
}

fn main() {
    time(
        "genCA (RSA 2048)",
        10,
        "genCA",
        &[Value::from("ca"), Value::int(365)],
    );
    time(
        "genPrivateKey rsa (4096)",
        5,
        "genPrivateKey",
        &[Value::from("rsa")],
    );
    time(
        "genPrivateKey ecdsa",
        20,
        "genPrivateKey",
        &[Value::from("ecdsa")],
    );
    time(
        "genPrivateKey ed25519",
        20,
        "genPrivateKey",
        &[Value::from("ed25519")],
    );
    time(
        "genPrivateKey dsa",
        3,
        "genPrivateKey",
        &[Value::from("dsa")],
    );
    time("bcrypt (cost 10)", 5, "bcrypt", &[Value::from("pw")]);
}
