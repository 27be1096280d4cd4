//! Reading `values.schema.json` as the two Helm versions' libraries read it.
//!
//! Both decode the schema with Go's streaming `json.Decoder`, not `json.Unmarshal`:
//! running out of input is `unexpected EOF` (`EOF` when there is nothing but
//! space), and the decoder stops after the first JSON value. What follows that
//! value is where they part: gojsonschema (Helm 3) never looks at it, so
//! `{...} trailing words` validates as `{...}`; santhosh-tekuri/jsonschema
//! (Helm 4) asks for one more token and refuses the schema if there is one. A
//! syntax error inside the value reads as Go's scanner words it, in the dialect of
//! the Go release that built each Helm.

use serde_json::Value as J;

use crate::chart::HelmVersion;
use crate::funcs::codec::json::{self, Dialect, Target};

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The schema document, or the error text Helm prints for it.
pub(super) fn decode(helm: HelmVersion, bytes: &[u8]) -> Result<J, String> {
    if bytes.iter().all(|b| is_space(*b)) {
        return Err("EOF".to_string());
    }
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<J>();
    let first = values.next();
    let end = values.byte_offset();
    match first {
        Some(Ok(v)) => {
            if helm == HelmVersion::V4 && bytes[end..].iter().any(|b| !is_space(*b)) {
                return Err("invalid character after top-level value".to_string());
            }
            Ok(v)
        }
        Some(Err(e)) => Err(go_syntax_error(helm, bytes).unwrap_or_else(|| e.to_string())),
        None => Err("EOF".to_string()),
    }
}

/// Go's message for the first syntax error in `bytes`, which lies inside the
/// first value (the caller's parser stopped there). `None` when Go's scanner
/// finds nothing wrong there, i.e. the two parsers disagree (a lone surrogate
/// escape Go accepts): the caller's own message is then the better guess.
fn go_syntax_error(helm: HelmVersion, bytes: &[u8]) -> Option<String> {
    let dialect = match helm {
        HelmVersion::V3 => Dialect::V1,
        HelmVersion::V4 => Dialect::V2,
    };
    let text = json::unmarshal(bytes, Target::Any, dialect)
        .error?
        .to_string();
    if text.ends_with("after top-level value") {
        return None;
    }
    // `Unmarshal` sees the whole input at once and calls running out of it the end
    // of the input; the decoder was reading a stream, which ended.
    Some(if text == "unexpected end of JSON input" {
        "unexpected EOF".to_string()
    } else {
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(helm: HelmVersion, s: &str) -> String {
        decode(helm, s.as_bytes()).err().unwrap_or_default()
    }

    #[test]
    fn decoder_errors_as_each_helm_prints_them() {
        for helm in [HelmVersion::V3, HelmVersion::V4] {
            assert_eq!(err(helm, ""), "EOF");
            assert_eq!(err(helm, " \n\t"), "EOF");
            assert_eq!(err(helm, r#"{"type":"object""#), "unexpected EOF");
            assert_eq!(
                err(helm, r#"{"type":object}"#),
                "invalid character 'o' looking for beginning of value"
            );
            assert_eq!(
                err(helm, r#"{"a":1,}"#),
                "invalid character '}' looking for beginning of object key string"
            );
            assert_eq!(
                err(helm, r#"{"a":[1,2}"#),
                "invalid character '}' after array element"
            );
            assert!(decode(helm, b"{\"type\":\"object\"}\n").is_ok());
        }
        // The newer Go's scanner words some errors its own way.
        assert_eq!(
            err(HelmVersion::V3, r#"{"a":"\x"}"#),
            "invalid character 'x' in string escape code"
        );
        assert_eq!(
            err(HelmVersion::V4, r#"{"a":"\x"}"#),
            "invalid escape sequence `\\x` in string"
        );
    }

    #[test]
    fn only_helm4_refuses_what_follows_the_value() {
        for tail in [" x", "{}", " [1]"] {
            let s = format!(r#"{{"type":"object"}}{tail}"#);
            assert!(decode(HelmVersion::V3, s.as_bytes()).is_ok(), "{s}");
            assert_eq!(
                err(HelmVersion::V4, &s),
                "invalid character after top-level value"
            );
        }
    }
}
