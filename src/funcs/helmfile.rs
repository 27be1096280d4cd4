//! Helmfile 0.166's own template functions (`pkg/tmpl/context_funcs.go`,
//! `get_or_nil.go`), registered over Sprig's.
//!
//! They differ from Helm's in ways charts notice: `get` is path based
//! (`get "a.b" [default] obj`) and shadows Sprig's (kept as `sprigGet`), `required`
//! also rejects `""` (`toYaml`/`fromYaml` are the yaml.v2 ones of the YAML family,
//! registered with them), `tpl` renders in a fresh
//! template set, and file functions resolve against the state (or values) file's
//! directory. File access goes through the host's [`Vfs`](crate::source::Vfs) so
//! overlay files are visible, and is confined to the host's `confine_to` directory.
//! `exec` and `envExec` only run programs when the caller opted in
//! ([`Host::allow_exec`]); secret references (`ref+...`) are resolved by
//! [`vals`](super::vals) when they need no network (`echo`, `file`), and otherwise
//! fail naming the reference.

use std::path::PathBuf;

use crate::template::{
    CallCtx, FuncDef, FuncError, FuncResult, Host, Kind, List, Map, Registry, Ty, Value,
};

/// Registers Helmfile's functions over an already-filled Sprig registry; Sprig's
/// `get` stays available as `sprigGet`.
pub fn register(r: &mut Registry) {
    if let Some(sprig_get) = r.get("get").copied() {
        r.register(&[FuncDef {
            name: "sprigGet",
            ..sprig_get
        }]);
    }
    r.register(FUNCS);
}

/// Replaces the side-effecting functions with Helmfile's first-pass no-ops.
pub fn register_first_pass(r: &mut Registry) {
    r.register(FIRST_PASS);
}

static FUNCS: &[FuncDef] = &[
    FuncDef::ctx("exec", &[Ty::String, Ty::List], Some(Ty::String), exec),
    FuncDef::ctx(
        "envExec",
        &[Ty::Map, Ty::String, Ty::List],
        Some(Ty::String),
        env_exec,
    ),
    FuncDef::ctx("isFile", &[Ty::String], None, is_file),
    FuncDef::ctx("readFile", &[Ty::String], None, read_file),
    FuncDef::ctx("readDir", &[Ty::String], None, read_dir),
    FuncDef::ctx("readDirEntries", &[Ty::String], None, read_dir_entries),
    FuncDef::plain(
        "setValueAtPath",
        &[Ty::String, Ty::Any, Ty::Map],
        set_value_at_path,
    ),
    FuncDef::ctx("requiredEnv", &[Ty::String], None, required_env),
    FuncDef::variadic("get", &[Ty::String], Ty::Any, get),
    FuncDef::plain("getOrNil", &[Ty::String, Ty::Any], get_or_nil),
    FuncDef::ctx("tpl", &[Ty::String, Ty::Any], None, tpl),
    FuncDef::plain("required", &[Ty::String, Ty::Any], required),
    FuncDef::plain("fail", &[Ty::String], fail),
    FuncDef::ctx("fetchSecretValue", &[Ty::String], None, fetch_secret_value),
    FuncDef::ctx("expandSecretRefs", &[Ty::Map], None, expand_secret_refs),
    FuncDef::ctx("include", &[Ty::String, Ty::Any], None, include),
];

static FIRST_PASS: &[FuncDef] = &[
    FuncDef::ctx(
        "exec",
        &[Ty::String, Ty::List],
        Some(Ty::String),
        empty_string,
    ),
    FuncDef::ctx(
        "envExec",
        &[Ty::Map, Ty::String, Ty::List],
        Some(Ty::String),
        empty_string,
    ),
    FuncDef::ctx("readFile", &[Ty::String], None, empty_string),
    FuncDef::ctx("readDir", &[Ty::String], None, empty_strings),
    FuncDef::ctx("readDirEntries", &[Ty::String], None, empty_list),
    FuncDef::ctx("tpl", &[Ty::String, Ty::Any], None, tpl_first_pass),
];

fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).cloned().unwrap_or(Value::Nil)
}

fn str_arg(args: &[Value], i: usize) -> String {
    match args.get(i) {
        Some(Value::String(s)) => s.to_string(),
        Some(other) => crate::template::fmt::format_value(other),
        None => String::new(),
    }
}

