//! yaml.v2 `Marshal`: Go values to emitter events, with yaml.v2's map key order and
//! scalar style choices.
//!
//! Keys are sorted with yaml.v2's "natural" order (`sorter.go`): numbers and bools by
//! value before other kinds, strings rune by rune with letters after non-letters and
//! digit runs compared as numbers. A string is written plain only if reading it back
//! would give the same string (the resolver says `!!str` and it is not a YAML 1.1
//! base-60 number); strings with a newline ask for the literal block style; the
//! emitter may still downgrade any choice. A host struct that declares no tags
//! (Helmfile's template data) is written as yaml.v2 walks a struct: its fields in
//! declaration order, under their lowercased names.

use std::cmp::Ordering;

use super::decode::{GoMap, GoValue};
use super::emitter::{EmitError, Emitter, Ev};
use super::gofmt;
use super::resolve::{is_base60_float, resolve, STR_TAG};
use super::scanner::ScalarStyle;
use crate::template::Value;

/// Converts a template value to the Go value yaml.v2 would walk by reflection.
pub fn value_to_go(v: &Value) -> GoValue {
    match v {
        Value::Nil => GoValue::Nil,
        Value::Bool(b) => GoValue::Bool(*b),
        Value::Int(i, _) => GoValue::Int(*i),
        Value::Uint(u, _) => GoValue::Uint(*u),
        Value::Float(f) => GoValue::Float(*f),
        Value::String(s) => GoValue::Str(s.to_string()),
        Value::Bytes(b) => GoValue::Seq(b.iter().map(|&x| GoValue::Uint(x as u64)).collect()),
        Value::List(l) => GoValue::Seq(l.iter().map(value_to_go).collect()),
        Value::Map(m) => {
            let mut g = GoMap::new();
            m.with_read(|map| {
                for (k, v) in map {
                    g.insert(GoValue::Str(k.clone()), value_to_go(v));
                }
            });
            GoValue::Map(g)
        }
        Value::Object(o) => match o
            .yaml_v2_untagged_struct()
            .then(|| crate::template::value::struct_json_fields(o.as_ref()))
            .flatten()
        {
            Some(fields) => GoValue::Map(GoMap::go_struct(
                fields
                    .iter()
                    .map(|(k, v)| (k.to_lowercase(), value_to_go(v))),
            )),
            None => value_to_go(&o.to_json_value()),
        },
    }
}

/// Go `unicode.IsLetter`, approximated by Rust's Alphabetic property (which also
/// admits letter-like numbers and some combining marks).
fn is_letter(c: char) -> bool {
    c.is_alphabetic()
}

/// Go `unicode.IsDigit`, restricted to ASCII digits (non-ASCII decimal digits in
/// map keys are not modelled).
fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

