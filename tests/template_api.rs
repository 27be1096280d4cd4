//! The engine's public API beyond what fixtures show: host objects (methods win
//! over fields), custom delimiters, set cloning, options, registry functions with
//! typed parameters, structured errors.

use std::sync::Arc;

use stackproof::template::{
    CallCtx, ErrorKind, FuncDef, FuncError, FuncResult, Host, LanguageLevel, Map, MapType,
    MissingKey, Object, Options, Registry, TemplateSet, Ty, Value,
};
use stackproof::vmap;

struct Files;

impl Object for Files {
    fn type_name(&self) -> String {
        "engine.files".to_string()
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Name" => Some(Value::str("field-name")),
            "Get" => Some(Value::str("field-loses")),
            _ => None,
        }
    }
    fn has_method(&self, name: &str) -> bool {
        name == "Get"
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        match (name, args) {
            ("Get", [Value::String(s)]) => Ok(Value::str(format!("content of {s}"))),
            ("Get", _) => Err("bad args".to_string()),
            _ => Err("no method".to_string()),
        }
    }
    fn fmt_v(&self, _plus: bool) -> String {
        "{files}".to_string()
    }
    fn to_json_value(&self) -> Value {
        Value::Nil
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn upper(args: &[Value]) -> FuncResult {
    Ok(Value::str(args[0].as_str().unwrap_or("").to_uppercase()))
}

fn add_ints(args: &[Value]) -> FuncResult {
    match (&args[0], &args[1]) {
        (Value::Int(a, _), Value::Int(b, _)) => Ok(Value::int64(a + b)),
        _ => Err(FuncError::call("not ints")),
    }
}

fn join(args: &[Value]) -> FuncResult {
    let sep = args[0].as_str().unwrap_or("");
    let parts: Vec<String> = args[1..]
        .iter()
        .map(|v| v.as_str().unwrap_or("?").to_string())
        .collect();
    Ok(Value::from(parts.join(sep)))
}

fn boom(_: &[Value]) -> FuncResult {
    Err(FuncError::call("it broke"))
}

fn who(ctx: &mut CallCtx<'_>, _: &[Value]) -> FuncResult {
    Ok(Value::from(ctx.engine.current_template()))
}

static FUNCS: &[FuncDef] = &[
    FuncDef::plain("upper", &[Ty::String], upper),
    FuncDef::plain("add64", &[Ty::Int64, Ty::Int64], add_ints),
    FuncDef::variadic("joinAll", &[Ty::String], Ty::String, join),
    FuncDef::plain("boom", &[], boom),
    FuncDef::ctx("who", &[], None, who),
];

fn set_with(opts: Options) -> TemplateSet {
    let mut r = Registry::new();
    r.register(FUNCS);
    TemplateSet::new("root", Arc::new(r), opts)
}

fn run(text: &str, data: &Value) -> Result<String, stackproof::template::Error> {
    let mut s = set_with(Options::default());
    s.parse("t", text)?;
    s.execute("t", data, &Host::default())
}

#[test]
fn objects_methods_win_over_fields() {
    let data = vmap! { "Files" => Value::object(Files) };
    let out = run(
        r#"{{ .Files.Get "a.txt" }}|{{ .Files.Name }}|{{ .Files }}"#,
        &data,
    );
    assert_eq!(
        out.ok().as_deref(),
        Some("content of a.txt|field-name|{files}")
    );
    let err = run("{{ .Files.Nope }}", &data).expect_err("no field");
    assert!(
        err.to_string()
            .ends_with("can't evaluate field Nope in type interface {}"),
        "{err}"
    );
    let err = run("{{ .Files.Name 1 }}", &data).expect_err("field with args");
    assert!(err
        .to_string()
        .ends_with("Name has arguments but cannot be invoked as function"));
}

#[test]
fn registry_functions_convert_and_check_arguments() {
    let data = vmap! { "s" => "x", "f" => 1.5 };
    assert_eq!(
        run(r#"{{ upper "ab" }} {{ .s | upper }}"#, &data)
            .ok()
            .as_deref(),
        Some("AB X")
    );
    // Untyped constants become the parameter's type.
    assert_eq!(run("{{ add64 1 2 }}", &data).ok().as_deref(), Some("3"));
    assert_eq!(
        run(
            r#"{{ joinAll "-" "a" "b" }}|{{ "c" | joinAll "+" "a" }}"#,
            &data
        )
        .ok()
        .as_deref(),
        Some("a-b|a+c")
    );
    let e = run("{{ upper .f }}", &data).expect_err("type");
    assert!(
        e.to_string()
            .ends_with("wrong type for value; expected string; got float64"),
        "{e}"
    );
    let e = run("{{ add64 1.5 2 }}", &data).expect_err("literal");
    assert!(
        e.to_string().ends_with("expected integer; found 1.5"),
        "{e}"
    );
    let e = run("{{ upper }}", &data).expect_err("arity");
    assert!(
        e.to_string()
            .ends_with("wrong number of args for upper: want 1 got 0"),
        "{e}"
    );
    let e = run("{{ boom }}", &data).expect_err("error");
    assert!(
        e.to_string().ends_with("error calling boom: it broke"),
        "{e}"
    );
    assert_eq!(e.cause.as_deref(), Some("it broke"));
    assert_eq!(run("{{ who }}", &data).ok().as_deref(), Some("t"));
}

#[test]
fn custom_delimiters() {
    let mut s = set_with(Options::default().with_delims("[[", "]]"));
    s.parse("t", "{{ literal }} [[- .a -]] [[/* c */]]!")
        .expect("parses");
    let out = s
        .execute("t", &vmap! { "a" => "A" }, &Host::default())
        .expect("runs");
    assert_eq!(out, "{{ literal }}A!");
}

#[test]
fn clones_share_defines_but_not_additions() {
    let mut base = set_with(Options::default());
    base.parse("a", r#"{{ define "d" }}D{{ end }}main"#)
        .expect("parses");
    let mut clone = base.clone();
    clone
        .parse(
            "b",
            r#"{{ define "e" }}E{{ end }}{{ template "d" }}{{ template "e" }}"#,
        )
        .expect("parses");
    let h = Host::default();
    assert_eq!(
        clone.execute("b", &Value::Nil, &h).ok().as_deref(),
        Some("DE")
    );
    assert!(base.lookup("e").is_none());
    let e = base.execute("b", &Value::Nil, &h).expect_err("not in base");
    assert_eq!(e.kind, ErrorKind::NoTemplate);
    assert_eq!(
        e.to_string(),
        r#"template: no template "b" associated with template "root""#
    );
}

#[test]
fn missing_key_zero_uses_the_element_type() {
    let strings = Map::with_type(MapType::String);
    strings.insert("k", Value::str("v"));
    let data = vmap! { "s" => Value::Map(strings) };
    let mut s = set_with(Options::new(LanguageLevel::Go122, MissingKey::Zero));
    s.parse("t", "[{{ .s.k }}][{{ .s.nope }}][{{ .other }}]")
        .expect("parses");
    assert_eq!(
        s.execute("t", &data, &Host::default()).ok().as_deref(),
        Some("[v][][<no value>]")
    );
}

#[test]
fn errors_keep_their_parts() {
    let mut s = set_with(Options::default());
    s.parse("file.yaml", "line1\n  {{ .a.b }}\n")
        .expect("parses");
    let e = s
        .execute("file.yaml", &vmap! { "a" => Value::Nil }, &Host::default())
        .expect_err("nil pointer");
    assert_eq!(
        e.to_string(),
        r#"template: file.yaml:2:7: executing "file.yaml" at <.a.b>: nil pointer evaluating interface {}.b"#
    );
    assert_eq!(e.kind, ErrorKind::Exec);
    // Go positions a field chain at its second segment (`.b`).
    assert_eq!((e.line, e.col), (Some(2), Some(7)));
    assert_eq!(e.context.as_deref(), Some(".a.b"));
    assert_eq!(e.detail, "nil pointer evaluating interface {}.b");
    assert_eq!(e.executing.as_deref(), Some("file.yaml"));
    assert_eq!(e.location().as_deref(), Some("file.yaml:2:7"));
    assert_eq!(e.editor_position(), Some((2, 6)));
    let src = e.source.as_ref().expect("source");
    let span = e.span.expect("span");
    assert_eq!(&src.text()[span.range()], ".a.b");

    let p = s.parse("bad", "x\n{{ if }}").expect_err("parse");
    assert_eq!(p.kind, ErrorKind::Parse);
    assert_eq!((p.line, p.col), (Some(2), None));
    assert_eq!(p.detail, "missing value for if");
}

#[test]
fn level_controls_language_features() {
    let text = "{{ range 2 }}{{ . }}{{ end }}";
    let mut old = set_with(Options::new(LanguageLevel::Go122, MissingKey::Default));
    old.parse("t", text).expect("parses");
    assert!(old.execute("t", &Value::Nil, &Host::default()).is_err());
    let mut new = set_with(Options::new(LanguageLevel::Go127, MissingKey::Default));
    new.parse("t", text).expect("parses");
    assert_eq!(
        new.execute("t", &Value::Nil, &Host::default())
            .ok()
            .as_deref(),
        Some("01")
    );
}
