//! Sprig's encoding family: `b64enc`, `b64dec`, `b32enc`, `b32dec`.
//!
//! The decoders are written out here rather than taken from a crate because Sprig
//! returns Go's *error text* as the function result on bad input (`illegal base64 data
//! at input byte 4`), so the byte offset Go reports has to be reproduced exactly, and
//! Go's decoders have their own leniencies (CR/LF skipped anywhere, non-zero trailing
//! bits accepted, base32 input after the padding ignored).

use crate::template::{gostr, FuncDef, FuncResult, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("b64enc", &[Ty::String], b64enc),
    FuncDef::plain("b64dec", &[Ty::String], b64dec),
    FuncDef::plain("b32enc", &[Ty::String], b32enc),
    FuncDef::plain("b32dec", &[Ty::String], b32dec),
];

const B64_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32_ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn str_arg(args: &[Value], i: usize) -> &str {
    args.get(i).and_then(Value::as_str).unwrap_or("")
}

/// Go converts decoded bytes to a `string` without validation; bytes that are not
/// UTF-8 are kept as [`gostr`] raw-byte characters.
fn bytes_to_value(b: Vec<u8>) -> Value {
    Value::from(gostr::from_bytes(b))
}

fn b64enc(args: &[Value]) -> FuncResult {
    Ok(Value::from(base64_encode(&gostr::to_bytes(str_arg(
        args, 0,
    )))))
}

fn b64dec(args: &[Value]) -> FuncResult {
    Ok(match base64_decode(str_arg(args, 0).as_bytes()) {
        Ok(b) => bytes_to_value(b),
        Err(off) => Value::from(format!("illegal base64 data at input byte {off}")),
    })
}

fn b32enc(args: &[Value]) -> FuncResult {
    Ok(Value::from(base32_encode(&gostr::to_bytes(str_arg(
        args, 0,
    )))))
}

fn b32dec(args: &[Value]) -> FuncResult {
    Ok(match base32_decode(str_arg(args, 0).as_bytes()) {
        Ok(b) => bytes_to_value(b),
        Err(off) => Value::from(format!("illegal base32 data at input byte {off}")),
    })
}

