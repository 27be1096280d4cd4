//! Releases after loading: template inheritance (`inherit:`), release templating
//! (`ExecuteTemplates`), overrides and `needs` normalisation, and conditions.
//!
//! Release templating renders a release's own string fields again with `.Release` in
//! scope, starting from the release as loaded and feeding each pass the previous
//! pass's name, namespace, chart, labels and kube context, until two passes agree
//! (at most six). Inline `values:` maps and `set:` values are not templated; file
//! paths, `valuesTemplate`, `setTemplate`, `needs`, labels and the scalar fields are.

use std::collections::BTreeMap;

use super::dag::normalize_need;
use super::env::{yaml_roundtrip, ReleaseInfo, TemplateData};
use super::error::{ErrorKind, HelmfileError, Result};
use super::load::{template_error, HelmState};
use super::seams;
use super::spec::{ReleaseSpec, SetValue};
use super::tmpl::{Context, RenderEnv};
use crate::funcs::codec::yaml::TypedKeyValues;
use crate::template::{Map, Value};

fn merge_ptr_bool(dst: &mut Option<bool>, src: Option<bool>) {
    match (dst.as_ref(), src) {
        (None, s) if s.is_some() => *dst = s,
        (Some(_), Some(true)) => *dst = Some(true),
        _ => {}
    }
}

fn merge_ptr_int(dst: &mut Option<i64>, src: Option<i64>) {
    match (dst.as_ref(), src) {
        (None, s) if s.is_some() => *dst = s,
        (Some(_), Some(v)) if v != 0 => *dst = Some(v),
        _ => {}
    }
}

fn merge_ptr_str(dst: &mut Option<String>, src: &Option<String>) {
    match (dst.as_ref(), src) {
        (None, Some(_)) => *dst = src.clone(),
        (Some(_), Some(v)) if !v.is_empty() => *dst = src.clone(),
        _ => {}
    }
}

fn merge_str(dst: &mut String, src: &str) {
    if !src.is_empty() {
        *dst = src.to_string();
    }
}

