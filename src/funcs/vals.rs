//! The vals references Helmfile resolves (`ref+SCHEME://...`, `secretref+...`), as
//! helmfile/vals v0.37.3 (the version Helmfile 0.166 pins) finds and expands them.
//!
//! Helmfile hands release values, `set:` values, values files that mention `ref+`
//! and the arguments of `fetchSecretValue`/`expandSecretRefs` to vals. Two of its
//! providers read nothing outside the machine and give the same answer every time:
//! `echo` (the reference's own host and path) and `file` (a file, relative to the
//! directory Helmfile runs in). Those are resolved here exactly as vals does, down to
//! its quirks (a `#/fragment` yields only string leaves, anything else is `""`; a
//! map key that is a reference is replaced by the YAML it expands to). References
//! to the providers that fetch secrets over the network are left as written and
//! reported to the caller, which decides what to say; a reference vals itself
//! rejects (a malformed URL, an unknown scheme, a missing file) fails with vals'
//! error text.
//!
//! It lives in `funcs` because the template functions need it and Helmfile's
//! values code (which sits above `funcs`) uses it too. Files are read through the
//! [`Vfs`], never written.
//!
//! Helmfile keeps one vals runtime for the whole run, and its caches decide
//! answers: a reference resolved once gives the same text for the rest of the run,
//! even from another directory (a sub-helmfile's `ref+file://secret.txt` answers
//! its parent's too), and a document read for a `#/fragment` makes a later plain
//! reference to it fail. [`Cache`] is that runtime's memory; a run shares one
//! between its values and its templates. Within one map vals visits entries in Go's
//! random order, so where two entries meet in the cache real Helmfile is not
//! repeatable either; here they go in key order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;
use parking_lot::Mutex;

use crate::funcs::codec::yaml::{self, Document, GoMap, GoValue, NodeId, NodeKind};
use crate::funcs::url;
use crate::source::{Vfs, VfsError};
use crate::template::{List, ListType, MapType, Value};

/// What resolving a reference may read: the files (seen from the directory Helmfile
/// runs in, and only inside `confine_to` when set), the environment (vals reads
/// `VALS_<PARAM>` for a parameter the reference does not give) and the run's cache.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    pub vfs: &'a Vfs,
    pub cwd: &'a Path,
    pub confine_to: Option<&'a Path>,
    pub env: &'a BTreeMap<String, String>,
    pub cache: &'a Cache,
}

/// The size of each of vals' caches as Helmfile sets it.
const CACHE_SIZE: usize = 512;

/// vals' two LRU caches: texts of plain references, and documents read for a
/// fragment together with the texts found in them (one cache, so a plain reference
/// that names a cached document finds a map where it wants a string).
#[derive(Debug, Default)]
pub struct Cache {
    inner: Mutex<CacheState>,
}

#[derive(Debug, Default)]
struct CacheState {
    strs: Lru<String>,
    docs: Lru<DocEntry>,
}

#[derive(Clone, Debug)]
enum DocEntry {
    Str(String),
    Map(Arc<Doc>),
}

/// A document as a provider's `GetStringMap` returned it.
#[derive(Debug)]
enum Doc {
    Echo(EchoNode),
    Yaml(Document),
    /// An empty or null YAML document.
    Empty,
}

/// hashicorp/golang-lru's cache: a hit or an add makes the key the newest, and an
/// add beyond the size drops the oldest.
#[derive(Debug)]
struct Lru<V> {
    map: IndexMap<String, V>,
}

impl<V> Default for Lru<V> {
    fn default() -> Self {
        Lru {
            map: IndexMap::new(),
        }
    }
}

impl<V: Clone> Lru<V> {
    fn get(&mut self, key: &str) -> Option<V> {
        let i = self.map.get_index_of(key)?;
        let last = self.map.len() - 1;
        self.map.move_index(i, last);
        self.map.get_index(last).map(|(_, v)| v.clone())
    }

    fn add(&mut self, key: &str, v: V) {
        self.map.shift_remove(key);
        self.map.insert(key.to_string(), v);
        if self.map.len() > CACHE_SIZE {
            self.map.shift_remove_index(0);
        }
    }
}

