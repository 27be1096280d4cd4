//! YAML exactly as Helm and Helmfile read and write it: go-yaml v2 (a Go port of
//! libyaml with YAML 1.1 typing) plus the conversions each program adds.
//!
//! Everything here reimplements the Go libraries' behaviour, including error texts and
//! line numbers, because users see those verbatim and chart output depends on the
//! quirks (`on:` is the key `"true"` in Helm, `1000000` is a float64, `toYaml` folds
//! at column 80 and sorts `a9` before `a10`).
//!
//! # Decoding
//!
//! [`decode`] reads the first document of a text (what `yaml.Unmarshal` does; later
//! documents are not even parsed), [`decode_documents`] every document of a stream
//! (`yaml.NewDecoder(...).Decode` in a loop), [`decode_with_spans`] additionally
//! returns where each value and key was written, keyed by path (`["a", "b", 0]`).
//! [`DecodeOptions`] picks the program's pipeline:
//!
//! * [`Mode::Helm`]: sigs.k8s.io/yaml `Unmarshal` (Helm values files, `fromYaml`,
//!   `fromYamlArray`): yaml.v2 into `interface{}`, keys stringified as sigs.k8s.io/yaml
//!   does (`1:` → `"1"`, `on:` → `"true"`, `1.5:` → `"1.5"`), then a JSON round trip:
//!   every number becomes a `float64`, NaN/±Inf are errors, and the top-level type is
//!   checked against the Go target. Errors are wrapped as
//!   `error converting YAML to JSON: yaml: line 2: ...` or
//!   `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ...`.
//! * [`Mode::HelmfileMap`]: gopkg.in/yaml.v2 `Unmarshal` into `map[string]interface{}`
//!   followed by Helmfile's `CastKeysToStrings` (values files, `fromYaml`): integers
//!   stay Go `int` (`uint64`/`float64` when too big), `.inf` is allowed, top-level keys
//!   are taken as written, nested non-string keys are an error.
//! * [`Mode::V2`]: gopkg.in/yaml.v2 into `interface{}` with the same key rule, for
//!   documents whose top level is not necessarily a map.
//! * [`Mode::HelmfileState`]: [`Mode::V2`] for Helmfile state documents, except that
//!   an environment's inline values map with non-string keys becomes a
//!   [`TypedKeyValues`] marker instead of an error (see there).
//!
//! `strict` is yaml.v2's `UnmarshalStrict`/`Decoder.SetStrict`: a key set twice in one
//! mapping, including a key that an earlier `<<` merge already set, is reported as
//! `yaml: unmarshal errors:\n  line N: key "a" already set in map`.
//!
//! * [`Mode::V2JsonKeys`]: yaml.v2 scalar types kept, keys stringified as
//!   sigs.k8s.io/yaml does (documents Helm decodes into Go structs, e.g. `Chart.yaml`).
//!
//! [`decode_raw`] gives the untouched yaml.v2 result ([`GoValue`], with typed map
//! keys), [`resolve_documents`] node trees with aliases and merges applied and scalar
//! text, tags and lines kept (for yaml.v2-style struct decoding, e.g. Helmfile state
//! files, with strict duplicate detection), and [`parse_documents`] the raw trees.
//!
//! Errors are [`YamlError`]s: `message` is the Go function's text, `raw` the
//! innermost library text, and `span`/`line` point at the offending bytes (go-yaml's
//! own text reports some parser errors one line early, as Go does).
//!
//! # Encoding
//!
//! [`encode_v2`] is yaml.v2 `Marshal` (Helmfile's `toYaml`, `write-values`, generated
//! values files): trailing newline kept, integers as integers. [`helm_to_yaml`] is
//! sigs.k8s.io/yaml `Marshal` (Helm's `toYaml` before it trims one newline): the value
//! goes through `encoding/json` first, so integral floats print as integers and NaN
//! fails. [`encode_v3_pretty`] is Helm 4's `toYamlPretty` (yaml.v3, indent 2).
//!
//! Known limits: Go strings may hold invalid UTF-8 (`!!binary` data); here they are
//! Rust strings, so such bytes become U+FFFD. yaml.v2's key order is not transitive
//! for some key sets (`0x10`, `1`, `0777`), where Go's output itself varies between
//! runs. `unicode.IsLetter`/`IsDigit` in the key order are approximated for
//! non-ASCII text.

mod compose;
mod decode;
mod emitter;
mod encode;
mod fast;
mod gofmt;
mod json;
pub use json::write_string as write_json_string;
mod parser;
mod resolve;
mod scanner;
mod skim;
#[cfg(test)]
pub(crate) use skim::kept_entries as skim_kept_entries;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

pub use compose::{Document, Node, NodeId, NodeKind};
pub use decode::{GoMap, GoValue, REntry, RKind, RNode};
pub use encode::natural_cmp;
pub use resolve::v3_scalar_tag;
pub use scanner::ScalarStyle;

use crate::source::{Memo, Span};
use crate::template::{List, Map, MapType, Object, UintType, Value};
use decode::{Decoder, RawSeg, SpanRecord, Target};

/// Which program's decoding pipeline to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// sigs.k8s.io/yaml `Unmarshal` into the given Go target.
    Helm(HelmTarget),
    /// gopkg.in/yaml.v2 into `map[string]interface{}` + Helmfile's `CastKeysToStrings`.
    HelmfileMap,
    /// gopkg.in/yaml.v2 into `interface{}`, map keys required to be strings.
    V2,
    /// [`Mode::V2`] for a Helmfile state document, with typed keys allowed in
    /// `environments.NAME.values[i]` maps (see [`TypedKeyValues`]).
    HelmfileState,
    /// gopkg.in/yaml.v2 into `interface{}` (scalar types kept: `int`, `uint64`,
    /// `float64`), map keys stringified as sigs.k8s.io/yaml does (`1:` → `"1"`,
    /// `on:` → `"true"`); errors wrapped like [`Mode::Helm`]'s. For documents Helm
    /// decodes into Go structs (`Chart.yaml`), where a field's type later decides
    /// how the scalar is coerced.
    V2JsonKeys,
}