/// `mergo.Merge(&dst, src, mergo.WithAppendSlice, mergo.WithSliceDeepCopy)` on
/// `ReleaseSpec`: non-empty scalars override, lists are appended, labels merge.
pub fn merge_release(dst: &mut ReleaseSpec, src: &ReleaseSpec) {
    merge_str(&mut dst.chart, &src.chart);
    merge_str(&mut dst.chart_path, &src.chart_path);
    merge_str(&mut dst.directory, &src.directory);
    merge_str(&mut dst.version, &src.version);
    merge_ptr_bool(&mut dst.verify, src.verify);
    merge_str(&mut dst.keyring, &src.keyring);
    merge_ptr_bool(&mut dst.enable_dns, src.enable_dns);
    merge_ptr_bool(&mut dst.devel, src.devel);
    merge_ptr_bool(&mut dst.wait, src.wait);
    merge_ptr_bool(&mut dst.wait_for_jobs, src.wait_for_jobs);
    merge_ptr_int(&mut dst.timeout, src.timeout);
    merge_ptr_bool(&mut dst.recreate_pods, src.recreate_pods);
    merge_ptr_bool(&mut dst.force, src.force);
    merge_ptr_bool(&mut dst.installed, src.installed);
    merge_ptr_bool(&mut dst.atomic, src.atomic);
    merge_ptr_bool(&mut dst.cleanup_on_fail, src.cleanup_on_fail);
    merge_ptr_int(&mut dst.history_max, src.history_max);
    merge_str(&mut dst.condition, &src.condition);
    merge_ptr_bool(&mut dst.create_namespace, src.create_namespace);
    merge_ptr_bool(
        &mut dst.disable_open_api_validation,
        src.disable_open_api_validation,
    );
    merge_ptr_bool(&mut dst.disable_validation, src.disable_validation);
    merge_ptr_bool(
        &mut dst.disable_validation_on_install,
        src.disable_validation_on_install,
    );
    merge_ptr_str(&mut dst.missing_file_handler, &src.missing_file_handler);
    dst.needs.extend(src.needs.iter().cloned());
    dst.hooks.extend(src.hooks.iter().cloned());
    merge_str(&mut dst.name, &src.name);
    merge_str(&mut dst.namespace, &src.namespace);
    if let Some(l) = &src.labels {
        let d = dst.labels.get_or_insert_with(BTreeMap::new);
        for (k, v) in l {
            d.insert(k.clone(), v.clone());
        }
    }
    dst.values.extend(src.values.iter().cloned());
    dst.secrets.extend(src.secrets.iter().cloned());
    dst.set_values.extend(src.set_values.iter().cloned());
    dst.values_template
        .extend(src.values_template.iter().cloned());
    dst.set_values_template
        .extend(src.set_values_template.iter().cloned());
    dst.api_versions.extend(src.api_versions.iter().cloned());
    merge_str(&mut dst.kube_version, &src.kube_version);
    dst.env_values.extend(src.env_values.iter().cloned());
    merge_str(&mut dst.values_path_prefix, &src.values_path_prefix);
    merge_str(&mut dst.kube_context, &src.kube_context);
    dst.insecure_skip_tls_verify |= src.insecure_skip_tls_verify;
    merge_ptr_str(&mut dst.verify_template, &src.verify_template);
    merge_ptr_str(&mut dst.wait_template, &src.wait_template);
    merge_ptr_str(&mut dst.installed_template, &src.installed_template);
    dst.dependencies.extend(src.dependencies.iter().cloned());
    dst.json_patches.extend(src.json_patches.iter().cloned());
    dst.strategic_merge_patches
        .extend(src.strategic_merge_patches.iter().cloned());
    dst.transformers.extend(src.transformers.iter().cloned());
    dst.adopt.extend(src.adopt.iter().cloned());
    dst.force_go_getter |= src.force_go_getter;
    merge_str(&mut dst.force_namespace, &src.force_namespace);
    merge_ptr_bool(&mut dst.skip_deps, src.skip_deps);
    merge_ptr_str(&mut dst.post_renderer, &src.post_renderer);
    dst.post_renderer_args
        .extend(src.post_renderer_args.iter().cloned());
    merge_ptr_str(&mut dst.cascade, &src.cascade);
    dst.suppress_output_line_regex
        .extend(src.suppress_output_line_regex.iter().cloned());
    dst.inherit.extend(src.inherit.iter().cloned());
    merge_ptr_bool(&mut dst.suppress_diff, src.suppress_diff);
    merge_ptr_bool(&mut dst.delete_wait, src.delete_wait);
    merge_ptr_int(&mut dst.delete_timeout, src.delete_timeout);
    if src.line != 0 {
        dst.line = src.line;
    }
    if src.origin.is_some() {
        dst.origin = src.origin.clone();
    }
}

/// `releaseWithInheritedTemplate`.
pub fn with_inherited_templates(
    templates: &BTreeMap<String, ReleaseSpec>,
    r: &ReleaseSpec,
    path: &[String],
) -> Result<ReleaseSpec> {
    let mut merged = ReleaseSpec::default();
    for inherit in &r.inherit {
        let name = &inherit.template;
        if name.is_empty() {
            return Ok(r.clone());
        }
        let mut p = path.to_vec();
        p.push(name.clone());
        if path.contains(name) {
            return Err(HelmfileError::other(format!(
                "cyclic inheritance detected: {}",
                p.join("->")
            )));
        }
        let Some(template) = templates.get(name) else {
            return Err(HelmfileError::other(format!(
                "release {:?} tried to inherit inexistent release template {:?}",
                r.name, name
            )));
        };
        let mut src = with_inherited_templates(templates, template, &p)
            .map_err(|e| e.wrap(format!("unable to load release template {name:?}")))?;
        for k in &inherit.except {
            match k.as_str() {
                "labels" => src.labels = Some(BTreeMap::new()),
                "values" => src.values.clear(),
                "valuesTemplate" => src.values_template.clear(),
                "setTemplate" => src.set_values_template.clear(),
                "set" => src.set_values.clear(),
                "secrets" => src.secrets.clear(),
                other => {
                    return Err(HelmfileError::other(format!(
                        "{other:?} is not allowed under `inherit`. Allowed values are \"set\", \"setTemplate\", \"values\", \"valuesTemplate\", \"secrets\", and \"labels\""
                    )))
                }
            }
        }
        merge_release(&mut merged, &src);
    }
    merge_release(&mut merged, r);
    merged.inherit.clear();
    Ok(merged)
}

