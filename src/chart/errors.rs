//! Helm's rewriting of template errors: `parse error at (...)`, `execution error at
//! (...)` for `fail`/`required`, and Helm 4's multi-line traceback.
//!
//! Helm builds these by cutting Go's error strings apart (`strings.SplitN(err,
//! ": ", 3)`, a regex over `HELM_ERR_START...HELM_ERR_END`, walking
//! `errors.Unwrap`); the functions here do the same over the engine's structured
//! [`Error`], so the output matches Helm's text including its odd corners (the
//! location of a `fail` inside an `include` is the outermost template's; errors
//! raised inside `index`, `eq` or `tpl` stay on one line in Helm 4).

use super::HelmVersion;
use crate::template::{Error, ErrorKind};

/// `cleanupParseError`: `parse error at (LOCATION): MESSAGE`.
pub fn parse_error(filename: &str, err: &Error) -> String {
    let text = err.to_string();
    let tokens: Vec<&str> = text.split(": ").collect();
    if tokens.len() == 1 {
        return format!("parse error in ({filename}): {text}");
    }
    format!(
        "parse error at ({}): {}",
        tokens[1],
        tokens[tokens.len() - 1]
    )
}

/// The message of a `fail`/`required` somewhere in the chain, if any: Helm wraps
/// it in `HELM_ERR_START...HELM_ERR_END` and finds it with a greedy regex over the
/// whole text; a function may also report it as a deliberate failure.
fn helm_fail_message(err: &Error) -> Option<String> {
    let text = err.to_string();
    if let (Some(start), Some(end)) = (text.find("HELM_ERR_START"), text.rfind("HELM_ERR_END")) {
        if end >= start + 14 {
            return Some(text[start + 14..end].to_string());
        }
    }
    let mut e = Some(err);
    while let Some(cur) = e {
        if cur.kind == ErrorKind::Fail {
            let d = &cur.detail;
            // The engine words it "error calling NAME: MESSAGE".
            let msg = match d.strip_prefix("error calling ") {
                Some(rest) => rest.split_once(": ").map_or(rest, |(_, m)| m),
                None => d.as_str(),
            };
            return Some(msg.to_string());
        }
        e = cur.inner.as_deref();
    }
    None
}

/// `cleanupExecError` (v3) / `reformatExecErrorMsg` (v4).
pub fn exec_error(helm: HelmVersion, filename: &str, err: &Error) -> String {
    let text = err.to_string();
    if err.kind == ErrorKind::NoTemplate || !text.starts_with("template: ") {
        return text;
    }
    let tokens: Vec<&str> = text.splitn(3, ": ").collect();
    if tokens.len() != 3 {
        return format!("execution error in ({filename}): {text}");
    }
    if let Some(msg) = helm_fail_message(err) {
        return format!("execution error at ({}): {msg}", tokens[1]);
    }
    match helm {
        HelmVersion::V3 => text,
        HelmVersion::V4 => traceback(err).unwrap_or(text),
    }
}

/// Helm 4's `TraceableError` chain, or `None` when some link of Go's error chain is
/// not a template error (Helm then keeps the original one-line text).
fn traceback(err: &Error) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = Some(err);
    while let Some(e) = cur {
        let text = e.to_string();
        if text.starts_with("template: no template ") {
            parts.push(format!("{text}\n"));
            break;
        }
        let loc = e.location()?;
        let node = e.context.clone();
        let executing = e.executing.clone();
        let mut message = e.detail.clone();
        if let Some(cut) = message.find(" template:") {
            message.truncate(cut);
        }
        let mut s = format!("{loc}\n  ");
        if let (Some(x), Some(n)) = (executing, node) {
            s.push_str(&format!("executing \"{x}\" at <{n}>:\n    "));
        }
        if !message.is_empty() {
            s.push_str(&message);
            s.push('\n');
        }
        if parts.last() != Some(&s) {
            parts.push(s);
        }
        match &e.inner {
            // Go's chain holds the called function's own error between this link
            // and the inner template error; unless the function passed the template
            // error on as it was (`include` does, `tpl` wraps it in `error during
            // tpl function execution for ...`), that text is not a template error
            // and Helm gives up on the traceback.
            Some(_) if called_function_wrapped(&e.detail) => return None,
            Some(inner) => cur = Some(inner),
            None => {
                // A function's own error ends Go's chain with a non-template text,
                // which makes Helm give up on the traceback.
                if e.detail.starts_with("error calling ") {
                    let rest = e.detail.split_once(": ").map_or("", |(_, r)| r);
                    if rest.starts_with("template: no template ") {
                        parts.push(format!("{rest}\n"));
                        break;
                    }
                    return None;
                }
                break;
            }
        }
    }
    Some(parts.concat().trim().to_string())
}

/// Whether a link's `error calling NAME: REST` shows the function's error as a text
/// of its own rather than the inner template error itself.
fn called_function_wrapped(detail: &str) -> bool {
    match detail.strip_prefix("error calling ") {
        Some(rest) => match rest.split_once(": ") {
            Some((_, err)) => !err.starts_with("template: "),
            None => false,
        },
        None => false,
    }
}