/// The Go value sigs.k8s.io/yaml decodes the JSON into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HelmTarget {
    /// `interface{}`: any document.
    Any,
    /// A map type with this Go name (`map[string]interface {}` for `fromYaml`,
    /// `chartutil.Values` for values files); `null` gives an empty map.
    Map(&'static str),
    /// `[]interface {}` (`fromYamlArray`); `null` gives an empty list.
    List,
}

/// How to decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecodeOptions {
    pub mode: Mode,
    /// yaml.v2 strict mode: duplicate keys (also against merged keys) are errors.
    pub strict: bool,
}

impl DecodeOptions {
    /// Helm values files and `fromYaml`.
    pub const HELM_MAP: DecodeOptions = DecodeOptions {
        mode: Mode::Helm(HelmTarget::Map("map[string]interface {}")),
        strict: false,
    };
    /// Helmfile values files and `fromYaml`.
    pub const HELMFILE_MAP: DecodeOptions = DecodeOptions {
        mode: Mode::HelmfileMap,
        strict: false,
    };

    pub const fn strict(mut self) -> DecodeOptions {
        self.strict = true;
        self
    }
}

/// What kind of failure a [`YamlError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The text is not YAML (scanner, parser or reader error, unknown anchor).
    Syntax,
    /// The YAML is valid but cannot be decoded (bad tag value, invalid map key,
    /// merge of a non-map, self-referencing alias, excessive aliasing).
    Decode,
    /// yaml.v2 type errors collected over the document (strict duplicates, wrong
    /// top-level type): `yaml: unmarshal errors:`.
    Type,
    /// sigs.k8s.io/yaml's conversion to JSON failed (unsupported key, NaN/Inf).
    Json,
    /// The decoded JSON does not fit the Go target type.
    Target,
    /// Helmfile's key cast failed (a nested map has a non-string key).
    KeyCast,
    /// The value cannot be encoded.
    Encode,
}

/// A YAML failure with the Go program's text and a location for diagnostics.
#[derive(Clone, Debug)]
pub struct YamlError {
    pub kind: YamlErrorKind,
    /// The error text the Go function returns (for [`Mode::Helm`] wrapped as
    /// sigs.k8s.io/yaml wraps it).
    pub message: String,
    /// The innermost library text (`yaml: line 2: ...`, `json: unsupported value: NaN`).
    pub raw: String,
    /// Byte range in the input the error concerns, when known.
    pub span: Option<Span>,
    /// 1-based line of `span` (the real line, which go-yaml's own text may not show).
    pub line: Option<usize>,
    /// libyaml's context phrase for syntax errors (`while parsing a block mapping`).
    pub context: Option<String>,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for YamlError {}

impl YamlError {
    fn new(kind: YamlErrorKind, raw: String, text: &str, offset: Option<usize>) -> YamlError {
        let span = offset.map(|o| Span::new(o.min(text.len()), o.min(text.len())));
        let line = offset.map(|o| crate::source::line_col(text, o).0);
        YamlError {
            kind,
            message: raw.clone(),
            raw,
            span,
            line,
            context: None,
        }
    }

    fn wrap(mut self, prefix: &str) -> YamlError {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

/// One step of a value path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

impl fmt::Display for PathSeg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathSeg::Key(k) => f.write_str(k),
            PathSeg::Index(i) => write!(f, "{i}"),
        }
    }
}

/// Where a value was written: its own span and, for map entries, the key's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueSpan {
    pub key: Option<Span>,
    pub value: Span,
}

/// Source spans per value path (the empty path is the document's root).
pub type SpanMap = BTreeMap<Vec<PathSeg>, ValueSpan>;

// ---- parsing -----------------------------------------------------------------------

fn compose_error(e: compose::ComposeError, text: &str) -> YamlError {
    match e {
        compose::ComposeError::Syntax(s) => {
            let off = s.offset();
            let mut e = YamlError::new(
                YamlErrorKind::Syntax,
                format!("yaml: {}", s.go_message()),
                text,
                Some(off),
            );
            if !s.context.is_empty() {
                e.context = Some(s.context.clone());
            }
            e
        }
        compose::ComposeError::Other(msg, off) => YamlError::new(
            YamlErrorKind::Syntax,
            format!("yaml: {msg}"),
            text,
            Some(off),
        ),
    }
}

/// `yaml.Unmarshal` reads an empty input as a single newline.
fn unmarshal_input(text: &str) -> &str {
    if text.is_empty() {
        "\n"
    } else {
        text
    }
}

/// Parses every document of the stream into node trees (stops at the first error).
pub fn parse_documents(text: &str) -> Result<Vec<Document>, YamlError> {
    let mut c = compose::Composer::new(text);
    let mut docs = Vec::new();
    while let Some(d) = c.next_document().map_err(|e| compose_error(e, text))? {
        docs.push(d);
    }
    Ok(docs)
}

/// Parses the first document only, as `yaml.Unmarshal` does.
pub fn parse_first(text: &str) -> Result<Option<Document>, YamlError> {
    let input = unmarshal_input(text);
    compose::Composer::new(input)
        .next_document()
        .map_err(|e| compose_error(e, text))
}