fn empty_string(_: &mut CallCtx<'_>, _: &[Value]) -> FuncResult {
    Ok(Value::str(""))
}

fn empty_strings(_: &mut CallCtx<'_>, _: &[Value]) -> FuncResult {
    Ok(Value::List(List::of_strings(Vec::new())))
}

fn empty_list(_: &mut CallCtx<'_>, _: &[Value]) -> FuncResult {
    Ok(Value::list(Vec::new()))
}

/// The Go path string and absolute path of a file argument: absolute paths as given,
/// relative ones joined to the host's base directory (Go's `filepath.Join`, so the
/// shown path is the one Helmfile's messages name).
fn locate(host: &Host, name: &str) -> Result<(String, PathBuf), FuncError> {
    let abs = if name.starts_with('/') {
        crate::helmfile::paths::normalize(std::path::Path::new(name))
    } else {
        crate::helmfile::paths::normalize(&host.base_dir.join(name))
    };
    if let Some(root) = &host.confine_to {
        let root = crate::helmfile::paths::normalize(root);
        if !abs.starts_with(&root) {
            return Err(FuncError::call(format!(
                "{name:?} is outside the stack directory {} (stackproof confines file functions to the stack's tree)",
                root.display()
            )));
        }
    }
    let shown = if name.starts_with('/') {
        name.to_string()
    } else if host.base_path.is_empty() {
        abs.display().to_string()
    } else {
        crate::helmfile::paths::join(&[&host.base_path, name])
    };
    Ok((shown, abs))
}

/// A file-system error as Go's `os` package words it for `shown`.
fn os_error(e: &crate::source::VfsError, shown: &str) -> String {
    use crate::source::VfsError;
    match e {
        VfsError::NotFound { .. } => format!("open {shown}: no such file or directory"),
        VfsError::Io { source, .. } => {
            format!("read {shown}: {}", crate::source::go_errno_text(source))
        }
    }
}

fn is_file(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let (_, p) = locate(ctx.host, &str_arg(args, 0))?;
    Ok(Value::Bool(ctx.host.vfs.is_file(&p)))
}

fn read_file(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = str_arg(args, 0);
    let (shown, p) = locate(ctx.host, &name)?;
    let bytes = ctx
        .host
        .vfs
        .read(&p)
        .map_err(|e| FuncError::call(os_error(&e, &shown)))?;
    // Go's `string(bytes)`: bytes that are not UTF-8 stay raw (see `gostr`).
    Ok(Value::str(
        crate::template::gostr::from_slice(&bytes).as_ref(),
    ))
}

fn read_dir(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = str_arg(args, 0);
    let (shown, p) = locate(ctx.host, &name)?;
    let entries = ctx.host.vfs.read_dir(&p).map_err(|e| {
        FuncError::call(format!(
            "ReadDir {}: {}",
            crate::template::fmt::quote(&shown),
            os_error(&e, &shown)
        ))
    })?;
    let files: Vec<Value> = entries
        .into_iter()
        .filter(|e| !e.is_dir)
        .map(|e| Value::str(crate::helmfile::paths::join(&[&name, &e.name])))
        .collect();
    Ok(Value::List(List::of_strings(files)))
}

/// A `fs.DirEntry` as templates see it: `.Name` and `.IsDir`.
#[derive(Debug)]
struct DirEntryObj {
    name: String,
    is_dir: bool,
}

