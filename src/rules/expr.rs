//! The minijinja environment rule expressions (`when`, `where`) and message templates
//! run in.
//!
//! Undefined values chain (`values.a.b.c` is undefined, hence false, when `a` is
//! missing) because rules are written against stacks where whole subtrees are optional;
//! an expression that is outright wrong (a syntax error, calling an unknown filter) is an
//! error, which the engine reports as a finding rather than as a skipped rule.

use std::sync::LazyLock;

use minijinja::value::Value as MjValue;
use minijinja::{Environment, UndefinedBehavior};
use serde_json::Value as Json;

static ENV: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Chainable);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env
});

/// A compiled boolean expression.
pub struct Expr {
    source: String,
    compiled: minijinja::Expression<'static, 'static>,
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Expr").field(&self.source).finish()
    }
}

impl Expr {
    /// Compiles an expression; the error text is minijinja's.
    pub fn compile(source: &str) -> Result<Expr, String> {
        let compiled = ENV
            .compile_expression_owned(source.to_string())
            .map_err(|e| describe(&e))?;
        Ok(Expr {
            source: source.to_string(),
            compiled,
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates to a truth value (Jinja truthiness).
    pub fn truth(&self, ctx: &MjValue) -> Result<bool, String> {
        self.compiled
            .eval(ctx.clone())
            .map(|v| v.is_true())
            .map_err(|e| describe(&e))
    }
}

/// Checks a message template's syntax.
pub fn check_template(source: &str) -> Result<(), String> {
    ENV.template_from_str(source)
        .map(|_| ())
        .map_err(|e| describe(&e))
}

/// Renders a message template.
pub fn render_template(source: &str, ctx: &MjValue) -> Result<String, String> {
    ENV.render_str(source, ctx.clone())
        .map(|s| s.trim().to_string())
        .map_err(|e| describe(&e))
}

/// A JSON value as a template value.
pub fn value(v: &Json) -> MjValue {
    MjValue::from(minijinja::value::Serde(v))
}

/// minijinja's error with its detail (the `Display` alone omits it).
fn describe(e: &minijinja::Error) -> String {
    match e.detail() {
        Some(d) => format!("{}: {d}", e.kind()),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(v: Json) -> MjValue {
        value(&json!({ "values": v }))
    }

    #[test]
    fn missing_keys_are_false_not_errors() {
        let e = Expr::compile("values.addons.llm.enabled and values.addons.llm.pki.mode == 'x'")
            .unwrap();
        assert!(!e.truth(&ctx(json!({}))).unwrap());
        assert!(e
            .truth(&ctx(
                json!({"addons": {"llm": {"enabled": true, "pki": {"mode": "x"}}}})
            ))
            .unwrap());
    }

    #[test]
    fn syntax_errors_are_reported() {
        assert!(Expr::compile("values.a ==").is_err());
        assert!(check_template("{{ oops").is_err());
    }

    #[test]
    fn templates_render() {
        let c = value(&json!({"name": "x", "n": 2}));
        assert_eq!(
            render_template("{{ name }} has {{ n }}", &c).unwrap(),
            "x has 2"
        );
    }
}