// ---- decoding ----------------------------------------------------------------------

struct Decoded {
    value: GoValue,
    spans: Vec<SpanRecord>,
}

fn run_decoder(
    doc: &Document,
    text: &str,
    target: Target,
    strict: bool,
    want_spans: bool,
) -> Result<Decoded, YamlError> {
    let mut d = Decoder::new(doc, strict);
    if want_spans {
        d = d.with_spans();
    }
    let value = d.decode_document(target).map_err(|f| {
        YamlError::new(
            YamlErrorKind::Decode,
            format!("yaml: {}", f.message),
            text,
            Some(f.offset),
        )
    })?;
    if !d.terrors.is_empty() {
        let msg = format!("yaml: unmarshal errors:\n  {}", d.terrors.join("\n  "));
        return Err(YamlError::new(
            YamlErrorKind::Type,
            msg,
            text,
            d.terror_offsets.first().copied(),
        ));
    }
    Ok(Decoded {
        value,
        spans: d.spans.unwrap_or_default(),
    })
}

/// Every document of a stream as resolved node trees (aliases and `<<` merges
/// applied, scalar text, tags and lines kept), for callers that decode YAML onto
/// their own structures the way yaml.v2 decodes into Go structs. `strict` reports
/// keys set twice in a mapping (also by a merge) as yaml.v2's strict mode does;
/// empty documents give `None`.
pub fn resolve_documents(text: &str, strict: bool) -> Result<Vec<Option<RNode>>, YamlError> {
    let mut c = compose::Composer::new(text);
    let mut out = Vec::new();
    while let Some(doc) = c.next_document().map_err(|e| compose_error(e, text))? {
        let mut d = Decoder::new(&doc, strict);
        let node = d.resolve_document().map_err(|f| {
            YamlError::new(
                YamlErrorKind::Decode,
                format!("yaml: {}", f.message),
                text,
                Some(f.offset),
            )
        })?;
        if !d.terrors.is_empty() {
            let msg = format!("yaml: unmarshal errors:\n  {}", d.terrors.join("\n  "));
            return Err(YamlError::new(
                YamlErrorKind::Type,
                msg,
                text,
                d.terror_offsets.first().copied(),
            ));
        }
        out.push(node);
    }
    Ok(out)
}

/// yaml.v2's decoding of the first document (`yaml.Unmarshal` into `interface{}`,
/// or `map[string]interface{}` when `string_map`), with typed keys kept.
pub fn decode_raw(text: &str, strict: bool, string_map: bool) -> Result<GoValue, YamlError> {
    let target = if string_map {
        Target::StringMap
    } else {
        Target::Interface
    };
    match parse_first(text)? {
        None => Ok(if string_map {
            GoValue::Map(GoMap::new())
        } else {
            GoValue::Nil
        }),
        Some(doc) => Ok(run_decoder(&doc, text, target, strict, false)?.value),
    }
}

/// A decoded Go value as a template value, map keys spelled as Go's `%v` prints them
/// (`404`, `true`): for reading values whose maps have typed keys, where the
/// decoding modes above would refuse them.
pub fn go_to_value_plain_keys(v: GoValue) -> Value {
    let plain = |_: &GoMap, k: &GoValue| Ok::<_, String>(plain_key_text(k));
    // The key function never fails, so neither does the conversion.
    go_to_value(v, &plain).unwrap_or(Value::Nil)
}

/// A decoded Go value as a template value, each map key spelled by `key` (which
/// sees the whole map, for its error text) or the conversion failing with its error.
fn go_to_value(
    v: GoValue,
    key: &dyn Fn(&GoMap, &GoValue) -> Result<String, String>,
) -> Result<Value, String> {
    Ok(match v {
        GoValue::Nil => Value::Nil,
        GoValue::Bool(b) => Value::Bool(b),
        GoValue::Int(i) => Value::int(i),
        GoValue::Uint(u) => Value::Uint(u, UintType::Uint64),
        GoValue::Float(f) => Value::Float(f),
        GoValue::Str(s) => Value::String(s.into()),
        GoValue::Seq(items) => Value::List(List::new(
            items
                .into_iter()
                .map(|x| go_to_value(x, key))
                .collect::<Result<Vec<_>, _>>()?,
        )),
        GoValue::Map(m) => {
            // Keys are spelled while the map is whole; a failing one fails in its
            // entry's turn, after the values before it.
            let keys: Vec<_> = m.iter().map(|(k, _)| key(&m, k)).collect();
            let mut out = BTreeMap::new();
            for (k, (_, v)) in keys.into_iter().zip(m.into_entries()) {
                out.insert(k?, go_to_value(v, key)?);
            }
            Value::Map(Map::from_btree(out))
        }
    })
}

/// Decoded texts, remembered only where a process renders the same inputs again
/// (a matrix's cells, the two sides of a diff: see [`Memo::for_repeats`]). In a
/// single render the keys (a copy of every text) and the copies handed out cost
/// more than the rare repeat saves: corpus median per-case ratio 0.966 with the
/// table off, NVCF's default cell one huge page fewer per run.
static DECODED: Memo<(String, DecodeOptions), Result<Value, YamlError>> = Memo::for_repeats(4096);

/// Whether `text` goes through [`DECODED`]: texts this short are decoded every
/// time, as is everything when the table is not remembering.
fn remembered(text: &str) -> bool {
    const MEMO_MIN_LEN: usize = 256;
    text.len() >= MEMO_MIN_LEN && DECODED.active()
}