impl crate::template::Object for DirEntryObj {
    fn type_name(&self) -> String {
        "*os.unixDirent".to_string()
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(name, "Name" | "IsDir")
    }
    fn method_params(&self, name: &str) -> Option<&'static [crate::template::Ty]> {
        self.has_method(name).then_some(&[])
    }
    fn call_method(&self, name: &str, _args: &[Value]) -> Result<Value, String> {
        match name {
            "Name" => Ok(Value::str(self.name.as_str())),
            "IsDir" => Ok(Value::Bool(self.is_dir)),
            _ => Err(format!("can't call method/function {name:?}")),
        }
    }
    fn fmt_v(&self, _plus: bool) -> String {
        format!("{} {}", if self.is_dir { "d" } else { "-" }, self.name)
    }
    fn to_json_value(&self) -> Value {
        Value::Map(Map::new())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn read_dir_entries(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = str_arg(args, 0);
    let (shown, p) = locate(ctx.host, &name)?;
    let entries = ctx.host.vfs.read_dir(&p).map_err(|e| {
        FuncError::call(format!(
            "ReadDirEntries {}: {}",
            crate::template::fmt::quote(&shown),
            os_error(&e, &shown)
        ))
    })?;
    Ok(Value::list(
        entries
            .into_iter()
            .map(|e| {
                Value::object(DirEntryObj {
                    name: e.name,
                    is_dir: e.is_dir,
                })
            })
            .collect(),
    ))
}

fn exec_disabled(command: &str) -> FuncError {
    FuncError::call(format!(
        "exec is disabled: stackproof does not run programs from templates unless --allow-exec is given (command {command:?})"
    ))
}

fn run_program(
    host: &Host,
    envs: Option<&Map>,
    command: &str,
    args: &Value,
    input: Option<&Value>,
) -> FuncResult {
    if !host.allow_exec {
        return Err(exec_disabled(command));
    }
    let items: Vec<Value> = args.as_list().map(|l| l.to_vec()).unwrap_or_default();
    let mut argv = Vec::new();
    for (i, a) in items.iter().enumerate() {
        match a {
            Value::String(s) => argv.push(s.to_string()),
            other => {
                return Err(FuncError::call(format!(
                    "unexpected type of arg \"{}\" in args {} at index {i}",
                    other.type_name(),
                    crate::template::fmt::format_value(args)
                )))
            }
        }
    }
    let mut cmd = std::process::Command::new(command);
    cmd.args(&argv).current_dir(&host.base_dir);
    if let Some(envs) = envs {
        for (k, v) in envs.entries() {
            match v {
                Value::String(s) => {
                    cmd.env(k, s.as_ref());
                }
                other => {
                    return Err(FuncError::call(format!(
                        "unexpected type of env \"{}\" in envs {} at index {k}",
                        other.type_name(),
                        crate::template::fmt::format_value(&Value::Map(envs.clone()))
                    )))
                }
            }
        }
    }
    let stdin_text = input.and_then(|v| v.as_str().map(str::to_string));
    cmd.stdin(if stdin_text.is_some() {
        std::process::Stdio::piped()
    } else {
        std::process::Stdio::null()
    });
    cmd.stdout(std::process::Stdio::piped());
    cmd.stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| FuncError::call(format!("exec: {command:?}: {e}")))?;
    if let (Some(text), Some(mut stdin)) = (stdin_text, child.stdin.take()) {
        use std::io::Write;
        stdin.write_all(text.as_bytes()).map_err(|e| {
            FuncError::call(format!(
                "failed while writing {} bytes to stdin of \"{command}\": {e}",
                text.len()
            ))
        })?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| FuncError::call(format!("exec: {command:?}: {e}")))?;
    if !out.status.success() {
        let path = look_path(command);
        let mut full = vec![command.to_string()];
        full.extend(argv);
        return Err(FuncError::call(exit_error(
            &path,
            &full,
            out.status,
            &String::from_utf8_lossy(&out.stderr),
            &String::from_utf8_lossy(&out.stdout),
        )));
    }
    Ok(Value::str(
        crate::template::gostr::from_slice(&out.stdout).as_ref(),
    ))
}

/// Where Go's `exec.Command` finds a program: a name with a `/` as it is, else
/// the absolute path `PATH` search finds, else the name.
fn look_path(command: &str) -> String {
    if command.contains('/') {
        return command.to_string();
    }
    crate::source::search_path(command)
        .filter(|p| p.is_absolute())
        .map_or_else(|| command.to_string(), |p| p.to_string_lossy().into_owned())
}

/// helmexec's `Indent`: every non-empty line prefixed, empty lines dropped, and
/// (as it does) no line break written before the last line.
fn go_indent(text: &str, indent: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    let mut b = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 && i < last && !line.is_empty() {
            b.push('\n');
        }
        if !line.is_empty() {
            b.push_str(indent);
            b.push_str(line);
        }
    }
    b
}