fn key_float(v: &GoValue) -> Option<f64> {
    match v {
        GoValue::Int(i) => Some(*i as f64),
        GoValue::Uint(u) => Some(*u as f64),
        GoValue::Float(f) => Some(*f),
        GoValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

fn num_less(a: &GoValue, b: &GoValue) -> bool {
    match (a, b) {
        (GoValue::Int(x), GoValue::Int(y)) => x < y,
        (GoValue::Uint(x), GoValue::Uint(y)) => x < y,
        (GoValue::Float(x), GoValue::Float(y)) => x < y,
        (GoValue::Bool(x), GoValue::Bool(y)) => !x && *y,
        _ => false,
    }
}

/// yaml.v2's `keyList.Less`.
pub fn key_less(a: &GoValue, b: &GoValue) -> bool {
    let (ar, br) = (runes(a), runes(b));
    key_less_impl(a, &ar, b, &br, false)
}

fn runes(v: &GoValue) -> Vec<char> {
    match v {
        GoValue::Str(s) => s.chars().collect(),
        _ => Vec::new(),
    }
}

/// `v3` selects yaml.v3's variant, where a letter right after a digit run sorts
/// before a non-letter.
fn key_less_impl(a: &GoValue, ar: &[char], b: &GoValue, br: &[char], v3: bool) -> bool {
    let (ak, bk) = (a.kind_rank(), b.kind_rank());
    if let (Some(af), Some(bf)) = (key_float(a), key_float(b)) {
        if af != bf {
            return af < bf;
        }
        if ak != bk {
            return ak < bk;
        }
        return num_less(a, b);
    }
    if !matches!((a, b), (GoValue::Str(_), GoValue::Str(_))) {
        return ak < bk;
    }
    let mut i = 0;
    let mut digits = false;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            digits = is_digit(ar[i]);
            i += 1;
            continue;
        }
        let al = is_letter(ar[i]);
        let bl = is_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return if v3 && digits { al } else { bl };
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && is_digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// A stable merge sort driven by a "less" function; unlike `slice::sort_by` it
/// tolerates comparators that are not a total order (Go's `sort.Sort` does too).
fn sort_by_less<T: Clone>(items: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let n = items.len();
    if n < 2 {
        return;
    }
    if n <= 12 {
        for i in 1..n {
            let mut j = i;
            while j > 0 && less(&items[j], &items[j - 1]) {
                items.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    let mid = n / 2;
    sort_by_less(&mut items[..mid], less);
    sort_by_less(&mut items[mid..], less);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if less(&items[j], &items[i]) {
            merged.push(items[j].clone());
            j += 1;
        } else {
            merged.push(items[i].clone());
            i += 1;
        }
    }
    merged.extend_from_slice(&items[i..mid]);
    merged.extend_from_slice(&items[j..n]);
    items.clone_from_slice(&merged);
}

fn scalar(ev: &mut Vec<Ev>, value: String, style: ScalarStyle) {
    ev.push(Ev::Scalar { value, style });
}

fn string_event(ev: &mut Vec<Ev>, s: &str) {
    let can_plain =
        resolve("", s).map(|r| r.tag == STR_TAG).unwrap_or(false) && !is_base60_float(s);
    let style = if s.contains('\n') {
        ScalarStyle::Literal
    } else if can_plain {
        ScalarStyle::Plain
    } else {
        ScalarStyle::DoubleQuoted
    };
    scalar(ev, s.to_string(), style);
}

fn marshal(v: &GoValue, ev: &mut Vec<Ev>, v3: bool) {
    match v {
        GoValue::Nil => scalar(ev, "null".to_string(), ScalarStyle::Plain),
        GoValue::Bool(b) => scalar(ev, b.to_string(), ScalarStyle::Plain),
        GoValue::Int(i) => scalar(ev, i.to_string(), ScalarStyle::Plain),
        GoValue::Uint(u) => scalar(ev, u.to_string(), ScalarStyle::Plain),
        GoValue::Float(f) => {
            let s = match gofmt::format_g(*f, false).as_str() {
                "+Inf" => ".inf".to_string(),
                "-Inf" => "-.inf".to_string(),
                "NaN" => ".nan".to_string(),
                other => other.to_string(),
            };
            scalar(ev, s, ScalarStyle::Plain);
        }
        GoValue::Str(s) => string_event(ev, s),
        GoValue::Seq(items) => {
            ev.push(Ev::SeqStart { flow: false });
            for it in items {
                marshal(it, ev, v3);
            }
            ev.push(Ev::SeqEnd);
        }
        GoValue::Map(m) => {
            ev.push(Ev::MapStart { flow: false });
            let mut entries: Vec<(Vec<char>, &(GoValue, GoValue))> =
                m.iter().map(|e| (runes(&e.0), e)).collect();
            type Keyed<'a> = (Vec<char>, &'a (GoValue, GoValue));
            if !m.is_struct() {
                sort_by_less(&mut entries, &|a: &Keyed, b: &Keyed| {
                    key_less_impl(&a.1 .0, &a.0, &b.1 .0, &b.0, v3)
                });
            }
            for (_, (k, v)) in entries {
                marshal(k, ev, v3);
                marshal(v, ev, v3);
            }
            ev.push(Ev::MapEnd);
        }
    }
}

/// yaml.v2 `Marshal` of a Go value: one document, trailing newline included.
pub fn marshal_go(v: &GoValue) -> Result<String, EmitError> {
    let mut ev = vec![Ev::StreamStart, Ev::DocStart];
    marshal(v, &mut ev, false);
    ev.push(Ev::DocEnd);
    ev.push(Ev::StreamEnd);
    Emitter::new(&ev).run()
}

/// yaml.v3 `Encoder` with `SetIndent(indent)` encoding one value (Helm 4's
/// `toYamlPretty`). yaml.v3 quotes exactly the strings yaml.v2 quotes: its resolver
/// lost the YAML 1.1 booleans but its encoder quotes them explicitly.
pub fn marshal_go_v3(v: &GoValue, indent: isize) -> Result<String, EmitError> {
    let mut ev = vec![Ev::StreamStart, Ev::DocStart];
    marshal(v, &mut ev, true);
    ev.push(Ev::DocEnd);
    ev.push(Ev::StreamEnd);
    Emitter::new_v3(&ev, indent).run()
}

/// yaml.v2 `Encoder.Encode` of several documents (`---` between them).
pub fn marshal_go_documents(vs: &[GoValue]) -> Result<String, EmitError> {
    let mut ev = vec![Ev::StreamStart];
    for v in vs {
        ev.push(Ev::DocStart);
        marshal(v, &mut ev, false);
        ev.push(Ev::DocEnd);
    }
    ev.push(Ev::StreamEnd);
    Emitter::new(&ev).run()
}

/// Orders strings as yaml.v2 sorts map keys (exposed for callers that list keys the
/// way `toYaml` prints them).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (ga, gb) = (GoValue::Str(a.to_string()), GoValue::Str(b.to_string()));
    if key_less(&ga, &gb) {
        Ordering::Less
    } else if key_less(&gb, &ga) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_key_order() {
        let keys = [
            "a10", "a9", "a_b", "aB", "ab", "A", "b", "_", "1", "10", "9", "01", "é", "Z", "z",
            "-a", ".a", "a.b", "a-b", "a 1", "a01", "a1", "a001", "2b", "10a",
        ];
        let mut v: Vec<GoValue> = keys.iter().map(|k| GoValue::Str(k.to_string())).collect();
        sort_by_less(&mut v, &|a: &GoValue, b: &GoValue| key_less(a, b));
        let got: Vec<String> = v
            .iter()
            .map(|x| match x {
                GoValue::Str(s) => s.clone(),
                _ => String::new(),
            })
            .collect();
        let want = "-a .a _ 1 01 2b 9 10 10a A Z a 1 a-b a.b a_b a1 a01 a001 a9 a10 aB ab b z é";
        assert_eq!(got.join(" "), want);
    }
}