fn info_of(r: &ReleaseSpec) -> ReleaseInfo {
    ReleaseInfo {
        name: r.name.clone(),
        namespace: r.namespace.clone(),
        labels: r.labels_or_empty(),
        chart: r.chart.clone(),
        kube_context: r.kube_context.clone(),
    }
}

/// The data release templates see.
/// Names a release for its templates' random streams ([`Context::labeled`]): two
/// releases never share one, and one release keeps its own through Helmfile's
/// repeated renders.
pub fn release_label(st: &HelmState, r: &ReleaseSpec) -> String {
    format!(
        "release {} {}/{}/{}",
        st.file_path, r.kube_context, r.namespace, r.name
    )
}

pub fn release_data(st: &HelmState, r: &ReleaseSpec) -> Value {
    TemplateData {
        environment: st.env.clone(),
        namespace: st.spec.override_namespace.clone(),
        values: st.rendered_values.clone(),
        release: Some(info_of(r)),
        kube_context: st.spec.override_kube_context.clone(),
        chart: st.spec.override_chart.clone(),
    }
    .into_value()
}

struct Renderer<'a> {
    ctx: Context<'a>,
    data: Value,
    release: String,
}

impl Renderer<'_> {
    fn render(&self, text: &str, what: impl FnOnce() -> String) -> Result<String> {
        self.ctx.render(text, &self.data).map_err(|f| {
            let e = template_error(*f.error);
            let msg = format!(
                "failed executing template expressions in release \"{}\"{}: {}",
                self.release,
                what(),
                e.message
            );
            HelmfileError { message: msg, ..e }
        })
    }
}

fn yaml_bool(field: &str, s: &str) -> Result<bool> {
    let t = s.trim();
    let v = match t {
        "" | "~" | "null" | "Null" | "NULL" => Some(false),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(false)
        }
        _ => None,
    };
    v.ok_or_else(|| {
        let shown = if t.len() > 10 {
            format!("{}...", &t[..t.char_indices().nth(7).map_or(t.len(), |(i, _)| i)])
        } else {
            t.to_string()
        };
        HelmfileError::other(format!(
            "{field}: failed deserialising string {s}: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `{shown}` into bool"
        ))
    })
}

/// The marker an inline values map whose keys do not cast to strings leaves.
fn typed_key_values(v: &Value) -> Option<&TypedKeyValues> {
    match v {
        Value::Object(o) => o.as_any().downcast_ref::<TypedKeyValues>(),
        _ => None,
    }
}

/// Inline values through `Clone`'s YAML round trip; a map whose keys do not cast
/// survives it unchanged (as the marker holding its error).
fn clone_values(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .map(|v| match typed_key_values(v) {
            Some(_) => v.clone(),
            None => yaml_roundtrip(v),
        })
        .collect()
}