/// helmexec's `ExitError` text for a program that failed: its path, every argument
/// (the program's own name first), Go's words for how it ended, its exit status
/// (-1 when a signal ended it), and what it printed. In the combined output Go
/// has stdout and stderr in whatever order its two copying goroutines ran (either
/// comes first from run to run when both were written); stdout first here.
fn exit_error(
    path: &str,
    args: &[String],
    status: std::process::ExitStatus,
    stderr: &str,
    stdout: &str,
) -> String {
    use std::os::unix::process::ExitStatusExt;
    let (how, code) = match (status.code(), status.signal()) {
        (Some(code), _) => (format!("exit status {code}"), code),
        (None, Some(sig)) => {
            let core = if status.core_dumped() {
                " (core dumped)"
            } else {
                ""
            };
            (format!("signal: {}{core}", signal_name(sig)), -1)
        }
        (None, None) => ("exit status -1".to_string(), -1),
    };
    let mut out = format!("PATH:\n{}", go_indent(path, "  "));
    out.push_str("\n\nARGS:");
    for (i, a) in args.iter().enumerate() {
        out.push_str(&format!(
            "\n{}",
            go_indent(&format!("{i}: {a} ({} bytes)", a.len()), "  ")
        ));
    }
    out.push_str(&format!("\n\nERROR:\n{}", go_indent(&how, "  ")));
    out.push_str(&format!(
        "\n\nEXIT STATUS\n{}",
        go_indent(&code.to_string(), "  ")
    ));
    if !stderr.is_empty() {
        out.push_str(&format!("\n\nSTDERR:\n{}", go_indent(stderr, "  ")));
    }
    let combined = format!("{stdout}{stderr}");
    if !combined.is_empty() {
        out.push_str(&format!(
            "\n\nCOMBINED OUTPUT:\n{}",
            go_indent(&combined, "  ")
        ));
    }
    format!(
        "command {} exited with non-zero status:\n\n{out}",
        crate::template::fmt::quote(path)
    )
}

/// Go's name of a signal (`syscall.Signal.String`) for the common ones.
fn signal_name(sig: i32) -> String {
    match sig {
        1 => "hangup".into(),
        2 => "interrupt".into(),
        3 => "quit".into(),
        4 => "illegal instruction".into(),
        6 => "aborted".into(),
        7 => "bus error".into(),
        8 => "floating point exception".into(),
        9 => "killed".into(),
        11 => "segmentation fault".into(),
        13 => "broken pipe".into(),
        14 => "alarm clock".into(),
        15 => "terminated".into(),
        other => format!("signal {other}"),
    }
}

fn exec(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let command = str_arg(args, 0);
    run_program(ctx.host, None, &command, &arg(args, 1), args.get(2))
}

fn env_exec(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let command = str_arg(args, 1);
    let envs = arg(args, 0).as_map().cloned();
    run_program(
        ctx.host,
        envs.as_ref(),
        &command,
        &arg(args, 2),
        args.get(3),
    )
}

fn set_value_at_path(args: &[Value]) -> FuncResult {
    let path = str_arg(args, 0);
    let value = arg(args, 1);
    let values = arg(args, 2);
    let Value::Map(root) = &values else {
        return Err(FuncError::call(format!(
            "failed to set value at path \"{path}\": value for key \"{path}\" was not a map"
        )));
    };
    let components: Vec<&str> = path.split('.').collect();
    let (key, walk) = components.split_last().unwrap_or((&"", &[]));
    let mut cur = root.clone();
    for k in walk {
        let next = match cur.get(k) {
            None => {
                return Err(FuncError::call(format!(
                    "failed to set value at path \"{path}\": value for key \"{k}\" does not exist"
                )))
            }
            Some(Value::Map(m)) => m,
            Some(_) => {
                return Err(FuncError::call(format!(
                    "failed to set value at path \"{path}\": value for key \"{k}\" was not a map"
                )))
            }
        };
        cur = next;
    }
    cur.insert(*key, value);
    Ok(values)
}

fn required_env(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = str_arg(args, 0);
    match ctx.host.env_var(&name) {
        Some(v) if !v.is_empty() => Ok(Value::str(v)),
        _ => Err(FuncError::call(format!(
            "required env var `{name}` is not set"
        ))),
    }
}