/// Decodes the first document of `text` as the selected program does.
pub fn decode(text: &str, opts: &DecodeOptions) -> Result<Value, YamlError> {
    if !remembered(text) {
        return decode_uncached(text, opts);
    }
    // The table keeps a private copy (maps are shared, mutable storage), and each
    // caller gets its own.
    decode_shared(text, opts).map(|v| v.deep_copy())
}

/// [`decode`] for readers: the result may share its maps with a process-wide table,
/// so it must never be mutated (converting or inspecting it is fine).
///
/// A stack hands the same values files to many releases, and a matrix renders the
/// same documents in many cells: there larger texts are decoded once per process.
pub fn decode_shared(text: &str, opts: &DecodeOptions) -> Result<Value, YamlError> {
    if !remembered(text) {
        return decode_uncached(text, opts);
    }
    let key = (text.to_string(), *opts);
    if let Some(hit) = DECODED.get(&key) {
        return hit;
    }
    let out = decode_uncached(text, opts);
    DECODED.insert(key, out.clone());
    out
}

/// [`decode`] without the process-wide table: always parses. For callers that keep
/// their own table of results, and for measuring the codec.
pub fn decode_uncached(text: &str, opts: &DecodeOptions) -> Result<Value, YamlError> {
    // Plain block YAML (most values files) is read directly; whatever that reader
    // is unsure of, and every error, comes from the full decoder below. (Strict
    // decoding reports repeated keys, which that reader never accepts anyway.)
    if !opts.strict {
        // A text outside the reader's subset is outside it for either result, so
        // only a conversion Helm's values refuse is worth reading again as go-yaml's.
        let mut second_reading = true;
        if let Mode::Helm(target) = opts.mode {
            match fast::helm_document(text) {
                Ok(v) => return helm_target(v, target, text),
                Err(left) => second_reading = left == fast::Left::Conversion,
            }
        }
        let string_keys = matches!(opts.mode, Mode::HelmfileMap);
        if let Some(v) = second_reading
            .then(|| fast::document(text, string_keys))
            .flatten()
        {
            if let Ok((value, _)) = convert(v, text, opts) {
                return Ok(value);
            }
        }
    }
    let doc = parse_first(text).map_err(|e| wrap_mode(e, opts))?;
    decode_doc(doc.as_ref(), text, opts, false).map(|(v, _)| v)
}

/// [`decode_uncached`] of only the top-level entries whose key `keep` accepts, for
/// a document whose root is a mapping; `Ok(None)` when the pruned document cannot
/// vouch for decoding like the full one (see
/// [`compose::Composer::next_pruned_document`]) and [`decode_uncached`] must run.
pub fn decode_top_entries(
    text: &str,
    opts: &DecodeOptions,
    keep: fn(&str) -> bool,
) -> Result<Option<Value>, YamlError> {
    // The kept entries alone, when the rest is plain enough to vouch for a line at a
    // time; anything that then goes wrong (an error, or entries the pruned read is
    // unsure of) is read again from the whole text, so messages and lines are its.
    if let Some(kept) = skim::kept_entries(text, keep) {
        if let Ok(Some(v)) = pruned_top_entries(&kept, opts, keep) {
            return Ok(Some(v));
        }
    }
    pruned_top_entries(text, opts, keep)
}

fn pruned_top_entries(
    text: &str,
    opts: &DecodeOptions,
    keep: fn(&str) -> bool,
) -> Result<Option<Value>, YamlError> {
    let input = unmarshal_input(text);
    let pruned = compose::Composer::new(input)
        .next_pruned_document(keep)
        .map_err(|e| wrap_mode(compose_error(e, text), opts))?;
    match pruned {
        compose::Pruned::Unsure => Ok(None),
        compose::Pruned::Done(doc) => {
            decode_doc(doc.as_ref(), text, opts, false).map(|(v, _)| Some(v))
        }
    }
}

/// Like [`decode`], also returning where every value (and map key) was written.
pub fn decode_with_spans(text: &str, opts: &DecodeOptions) -> Result<(Value, SpanMap), YamlError> {
    let doc = parse_first(text).map_err(|e| wrap_mode(e, opts))?;
    decode_doc(doc.as_ref(), text, opts, true)
}

/// Decodes every document of a stream (a `yaml.Decoder` loop). Empty documents
/// (`---` with nothing after it) decode as nil, as in Go.
pub fn decode_documents(text: &str, opts: &DecodeOptions) -> Result<Vec<Value>, YamlError> {
    let mut c = compose::Composer::new(text);
    let mut out = Vec::new();
    loop {
        let doc = c
            .next_document()
            .map_err(|e| wrap_mode(compose_error(e, text), opts))?;
        let Some(doc) = doc else { break };
        out.push(decode_doc(Some(&doc), text, opts, false)?.0);
    }
    Ok(out)
}

fn wrap_mode(e: YamlError, opts: &DecodeOptions) -> YamlError {
    match opts.mode {
        Mode::Helm(_) | Mode::V2JsonKeys => e.wrap("error converting YAML to JSON: "),
        _ => e,
    }
}

fn decode_doc(
    doc: Option<&Document>,
    text: &str,
    opts: &DecodeOptions,
    want_spans: bool,
) -> Result<(Value, SpanMap), YamlError> {
    let target = match opts.mode {
        Mode::HelmfileMap => Target::StringMap,
        _ => Target::Interface,
    };
    let decoded = match doc {
        None => Decoded {
            value: match target {
                Target::StringMap => GoValue::Map(GoMap::new()),
                Target::Interface => GoValue::Nil,
            },
            spans: Vec::new(),
        },
        Some(doc) => run_decoder(doc, text, target, opts.strict, want_spans)
            .map_err(|e| wrap_mode(e, opts))?,
    };
    let (value, key_text) = convert(decoded.value, text, opts)?;
    let spans = if want_spans {
        build_span_map(decoded.spans, key_text)
    } else {
        SpanMap::new()
    };
    Ok((value, spans))
}