impl Cache {
    /// The cache a host carries (see [`crate::template::Host::vals_cache`]), if it
    /// is one.
    pub fn of_host(slot: &(dyn std::any::Any + Send + Sync)) -> Option<&Cache> {
        slot.downcast_ref::<Cache>()
    }
}

/// Expands references and remembers the ones left as written.
pub struct Expander<'a> {
    src: Sources<'a>,
    /// References to providers that need the network, as written
    /// (`ref+vault://a/b#k`), in the order met, each once.
    pub kept: Vec<String>,
}

/// The providers vals v0.37.3 knows besides `echo` and `file`: all of them fetch
/// from a service (or, for `envsubst`, the environment, which is left to vals too).
const NETWORK_PROVIDERS: &[&str] = &[
    "vault",
    "s3",
    "gcs",
    "gitlab",
    "awsssm",
    "awskms",
    "awssecrets",
    "sops",
    "gcpsecrets",
    "googlesheets",
    "tfstate",
    "tfstategs",
    "tfstates3",
    "tfstateazurerm",
    "tfstateremote",
    "azurekeyvault",
    "envsubst",
    "op",
    "onepasswordconnect",
    "doppler",
    "pulumistateapi",
    "gkms",
    "k8s",
    "conjur",
    "hcpvaultsecrets",
    "httpjson",
    "bw",
];

/// vals' `DefaultRefRegexp`. The `regex` crate matches leftmost-first like Go's
/// RE2, so the same pattern finds the same references.
fn ref_regex() -> &'static regex::Regex {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r#"((secret)?ref)\+([^\+:]*://[^\+\n ]+[^\+\n ",])\+?"#)
            .unwrap_or_else(|e| panic!("vals reference pattern: {e}"))
    })
}

/// The references in `text` as written (`ref+vault://p#k`, without a closing
/// `+`), each once, in order.
pub fn references(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for caps in ref_regex().captures_iter(text) {
        if let (Some(kind), Some(key)) = (caps.get(1), caps.get(3)) {
            let found = &text[kind.start()..key.end()];
            if !out.iter().any(|x| x == found) {
                out.push(found.to_string());
            }
        }
    }
    out
}