/// `get`'s "no value" failures, which `getOrNil` turns into nil (every failure of
/// a path lookup is one).
enum GetError {
    NoValue(String),
}

fn get_path(path: &str, def: Option<&Value>, obj: &Value) -> Result<Value, GetError> {
    if path.is_empty() {
        return Ok(obj.clone());
    }
    let (first, rest) = match path.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (path, None),
    };
    let v = match obj {
        Value::Map(m) if m.ty() == crate::template::MapType::String => {
            return match m.get(first) {
                Some(v) => Ok(v),
                None => match def {
                    Some(d) => Ok(d.clone()),
                    None => Err(GetError::NoValue(format!(
                        "no value exist for key \"{first}\" in {}",
                        crate::template::fmt::format_value(obj)
                    ))),
                },
            };
        }
        Value::Map(m) => match m.get(first) {
            Some(v) => v,
            None => {
                return match def {
                    Some(d) => Ok(d.clone()),
                    None => Err(GetError::NoValue(format!(
                        "no value exist for key \"{first}\" in {}",
                        crate::template::fmt::format_value(obj)
                    ))),
                }
            }
        },
        Value::Object(o) if o.kind() == Kind::Struct => match o.field(first) {
            Some(v) => v,
            None => {
                return match def {
                    Some(d) => Ok(d.clone()),
                    None => Err(GetError::NoValue(format!(
                        "no field named \"{first}\" exist in {}",
                        o.fmt_v(false)
                    ))),
                }
            }
        },
        other => {
            return Err(GetError::NoValue(format!(
                "unexpected type({}) of value for key \"{first}\": it must be either map[string]any or any struct",
                other.type_name()
            )))
        }
    };
    get_path(rest.unwrap_or(""), def, &v)
}

fn get(args: &[Value]) -> FuncResult {
    let path = str_arg(args, 0);
    let rest = &args[1.min(args.len())..];
    let (def, obj) = match rest {
        [obj] => (None, obj),
        [def, obj] => (Some(def), obj),
        _ => {
            return Err(FuncError::call(format!(
                "unexpected number of args passed to the template function get(path, [def, ]obj): expected 1 or 2, got {}, args was {}",
                rest.len(),
                crate::template::fmt::format_value(&Value::list(rest.to_vec()))
            )))
        }
    };
    get_path(&path, def, obj).map_err(|e| match e {
        GetError::NoValue(m) => FuncError::call(m),
    })
}

fn get_or_nil(args: &[Value]) -> FuncResult {
    let path = str_arg(args, 0);
    match get_path(&path, None, &arg(args, 1)) {
        Ok(v) => Ok(v),
        Err(GetError::NoValue(_)) => Ok(Value::Nil),
    }
}

fn tpl_with(ctx: &mut CallCtx<'_>, args: &[Value], pre_render: bool) -> FuncResult {
    let text = str_arg(args, 0);
    crate::helmfile::tmpl::render_for_tpl(ctx.host, pre_render, &text, &arg(args, 1))
        .map(Value::str)
        .map_err(|f| FuncError::call(f.error.message.clone()))
}

fn tpl(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    tpl_with(ctx, args, false)
}

fn tpl_first_pass(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    tpl_with(ctx, args, true)
}

fn include(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let name = str_arg(args, 0);
    ctx.engine.include(&name, &arg(args, 1)).map(Value::str)
}

fn required(args: &[Value]) -> FuncResult {
    let warn = str_arg(args, 0);
    let val = arg(args, 1);
    // Helmfile passes the message to fmt.Errorf as the format string.
    let msg = || crate::template::fmt::sprintf(&warn, &[]);
    match &val {
        Value::Nil => Err(FuncError::call(msg())),
        Value::String(s) if s.is_empty() => Err(FuncError::call(msg())),
        _ => Ok(val),
    }
}

/// Sprig's `fail` (Helmfile has no Helm-style `fail`): a plain function error,
/// reported as `error calling fail: MESSAGE`.
fn fail(args: &[Value]) -> FuncResult {
    Err(FuncError::call(str_arg(args, 0)))
}

fn secret_ref_error(reference: &str) -> FuncError {
    FuncError::call(format!(
        "cannot resolve secret reference {reference:?} offline: stackproof does not contact secret stores (vals)"
    ))
}