/// One pass of `ExecuteTemplateExpressions`: renders `r` (as loaded) with `data`.
fn execute_template_expressions(rd: &Renderer<'_>, r: &ReleaseSpec) -> Result<ReleaseSpec> {
    let mut out = r.clone();
    // `Clone` is a YAML round trip of the whole spec.
    out.values = clone_values(&r.values);
    out.values_template = clone_values(&r.values_template);
    out.secrets = r.secrets.iter().map(yaml_roundtrip).collect();

    out.name = rd.render(&r.name, || format!(".name = \"{}\"", r.name))?;
    out.chart = rd.render(&r.chart, || format!(".chart = \"{}\"", r.chart))?;
    out.namespace = rd.render(&r.namespace, || format!(".namespace = \"{}\"", r.namespace))?;
    out.version = rd.render(&r.version, || format!(".version = \"{}\"", r.version))?;
    for (field, src) in [
        (&mut out.wait_template, &r.wait_template),
        (&mut out.installed_template, &r.installed_template),
        (&mut out.verify_template, &r.verify_template),
    ] {
        if let Some(t) = src {
            // Helmfile names all three `.version` in its messages.
            *field = Some(rd.render(t, || format!(".version = \"{t}\""))?);
        }
    }
    if let Some(labels) = &r.labels {
        let mut l = BTreeMap::new();
        for (k, v) in labels {
            l.insert(
                k.clone(),
                rd.render(v, || format!(".labels[{k}] = \"{v}\""))?,
            );
        }
        out.labels = Some(l);
    }
    if !out.values_template.is_empty() {
        let mut rendered = Vec::new();
        for (i, t) in out.values_template.iter().enumerate() {
            let typed = typed_key_values(t);
            if typed.is_some() || matches!(t, Value::Map(_)) {
                let (shown, serialized) = match typed {
                    // Typed keys survive Marshal; the decode below casts them.
                    Some(m) => (m.shown_v(), seams::encode_go_yaml(&m.map)),
                    None => (crate::template::fmt::format_value(t), seams::encode_yaml(t)),
                };
                let serialized = serialized.map_err(|e| {
                    HelmfileError::other(format!(
                        "failed executing template expressions in release \"{}\".values[{i}] = \"{shown}\": {e}",
                        r.name
                    ))
                })?;
                let s = rd.render(&serialized, || format!(".values[{i}] = \"{serialized}\""))?;
                let v = seams::decode_values(&s).map_err(|e| {
                    HelmfileError::new(
                        ErrorKind::Yaml,
                        format!(
                            "failed executing template expressions in release \"{}\".values[{i}] = \"{shown}\": {e}",
                            r.name
                        ),
                    )
                })?;
                rendered.push(v);
            } else {
                rendered.push(t.clone());
            }
        }
        let mut vals = rendered;
        vals.extend(out.values.iter().cloned());
        out.values = vals;
    }
    for (i, v) in out.values.iter_mut().enumerate() {
        if let Value::String(s) = v {
            let t = s.to_string();
            *v = Value::str(rd.render(&t, || format!(".values[{i}] = \"{t}\""))?);
        } else if let Some(t) = typed_key_values(v) {
            // Helmfile casts an inline map's keys to strings here.
            return Err(HelmfileError::new(
                ErrorKind::Yaml,
                format!(
                    "failed executing template expressions in release \"{}\".values[{i}] = \"{}\": {}",
                    r.name,
                    t.shown(),
                    t.message
                ),
            ));
        }
    }
    for (i, v) in out.secrets.iter_mut().enumerate() {
        if let Value::String(s) = v {
            let t = s.to_string();
            *v = Value::str(rd.render(&t, || format!(".secrets[{i}] = \"{t}\""))?);
        }
    }
    if !r.set_values_template.is_empty() {
        let mut rendered: Vec<SetValue> = Vec::new();
        for (i, sv) in r.set_values_template.iter().enumerate() {
            let mut n = sv.clone();
            n.name = rd.render(&sv.name, || format!(".set[{i}].name = \"{}\"", sv.name))?;
            n.value = rd.render(&sv.value, || format!(".set[{i}].value = \"{}\"", sv.value))?;
            n.file = rd.render(&sv.file, || format!(".set[{i}].file = \"{}\"", sv.file))?;
            for (j, x) in sv.values.iter().enumerate() {
                n.values[j] = rd.render(x, || format!(".set[{i}].values[{j}] = \"{x}\""))?;
            }
            rendered.push(n);
        }
        out.set_values_template = rendered.clone();
        rendered.extend(r.set_values.iter().cloned());
        out.set_values = rendered;
    }
    for (i, n) in r.needs.iter().enumerate() {
        out.needs[i] = rd.render(n, || format!(".needs[{i}] = \"{n}\""))?;
    }
    Ok(out)
}

/// Whether two passes agree on everything release templating produces.
fn same_release(a: &ReleaseSpec, b: &ReleaseSpec) -> bool {
    let values_eq = |x: &[Value], y: &[Value]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.deep_equal(q))
    };
    a.name == b.name
        && a.chart == b.chart
        && a.namespace == b.namespace
        && a.version == b.version
        && a.labels == b.labels
        && a.kube_context == b.kube_context
        && a.needs == b.needs
        && a.wait_template == b.wait_template
        && a.installed_template == b.installed_template
        && a.verify_template == b.verify_template
        && a.set_values == b.set_values
        && values_eq(&a.values, &b.values)
        && values_eq(&a.secrets, &b.secrets)
}