/// The decoder's `interface{}` (or `map[string]interface{}`) result turned into what
/// the mode's program ends up with, and how that program spells a map key.
type KeyText = fn(&GoValue) -> String;

fn convert(
    value: GoValue,
    text: &str,
    opts: &DecodeOptions,
) -> Result<(Value, KeyText), YamlError> {
    Ok(match opts.mode {
        Mode::Helm(t) => (helm_convert(value, t, text)?, helm_key_text),
        Mode::HelmfileMap => {
            let v = match value {
                GoValue::Map(m) => cast_map(m).map_err(|m| cast_error(m, text))?,
                _ => Value::Map(Map::new()),
            };
            (v, plain_key_text)
        }
        Mode::V2 => (
            cast_value(value).map_err(|m| cast_error(m, text))?,
            plain_key_text,
        ),
        Mode::HelmfileState => (
            cast_state(value).map_err(|m| cast_error(m, text))?,
            plain_key_text,
        ),
        Mode::V2JsonKeys => (
            json_keys_value(value)
                .and_then(|v| match find_non_finite(&v) {
                    // sigs.k8s.io/yaml marshals the document to JSON, which has no
                    // NaN or infinity (`ratio: .nan` anywhere fails the manifest).
                    Some(f) => Err(format!(
                        "json: unsupported value: {}",
                        gofmt::format_g(f, false)
                    )),
                    None => Ok(v),
                })
                .map_err(|raw| {
                    YamlError::new(YamlErrorKind::Json, raw, text, None)
                        .wrap("error converting YAML to JSON: ")
                })?,
            helm_key_text,
        ),
    })
}

fn plain_key_text(k: &GoValue) -> String {
    match k {
        GoValue::Str(s) => s.clone(),
        other => gofmt::plain_v(other),
    }
}

fn helm_key_text(k: &GoValue) -> String {
    helm_key(k).unwrap_or_else(|| plain_key_text(k))
}

/// Turns the decoder's write log into the latest span per path, dropping records
/// whose enclosing value was later replaced.
fn build_span_map(records: Vec<SpanRecord>, key_text: fn(&GoValue) -> String) -> SpanMap {
    let conv = |p: &[RawSeg]| -> Vec<PathSeg> {
        p.iter()
            .map(|s| match s {
                RawSeg::Key(k) => PathSeg::Key(key_text(k)),
                RawSeg::Index(i) => PathSeg::Index(*i),
            })
            .collect()
    };
    let paths: Vec<Vec<PathSeg>> = records.iter().map(|r| conv(&r.path)).collect();
    // Sequence numbers of the writes to each path.
    let mut writes: BTreeMap<&[PathSeg], Vec<usize>> = BTreeMap::new();
    for (i, p) in paths.iter().enumerate() {
        writes.entry(p.as_slice()).or_default().push(i);
    }
    // A write is current if it is the last write to its path and, for a nested
    // path, it happened while building the value that the parent's current write
    // stored (the first parent write after it).
    let mut current: BTreeMap<&[PathSeg], usize> = BTreeMap::new();
    let mut by_len: Vec<&[PathSeg]> = writes.keys().copied().collect();
    by_len.sort_by_key(|p| p.len());
    for p in by_len {
        let Some(&last) = writes[p].last() else {
            continue;
        };
        let ok = if p.is_empty() {
            true
        } else {
            let parent = &p[..p.len() - 1];
            match (current.get(parent), writes.get(parent)) {
                (Some(&cur), Some(pw)) => {
                    let owner = pw.iter().copied().find(|&w| w > last);
                    owner == Some(cur)
                }
                _ => false,
            }
        };
        if ok {
            current.insert(p, last);
        }
    }
    let mut out = SpanMap::new();
    for (p, i) in current {
        let r = &records[i];
        out.insert(
            p.to_vec(),
            ValueSpan {
                key: r.key.map(|(s, e)| Span::new(s, e)),
                value: Span::new(r.value.0, r.value.1),
            },
        );
    }
    out
}

// ---- Helm (sigs.k8s.io/yaml) conversion ---------------------------------------------

