//! Test support for the function families: running a context function outside a
//! template, with a host and an engine that has nothing to include.

use crate::template::registry::CtxFn;
use crate::template::{CallCtx, Engine, FuncError, FuncResult, Host, Value};

/// An engine with no templates: `include` and `tpl` fail.
pub struct NoEngine;

impl Engine for NoEngine {
    fn include(&mut self, _: &str, _: &Value) -> Result<String, FuncError> {
        Err(FuncError::call("no engine"))
    }
    fn tpl(&mut self, _: &str, _: &Value) -> Result<String, FuncError> {
        Err(FuncError::call("no engine"))
    }
    fn current_template(&self) -> String {
        String::new()
    }
}

/// Calls `f` with `args` as a template would, on `host`.
pub fn call(host: &Host, f: CtxFn, args: &[Value]) -> FuncResult {
    let mut engine = NoEngine;
    let mut ctx = CallCtx {
        engine: &mut engine,
        host,
    };
    f(&mut ctx, args)
}
