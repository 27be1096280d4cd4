//! Per-release output: the `write-values` file path (Helmfile's
//! `--output-file-template`, a plain Go template) and the `helm template` run of a
//! release with its chart from the offline chart sources.

use std::sync::Arc;

use super::app::StackInput;
use super::charts::{ChartSourceError, ResolvedChart};
use super::env::EnvObject;
use super::error::{ErrorKind, HelmfileError, Result};
use super::load::{template_error, HelmState};
use super::model::{ReleaseFiles, ReleaseRender};
use super::paths;
use super::seams::{self, ChartCall, MissingKey, TemplateCall};
use super::spec::{Inherit, ReleaseSpec, SetValue};
use super::values::SetArg;
use crate::chart::postrender::PostRenderer;
use crate::template::{
    BasicPtr, Host, Kind, List, ListType, Map, MapType, Object, Registry, Value,
};

/// SHA-1 of `data`, as lowercase hex (`AbsPathSHA1` in output templates is its
/// first 8 digits).
pub fn sha1_hex(data: &[u8]) -> String {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for chunk in msg.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

/// `*state.ReleaseSpec` in the output path templates: the whole Go struct, every
/// exported field under its Go name with Go's types (optional settings are
/// pointers that print `<nil>` when unset), as the release stands when Helmfile
/// writes its values or renders it.
#[derive(Debug, Clone)]
struct ReleaseObj {
    spec: ReleaseSpec,
    /// `ChartPath`, which Helmfile sets while preparing charts.
    chart_path: String,
}

/// The fields of `state.ReleaseSpec` in declaration order, unexported ones (which
/// `fmt` prints but templates cannot reach) marked by a lower-case name.
const RELEASE_FIELDS: &[&str] = &[
    "Chart",
    "ChartPath",
    "Directory",
    "Version",
    "Verify",
    "Keyring",
    "EnableDNS",
    "Devel",
    "Wait",
    "WaitForJobs",
    "Timeout",
    "RecreatePods",
    "Force",
    "Installed",
    "Atomic",
    "CleanupOnFail",
    "HistoryMax",
    "Condition",
    "CreateNamespace",
    "DisableOpenAPIValidation",
    "DisableValidation",
    "DisableValidationOnInstall",
    "MissingFileHandler",
    "Needs",
    "Hooks",
    "Name",
    "Namespace",
    "Labels",
    "Values",
    "Secrets",
    "SetValues",
    "duration",
    "ValuesTemplate",
    "SetValuesTemplate",
    "ApiVersions",
    "KubeVersion",
    "EnvValues",
    "ValuesPathPrefix",
    "KubeContext",
    "InsecureSkipTLSVerify",
    "VerifyTemplate",
    "WaitTemplate",
    "InstalledTemplate",
    "Dependencies",
    "JSONPatches",
    "StrategicMergePatches",
    "Transformers",
    "Adopt",
    "installedVersion",
    "ForceGoGetter",
    "ForceNamespace",
    "SkipDeps",
    "PostRenderer",
    "PostRendererArgs",
    "Cascade",
    "SuppressOutputLineRegex",
    "Inherit",
    "SuppressDiff",
    "DeleteWait",
    "DeleteTimeout",
];

fn bool_ptr(b: Option<bool>) -> Value {
    Value::object(BasicPtr::new("*bool", b.map(Value::Bool)))
}

fn int_ptr(i: Option<i64>) -> Value {
    Value::object(BasicPtr::new("*int", i.map(Value::int)))
}

fn string_ptr(s: &Option<String>) -> Value {
    Value::object(BasicPtr::new(
        "*string",
        s.as_ref().map(|s| Value::str(s.as_str())),
    ))
}

fn strings(xs: &[String]) -> Value {
    Value::string_list(xs.iter().map(String::as_str))
}

fn anys(xs: &[Value]) -> Value {
    Value::list(xs.to_vec())
}

/// A string field of a struct Helmfile decoded from YAML that stackproof keeps as a
/// plain value: the scalar as Go's decoder would have put it in a `string`.
fn field_string(v: Option<Value>) -> Value {
    match v {
        None | Some(Value::Nil) => Value::str(""),
        Some(Value::String(s)) => Value::String(s),
        Some(v) => Value::str(crate::template::fmt::format_value(&v)),
    }
}

fn field_strings(v: Option<Value>) -> Value {
    match v {
        Some(Value::List(l)) => Value::List(List::of_strings(
            l.iter().map(|x| field_string(Some(x.clone()))).collect(),
        )),
        _ => Value::List(List::nil(ListType::String)),
    }
}

/// `[]event.Hook` from the hooks as written.
fn hooks(xs: &[Value]) -> Value {
    let items = xs
        .iter()
        .map(|h| {
            let kubectl = Map::with_type(MapType::String);
            if let Some(Value::Map(m)) = h.get("kubectlApply") {
                for (k, v) in m.entries() {
                    kubectl.insert(k, field_string(Some(v)));
                }
            }
            Value::object(Fields(
                "event.Hook",
                vec![
                    ("Name", field_string(h.get("name"))),
                    ("Events", field_strings(h.get("events"))),
                    ("Command", field_string(h.get("command"))),
                    ("Kubectl", Value::Map(kubectl)),
                    ("Args", field_strings(h.get("args"))),
                    (
                        "ShowLogs",
                        Value::Bool(h.get("showlogs").is_some_and(|v| v.is_true())),
                    ),
                ],
            ))
        })
        .collect();
    Value::List(List::new(items).with_type(ListType::Named("[]event.Hook")))
}

/// `[]state.Dependency` from the dependencies as written.
fn dependencies(xs: &[Value]) -> Value {
    let items = xs
        .iter()
        .map(|d| {
            Value::object(Fields(
                "state.Dependency",
                vec![
                    ("Chart", field_string(d.get("chart"))),
                    ("Version", field_string(d.get("version"))),
                    ("Alias", field_string(d.get("alias"))),
                ],
            ))
        })
        .collect();
    Value::List(List::new(items).with_type(ListType::Named("[]state.Dependency")))
}

fn set_values(xs: &[SetValue]) -> Value {
    let items = xs
        .iter()
        .map(|sv| {
            Value::object(Fields(
                "state.SetValue",
                vec![
                    ("Name", Value::str(sv.name.as_str())),
                    ("Value", Value::str(sv.value.as_str())),
                    ("File", Value::str(sv.file.as_str())),
                    ("Values", strings(&sv.values)),
                ],
            ))
        })
        .collect();
    Value::List(List::new(items).with_type(ListType::Named("[]state.SetValue")))
}

fn inherits(xs: &[Inherit]) -> Value {
    let items = xs
        .iter()
        .map(|i| {
            Value::object(Fields(
                "state.Inherit",
                vec![
                    ("Template", Value::str(i.template.as_str())),
                    ("Except", strings(&i.except)),
                ],
            ))
        })
        .collect();
    Value::List(List::new(items).with_type(ListType::Named("state.Inherits")))
}

impl ReleaseObj {
    /// A field by its Go name, unexported ones included (for printing).
    fn get(&self, name: &str) -> Option<Value> {
        let r = &self.spec;
        Some(match name {
            "Chart" => Value::str(r.chart.as_str()),
            "ChartPath" => Value::str(self.chart_path.as_str()),
            "Directory" => Value::str(r.directory.as_str()),
            "Version" => Value::str(r.version.as_str()),
            "Verify" => bool_ptr(r.verify),
            "Keyring" => Value::str(r.keyring.as_str()),
            "EnableDNS" => bool_ptr(r.enable_dns),
            "Devel" => bool_ptr(r.devel),
            "Wait" => bool_ptr(r.wait),
            "WaitForJobs" => bool_ptr(r.wait_for_jobs),
            "Timeout" => int_ptr(r.timeout),
            "RecreatePods" => bool_ptr(r.recreate_pods),
            "Force" => bool_ptr(r.force),
            "Installed" => bool_ptr(r.installed),
            "Atomic" => bool_ptr(r.atomic),
            "CleanupOnFail" => bool_ptr(r.cleanup_on_fail),
            "HistoryMax" => int_ptr(r.history_max),
            "Condition" => Value::str(r.condition.as_str()),
            "CreateNamespace" => bool_ptr(r.create_namespace),
            "DisableOpenAPIValidation" => bool_ptr(r.disable_open_api_validation),
            "DisableValidation" => bool_ptr(r.disable_validation),
            "DisableValidationOnInstall" => bool_ptr(r.disable_validation_on_install),
            "MissingFileHandler" => string_ptr(&r.missing_file_handler),
            "Needs" => strings(&r.needs),
            "Hooks" => hooks(&r.hooks),
            "Name" => Value::str(r.name.as_str()),
            "Namespace" => Value::str(r.namespace.as_str()),
            "Labels" => {
                let m = Map::with_type(MapType::String);
                for (k, v) in r.labels_or_empty() {
                    m.insert(k, Value::str(v));
                }
                Value::Map(m)
            }
            "Values" => anys(&r.values),
            "Secrets" => anys(&r.secrets),
            "SetValues" => set_values(&r.set_values),
            // A `time.Duration` Helmfile sets while syncing; `fmt` cannot call its
            // `String` on an unexported field.
            "duration" => Value::Int(0, crate::template::IntType::Int64),
            "ValuesTemplate" => anys(&r.values_template),
            "SetValuesTemplate" => set_values(&r.set_values_template),
            "ApiVersions" => strings(&r.api_versions),
            "KubeVersion" => Value::str(r.kube_version.as_str()),
            "EnvValues" => set_values(&r.env_values),
            "ValuesPathPrefix" => Value::str(r.values_path_prefix.as_str()),
            "KubeContext" => Value::str(r.kube_context.as_str()),
            "InsecureSkipTLSVerify" => Value::Bool(r.insecure_skip_tls_verify),
            "VerifyTemplate" => string_ptr(&r.verify_template),
            "WaitTemplate" => string_ptr(&r.wait_template),
            "InstalledTemplate" => string_ptr(&r.installed_template),
            "Dependencies" => dependencies(&r.dependencies),
            "JSONPatches" => anys(&r.json_patches),
            "StrategicMergePatches" => anys(&r.strategic_merge_patches),
            "Transformers" => anys(&r.transformers),
            "Adopt" => strings(&r.adopt),
            "installedVersion" => Value::str(""),
            "ForceGoGetter" => Value::Bool(r.force_go_getter),
            "ForceNamespace" => Value::str(r.force_namespace.as_str()),
            "SkipDeps" => bool_ptr(r.skip_deps),
            "PostRenderer" => string_ptr(&r.post_renderer),
            "PostRendererArgs" => strings(&r.post_renderer_args),
            "Cascade" => string_ptr(&r.cascade),
            "SuppressOutputLineRegex" => strings(&r.suppress_output_line_regex),
            "Inherit" => inherits(&r.inherit),
            "SuppressDiff" => bool_ptr(r.suppress_diff),
            "DeleteWait" => bool_ptr(r.delete_wait),
            "DeleteTimeout" => int_ptr(r.delete_timeout),
            _ => return None,
        })
    }
}

impl Object for ReleaseObj {
    fn type_name(&self) -> String {
        "*state.ReleaseSpec".to_string()
    }
    fn field(&self, name: &str) -> Option<Value> {
        // Unexported fields are not reachable from a template.
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        self.get(name)
    }
    fn fmt_v(&self, _plus: bool) -> String {
        let fields: Vec<String> = RELEASE_FIELDS
            .iter()
            .map(|f| {
                self.get(f)
                    .map(|v| crate::template::fmt::format_value(&v))
                    .unwrap_or_default()
            })
            .collect();
        format!("&{{{}}}", fields.join(" "))
    }
    fn to_json_value(&self) -> Value {
        Value::Map(Map::new())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `ChartPath` as Helmfile's chart preparation leaves it: a local chart directory
/// is recorded as the state's base path joined with the chart (`normalizeChart`),
/// which replaces the field when it differs from `chart:`; otherwise the field
/// keeps what the state file set.
pub fn prepared_chart_path(vfs: &crate::source::Vfs, st: &HelmState, r: &ReleaseSpec) -> String {
    let normalized = if !super::charts::is_local_chart(&r.chart) || r.chart.starts_with('/') {
        r.chart.clone()
    } else {
        paths::join(&[&st.base_path, &r.chart])
    };
    if normalized != r.chart && vfs.is_dir(&paths::resolve(&st.cwd, &normalized)) {
        normalized
    } else {
        r.chart_path.clone()
    }
}

/// A plain struct: its Go type and its fields in declaration order.
#[derive(Debug, Clone)]
struct Fields(&'static str, Vec<(&'static str, Value)>);

impl Object for Fields {
    fn type_name(&self) -> String {
        self.0.to_string()
    }
    fn kind(&self) -> Kind {
        Kind::Struct
    }
    fn field(&self, name: &str) -> Option<Value> {
        self.1
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    }
    fn fmt_v(&self, _plus: bool) -> String {
        format!(
            "{{{}}}",
            self.1
                .iter()
                .map(|(_, v)| crate::template::fmt::format_value(v))
                .collect::<Vec<_>>()
                .join(" ")
        )
    }
    fn to_json_value(&self) -> Value {
        let m = Map::new();
        for (k, v) in &self.1 {
            m.insert(*k, v.clone());
        }
        Value::Map(m)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `.State` of the output path templates: the state file's base name, path,
/// absolute path and the first 8 hex digits of that path's SHA-1 (all Helmfile
/// keeps).
fn state_object(st: &HelmState) -> Value {
    let abs = paths::resolve(&st.cwd, &st.file_path).display().to_string();
    let mut sha = sha1_hex(abs.as_bytes());
    sha.truncate(8);
    let ext = paths::ext(&st.file_path);
    let base_name = st.file_path[..st.file_path.len() - ext.len()].to_string();
    // A type declared inside the Helmfile function that makes the data.
    Value::object(Fields(
        "state.state",
        vec![
            ("BaseName", Value::str(base_name)),
            ("Path", Value::str(st.file_path.as_str())),
            ("AbsPath", Value::str(abs)),
            ("AbsPathSHA1", Value::str(sha)),
        ],
    ))
}

/// `GenerateOutputFilePath`: where `write-values` writes a release's values.
pub fn output_file_path(
    vfs: &crate::source::Vfs,
    st: &HelmState,
    r: &ReleaseSpec,
    template: Option<&str>,
) -> Result<String> {
    let template = template
        .filter(|t| !t.is_empty())
        .unwrap_or("{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}/{{ .Release.Name }}.yaml");
    let data = Fields(
        "struct { State state.state; Release *state.ReleaseSpec; Environment *environment.Environment }",
        vec![
            ("State", state_object(st)),
            (
                "Release",
                Value::object(ReleaseObj {
                    spec: r.clone(),
                    chart_path: prepared_chart_path(vfs, st, r),
                }),
            ),
            ("Environment", Value::object(EnvObject(st.env.clone()))),
        ],
    );
    let host = Host::new(0);
    let registry = Registry::new();
    let data = Value::Object(Arc::new(data));
    seams::execute_template(&TemplateCall {
        name: "output-file",
        helpers: &[],
        text: template,
        data: &data,
        missing_key: MissingKey::Zero,
        registry: &std::sync::Arc::new(registry),
        host: &host,
    })
    .map_err(|f| {
        let parsed = f.error.kind != crate::template::ErrorKind::Parse;
        let e = template_error(*f.error);
        let m = if parsed {
            format!("executing output-file template: {}", e.message)
        } else {
            format!(
                "parsing output-file template {}: {}",
                crate::template::fmt::quote(template),
                e.message
            )
        };
        HelmfileError { message: m, ..e }
    })
}

/// `GenerateOutputDir`: the `--output-dir` Helmfile passes to `helm template` for a
/// release, from `--output-dir-template` (default
/// `{{ .OutputDir }}/{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}-{{ .Release.Name}}`).
/// The template sees `.OutputDir`, `.State` and `.Release` only.
pub fn release_output_dir(
    vfs: &crate::source::Vfs,
    st: &HelmState,
    r: &ReleaseSpec,
    output_dir: &str,
    template: Option<&str>,
) -> Result<String> {
    // Helmfile builds the default with `filepath.Join`, which leaves the template
    // text as it is here.
    let template = template.filter(|t| !t.is_empty()).unwrap_or(
        "{{ .OutputDir }}/{{ .State.BaseName }}-{{ .State.AbsPathSHA1 }}-{{ .Release.Name}}",
    );
    let data = Fields(
        "struct { OutputDir string; State state.state; Release *state.ReleaseSpec }",
        vec![
            ("OutputDir", Value::str(output_dir)),
            ("State", state_object(st)),
            (
                "Release",
                Value::object(ReleaseObj {
                    spec: r.clone(),
                    chart_path: prepared_chart_path(vfs, st, r),
                }),
            ),
        ],
    );
    let host = Host::new(0);
    let data = Value::Object(Arc::new(data));
    seams::execute_template(&TemplateCall {
        name: "output-dir",
        helpers: &[],
        text: template,
        data: &data,
        missing_key: MissingKey::Zero,
        registry: &Arc::new(Registry::new()),
        host: &host,
    })
    .map_err(|f| {
        if f.partial.is_none() {
            // A parse failure: Helmfile drops the parser's message.
            return HelmfileError::new(ErrorKind::Other, "parsing output-dir template".to_string());
        }
        let e = template_error(*f.error);
        let m = format!("executing output-dir template: {}", e.message);
        HelmfileError { message: m, ..e }
    })
}

/// With `--output-dir` or `--output-dir-template`, the directory helm writes a
/// release's files under, or the errors Helmfile collects making it: the
/// template's, then creating the directory it did not get (`""`). Helmfile makes
/// it for every release, after an earlier release failed too.
pub fn output_dir(
    vfs: &crate::source::Vfs,
    st: &HelmState,
    r: &ReleaseSpec,
    flags: &super::app::HelmTemplateFlags,
) -> Option<std::result::Result<String, Vec<HelmfileError>>> {
    let out = flags.output_dir.as_deref()?;
    Some(
        release_output_dir(vfs, st, r, out, flags.output_dir_template.as_deref()).map_err(|e| {
            vec![
                e,
                HelmfileError::new(
                    ErrorKind::Other,
                    "mkdir : no such file or directory".to_string(),
                ),
            ]
        }),
    )
}

/// Where release `index` of `st` takes its chart from, offline.
pub(crate) fn resolve_chart(
    input: &StackInput,
    st: &HelmState,
    index: usize,
) -> std::result::Result<ResolvedChart, ChartSourceError> {
    let r = &st.spec.releases[index];
    input
        .chart_sources
        .resolve(&input.render.vfs, &r.name, &r.chart, &st.cwd, &r.version)
}

/// `helm template` for one release (`TemplateReleases` + `flagsForTemplate`): the
/// chart as [`resolve_chart`] found it offline, the generated values files and
/// `--set` arguments. Pure (it only reads the stack), so the releases of a state
/// can render in parallel.
pub(crate) fn template_release(
    input: &StackInput,
    st: &HelmState,
    index: usize,
    rr: &ReleaseRender,
    resolved: std::result::Result<ResolvedChart, ChartSourceError>,
) -> TemplatedRelease {
    let r = &st.spec.releases[index];
    let resolved = match resolved {
        Ok(x) => x,
        Err(e) => {
            return TemplatedRelease {
                stdout: Err(HelmfileError::new(ErrorKind::Chart, e.to_string()).at_release(r)),
                more_errors: Vec::new(),
                files: None,
                chart_source: None,
                note: None,
            }
        }
    };
    let note = resolved.stamped_version.as_ref().map(|v| {
        format!(
            "release {:?}: chart {:?} from {} renders with version {v} (the source has {})",
            r.name,
            r.chart,
            resolved.dir.display(),
            resolved.tree_version
        )
    });
    let values_files: Vec<(String, Vec<u8>)> = rr
        .values_files
        .iter()
        .map(|f| {
            (
                f.path.clone().unwrap_or_else(|| f.origin.clone()),
                f.content.clone().into_bytes(),
            )
        })
        .collect();
    let flags = &input.helm_template;
    let mut set = Vec::new();
    let mut set_file = Vec::new();
    for s in &rr.set {
        match s {
            SetArg::Set(x) => set.push(x.clone()),
            SetArg::SetFile(x) => set_file.push(x.clone()),
        }
    }
    // The command line's `--set` come after the release's own.
    set.extend(flags.set.iter().cloned());
    let api_versions = if r.api_versions.is_empty() {
        st.spec.api_versions.clone()
    } else {
        r.api_versions.clone()
    };
    let kube_version = flags
        .kube_version
        .iter()
        .chain([&r.kube_version, &st.spec.kube_version])
        .find(|v| !v.is_empty())
        .cloned();
    // Helm runs in the state's directory and finds the program while it parses
    // its flags, before it loads the chart.
    let post_renderer = match post_renderer_for(st, r, flags).filter(|_| input.render.allow_exec) {
        None => None,
        Some((program, args)) => match PostRenderer::resolve(&program, args, &st.cwd) {
            Ok(p) => Some(p),
            Err(e) => {
                return TemplatedRelease {
                    stdout: Err(HelmfileError::new(
                        ErrorKind::Chart,
                        format!(
                            "Error: invalid argument {program:?} for \"--post-renderer\" flag: {e}"
                        ),
                    )
                    .with_file(resolved.dir.clone())),
                    more_errors: Vec::new(),
                    files: None,
                    chart_source: Some(resolved),
                    note,
                }
            }
        },
    };
    if post_renderer.is_some() && flags.output_dir.is_some() {
        return TemplatedRelease {
            stdout: Err(HelmfileError::new(
                ErrorKind::Chart,
                "postRenderer with --output-dir is not supported by stackproof (helm writes the files before it post-renders)".to_string(),
            )
            .with_file(resolved.dir.clone())),
            more_errors: Vec::new(),
            files: None,
            chart_source: Some(resolved),
            note,
        };
    }
    let call = ChartCall {
        release_name: r.name.clone(),
        namespace: r.namespace.clone(),
        chart_dir: resolved.dir.clone(),
        version_override: resolved.stamped_version.clone(),
        values_files,
        set,
        set_file,
        kube_version,
        api_versions,
        include_crds: flags.include_crds,
        skip_tests: flags.skip_tests,
        show_only: flags.show_only.clone(),
        build_deps: dependency_build(input, st, r, &resolved),
        dependency_sources: input.chart_sources.clone(),
        vfs: input.render.vfs.clone(),
        post_renderer,
        // Each release's chart draws its own stream, as each `helm template` process
        // does: two releases never render the same generated password or key.
        seed: input
            .render
            .seed
            .derive(&[b"chart", super::release::release_label(st, r).as_bytes()]),
        now: input.render.now,
    };
    let chart_error =
        |e: String| HelmfileError::new(ErrorKind::Chart, e).with_file(resolved.dir.clone());
    let mut more_errors = Vec::new();
    let (stdout, files) = match output_dir(&input.render.vfs, st, r, flags) {
        None => (seams::render_chart(&call).map_err(chart_error), None),
        Some(dir) => match dir {
            Err(mut errs) => {
                let first = errs.remove(0);
                more_errors = errs;
                (Err(first), None)
            }
            Ok(dir) => match seams::render_chart_to_dir(&call, &dir) {
                Err(e) => (Err(chart_error(e)), None),
                Ok(f) => {
                    let stdout = match f.error {
                        Some(e) => Err(chart_error(e)),
                        None => Ok(Arc::new(String::new())),
                    };
                    let files = ReleaseFiles {
                        base: st.cwd.clone(),
                        dir,
                        writes: f.writes,
                        log: f.stdout,
                    };
                    (stdout, Some(files))
                }
            },
        },
    };
    TemplatedRelease {
        stdout,
        more_errors,
        files,
        chart_source: Some(resolved),
        note,
    }
}

/// Whether Helmfile runs `helm dependency build` on this release's chart, and if so
/// the chart path it passes (`normalizeChart`: the state's base path joined with
/// the chart, absolute paths unchanged). Helmfile builds local chart directories
/// only, unless `--skip-deps`, `skipDeps:` of the release, or (when the release
/// does not say) `helmDefaults.skipDeps` turns it off; a release that skips still
/// sees the dependencies an earlier build of the same chart wrote (see
/// [`HelmState::built_charts`]).
pub(crate) fn dependency_build(
    input: &StackInput,
    st: &HelmState,
    r: &ReleaseSpec,
    resolved: &super::charts::ResolvedChart,
) -> Option<String> {
    let skip = input.skip_deps || r.skip_deps.unwrap_or(st.spec.helm_defaults.skip_deps);
    if resolved.origin != super::charts::ChartOrigin::LocalPath
        || !input.render.vfs.is_dir(&resolved.dir)
    {
        return None;
    }
    if skip {
        return st.built_charts.get(&resolved.dir).cloned();
    }
    Some(if r.chart.starts_with('/') {
        r.chart.clone()
    } else {
        paths::join(&[&st.base_path, &r.chart])
    })
}

/// The first release feature set on `r` that changes Helmfile's `template` output
/// but that stackproof does not apply, named by its field. Helmfile runs a
/// post-renderer program on helm's output, and turns a chart with `jsonPatches`,
/// `strategicMergePatches`, `transformers`, adhoc `dependencies:` or
/// `forceNamespace` into a new chart (chartify, kustomize) before rendering it.
/// Rendering the plain chart instead would print different manifests with success,
/// so such a release must fail instead. `list` and `write-values` do not use them.
///
/// A post-renderer is applied when programs may run (`--allow-exec`), so it is
/// refused only without that.
pub(crate) fn unapplied_feature(
    st: &HelmState,
    r: &ReleaseSpec,
    allow_exec: bool,
) -> Option<(&'static str, String)> {
    let why = |p: &str| {
        format!("Helmfile would pipe the rendered manifests through {p:?}; stackproof runs programs only with --allow-exec")
    };
    if let Some(p) = r.post_renderer.as_deref().filter(|p| !p.is_empty()) {
        if !allow_exec {
            return Some(("postRenderer", why(p)));
        }
    }
    // An empty release value falls back to helmDefaults, as in Helmfile.
    if let Some(p) = default_post_renderer(st).filter(|_| !allow_exec) {
        return Some(("helmDefaults.postRenderer", why(&p)));
    }
    let chartify = "Helmfile would rewrite the chart with chartify before rendering it";
    let lists = [
        ("jsonPatches", r.json_patches.len()),
        ("strategicMergePatches", r.strategic_merge_patches.len()),
        ("transformers", r.transformers.len()),
        ("dependencies", r.dependencies.len()),
    ];
    if let Some((field, _)) = lists.iter().find(|(_, n)| *n > 0) {
        return Some((field, chartify.to_string()));
    }
    if !r.force_namespace.is_empty() {
        return Some(("forceNamespace", chartify.to_string()));
    }
    // Helmfile appends these to every `helm template` call; they can be any helm
    // flag, and rendering without them would print something else with success.
    if !st.spec.helm_defaults.args.is_empty() {
        return Some((
            "helmDefaults.args",
            format!(
                "Helmfile would pass {:?} to helm template; stackproof does not apply helm arguments given as text",
                st.spec.helm_defaults.args.join(" ")
            ),
        ));
    }
    None
}

fn default_post_renderer(st: &HelmState) -> Option<String> {
    st.spec
        .helm_defaults
        .other
        .get("postRenderer")
        .and_then(|v| v.as_str().map(str::to_string))
        .filter(|p| !p.is_empty())
}

/// The post-renderer helm gets for `r` and its arguments (`appendPostRenderFlags`,
/// `appendPostRenderArgsFlags`): each from the release, else the command line,
/// else `helmDefaults`, the first that is set; empty arguments are dropped.
fn post_renderer_for(
    st: &HelmState,
    r: &ReleaseSpec,
    flags: &super::app::HelmTemplateFlags,
) -> Option<(String, Vec<String>)> {
    let program = r
        .post_renderer
        .clone()
        .filter(|p| !p.is_empty())
        .or_else(|| flags.post_renderer.clone().filter(|p| !p.is_empty()))
        .or_else(|| default_post_renderer(st))?;
    let default_args: Vec<String> = st
        .spec
        .helm_defaults
        .other
        .get("postRendererArgs")
        .and_then(|v| v.as_list())
        .map(|l| {
            l.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let args = [
        &r.post_renderer_args,
        &flags.post_renderer_args,
        &default_args,
    ]
    .into_iter()
    .find(|a| !a.is_empty())
    .cloned()
    .unwrap_or_default()
    .into_iter()
    .filter(|a| !a.is_empty())
    .collect();
    Some((program, args))
}

/// What `helm template` gave for one release.
pub(crate) struct TemplatedRelease {
    pub stdout: Result<Arc<String>>,
    /// Errors Helmfile collects for the release after the one in `stdout`.
    pub more_errors: Vec<HelmfileError>,
    /// With `--output-dir`: what helm wrote instead of printing.
    pub files: Option<ReleaseFiles>,
    /// Where the chart came from (known once it resolved).
    pub chart_source: Option<super::charts::ResolvedChart>,
    /// The verbose note about a stamped version.
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_known_vectors() {
        assert_eq!(sha1_hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha1_hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            sha1_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
    }

    #[test]
    fn abs_path_sha1_is_eight_digits() {
        // helmfile 0.166 for /tmp/hfa/svs/helmfile.yaml.gotmpl (sha1 7d8c2d9e2b27...).
        let st = HelmState::empty(
            "helmfile.yaml.gotmpl",
            ".",
            std::path::Path::new("/tmp/hfa/svs"),
        );
        let r = ReleaseSpec {
            name: "r".into(),
            ..ReleaseSpec::default()
        };
        let t = "{{ .State.AbsPathSHA1 }}/{{ .Release.Name }}";
        assert_eq!(
            output_file_path(&crate::source::Vfs::default(), &st, &r, Some(t)).unwrap(),
            "7d8c2d9e/r"
        );
        assert_eq!(
            output_file_path(&crate::source::Vfs::default(), &st, &r, None).unwrap(),
            "helmfile.yaml-7d8c2d9e/r.yaml"
        );
    }

    #[test]
    fn release_is_the_whole_go_struct() {
        // helmfile 0.166 write-values --output-file-template, `installed: true`,
        // `wait: false`, everything else unset.
        let st = HelmState::empty("helmfile.yaml", ".", std::path::Path::new("/tmp/x"));
        let r = ReleaseSpec {
            name: "a".into(),
            chart: "../charts/echo".into(),
            installed: Some(true),
            wait: Some(false),
            ..ReleaseSpec::default()
        };
        let vfs = crate::source::Vfs::default();
        let path = |t: &str| output_file_path(&vfs, &st, &r, Some(t)).unwrap();
        assert_eq!(
            path("{{ .Release.Installed }}-{{ .Release.Wait }}-{{ .Release.Timeout }}"),
            "true-false-<nil>"
        );
        // A set pointer is true whatever it points to; a nil one is false.
        assert_eq!(
            path("{{ if .Release.Wait }}w{{ end }}{{ if .Release.Atomic }}a{{ end }}"),
            "w"
        );
        assert_eq!(path("{{ eq .Release.Verify .Release.Atomic }}"), "true");
        assert!(output_file_path(&vfs, &st, &r, Some("{{ eq .Release.Wait false }}")).is_err());
        assert_eq!(
            path("{{ .Release.Needs }}{{ .Release.Labels }}{{ .Release.SetValues }}{{ .Release.InsecureSkipTLSVerify }}"),
            "[]map[][]false"
        );
        // Unexported fields print with the struct but cannot be reached.
        assert!(output_file_path(&vfs, &st, &r, Some("{{ .Release.duration }}")).is_err());
        let plain = ReleaseSpec {
            name: "c".into(),
            chart: "./charts/echo".into(),
            ..ReleaseSpec::default()
        };
        assert_eq!(
            output_file_path(&vfs, &st, &plain, Some("{{ .Release }}")).unwrap(),
            "{./charts/echo    <nil>  <nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil>  <nil> <nil> <nil> <nil> <nil> [] [] c  map[] [] [] [] 0 [] [] []  []   false <nil> <nil> <nil> [] [] [] [] []  false  <nil> <nil> [] <nil> [] [] <nil> <nil> <nil>}"
        );
    }
}