/// sigs.k8s.io/yaml's key stringification; `None` for keys it rejects.
fn helm_key(k: &GoValue) -> Option<String> {
    match k {
        GoValue::Str(s) => Some(s.clone()),
        GoValue::Int(i) => Some(i.to_string()),
        GoValue::Float(f) => Some(match gofmt::format_g(*f, true).as_str() {
            "+Inf" => ".inf".to_string(),
            "-Inf" => "-.inf".to_string(),
            "NaN" => ".nan".to_string(),
            s => s.to_string(),
        }),
        GoValue::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// YAML value → JSON-able value → `encoding/json` round trip (numbers to float64).
fn helm_jsonable(v: GoValue) -> Result<Value, String> {
    Ok(match v {
        GoValue::Nil => Value::Nil,
        GoValue::Bool(b) => Value::Bool(b),
        GoValue::Int(i) => Value::Float(i as f64),
        GoValue::Uint(u) => Value::Float(u as f64),
        GoValue::Float(f) => Value::Float(f),
        GoValue::Str(s) => Value::String(s.into()),
        GoValue::Seq(items) => Value::List(List::new(
            items
                .into_iter()
                .map(helm_jsonable)
                .collect::<Result<Vec<_>, _>>()?,
        )),
        GoValue::Map(m) => {
            let mut out = BTreeMap::new();
            for (k, v) in m.into_entries() {
                let key = match k {
                    GoValue::Str(s) => s,
                    k => match helm_key(&k) {
                        Some(key) => key,
                        None => return Err(unsupported_key(&k, &v)),
                    },
                };
                out.insert(key, helm_jsonable(v)?);
            }
            Value::Map(Map::from_btree(out))
        }
    })
}

fn unsupported_key(k: &GoValue, v: &GoValue) -> String {
    let ty = match k {
        GoValue::Nil => "%!s(<nil>)".to_string(),
        other => other.type_name().to_string(),
    };
    format!(
        "unsupported map key of type: {ty}, key: {}, value: {}",
        gofmt::sharp_v(k, true),
        gofmt::sharp_v(v, true)
    )
}

/// yaml.v2 types kept, keys stringified as sigs.k8s.io/yaml does.
fn json_keys_value(v: GoValue) -> Result<Value, String> {
    Ok(match v {
        GoValue::Map(m) => {
            let mut out = BTreeMap::new();
            for (k, v) in m.into_entries() {
                let key = match k {
                    GoValue::Str(s) => s,
                    k => match helm_key(&k) {
                        Some(key) => key,
                        None => return Err(unsupported_key(&k, &v)),
                    },
                };
                out.insert(key, json_keys_value(v)?);
            }
            Value::Map(Map::from_btree(out))
        }
        GoValue::Seq(items) => Value::List(List::new(
            items
                .into_iter()
                .map(json_keys_value)
                .collect::<Result<Vec<_>, _>>()?,
        )),
        other => cast_value(other)?,
    })
}

/// `json.Marshal` fails on the first NaN/Inf in key order.
fn find_non_finite(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) if !f.is_finite() => Some(*f),
        Value::List(l) => l.iter().find_map(find_non_finite),
        Value::Map(m) => m.with_read(|map| map.values().find_map(find_non_finite)),
        _ => None,
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "array",
        Value::Map(_) => "object",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        _ => "number",
    }
}

fn helm_convert(v: GoValue, target: HelmTarget, text: &str) -> Result<Value, YamlError> {
    let json_err = |raw: String| {
        YamlError::new(YamlErrorKind::Json, raw, text, None).wrap("error converting YAML to JSON: ")
    };
    let value = helm_jsonable(v).map_err(json_err)?;
    if let Some(f) = find_non_finite(&value) {
        return Err(json_err(format!(
            "json: unsupported value: {}",
            gofmt::format_g(f, false)
        )));
    }
    helm_target(value, target, text)
}

/// What Helm's `yaml.Unmarshal` into `target` makes of a JSON-able `value`.
fn helm_target(value: Value, target: HelmTarget, text: &str) -> Result<Value, YamlError> {
    let mismatch = |v: &Value, ty: &str| {
        YamlError::new(
            YamlErrorKind::Target,
            format!(
                "json: cannot unmarshal {} into Go value of type {ty}",
                json_kind(v)
            ),
            text,
            None,
        )
        .wrap("error unmarshaling JSON: while decoding JSON: ")
    };
    match target {
        HelmTarget::Any => Ok(value),
        HelmTarget::Map(ty) => match value {
            Value::Nil => Ok(Value::Map(Map::new())),
            Value::Map(m) => Ok(Value::Map(m)),
            other => Err(mismatch(&other, ty)),
        },
        HelmTarget::List => match value {
            Value::Nil => Ok(Value::List(List::new(Vec::new()))),
            Value::List(l) => Ok(Value::List(l)),
            other => Err(mismatch(&other, "[]interface {}")),
        },
    }
}

// ---- Helmfile (yaml.v2 + CastKeysToStrings) conversion ------------------------------

fn cast_error(msg: String, text: &str) -> YamlError {
    YamlError::new(YamlErrorKind::KeyCast, msg, text, None)
}

fn cast_map(m: GoMap) -> Result<Value, String> {
    cast_value(GoValue::Map(m))
}

/// Helmfile's `CastKeysToStrings`: every map key must already be a string.
fn cast_value(v: GoValue) -> Result<Value, String> {
    let string_key = |m: &GoMap, k: &GoValue| match k {
        GoValue::Str(s) => Ok(s.clone()),
        // The error text shows the whole map.
        other => Err(format!(
            "unexpected type of key in map: expected string, got {}: value={}, map={}",
            other.type_name(),
            gofmt::plain_v(other),
            gofmt::plain_v(&GoValue::Map(m.clone()))
        )),
    };
    go_to_value(v, &string_key)
}

/// An inline values map whose keys are not all strings, kept with the error casting
/// it gives: the state's (`values[i]`), an environment's
/// (`environments.NAME.values[i]`) or a release's (`releases[j].values[i]` and
/// `releases[j].valuesTemplate[i]`).
///
/// Helmfile reads both into `interface{}` values and casts their keys to strings
/// (`CastKeysToStrings`) only later: an environment's when it loads the selected
/// environment, so such a map fails only the runs that select its environment
/// (`failed to read FILE: unexpected type of key in map: ...`); a release's when it
/// executes the release's templates, after the fields rendered before `values`
/// (`failed executing template expressions in release "r".values[0] = "...": ...`).
#[derive(Debug)]
pub struct TypedKeyValues {
    /// `unexpected type of key in map: expected string, got int: value=1, map=...`.
    pub message: String,
    /// The map itself, typed keys kept: a release's `valuesTemplate` marshals it
    /// and renders that (the round trip turns top-level keys into strings, so only
    /// nested typed keys fail there).
    pub map: GoValue,
}