/// `HelmState.ExecuteTemplates`: inheritance, defaults from the state, and release
/// templating, for every release of the state.
pub fn execute_templates(renv: &RenderEnv, st: &mut HelmState) -> Result<()> {
    let templates = st.spec.templates.clone();
    let mut out = Vec::with_capacity(st.spec.releases.len());
    for rt in &st.spec.releases {
        let mut release = with_inherited_templates(&templates, rt, &[]).map_err(|e| {
            if e.message.starts_with("cyclic inheritance detected") {
                e.wrap(format!(
                    "unable to load release {:?} with template",
                    rt.name
                ))
            } else {
                e
            }
        })?;
        if release.kube_context.is_empty() {
            release.kube_context = st.spec.helm_defaults.kube_context.clone();
        }
        let labels = release.labels.get_or_insert_with(BTreeMap::new);
        for (k, v) in &st.spec.common_labels {
            labels.insert(k.clone(), v.clone());
        }
        if release.api_versions.is_empty() {
            release.api_versions = st.spec.api_versions.clone();
        }
        if release.kube_version.is_empty() {
            release.kube_version = st.spec.kube_version.clone();
        }
        let wrap = |e: HelmfileError, name: &str| {
            e.wrap(format!(
                "failed executing templates in release \"{}\".\"{}\"",
                st.file_path, name
            ))
        };
        let mut prev = release.clone();
        let mut done = None;
        for _ in 0..6 {
            let rd = Renderer {
                ctx: Context::new(renv, &st.base_path, &st.cwd, false)
                    .labeled(release_label(st, &release)),
                data: release_data(st, &prev),
                release: release.name.clone(),
            };
            let r =
                execute_template_expressions(&rd, &release).map_err(|e| wrap(e, &release.name))?;
            if same_release(&prev, &r) {
                done = Some(r);
                break;
            }
            prev = r;
        }
        let Some(mut r) = done else {
            return Err(HelmfileError::other(format!(
                "failed executing templates in release \"{}\".\"{}\": recursive references can't be resolved",
                st.file_path, release.name
            )));
        };
        if let Some(t) = r.installed_template.take() {
            r.installed =
                Some(yaml_bool("installedTemplate", &t).map_err(|e| wrap(e, &release.name))?);
        }
        if let Some(t) = r.wait_template.take() {
            r.wait = Some(yaml_bool("waitTemplate", &t).map_err(|e| wrap(e, &release.name))?);
        }
        if let Some(t) = r.verify_template.take() {
            r.verify = Some(yaml_bool("verifyTemplate", &t).map_err(|e| wrap(e, &release.name))?);
        }
        if r.chart.is_empty() {
            return Err(HelmfileError::other(format!(
                "encountered empty chart while reading release {:?}",
                r.name
            )));
        }
        out.push(r);
    }
    st.spec.releases = out;
    Ok(())
}

/// `ApplyOverrides` for every release (`GetReleasesWithOverrides`): the state's kube
/// context and namespace overrides, and `needs` in normalised form. Returns the
/// warnings Helmfile prints for needs on releases that are not installed.
pub fn apply_overrides(st: &mut HelmState) -> Vec<String> {
    let mut warnings = Vec::new();
    let installed: BTreeMap<String, bool> = st
        .orig_releases
        .iter()
        .map(|r| (r.name.clone(), r.desired()))
        .collect();
    for r in &mut st.spec.releases {
        if !st.spec.override_kube_context.is_empty() {
            r.kube_context = st.spec.override_kube_context.clone();
        }
        if !st.spec.override_namespace.is_empty() {
            r.namespace = st.spec.override_namespace.clone();
        }
        let mut needs = Vec::new();
        for n in &r.needs {
            let name = n.rsplit('/').next().unwrap_or(n);
            if !installed.get(name).copied().unwrap_or(false) {
                warnings.push(format!(
                    "WARNING: release {0} needs {1}, but {1} is not installed due to installed: false. Either mark {1} as installed or remove {1} from {0}'s needs",
                    r.name, name
                ));
            }
            needs.push(normalize_need(n, &r.namespace, &r.kube_context));
        }
        r.needs = needs;
    }
    warnings
}