/// Standard padded base64 (Go `base64.StdEncoding.EncodeToString`).
pub fn base64_encode(src: &[u8]) -> String {
    let mut out = String::with_capacity(src.len().div_ceil(3) * 4);
    for chunk in src.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextets = [(v >> 18) & 63, (v >> 12) & 63, (v >> 6) & 63, v & 63];
        for (i, s) in sextets.iter().enumerate() {
            if i <= chunk.len() {
                out.push(B64_ALPHABET[*s as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn b64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

fn is_newline(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

/// Go `base64.StdEncoding.DecodeString`; the error is the offset Go's
/// `CorruptInputError` carries.
pub fn base64_decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0usize;
    loop {
        let mut quad = [0u8; 4];
        let mut got = 0usize;
        let mut trailing_error = None;
        let mut finished = false;
        while got < 4 {
            if si == src.len() {
                if got == 0 {
                    return Ok(out);
                }
                // A partial quantum without padding: padding is mandatory.
                return Err(si - got);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_value(c) {
                quad[got] = v;
                got += 1;
                continue;
            }
            if is_newline(c) {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            match got {
                0 | 1 => return Err(si - 1),
                2 => {
                    // Two pad characters are due; newlines may sit between them.
                    while si < src.len() && is_newline(src[si]) {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && is_newline(src[si]) {
                si += 1;
            }
            if si < src.len() {
                trailing_error = Some(si);
            }
            finished = true;
            break;
        }
        let v = (u32::from(quad[0]) << 18)
            | (u32::from(quad[1]) << 12)
            | (u32::from(quad[2]) << 6)
            | u32::from(quad[3]);
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..got - 1]);
        if let Some(off) = trailing_error {
            return Err(off);
        }
        if finished {
            return Ok(out);
        }
    }
}

/// Standard padded base32 (Go `base32.StdEncoding.EncodeToString`).
pub fn base32_encode(src: &[u8]) -> String {
    let mut out = String::with_capacity(src.len().div_ceil(5) * 8);
    for chunk in src.chunks(5) {
        let mut b = [0u8; 5];
        b[..chunk.len()].copy_from_slice(chunk);
        let v = b.iter().fold(0u64, |acc, x| (acc << 8) | u64::from(*x));
        // Characters that carry at least one input bit; the rest are padding.
        let used = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < used {
                let s = (v >> (35 - 5 * i)) & 31;
                out.push(B32_ALPHABET[s as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn b32_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'2'..=b'7' => Some(c - b'2' + 26),
        _ => None,
    }
}

/// Go `base32.StdEncoding.DecodeString`: newlines are removed first (so offsets
/// count the stripped input), and decoding stops at the first padded quantum.
pub fn base32_decode(input: &[u8]) -> Result<Vec<u8>, usize> {
    let src: Vec<u8> = input.iter().copied().filter(|c| !is_newline(*c)).collect();
    let olen = src.len();
    let mut rest: &[u8] = &src;
    let mut out = Vec::with_capacity(olen / 8 * 5);
    let mut end = false;
    while !rest.is_empty() && !end {
        let mut q = [0u8; 8];
        let mut dlen = 8usize;
        let mut j = 0usize;
        while j < 8 {
            let Some((&c, tail)) = rest.split_first() else {
                return Err(olen - j);
            };
            rest = tail;
            if c == b'=' && j >= 2 && rest.len() < 8 {
                if rest.len() + j < 7 {
                    return Err(olen);
                }
                for k in 0..(7 - j) {
                    if rest.len() > k && rest[k] != b'=' {
                        return Err(olen - rest.len() + k - 1);
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return Err(olen - rest.len() - 1);
                }
                break;
            }
            match b32_value(c) {
                Some(v) => q[j] = v,
                None => return Err(olen - rest.len() - 1),
            }
            j += 1;
        }
        let bytes = [
            (q[0] << 3) | (q[1] >> 2),
            (q[1] << 6) | (q[2] << 1) | (q[3] >> 4),
            (q[3] << 4) | (q[4] >> 1),
            (q[4] << 7) | (q[5] << 2) | (q[6] >> 3),
            (q[6] << 5) | q[7],
        ];
        let n = match dlen {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            _ => 1,
        };
        out.extend_from_slice(&bytes[..n]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: fn(&[Value]) -> FuncResult, s: &str) -> String {
        match f(&[Value::from(s)]) {
            Ok(Value::String(s)) => s.to_string(),
            other => panic!("unexpected {other:?}"),
        }
    }

    // Expected values were produced by helm v3.15.3 (`helm template` on a scratch chart).
    #[test]
    fn base64_matches_go() {
        assert_eq!(call(b64enc, "hello"), "aGVsbG8=");
        assert_eq!(call(b64enc, ""), "");
        assert_eq!(call(b64enc, "héllo wörld!?"), "aMOpbGxvIHfDtnJsZCE/");
        let cases = [
            ("aGVsbG8=", "hello"),
            ("aGVsbG8", "illegal base64 data at input byte 4"),
            ("!!!", "illegal base64 data at input byte 0"),
            ("aGVs\nbG8=", "hello"),
            ("aGVsbG8=x", "illegal base64 data at input byte 8"),
            ("aGVsbA==", "hell"),
            ("aGVsbA=", "illegal base64 data at input byte 7"),
            ("aGVsbB==", "hell"),
            ("YQ", "illegal base64 data at input byte 0"),
            ("Y", "illegal base64 data at input byte 0"),
            ("", ""),
            ("==", "illegal base64 data at input byte 0"),
            ("YWJj\r\nZGVm", "abcdef"),
        ];
        for (input, want) in cases {
            assert_eq!(call(b64dec, input), want, "b64dec {input:?}");
        }
    }

    #[test]
    fn base32_matches_go() {
        assert_eq!(call(b32enc, "hello"), "NBSWY3DP");
        assert_eq!(call(b32enc, ""), "");
        assert_eq!(call(b32enc, "a"), "ME======");
        assert_eq!(call(b32enc, "héllo"), "NDB2S3DMN4======");
        let cases = [
            ("NBSWY3DP", "hello"),
            ("nbswy3dp", "illegal base32 data at input byte 0"),
            ("NBSWY3D", "illegal base32 data at input byte 0"),
            ("ME======", "a"),
            ("ME=====", "illegal base32 data at input byte 7"),
            ("MF======", "a"),
            ("!", "illegal base32 data at input byte 0"),
        ];
        for (input, want) in cases {
            assert_eq!(call(b32dec, input), want, "b32dec {input:?}");
        }
    }

    #[test]
    fn round_trips() {
        for len in 0..20 {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(
                base64_decode(base64_encode(&data).as_bytes()),
                Ok(data.clone())
            );
            assert_eq!(base32_decode(base32_encode(&data).as_bytes()), Ok(data));
        }
    }
}