impl<'a> Expander<'a> {
    pub fn new(src: Sources<'a>) -> Expander<'a> {
        Expander {
            src,
            kept: Vec::new(),
        }
    }

    /// vals' `InString`: every reference in `s` replaced by its value, in order;
    /// the first failure stops it (`expand REF: ...`).
    pub fn expand_str(&mut self, s: &str) -> Result<String, String> {
        let re = ref_regex();
        let mut out = String::new();
        let mut rest = s;
        while let Some(caps) = re.captures(rest) {
            let (Some(whole), Some(kind), Some(key)) = (caps.get(0), caps.get(1), caps.get(3))
            else {
                break;
            };
            out.push_str(&rest[..whole.start()]);
            match lookup(&self.src, key.as_str()) {
                Ok(Some(v)) => out.push_str(&v),
                Ok(None) => {
                    let shown = &rest[kind.start()..key.end()];
                    if !self.kept.iter().any(|k| k == shown) {
                        self.kept.push(shown.to_string());
                    }
                    out.push_str(whole.as_str());
                }
                Err(e) => return Err(format!("expand {}: {e}", key.as_str())),
            }
            rest = &rest[whole.end()..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// vals' `ModifyStringValues` over template values: strings expanded, lists
    /// rebuilt, and `map[string]interface{}` maps changed in place, as Go changes
    /// the map it was handed (`expandSecretRefs` alters its argument). Other typed
    /// maps and slices vals does not walk are returned as they are.
    pub fn expand_value(&mut self, v: &Value) -> Result<Value, String> {
        match v {
            Value::String(s) => Ok(Value::str(self.expand_str(s)?)),
            Value::List(l) => match l.ty() {
                ListType::Interface | ListType::String => {
                    let items = l
                        .iter()
                        .map(|x| match (l.ty(), x) {
                            (ListType::String, Value::String(s)) => {
                                self.expand_str(s).map(Value::str)
                            }
                            _ => self.expand_value(x),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Value::List(List::new(items)))
                }
                ListType::Named(_) => Ok(v.clone()),
            },
            Value::Map(m) if m.ty() == MapType::Interface && !m.is_nil() => {
                let mut extends: Vec<(String, Value)> = Vec::new();
                for (k, item) in m.entries() {
                    if matches!(&item, Value::Map(im) if im.ty() == MapType::Interface) {
                        if let Some(merged) = self.key_document(&k)? {
                            m.remove(&k);
                            extends.extend(merged.into_entries().into_iter().map(|(mk, mv)| {
                                (plain_key(&mk), yaml::go_to_value_plain_keys(mv))
                            }));
                            continue;
                        }
                    }
                    let new = self.expand_value(&item)?;
                    m.insert(k, new);
                }
                for (k, item) in extends {
                    m.insert(k, item);
                }
                Ok(v.clone())
            }
            _ => Ok(v.clone()),
        }
    }

    /// [`Expander::expand_value`] for values decoded by yaml.v2: nested
    /// `map[interface{}]interface{}` maps come back as string-keyed maps, keys
    /// spelled as Go's `%v` prints them (`404`, `true`).
    pub fn expand_go(&mut self, v: GoValue) -> Result<GoValue, String> {
        match v {
            GoValue::Str(s) => Ok(GoValue::Str(self.expand_str(&s)?)),
            GoValue::Seq(items) => Ok(GoValue::Seq(
                items
                    .into_iter()
                    .map(|x| self.expand_go(x))
                    .collect::<Result<Vec<_>, _>>()?,
            )),
            GoValue::Map(m) => {
                let mut out = GoMap::new();
                let mut extends: Vec<(GoValue, GoValue)> = Vec::new();
                for (k, item) in m.into_entries() {
                    let key = plain_key(&k);
                    if let GoValue::Map(_) = item {
                        if let Some(merged) = self.key_document(&key)? {
                            extends.extend(merged.into_entries());
                            continue;
                        }
                    }
                    let new = self.expand_go(item)?;
                    out.insert(GoValue::Str(key), new);
                }
                for (k, item) in extends {
                    out.insert(GoValue::Str(plain_key(&k)), item);
                }
                Ok(GoValue::Map(out))
            }
            other => Ok(other),
        }
    }

    /// vals' treatment of a map key whose value is a map: when the key expands to
    /// something else, that text is read as a YAML map whose entries replace the
    /// key (the key's own value is dropped).
    fn key_document(&mut self, key: &str) -> Result<Option<GoMap>, String> {
        let expanded = self.expand_str(key)?;
        if expanded == key {
            return Ok(None);
        }
        // vals reads it with yaml.v3; for the map-of-scalars a reference names, v2's
        // reading (which stackproof has) differs only in what `yes`/`on` mean.
        match yaml::decode_raw(&expanded, false, true).map_err(|e| e.message)? {
            GoValue::Map(m) => Ok(Some(m)),
            _ => Ok(Some(GoMap::new())),
        }
    }
}

/// Go's `%v` of a map key.
fn plain_key(k: &GoValue) -> String {
    match k {
        GoValue::Nil => "<nil>".to_string(),
        GoValue::Bool(b) => b.to_string(),
        GoValue::Int(i) => i.to_string(),
        GoValue::Uint(u) => u.to_string(),
        GoValue::Float(f) => yaml::format_float_g(*f),
        GoValue::Str(s) => s.clone(),
        GoValue::Seq(_) | GoValue::Map(_) => format!("{k:?}"),
    }
}

/// vals' lookup of one reference (`SCHEME://...` without `ref+`): `Ok(None)` for
/// providers that need the network.
fn lookup(src: &Sources<'_>, key: &str) -> Result<Option<String>, String> {
    let cached = src.cache.inner.lock().docs.get(key);
    match cached {
        Some(DocEntry::Str(s)) => return Ok(Some(s)),
        Some(DocEntry::Map(_)) => {
            return Err(
                "error reading string from cache: unsupported value type map[string]interface {}"
                    .to_string(),
            )
        }
        None => {}
    }
    let uri = url::parse(key, url::GoUrl::Go122)?;
    let scheme = uri.scheme.split("://").next().unwrap_or_default();
    match scheme {
        "echo" | "file" => {}
        s if NETWORK_PROVIDERS.contains(&s) => return Ok(None),
        s => {
            return Err(format!(
                "no provider registered for scheme {}",
                crate::template::fmt::quote(s)
            ))
        }
    }
    let mut frag = uri.fragment.as_str();
    frag = frag.strip_prefix('#').unwrap_or(frag);
    frag = frag.strip_prefix('/').unwrap_or(frag);
    let mut components: Vec<&str> = Vec::new();
    if !uri.host.is_empty() {
        components.push(&uri.host);
    }
    let mut path2 = uri.path.as_str();
    path2 = path2.strip_prefix('#').unwrap_or(path2);
    if !uri.host.is_empty() {
        path2 = path2.strip_prefix('/').unwrap_or(path2);
    }
    if !path2.is_empty() {
        components.push(path2);
    }
    let path = components.join("/");
    if frag.is_empty() {
        let cached = src.cache.inner.lock().strs.get(key);
        if let Some(s) = cached {
            return Ok(Some(s));
        }
        let s = if scheme == "echo" {
            path.trim_end_matches('/').to_string()
        } else {
            file_string(src, &uri, &path)?
        };
        src.cache.inner.lock().strs.add(key, s.clone());
        return Ok(Some(s));
    }
    // vals cuts the document's URI at the decoded fragment's last occurrence in the
    // reference; when an escape makes it absent there, it panics.
    let doc_uri = match key.rfind(&uri.fragment) {
        Some(i) if i > 0 => &key[..i - 1],
        _ => {
            return Err(format!(
                "the fragment of this reference is written with %-escapes, which makes vals panic (slice bounds out of range) instead of resolving it; write {:?} unescaped",
                uri.fragment
            ))
        }
    };
    let cached = src.cache.inner.lock().docs.get(doc_uri);
    let doc = match cached {
        Some(DocEntry::Map(d)) => d,
        Some(DocEntry::Str(_)) => {
            return Err("error reading map from cache: unsupported value type string".to_string())
        }
        None => {
            let d = Arc::new(if scheme == "echo" {
                Doc::Echo(echo_map(&path)?)
            } else {
                let text = read_file(src, &path)?;
                yaml_map(&crate::template::gostr::from_slice(&text))?
            });
            src.cache
                .inner
                .lock()
                .docs
                .add(doc_uri, DocEntry::Map(Arc::clone(&d)));
            d
        }
    };
    let keys: Vec<&str> = frag.split('/').collect();
    let found = match &*doc {
        Doc::Echo(root) => walk_echo(root, &keys)?,
        Doc::Yaml(d) => walk_yaml(d, &keys)?,
        Doc::Empty => None,
    };
    if let Some(s) = &found {
        src.cache
            .inner
            .lock()
            .docs
            .add(key, DocEntry::Str(s.clone()));
    }
    Ok(Some(found.unwrap_or_default()))
}

/// `%v` of the keys vals walks, for its error text (`[a b ]`).
fn keys_v(keys: &[&str]) -> String {
    format!("[{}]", keys.join(" "))
}

fn not_a_map(i: usize, k: &str, keys: &[&str], s: &str) -> String {
    format!(
        "unexpected type of value for key at {i}={k} in {}: expected map[string]interface{{}}, got {s}(string)",
        keys_v(keys)
    )
}

/// The echo provider's map: `a/b/c` is `{a: {b: c}}`.
#[derive(Debug)]
enum EchoNode {
    Str(String),
    Map(Vec<(String, EchoNode)>),
}

fn echo_map(path: &str) -> Result<EchoNode, String> {
    let keys: Vec<&str> = path.split('/').collect();
    if keys.len() < 2 {
        return Err(format!(
            "key must have two or more components separated by \"/\": got {}",
            crate::template::fmt::quote(path)
        ));
    }
    let mut node = EchoNode::Str(keys[keys.len() - 1].to_string());
    for k in keys[..keys.len() - 1].iter().rev() {
        node = EchoNode::Map(vec![(k.to_string(), node)]);
    }
    Ok(node)
}

/// vals' walk down a fragment: a string at the last key is the value, a string
/// before it an error, a map is entered, and anything else (a number, a list, a
/// missing key) reads as an empty map, so the reference becomes `""`.
fn walk_echo(root: &EchoNode, keys: &[&str]) -> Result<Option<String>, String> {
    let mut cur = Some(root);
    for (i, k) in keys.iter().enumerate() {
        let child = match cur {
            Some(EchoNode::Map(entries)) => entries.iter().rev().find(|(ek, _)| ek == k),
            _ => None,
        };
        cur = match child.map(|(_, v)| v) {
            Some(EchoNode::Str(s)) if i + 1 == keys.len() => return Ok(Some(s.clone())),
            Some(EchoNode::Str(s)) => return Err(not_a_map(i, k, keys, s)),
            Some(m @ EchoNode::Map(_)) => Some(m),
            None => None,
        };
    }
    Ok(None)
}

/// The file provider's `GetStringMap`: the file as yaml.v3 decodes it into
/// `map[string]interface{}` (an empty or null document is an empty map).
fn yaml_map(text: &str) -> Result<Doc, String> {
    let doc = yaml::parse_first(text).map_err(|e| e.message)?;
    let Some(doc) = doc else {
        return Ok(Doc::Empty);
    };
    let Some(root) = doc.content().map(|id| follow(&doc, id)) else {
        return Ok(Doc::Empty);
    };
    let node = doc.node(root);
    let (tag, value) = match node.kind {
        NodeKind::Mapping => return Ok(Doc::Yaml(doc)),
        NodeKind::Scalar if scalar_tag(&doc, root) == "!!null" => return Ok(Doc::Empty),
        NodeKind::Sequence => ("!!seq".to_string(), String::new()),
        _ => {
            let v = if node.value.chars().count() > 10 {
                format!(" `{}...`", node.value.chars().take(7).collect::<String>())
            } else {
                format!(" `{}`", node.value)
            };
            (scalar_tag(&doc, root), v)
        }
    };
    Err(format!(
        "yaml: unmarshal errors:\n  line {}: cannot unmarshal {tag}{value} into map[string]interface {{}}",
        node.line + 1
    ))
}

/// [`walk_echo`] over a YAML document as yaml.v3 decodes it into
/// `map[string]interface{}`: top-level keys are their text, nested keys as `%v`
/// prints them, and only what v3 decodes to a Go string counts as one.
fn walk_yaml(doc: &Document, keys: &[&str]) -> Result<Option<String>, String> {
    let mut cur = doc.content().map(|id| follow(doc, id));
    for (i, k) in keys.iter().enumerate() {
        let child = cur.and_then(|m| map_get(doc, m, k, i == 0, 0));
        cur = None;
        if let Some(c) = child {
            let n = doc.node(c);
            match n.kind {
                NodeKind::Mapping => cur = Some(c),
                NodeKind::Scalar if scalar_tag(doc, c) == "!!str" => {
                    if i + 1 == keys.len() {
                        return Ok(Some(n.value.clone()));
                    }
                    return Err(not_a_map(i, k, keys, &n.value));
                }
                _ => {}
            }
        }
    }
    Ok(None)
}

/// The node an alias names (aliases of aliases followed, within reason).
fn follow(doc: &Document, mut id: NodeId) -> NodeId {
    for _ in 0..64 {
        let n = doc.node(id);
        match (n.kind, n.alias) {
            (NodeKind::Alias, Some(target)) => id = target,
            _ => break,
        }
    }
    id
}

fn scalar_tag(doc: &Document, id: NodeId) -> String {
    let n = doc.node(id);
    yaml::v3_scalar_tag(
        &n.tag,
        matches!(n.style, yaml::ScalarStyle::Plain),
        &n.value,
    )
}

/// The key text v3 gives a mapping key (see [`walk_yaml`]).
fn key_text(doc: &Document, id: NodeId, top: bool) -> Option<String> {
    let n = doc.node(id);
    if n.kind != NodeKind::Scalar {
        return None;
    }
    if top {
        return Some(n.value.clone());
    }
    let tag = scalar_tag(doc, id);
    if tag == "!!str" || tag == "!!timestamp" {
        return Some(n.value.clone());
    }
    let decoded = yaml::decode_raw(&n.value, false, false).ok()?;
    Some(plain_key(&decoded))
}

/// A mapping's value for `key`: its own entries first, then those merged in with
/// `<<` (earlier sources first), as v3 decodes merges.
fn map_get(doc: &Document, map: NodeId, key: &str, top: bool, depth: usize) -> Option<NodeId> {
    if depth > 32 {
        return None;
    }
    let children = &doc.node(map).children;
    let mut found = None;
    let mut merges = Vec::new();
    for pair in children.chunks(2) {
        let [k, v] = pair else { continue };
        let kn = doc.node(*k);
        if kn.kind == NodeKind::Scalar && kn.value == "<<" && kn.tag.is_empty() {
            merges.push(follow(doc, *v));
            continue;
        }
        if key_text(doc, follow(doc, *k), top).as_deref() == Some(key) {
            found = Some(follow(doc, *v));
        }
    }
    if found.is_some() {
        return found;
    }
    for m in merges {
        let n = doc.node(m);
        let sources: Vec<NodeId> = match n.kind {
            NodeKind::Mapping => vec![m],
            NodeKind::Sequence => n.children.iter().map(|c| follow(doc, *c)).collect(),
            _ => Vec::new(),
        };
        for s in sources {
            if doc.node(s).kind == NodeKind::Mapping {
                if let Some(v) = map_get(doc, s, key, top, depth + 1) {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// The file provider's `GetString`: the file's bytes, raw or base64 (`encode`).
fn file_string(src: &Sources<'_>, uri: &url::ParsedUrl, path: &str) -> Result<String, String> {
    let encode = url::query_get(&uri.raw_query, "encode")
        .or_else(|| src.env.get("VALS_ENCODE").cloned())
        .unwrap_or_default();
    let encode = if encode.is_empty() { "raw" } else { &encode };
    if encode != "raw" && encode != "base64" {
        // vals reads the file first, so a missing file wins over a bad parameter.
        read_file(src, path)?;
        return Err(format!("Unsupported encode parameter: '{encode}'."));
    }
    let bytes = read_file(src, path)?;
    Ok(if encode == "base64" {
        crate::funcs::encoding::base64_encode(&bytes)
    } else {
        crate::template::gostr::from_slice(&bytes).into_owned()
    })
}

/// `os.ReadFile(name)` from the directory Helmfile runs in, with Go's error text.
fn read_file(src: &Sources<'_>, name: &str) -> Result<Vec<u8>, String> {
    let name = name.strip_suffix('/').unwrap_or(name);
    if name.is_empty() {
        return Err("open : no such file or directory".to_string());
    }
    let abs: PathBuf = crate::source::normalize(&src.cwd.join(name));
    if let Some(root) = src.confine_to {
        let root = crate::source::normalize(root);
        if !abs.starts_with(&root) {
            return Err(format!(
                "{name:?} is outside the stack directory {} (stackproof confines the files it reads to the stack's tree)",
                root.display()
            ));
        }
    }
    src.vfs.read(&abs).map(|b| b.to_vec()).map_err(|e| match e {
        VfsError::NotFound { .. } => format!("open {name}: no such file or directory"),
        VfsError::Io { source, .. } => {
            format!("read {name}: {}", crate::source::go_errno_text(&source))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    fn with_files<R>(files: &[(&str, &str)], f: impl FnOnce(&mut Expander<'_>) -> R) -> R {
        let vfs = Vfs::with_overlays(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from("/stack").join(p), t.as_bytes().to_vec())),
        );
        let env = BTreeMap::new();
        let cache = Cache::default();
        let mut e = Expander::new(Sources {
            vfs: &vfs,
            cwd: Path::new("/stack"),
            confine_to: Some(Path::new("/stack")),
            env: &env,
            cache: &cache,
        });
        f(&mut e)
    }

    fn expand(s: &str) -> Result<String, String> {
        with_files(
            &[
                ("secret.txt", "topsecret\n"),
                (
                    "doc.yaml",
                    "m:\n  s: str\n  n: 42\n  404: four\nyes: on\nt: 2001-12-14\n",
                ),
                ("list.yaml", "- a\n"),
            ],
            |e| e.expand_str(s),
        )
    }

    #[test]
    fn echo_returns_host_and_path() {
        assert_eq!(expand("ref+echo://foo/bar").as_deref(), Ok("foo/bar"));
        assert_eq!(expand("ref+echo://foo/bar//").as_deref(), Ok("foo/bar"));
        assert_eq!(
            expand("pre ref+echo://x/y+ post").as_deref(),
            Ok("pre x/y post")
        );
        assert_eq!(expand("ref+echo://ab,").as_deref(), Ok("ab,"));
        assert_eq!(expand("secretref+echo://se/c").as_deref(), Ok("se/c"));
        assert_eq!(expand("ref+echo:///abs/p").as_deref(), Ok("/abs/p"));
        assert_eq!(expand("ref+ECHO://u@Up/P%20q?x=1").as_deref(), Ok("Up/P q"));
        // One character after `://` is not a reference.
        assert_eq!(expand("ref+echo://a").as_deref(), Ok("ref+echo://a"));
    }

    #[test]
    fn echo_fragments_walk_its_path() {
        assert_eq!(expand("ref+echo://fo/ba/bz#/fo/ba").as_deref(), Ok("bz"));
        assert_eq!(expand("ref+echo://ab/c#ab").as_deref(), Ok("c"));
        assert_eq!(expand("ref+echo://ab/c#/zz").as_deref(), Ok(""));
        assert_eq!(
            expand("ref+echo://ab/c#/ab/").err().as_deref(),
            Some("expand echo://ab/c#/ab/: unexpected type of value for key at 0=ab in [ab ]: expected map[string]interface{}, got c(string)")
        );
        assert_eq!(
            expand("ref+echo://xy#/xy").err().as_deref(),
            Some("expand echo://xy#/xy: key must have two or more components separated by \"/\": got \"xy\"")
        );
    }

    #[test]
    fn files_are_read_from_the_working_directory() {
        assert_eq!(
            expand("ref+file://secret.txt").as_deref(),
            Ok("topsecret\n")
        );
        assert_eq!(
            expand("ref+file://./secret.txt").as_deref(),
            Ok("topsecret\n")
        );
        assert_eq!(
            expand("ref+file:///stack/secret.txt").as_deref(),
            Ok("topsecret\n")
        );
        assert_eq!(
            expand("ref+file://secret.txt?encode=base64").as_deref(),
            Ok("dG9wc2VjcmV0Cg==")
        );
        assert_eq!(
            expand("ref+file://secret.txt?encode=hex").err().as_deref(),
            Some("expand file://secret.txt?encode=hex: Unsupported encode parameter: 'hex'.")
        );
        assert_eq!(
            expand("ref+file://missing.txt").err().as_deref(),
            Some("expand file://missing.txt: open missing.txt: no such file or directory")
        );
        assert!(expand("ref+file:///etc/passwd")
            .is_err_and(|e| e.contains("outside the stack directory")));
    }

    #[test]
    fn file_fragments_give_string_leaves_only() {
        assert_eq!(expand("ref+file://doc.yaml#/m/s").as_deref(), Ok("str"));
        assert_eq!(expand("ref+file://doc.yaml#/m/n").as_deref(), Ok(""));
        assert_eq!(expand("ref+file://doc.yaml#/m").as_deref(), Ok(""));
        assert_eq!(expand("ref+file://doc.yaml#/m/404").as_deref(), Ok("four"));
        assert_eq!(expand("ref+file://doc.yaml#/yes").as_deref(), Ok("on"));
        assert_eq!(expand("ref+file://doc.yaml#/t").as_deref(), Ok(""));
        assert_eq!(
            expand("ref+file://list.yaml#/a").err().as_deref(),
            Some("expand file://list.yaml#/a: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into map[string]interface {}")
        );
    }

    #[test]
    fn url_errors_are_gos() {
        assert_eq!(
            expand("ref+echo://a%zz/b").err().as_deref(),
            Some("expand echo://a%zz/b: parse \"echo://a%zz/b\": invalid URL escape \"%zz\"")
        );
        assert_eq!(
            expand("ref+echo://a:b/c").err().as_deref(),
            Some("expand echo://a:b/c: parse \"echo://a:b/c\": invalid port \":b\" after host")
        );
        assert_eq!(
            expand("ref+echo://a{b/c").err().as_deref(),
            Some(
                "expand echo://a{b/c: parse \"echo://a{b/c\": invalid character \"{\" in host name"
            )
        );
        assert_eq!(
            expand("ref+echo://a%2Fb/c").err().as_deref(),
            Some("expand echo://a%2Fb/c: parse \"echo://a%2Fb/c\": invalid URL escape \"%2F\"")
        );
        assert_eq!(
            expand("ref+nope://x/y").err().as_deref(),
            Some("expand nope://x/y: no provider registered for scheme \"nope\"")
        );
        assert!(expand("ref+echo://ab/c#%41").is_err());
    }

    #[test]
    fn the_cache_answers_for_the_whole_run() {
        with_files(&[("secret.txt", "one"), ("doc.yaml", "a: b\n")], |e| {
            assert_eq!(e.expand_str("ref+file://secret.txt").as_deref(), Ok("one"));
            assert_eq!(e.expand_str("ref+file://doc.yaml#/a").as_deref(), Ok("b"));
            // Another directory, where neither file exists: the answers stand.
            let moved = Sources {
                cwd: Path::new("/stack/sub"),
                ..e.src
            };
            let mut other = Expander::new(moved);
            assert_eq!(
                other.expand_str("ref+file://secret.txt").as_deref(),
                Ok("one")
            );
            assert_eq!(
                other.expand_str("ref+file://doc.yaml#/a").as_deref(),
                Ok("b")
            );
            assert_eq!(
                other.expand_str("ref+file://doc.yaml").err().as_deref(),
                Some("expand file://doc.yaml: error reading string from cache: unsupported value type map[string]interface {}")
            );
        });
    }

    #[test]
    fn lru_drops_the_oldest() {
        let mut l: Lru<usize> = Lru::default();
        for i in 0..=CACHE_SIZE {
            l.add(&i.to_string(), i);
            if i == 10 {
                assert_eq!(l.get("0"), Some(0));
            }
        }
        assert_eq!(l.get("0"), Some(0));
        assert_eq!(l.get("1"), None);
    }

    #[test]
    fn network_providers_are_kept() {
        with_files(&[], |e| {
            let got = e.expand_str("a ref+vault://p/q#k+ b ref+echo://x/y ref+vault://p/q#k");
            assert_eq!(
                got.as_deref(),
                Ok("a ref+vault://p/q#k+ b x/y ref+vault://p/q#k")
            );
            assert_eq!(e.kept, ["ref+vault://p/q#k"]);
        });
    }

    #[test]
    fn maps_are_walked_and_reference_keys_merged() {
        with_files(&[("sub.yaml", "x: 1\ny: ref+echo://not/this\n")], |e| {
            let m = vmap! {
                "a" => "ref+echo://a/b",
                "l" => Value::list(vec![Value::str("ref+echo://l/1"), Value::int(3)]),
                "ref+file://sub.yaml" => vmap!{"dropped" => Value::int(1)},
                "n" => vmap!{"k" => "ref+echo://n/k"}
            };
            let out = e.expand_value(&m).unwrap_or(Value::Nil);
            let json = crate::funcs::codec::yaml::go_json(&out).unwrap_or_default();
            assert_eq!(
                json,
                r#"{"a":"a/b","l":["l/1",3],"n":{"k":"n/k"},"x":1,"y":"ref+echo://not/this"}"#
            );
            // Go changes the map it was given.
            assert!(m
                .get_path(&["a"])
                .is_some_and(|v| v.deep_equal(&Value::str("a/b"))));
        });
    }

    #[test]
    fn decoded_values_get_string_keys() {
        with_files(&[], |e| {
            let v = yaml::decode_raw("m:\n  404: ref+echo://f/g\n  true: t\n", false, true)
                .unwrap_or(GoValue::Nil);
            let out = e.expand_go(v).unwrap_or(GoValue::Nil);
            let text = yaml::encode_go(&out).unwrap_or_default();
            assert_eq!(text, "m:\n  \"404\": f/g\n  \"true\": t\n");
        });
    }
}
