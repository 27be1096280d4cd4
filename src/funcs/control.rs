//! Helm's template-control functions: `include`, `tpl`, `required`, `fail`, and
//! `lookup` as `helm template` has it (no cluster: always an empty map).
//!
//! These are Helm's own (pkg/engine/engine.go), not Sprig's: they need the running
//! template set, so they are context functions built on the engine's Go-level
//! primitives ([`Engine::include`](crate::template::Engine::include) and
//! [`Engine::tpl`](crate::template::Engine::tpl)), adding Helm's wording, its
//! per-name `include` recursion limit and its `<no value>` scrubbing of `tpl` output.
//!
//! `fail` and `required` report [`FuncError::Fail`] with Helm's
//! `HELM_ERR_START…HELM_ERR_END` markers inside the message, exactly the Go error
//! text; Helm's error formatter finds the markers and prints
//! `execution error at (file:line:col): MESSAGE`, and so can the chart module.
//! Helm 3 builds `required`'s error with `errors.Errorf` (so `%` in the message is a
//! formatting verb); Helm 4 uses `errors.New`; hence two tables.

use std::sync::Arc;

use crate::template::{CallCtx, ErrorKind, FuncDef, FuncError, FuncResult, Ty, Value};

/// Helm's `recursionMaxNums`: how deep one template name may be nested in `include`.
pub const INCLUDE_MAX_DEPTH: usize = 1000;

const WARN_START: &str = "HELM_ERR_START";
const WARN_END: &str = "HELM_ERR_END";

fn warn_wrap(msg: &str) -> String {
    format!("{WARN_START}{msg}{WARN_END}")
}

/// Extracts the message between Helm's markers, as Helm's error formatter does
/// (greedy, across lines: first start marker to last end marker).
pub fn unwrap_helm_warning(text: &str) -> Option<&str> {
    let start = text.find(WARN_START)? + WARN_START.len();
    let end = text.rfind(WARN_END)?;
    (end >= start).then(|| &text[start..end])
}

fn include(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = args[0].as_str().unwrap_or("");
    let data = args.get(1).cloned().unwrap_or_default();
    if let Some(counts) = ctx.engine.counters() {
        match counts.get_mut(name) {
            Some(v) => {
                if *v > INCLUDE_MAX_DEPTH {
                    return Err(FuncError::call(format!(
                        "rendering template has a nested reference name: {name}: unable to execute template"
                    )));
                }
                *v += 1;
            }
            None => {
                counts.insert(name.to_string(), 1);
            }
        }
    }
    let r = ctx.engine.include(name, &data);
    if let Some(v) = ctx.engine.counters().and_then(|c| c.get_mut(name)) {
        *v = v.saturating_sub(1);
    }
    r.map(Value::from)
}

fn tpl(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    // A copy of a long text (tpl is often handed whole files) costs more than
    // sharing the argument's own string.
    let text: Arc<str> = match &args[0] {
        Value::String(s) => Arc::clone(s),
        _ => Arc::from(""),
    };
    let data = args.get(1).cloned().unwrap_or_default();
    match ctx.engine.tpl(&text, &data) {
        Ok(out) if out.contains("<no value>") => Ok(Value::from(out.replace("<no value>", ""))),
        Ok(out) => Ok(Value::from(out)),
        Err(FuncError::Nested { message, inner }) => {
            let quoted = crate::template::fmt::quote(&text);
            let message = if inner.kind == ErrorKind::Parse {
                format!("cannot parse template {quoted}: {message}")
            } else {
                format!("error during tpl function execution for {quoted}: {message}")
            };
            Err(FuncError::Nested { message, inner })
        }
        Err(other) => Err(other),
    }
}

fn missing(val: &Value) -> bool {
    match val {
        Value::Nil => true,
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

fn required_v3(_: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let warn = args[0].as_str().unwrap_or("");
    if missing(&args[1]) {
        // errors.Errorf(warnWrap(warn)): the message is used as a format string.
        return Err(FuncError::Fail(crate::template::fmt::sprintf(
            &warn_wrap(warn),
            &[],
        )));
    }
    Ok(args[1].clone())
}

fn required_v4(_: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let warn = args[0].as_str().unwrap_or("");
    if missing(&args[1]) {
        return Err(FuncError::Fail(warn_wrap(warn)));
    }
    Ok(args[1].clone())
}

fn fail(_: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    Err(FuncError::Fail(warn_wrap(args[0].as_str().unwrap_or(""))))
}

/// Helm's `lookup` placeholder (`pkg/engine/funcs.go`), which `helm template` keeps
/// because it renders without a cluster connection: every lookup finds nothing.
fn lookup(_: &[Value]) -> FuncResult {
    Ok(Value::Map(crate::template::Map::new()))
}

/// Helm 3.15's control functions.
pub static HELM3: &[FuncDef] = &[
    FuncDef::ctx("include", &[Ty::String, Ty::Any], None, include),
    FuncDef::ctx("tpl", &[Ty::String, Ty::Any], None, tpl),
    FuncDef::ctx("required", &[Ty::String, Ty::Any], None, required_v3),
    FuncDef::ctx("fail", &[Ty::String], None, fail),
    FuncDef::plain(
        "lookup",
        &[Ty::String, Ty::String, Ty::String, Ty::String],
        lookup,
    ),
];

/// Helm 4's control functions.
pub static HELM4: &[FuncDef] = &[
    FuncDef::ctx("include", &[Ty::String, Ty::Any], None, include),
    FuncDef::ctx("tpl", &[Ty::String, Ty::Any], None, tpl),
    FuncDef::ctx("required", &[Ty::String, Ty::Any], None, required_v4),
    FuncDef::ctx("fail", &[Ty::String], None, fail),
    FuncDef::plain(
        "lookup",
        &[Ty::String, Ty::String, Ty::String, Ty::String],
        lookup,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_unwrap() {
        assert_eq!(
            unwrap_helm_warning("x: error calling fail: HELM_ERR_STARTboomHELM_ERR_END"),
            Some("boom")
        );
        assert_eq!(unwrap_helm_warning("plain"), None);
    }
}