impl TypedKeyValues {
    /// The map as Go's `%s` prints it (`map[b:c %!s(int=1):a]`), which Helmfile's
    /// error for a release's `values` quotes.
    pub fn shown(&self) -> String {
        gofmt::s_verb(&self.map)
    }

    /// The map as Go's `%v` prints it, which the error for `valuesTemplate` quotes.
    pub fn shown_v(&self) -> String {
        gofmt::plain_v(&self.map)
    }
}

impl Object for TypedKeyValues {
    fn type_name(&self) -> String {
        "map[interface {}]interface {}".to_string()
    }

    fn kind(&self) -> crate::template::Kind {
        crate::template::Kind::Map
    }

    fn fmt_v(&self, _plus: bool) -> String {
        String::new()
    }

    fn to_json_value(&self) -> Value {
        Value::Nil
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// [`Mode::HelmfileState`]'s conversion: [`cast_value`], with each environment's
/// and each release's inline values map that does not cast left as a
/// [`TypedKeyValues`].
fn cast_state(mut v: GoValue) -> Result<Value, String> {
    if !has_non_string_key(&v) {
        return cast_value(v);
    }
    // Set aside the maps that do not cast (as nil), convert the rest as usual,
    // then put the markers where the maps were. A marker's place: the section
    // (`environments`, `templates`, `releases`, `helmfiles`, or "" for the state
    // itself), the environment or template name or the release or sub-helmfile
    // index, the field (`values` or `valuesTemplate`) and the index in it.
    type Place = (&'static str, GoValue, &'static str, usize);
    let mut typed: Vec<(Place, TypedKeyValues)> = Vec::new();
    let mut set_aside = |section: &'static str, at: GoValue, entry: &mut GoValue, field| {
        let Some(GoValue::Seq(items)) = str_entry_mut(entry, field) else {
            return;
        };
        for (i, item) in items.iter_mut().enumerate() {
            if matches!(item, GoValue::Map(_)) && has_non_string_key(item) {
                let map = std::mem::replace(item, GoValue::Nil);
                if let Err(message) = cast_value(map.clone()) {
                    let marker = TypedKeyValues { message, map };
                    typed.push(((section, at.clone(), field, i), marker));
                }
            }
        }
    };
    // Label maps (`map[string]string`) and environments (`map[string]EnvironmentSpec`)
    // have string keys in Helmfile's state, so yaml.v2 decodes any scalar key there as
    // its text (`1.50:`, `true:`, `~:` is "").
    string_keys(str_entry_mut(&mut v, "commonLabels"));
    string_keys(str_entry_mut(&mut v, "environments"));
    if let Some(GoValue::Seq(releases)) = str_entry_mut(&mut v, "releases") {
        for release in releases.iter_mut() {
            string_keys(str_entry_mut(release, "labels"));
            release_struct_keys(release);
        }
    }
    // Templates are decoded like releases (`map[string]TemplateSpec`). A
    // template's values are a release's once one inherits it (and never cast when
    // none does); a sub-helmfile's values are cast when it loads.
    string_keys(str_entry_mut(&mut v, "templates"));
    if let Some(GoValue::Map(templates)) = str_entry_mut(&mut v, "templates") {
        for (name, t) in templates.iter_mut() {
            string_keys(str_entry_mut(t, "labels"));
            release_struct_keys(t);
            if let GoValue::Str(_) = name {
                set_aside("templates", name.clone(), t, "values");
                set_aside("templates", name.clone(), t, "valuesTemplate");
            }
        }
    }
    if let Some(GoValue::Seq(helmfiles)) = str_entry_mut(&mut v, "helmfiles") {
        for (j, h) in helmfiles.iter_mut().enumerate() {
            set_aside("helmfiles", GoValue::Int(j as i64), h, "values");
        }
    }
    // The state's own `values` (the defaults of state values) are cast when the
    // state's values load.
    set_aside("", GoValue::Nil, &mut v, "values");
    if let Some(GoValue::Map(envs)) = str_entry_mut(&mut v, "environments") {
        for (name, env) in envs.iter_mut() {
            if let GoValue::Str(_) = name {
                set_aside("environments", name.clone(), env, "values");
            }
        }
    }
    if let Some(GoValue::Seq(releases)) = str_entry_mut(&mut v, "releases") {
        for (j, release) in releases.iter_mut().enumerate() {
            let at = GoValue::Int(j as i64);
            set_aside("releases", at.clone(), release, "values");
            set_aside("releases", at, release, "valuesTemplate");
        }
    }
    let out = cast_value(v)?;
    for ((section, at, field, i), marker) in typed {
        let entry = match (out.get(section), &at) {
            _ if section.is_empty() => Some(out.clone()),
            (Some(named), GoValue::Str(name)) => named.get(name),
            (Some(Value::List(entries)), GoValue::Int(j)) => {
                entries.items().get(*j as usize).cloned()
            }
            _ => None,
        };
        let Some(Value::Map(entry)) = entry else {
            continue;
        };
        if let Some(Value::List(items)) = entry.get(field) {
            let mut items = items.items().to_vec();
            if let Some(slot) = items.get_mut(i) {
                *slot = Value::Object(Arc::new(marker));
            }
            entry.insert(field, Value::list(items));
        }
    }
    Ok(out)
}

/// Turns the scalar keys of the map `v` (if it is one) into strings, for a field
/// yaml.v2 decodes into `map[string]string`. A key becomes the text that finds its
/// source span (Go's `%v`), which the state's node tree then replaces with the
/// key's source text; a null key is the empty string. Collection keys stay, for the
/// cast to report.
fn string_keys(v: Option<&mut GoValue>) {
    let Some(GoValue::Map(m)) = v else { return };
    if m.iter().all(|(k, _)| matches!(k, GoValue::Str(_))) {
        return;
    }
    let entries = std::mem::take(m).into_entries();
    for (k, val) in entries {
        let key = match k {
            GoValue::Nil => GoValue::Str(String::new()),
            GoValue::Map(_) | GoValue::Seq(_) | GoValue::Str(_) => k,
            other => GoValue::Str(plain_key_text(&other)),
        };
        m.insert(key, val);
    }
}

/// Within a release (or release template): the entries yaml.v2 decodes into Go
/// structs (`set`, `setTemplate`, `env`, `inherit` entries), whose keys are field
/// names, so a scalar key is its text (`n:` names a field `n`, which the strict
/// decoding then reports as unknown, not a boolean key).
fn release_struct_keys(release: &mut GoValue) {
    for field in ["set", "setTemplate", "env", "inherit"] {
        match str_entry_mut(release, field) {
            Some(GoValue::Seq(items)) => {
                for item in items.iter_mut() {
                    string_keys(Some(item));
                }
            }
            // `inherit:` may be a single map.
            Some(item @ GoValue::Map(_)) => string_keys(Some(item)),
            _ => {}
        }
    }
}

/// The value under string key `key` of a map.
fn str_entry_mut<'v>(v: &'v mut GoValue, key: &str) -> Option<&'v mut GoValue> {
    let GoValue::Map(m) = v else { return None };
    m.iter_mut()
        .find(|(k, _)| matches!(k, GoValue::Str(s) if s == key))
        .map(|(_, v)| v)
}