/// `ConditionEnabled`: `condition: a.b.enabled` looked up in the state values.
pub fn condition_enabled(r: &ReleaseSpec, values: &Map) -> std::result::Result<bool, String> {
    if r.condition.is_empty() {
        return Ok(true);
    }
    let keys: Vec<&str> = r.condition.split('.').collect();
    if keys.last() != Some(&"enabled") {
        return Err(
            "Condition value must be in the form 'foo.enabled' where 'foo' can be modified as necessary"
                .to_string(),
        );
    }
    let mut cur = values.clone();
    let mut path = String::new();
    for k in &keys[..keys.len() - 1] {
        path.push('.');
        path.push_str(k);
        match cur.get(k) {
            None => return Err(format!("environment values field '{path}' not found")),
            Some(Value::Map(m)) => cur = m,
            Some(_) => return Err(format!("environment values field '{path}' is not a map")),
        }
    }
    Ok(matches!(cur.get("enabled"), Some(Value::Bool(true))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    fn rel(name: &str) -> ReleaseSpec {
        ReleaseSpec {
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn inherit_concatenates_values_template_first() {
        let mut t1 = rel("");
        t1.chart = "../c".into();
        t1.values = vec![Value::str("t1.yaml")];
        t1.labels = Some([("tier".to_string(), "web".to_string())].into());
        let mut t2 = rel("");
        t2.values = vec![Value::str("t2.yaml")];
        let templates: BTreeMap<String, ReleaseSpec> =
            [("a".to_string(), t1), ("b".to_string(), t2)].into();
        let mut r = rel("x");
        r.values = vec![Value::str("own.yaml")];
        r.inherit = vec![
            super::super::spec::Inherit {
                template: "a".into(),
                except: vec![],
            },
            super::super::spec::Inherit {
                template: "b".into(),
                except: vec![],
            },
        ];
        let m = with_inherited_templates(&templates, &r, &[]).unwrap_or_default();
        let vals: Vec<String> = m
            .values
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        assert_eq!(vals, vec!["t1.yaml", "t2.yaml", "own.yaml"]);
        assert_eq!(m.chart, "../c");
        assert!(m.inherit.is_empty());
    }

    #[test]
    fn inherit_errors() {
        let mut r = rel("x");
        r.inherit = vec![super::super::spec::Inherit {
            template: "nope".into(),
            except: vec![],
        }];
        let e = with_inherited_templates(&BTreeMap::new(), &r, &[])
            .err()
            .map(|e| e.message);
        assert_eq!(
            e.as_deref(),
            Some("release \"x\" tried to inherit inexistent release template \"nope\"")
        );
    }

    #[test]
    fn conditions() {
        let v = match vmap! {"b" => vmap!{"enabled" => true}, "s" => vmap!{"enabled" => "true"}, "x" => 1.0}
        {
            Value::Map(m) => m,
            _ => Map::new(),
        };
        let mut r = rel("r");
        r.condition = "b.enabled".into();
        assert_eq!(condition_enabled(&r, &v), Ok(true));
        r.condition = "s.enabled".into();
        assert_eq!(condition_enabled(&r, &v), Ok(false));
        r.condition = "missing.enabled".into();
        assert_eq!(
            condition_enabled(&r, &v),
            Err("environment values field '.missing' not found".to_string())
        );
        r.condition = "x.enabled".into();
        assert_eq!(
            condition_enabled(&r, &v),
            Err("environment values field '.x' is not a map".to_string())
        );
        r.condition = "b".into();
        assert!(condition_enabled(&r, &v).is_err());
    }

    #[test]
    fn needs_normalised_with_warnings() {
        let mut st_spec = super::super::spec::ReleaseSetSpec::default();
        let mut a = rel("a");
        a.namespace = "ns".into();
        let mut b = rel("b");
        b.namespace = "ns".into();
        b.needs = vec!["a".into(), "missing".into()];
        st_spec.releases = vec![a, b];
        let mut st = HelmState {
            orig_releases: st_spec.releases.clone(),
            spec: st_spec,
            file_path: "h.yaml".into(),
            base_path: ".".into(),
            cwd: "/".into(),
            env: Default::default(),
            rendered_values: Map::new(),
            selectors: vec![],
            parts: vec![],
            built_charts: Default::default(),
        };
        let w = apply_overrides(&mut st);
        assert_eq!(st.spec.releases[1].needs, vec!["ns/a", "ns/missing"]);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("WARNING: release b needs missing, but missing is not installed"));
    }

    #[test]
    fn installed_template_bools() {
        assert_eq!(yaml_bool("installedTemplate", "false").ok(), Some(false));
        assert_eq!(yaml_bool("installedTemplate", " yes ").ok(), Some(true));
        assert!(yaml_bool("installedTemplate", "maybe").is_err());
    }
}
