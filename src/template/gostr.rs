//! Go strings that are not UTF-8, carried in Rust `str`s.
//!
//! A Go `string` is any sequence of bytes. Templates make ones that are not UTF-8
//! routinely: `.Files.Get` of a binary file, `b64dec` of a keystore, a slice that
//! cuts a character in two. Such a string usually travels on to `b64enc` or
//! `sha256sum`, which must see the original bytes (`{{ .Files.Get "a.jks" | b64enc
//! }}` is a common way to ship binary data), so replacing the bad bytes with U+FFFD
//! would corrupt the output.
//!
//! Our values hold UTF-8 text, so each byte that is not part of valid UTF-8 is
//! kept as one private-use character, U+10FF00 plus the byte (the last 256 code
//! points of plane 16, which nothing prints). Everything that copies, joins, splits
//! or compares strings keeps those characters, as Go keeps the bytes; the places
//! where Go looks at bytes or runes convert: [`to_bytes`] for byte-wise work (base64,
//! digests, `len`, slicing, `%q`), [`lossy`] where Go decodes runes and sees U+FFFD
//! (`upper`, JSON). A real U+10FFxx character in the input would be read as a raw
//! byte; no text uses them.

use std::borrow::Cow;

/// The private-use character standing for raw byte `b` is `RAW_BASE + b`.
const RAW_BASE: u32 = 0x10_FF00;

/// The first byte of every raw-byte character's UTF-8 form (U+10FF00..U+10FFFF
/// encode as `F4 8F BC..BF xx`): a string without it holds no raw byte.
const RAW_LEAD: u8 = 0xF4;

fn raw_char(b: u8) -> char {
    char::from_u32(RAW_BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The raw byte a character stands for, if it is one of ours.
pub fn raw_byte(c: char) -> Option<u8> {
    let n = u32::from(c);
    (RAW_BASE..=RAW_BASE + 0xFF)
        .contains(&n)
        .then(|| (n - RAW_BASE) as u8)
}

/// Whether `s` holds any raw byte.
pub fn has_raw(s: &str) -> bool {
    s.as_bytes().contains(&RAW_LEAD) && s.chars().any(|c| raw_byte(c).is_some())
}

/// The Go string with bytes `b`: valid UTF-8 as it is, each other byte as its
/// private-use character.
pub fn from_bytes(b: Vec<u8>) -> String {
    match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => from_invalid(e.as_bytes()),
    }
}

/// [`from_bytes`] for a borrowed slice.
pub fn from_slice(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(from_invalid(b)),
    }
}

fn from_invalid(mut b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 16);
    loop {
        match std::str::from_utf8(b) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (good, rest) = b.split_at(e.valid_up_to());
                // Valid by construction.
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                // Go's decoder gives up on one byte at a time.
                out.push(raw_char(rest[0]));
                b = &rest[1..];
            }
        }
    }
}

/// The bytes of the Go string `s` stands for.
pub fn to_bytes(s: &str) -> Cow<'_, [u8]> {
    if !s.as_bytes().contains(&RAW_LEAD) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        match raw_byte(c) {
            Some(b) => out.push(b),
            None => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    Cow::Owned(out)
}

/// `s` as Go's rune-wise decoding sees it: each raw byte becomes U+FFFD.
pub fn lossy(s: &str) -> Cow<'_, str> {
    if !s.as_bytes().contains(&RAW_LEAD) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match raw_byte(c) {
                Some(_) => char::REPLACEMENT_CHARACTER,
                None => c,
            })
            .collect(),
    )
}

/// The length of the Go string, in bytes.
pub fn byte_len(s: &str) -> usize {
    if !s.as_bytes().contains(&RAW_LEAD) {
        return s.len();
    }
    s.chars()
        .map(|c| match raw_byte(c) {
            Some(_) => 1,
            None => c.len_utf8(),
        })
        .sum()
}

/// What libyaml's reader (yaml.v2, yaml.v3) says of the first byte sequence in
/// `s` that is not UTF-8, if any: the error a rendered document holding raw bytes
/// gives when Helm parses it.
pub fn yaml_reader_error(s: &str) -> Option<&'static str> {
    if !has_raw(s) {
        return None;
    }
    let b = to_bytes(s);
    let mut i = 0;
    while i < b.len() {
        let lead = b[i];
        let width = match lead {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return Some("invalid leading UTF-8 octet"),
        };
        if i + width > b.len() {
            return Some("incomplete UTF-8 octet sequence");
        }
        let mut value: u32 = match width {
            1 => u32::from(lead),
            2 => u32::from(lead & 0x1F),
            3 => u32::from(lead & 0x0F),
            _ => u32::from(lead & 0x07),
        };
        for k in 1..width {
            let t = b[i + k];
            if t & 0xC0 != 0x80 {
                return Some("invalid trailing UTF-8 octet");
            }
            value = (value << 6) | u32::from(t & 0x3F);
        }
        let shortest = match width {
            1 => true,
            2 => value >= 0x80,
            3 => value >= 0x800,
            _ => value >= 0x10000,
        };
        if !shortest {
            return Some("invalid length of a UTF-8 sequence");
        }
        if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
            return Some("invalid Unicode character");
        }
        i += width;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_bytes_round_trip() {
        let bytes = vec![b'a', 0xB6, 0xBB, 0x9E, 0xC3, 0xA4, 0xFF, 0xC3];
        let s = from_bytes(bytes.clone());
        assert!(has_raw(&s));
        assert_eq!(to_bytes(&s).as_ref(), bytes.as_slice());
        assert_eq!(byte_len(&s), bytes.len());
        // The valid `ä` survives as itself; each bad byte is one U+FFFD to rune-wise
        // readers.
        assert_eq!(lossy(&s), "a\u{FFFD}\u{FFFD}\u{FFFD}ä\u{FFFD}\u{FFFD}");
        assert_eq!(from_bytes(b"plain".to_vec()), "plain");
        assert!(!has_raw("ä€😀"));
        assert_eq!(to_bytes("ä€😀").as_ref(), "ä€😀".as_bytes());
    }

    #[test]
    fn libyaml_reader_messages() {
        let err = |b: &[u8]| yaml_reader_error(&from_bytes(b.to_vec()));
        assert_eq!(err(b"ok"), None);
        assert_eq!(err(&[b'a', 0xB6]), Some("invalid leading UTF-8 octet"));
        assert_eq!(err(&[b'a', 0xC3]), Some("incomplete UTF-8 octet sequence"));
        assert_eq!(err(&[0xC3, b'a']), Some("invalid trailing UTF-8 octet"));
        assert_eq!(
            err(&[0xC0, 0x80]),
            Some("invalid length of a UTF-8 sequence")
        );
        assert_eq!(err(&[0xED, 0xA0, 0x80]), Some("invalid Unicode character"));
    }
}