/// Whether any map in `v` has a key that is not a string (what makes
/// [`cast_value`] fail).
fn has_non_string_key(v: &GoValue) -> bool {
    match v {
        GoValue::Seq(items) => items.iter().any(has_non_string_key),
        GoValue::Map(m) => m
            .iter()
            .any(|(k, v)| !matches!(k, GoValue::Str(_)) || has_non_string_key(v)),
        _ => false,
    }
}

// ---- encoding ----------------------------------------------------------------------

fn emit_error(e: emitter::EmitError) -> YamlError {
    YamlError {
        kind: YamlErrorKind::Encode,
        message: format!("yaml: {}", e.0),
        raw: format!("yaml: {}", e.0),
        span: None,
        line: None,
        context: None,
    }
}

/// gopkg.in/yaml.v2 `Marshal` (trailing newline included).
pub fn encode_v2(v: &Value) -> Result<String, YamlError> {
    encode::marshal_go(&encode::value_to_go(v)).map_err(emit_error)
}

/// gopkg.in/yaml.v2 `Marshal` of a decoded Go value (typed keys sorted yaml.v2's way).
pub fn encode_go(v: &GoValue) -> Result<String, YamlError> {
    encode::marshal_go(v).map_err(emit_error)
}

/// Several documents through one yaml.v2 `Encoder` (`---` before each but the first).
pub fn encode_v2_documents(vs: &[Value]) -> Result<String, YamlError> {
    let gs: Vec<GoValue> = vs.iter().map(encode::value_to_go).collect();
    encode::marshal_go_documents(&gs).map_err(emit_error)
}

/// yaml.v3 encoding with a 2-space indent, as Helm 4's `toYamlPretty` does it (no JSON
/// step: a float64 `1e6` prints as `1e+06`; trailing newline kept).
pub fn encode_v3_pretty(v: &Value) -> Result<String, YamlError> {
    encode::marshal_go_v3(&encode::value_to_go(v), 2).map_err(emit_error)
}

/// sigs.k8s.io/yaml `Marshal`: `encoding/json`, re-read by yaml.v2, yaml.v2 `Marshal`.
/// The text keeps its trailing newline (Helm's `toYaml` trims it).
pub fn helm_to_yaml(v: &Value) -> Result<String, YamlError> {
    match json::reread_by_yaml_v2(v) {
        Some(go) => encode_go(&go),
        None => helm_to_yaml_through_json(v),
    }
}

/// [`helm_to_yaml`] the way sigs.k8s.io/yaml does it: JSON text, re-read as YAML.
fn helm_to_yaml_through_json(v: &Value) -> Result<String, YamlError> {
    let json = json::marshal(v).map_err(|raw| YamlError {
        kind: YamlErrorKind::Json,
        message: format!("error marshaling into JSON: {raw}"),
        raw,
        span: None,
        line: None,
        context: None,
    })?;
    let go = decode_raw(&json, false, false)?;
    encode_go(&go)
}

/// Go `json.Marshal` text of a value as sigs.k8s.io/yaml produces it (exposed for the
/// TOML and test code that needs the same number formatting).
pub fn go_json(v: &Value) -> Result<String, String> {
    json::marshal(v)
}

/// Go `strconv.Quote` (what `%q` prints for a string).
pub fn go_quote(s: &str) -> String {
    gofmt::quote(s)
}

/// Go `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn format_float_g(f: f64) -> String {
    gofmt::format_g(f, false)
}

/// Go `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    gofmt::format_f(f)
}

/// Whether yaml.v2 would read `s`, written plain, back as something other than the
/// same string (and so quotes it on output).
pub fn needs_quotes(s: &str) -> bool {
    resolve::resolve("", s)
        .map(|r| r.tag != resolve::STR_TAG)
        .unwrap_or(true)
        || resolve::is_base60_float(s)
}

/// The named map type used for `chartutil.Values`-typed results is up to callers;
/// decoded maps are plain `map[string]interface {}`.
pub fn retype_top(v: Value, ty: MapType) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.retyped(ty)),
        other => other,
    }
}

#[cfg(test)]
mod tests;