/// vals over template values, reading files as the host sees them.
fn with_vals<R>(
    host: &Host,
    f: impl FnOnce(&mut super::vals::Expander<'_>) -> Result<R, String>,
) -> Result<R, FuncError> {
    let own;
    let cache = match super::vals::Cache::of_host(&*host.vals_cache) {
        Some(c) => c,
        None => {
            own = super::vals::Cache::default();
            &own
        }
    };
    let mut e = super::vals::Expander::new(super::vals::Sources {
        vfs: &host.vfs,
        cwd: &host.cwd,
        confine_to: host.confine_to.as_deref(),
        env: &host.env,
        cache,
    });
    let out = f(&mut e).map_err(FuncError::call)?;
    // A reference only a secret store could answer: Helmfile would fetch it (or
    // fail); passing it on as written would render a value Helmfile never would.
    match e.kept.first() {
        Some(r) => Err(secret_ref_error(r)),
        None => Ok(out),
    }
}

/// `fetchSecretValue`: vals over one string, which always gives a string.
fn fetch_secret_value(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let s = str_arg(args, 0);
    with_vals(ctx.host, |e| e.expand_str(&s)).map(Value::str)
}

/// `expandSecretRefs`: vals over a map, which (as in Go) changes the map itself.
fn expand_secret_refs(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let v = arg(args, 0);
    with_vals(ctx.host, |e| e.expand_value(&v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn get_paths_and_defaults() {
        let v = vmap! {"m" => vmap!{"a" => vmap!{"b" => Value::int(1)}}};
        let got = get(&[Value::str("m.a.b"), v.clone()]).unwrap_or(Value::Nil);
        assert!(got.deep_equal(&Value::int(1)));
        let got = get(&[Value::str("m.a.zz"), Value::str("dflt"), v.clone()]).unwrap_or(Value::Nil);
        assert!(got.deep_equal(&Value::str("dflt")));
        let e = get(&[Value::str("m.a.zz"), v.clone()])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("no value exist for key \"zz\" in map[b:1]")
        );
        assert!(get_or_nil(&[Value::str("m.x.y"), v]).is_ok_and(|x| x.is_nil()));
    }

    #[test]
    fn get_through_nil_fails_even_with_default() {
        let v = vmap! {"a" => Value::Nil};
        let e = get(&[Value::str("a.b"), Value::str("d"), v])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("unexpected type(<nil>) of value for key \"b\": it must be either map[string]any or any struct")
        );
    }

    #[test]
    fn set_value_at_path_mutates() {
        let v = vmap! {"m" => vmap!{"a" => vmap!{"b" => Value::int(1)}}};
        let out = set_value_at_path(&[Value::str("m.a.c"), Value::int(5), v.clone()])
            .unwrap_or(Value::Nil);
        assert!(v
            .get_path(&["m", "a", "c"])
            .is_some_and(|x| x.deep_equal(&Value::int(5))));
        assert!(out.get_path(&["m", "a", "c"]).is_some());
        let e = set_value_at_path(&[Value::str("m.zz.c"), Value::int(5), v])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("failed to set value at path \"m.zz.c\": value for key \"zz\" does not exist")
        );
    }

    #[test]
    fn required_rejects_nil_and_empty() {
        assert!(required(&[Value::str("need x"), Value::Nil]).is_err());
        assert!(required(&[Value::str("need x"), Value::str("")]).is_err());
        assert!(required(&[Value::str("need x"), Value::int(0)]).is_ok());
    }

    #[test]
    fn secret_refs_fail_offline_unless_local() {
        let host = Host::new(0);
        let e = with_vals(&host, |e| e.expand_str("ref+vault://a/b#k ref+echo://x/y"))
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("ref+vault://a/b#k")));
        let v = vmap! {"a" => "plain", "b" => "ref+echo://x/y"};
        let got = with_vals(&host, |e| e.expand_value(&v)).unwrap_or(Value::Nil);
        assert!(got
            .get_path(&["b"])
            .is_some_and(|b| b.deep_equal(&Value::str("x/y"))));
    }

    #[test]
    fn exec_needs_opt_in() {
        let host = Host::new(0);
        let e = run_program(&host, None, "echo", &Value::list(vec![]), None)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("--allow-exec")));
    }
}
