//! Test support for the function families: running a context function outside a
//! template, with a host and an engine that has nothing to include.

use crate::template::registry::{CtxFn, NullEngine};
use crate::template::{CallCtx, FuncResult, Host, Value};

/// Calls `f` with `args` as a template would, on `host`.
pub fn call(host: &Host, f: CtxFn, args: &[Value]) -> FuncResult {
    let mut engine = NullEngine::default();
    let mut ctx = CallCtx {
        engine: &mut engine,
        host,
    };
    f(&mut ctx, args)
}
