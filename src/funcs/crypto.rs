//! Sprig's crypto family: digests (`sha1sum`, `sha256sum`, `sha512sum`,
//! `adler32sum`), password functions (`bcrypt`, `htpasswd`, `derivePassword`),
//! `encryptAES`/`decryptAES`, `genPrivateKey` and `buildCustomCert`, plus the key and
//! DER/PEM plumbing the certificate family (`certs.rs`) shares.
//!
//! Deterministic functions reproduce Go's bytes exactly (the Master Password
//! algorithm, Sprig's AES-CBC scheme with its zero-padded key, Go's error texts and
//! even its runtime panics, which `text/template` turns into call errors). Random
//! ones draw every random byte from the render's seeded [`Host`] stream, so a render
//! repeats byte for byte under the same seed; keys are still real keys of the sizes
//! Sprig uses (RSA 4096 for `genPrivateKey`, 2048 for certificates, DSA L2048N256,
//! P-256, Ed25519) in the PEM layouts Go's encoders write.

use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

use super::certs::Certificate;
use super::encoding::{base64_decode, base64_encode};
use crate::source::Memo;
use crate::template::{CallCtx, FuncDef, FuncError, FuncResult, Host, Ty, Value};

/// Functions of Sprig 3.2.3 (Helm 3, Helmfile).
pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("sha1sum", &[Ty::String], sha1sum),
    FuncDef::plain("sha256sum", &[Ty::String], sha256sum),
    FuncDef::plain("adler32sum", &[Ty::String], adler32sum),
    FuncDef::ctx("bcrypt", &[Ty::String], None, bcrypt).nondeterministic(),
    FuncDef::ctx("htpasswd", &[Ty::String, Ty::String], None, htpasswd).nondeterministic(),
    FuncDef::plain(
        "derivePassword",
        &[Ty::Uint32, Ty::String, Ty::String, Ty::String, Ty::String],
        derive_password,
    ),
    FuncDef::ctx("encryptAES", &[Ty::String, Ty::String], None, encrypt_aes).nondeterministic(),
    FuncDef::plain("decryptAES", &[Ty::String, Ty::String], decrypt_aes),
    FuncDef::ctx("genPrivateKey", &[Ty::String], None, gen_private_key).nondeterministic(),
    FuncDef::plain(
        "buildCustomCert",
        &[Ty::String, Ty::String],
        build_custom_cert,
    ),
];

/// Added in Sprig 3.3.0 (Helm 4).
pub static FUNCS_SPRIG_3_3: &[FuncDef] = &[FuncDef::plain("sha512sum", &[Ty::String], sha512sum)];

fn str_arg(args: &[Value], i: usize) -> &str {
    args.get(i).and_then(Value::as_str).unwrap_or("")
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Go strings are byte strings; ours must be UTF-8, so bytes that are not are
/// replaced. Only reachable through `decryptAES` of non-text data.
/// The bytes of string argument `i` (raw bytes included, see `gostr`).
fn go_bytes(args: &[Value], i: usize) -> std::borrow::Cow<'_, [u8]> {
    crate::template::gostr::to_bytes(str_arg(args, i))
}

fn bytes_to_value(b: Vec<u8>) -> Value {
    Value::from(crate::template::gostr::from_bytes(b))
}

// ---- digests ------------------------------------------------------------------------

fn sha1sum(args: &[Value]) -> FuncResult {
    Ok(Value::from(hex(&Sha1::digest(go_bytes(args, 0)))))
}

fn sha256sum(args: &[Value]) -> FuncResult {
    Ok(Value::from(hex(&Sha256::digest(go_bytes(args, 0)))))
}

fn sha512sum(args: &[Value]) -> FuncResult {
    Ok(Value::from(hex(&Sha512::digest(go_bytes(args, 0)))))
}

/// Adler-32 (RFC 1950), printed in decimal as Sprig does.
fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 is the largest run that cannot overflow u32 before reduction.
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

fn adler32sum(args: &[Value]) -> FuncResult {
    Ok(Value::from(adler32(&go_bytes(args, 0)).to_string()))
}

// ---- passwords ----------------------------------------------------------------------

/// Go's `bcrypt.GenerateFromPassword` at the default cost 10, `$2a$` prefix, with the
/// salt from the seeded stream. Failures are returned as text, as Sprig does.
fn bcrypt_hash(host: &Host, password: &str) -> String {
    if password.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .to_string();
    }
    let mut salt = [0u8; 16];
    host.fill_bytes(&mut salt);
    match bcrypt::hash_with_salt(password, 10, salt) {
        Ok(parts) => parts.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

fn bcrypt(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    Ok(Value::from(bcrypt_hash(ctx.host, str_arg(args, 0))))
}

fn htpasswd(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let user = str_arg(args, 0);
    if user.contains(':') {
        return Ok(Value::from(format!("invalid username: {user}")));
    }
    let hash = bcrypt_hash(ctx.host, str_arg(args, 1));
    Ok(Value::from(format!("{user}:{hash}")))
}

const MASTER_PASSWORD_SEED: &[u8] = b"com.lyndir.masterpassword";

fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(class: u8) -> &'static [u8] {
    match class {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

fn u32_arg(v: Option<&Value>) -> u32 {
    match v {
        Some(Value::Uint(u, _)) => *u as u32,
        Some(Value::Int(i, _)) => *i as u32,
        _ => 0,
    }
}

/// The Master Password algorithm (scrypt N=32768 r=8 p=2, then HMAC-SHA256 over the
/// site scope), exactly as Sprig composes it.
fn derive_password(args: &[Value]) -> FuncResult {
    let counter = u32_arg(args.first());
    let kind = str_arg(args, 1);
    let password = str_arg(args, 2);
    let user = str_arg(args, 3);
    let site = str_arg(args, 4);
    let Some(templates) = password_templates(kind) else {
        return Ok(Value::from(format!("cannot find password template {kind}")));
    };
    let mut salt = MASTER_PASSWORD_SEED.to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let derived = scrypt::Params::new(15, 8, 2)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            scrypt::scrypt(password.as_bytes(), &salt, &p, &mut key).map_err(|e| e.to_string())
        });
    if let Err(e) = derived {
        return Ok(Value::from(format!("failed to derive password: {e}")));
    }
    let mut scope = MASTER_PASSWORD_SEED.to_vec();
    scope.extend_from_slice(&(site.len() as u32).to_be_bytes());
    scope.extend_from_slice(site.as_bytes());
    scope.extend_from_slice(&counter.to_be_bytes());
    let seed = hmac_sha256(&key, &scope);
    let template = templates[usize::from(seed[0]) % templates.len()].as_bytes();
    let out: String = template
        .iter()
        .enumerate()
        .map(|(i, class)| {
            let chars = template_chars(*class);
            chars[usize::from(seed[i + 1]) % chars.len()] as char
        })
        .collect();
    Ok(Value::from(out))
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    use hmac::{KeyInit, Mac};
    match hmac::Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(msg);
            mac.finalize().into_bytes().into()
        }
        // HMAC accepts keys of any length; this arm cannot be reached.
        Err(_) => [0u8; 32],
    }
}

// ---- AES ----------------------------------------------------------------------------

/// Sprig's key: the password's bytes copied into 32 zero bytes (longer ones cut).
fn aes_key(password: &str) -> aes::Aes256 {
    use aes::cipher::KeyInit;
    let mut key = [0u8; 32];
    let n = password.len().min(32);
    key[..n].copy_from_slice(&password.as_bytes()[..n]);
    aes::Aes256::new(&key.into())
}

fn encrypt_aes(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    use aes::cipher::BlockCipherEncrypt;
    let plaintext = str_arg(args, 1);
    if plaintext.is_empty() {
        return Ok(Value::from(""));
    }
    let cipher = aes_key(str_arg(args, 0));
    let mut content = plaintext.as_bytes().to_vec();
    let pad = 16 - content.len() % 16;
    content.extend(std::iter::repeat_n(pad as u8, pad));
    let mut out = vec![0u8; 16];
    ctx.host.fill_bytes(&mut out);
    let mut prev: [u8; 16] = [0; 16];
    prev.copy_from_slice(&out);
    for block in content.chunks(16) {
        let mut b = [0u8; 16];
        for (i, x) in block.iter().enumerate() {
            b[i] = x ^ prev[i];
        }
        let mut ga = b.into();
        cipher.encrypt_block(&mut ga);
        prev.copy_from_slice(&ga);
        out.extend_from_slice(&prev);
    }
    Ok(Value::from(base64_encode(&out)))
}

/// Decryption keeps Go's failure modes: Sprig slices without checking lengths, so
/// short or malformed input panics in Go, which `text/template` reports as the call's
/// error with the runtime's message.
fn decrypt_aes(args: &[Value]) -> FuncResult {
    use aes::cipher::BlockCipherDecrypt;
    let encoded = str_arg(args, 1);
    if encoded.is_empty() {
        return Ok(Value::from(""));
    }
    let crypt = base64_decode(encoded.as_bytes())
        .map_err(|off| FuncError::call(format!("illegal base64 data at input byte {off}")))?;
    // Go's decode buffer has capacity DecodedLen(len(input)).
    let capacity = encoded.len() / 4 * 3;
    if crypt.len() < 16 {
        return Err(FuncError::call(if capacity < 16 {
            format!("runtime error: slice bounds out of range [:16] with capacity {capacity}")
        } else {
            format!(
                "runtime error: slice bounds out of range [16:{}]",
                crypt.len()
            )
        }));
    }
    let (iv, body) = crypt.split_at(16);
    if body.len() % 16 != 0 {
        return Err(FuncError::call("crypto/cipher: input not full blocks"));
    }
    let cipher = aes_key(str_arg(args, 0));
    let mut prev = [0u8; 16];
    prev.copy_from_slice(iv);
    let mut plain = Vec::with_capacity(body.len());
    for block in body.chunks(16) {
        let mut ga = aes::cipher::Block::<aes::Aes256>::default();
        ga.copy_from_slice(block);
        cipher.decrypt_block(&mut ga);
        for (i, x) in ga.iter().enumerate() {
            plain.push(x ^ prev[i]);
        }
        prev.copy_from_slice(block);
    }
    let Some(&last) = plain.last() else {
        return Err(FuncError::call("runtime error: index out of range [-1]"));
    };
    let end = plain.len() as i64 - i64::from(last);
    if end < 0 {
        return Err(FuncError::call(format!(
            "runtime error: slice bounds out of range [:{end}]"
        )));
    }
    plain.truncate(end as usize);
    Ok(bytes_to_value(plain))
}

// ---- DER ----------------------------------------------------------------------------

/// Just enough DER to write and read the structures Go's `crypto/x509` produces:
/// keys, certificates and their extensions.
pub(crate) mod der {
    pub const INTEGER: u8 = 0x02;
    pub const BIT_STRING: u8 = 0x03;
    pub const OCTET_STRING: u8 = 0x04;
    pub const NULL: u8 = 0x05;
    pub const OID: u8 = 0x06;
    pub const UTF8_STRING: u8 = 0x0c;
    pub const PRINTABLE_STRING: u8 = 0x13;
    pub const UTC_TIME: u8 = 0x17;
    pub const GENERALIZED_TIME: u8 = 0x18;
    pub const SEQUENCE: u8 = 0x30;
    pub const SET: u8 = 0x31;
    pub const BOOLEAN: u8 = 0x01;

    pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(content.len() + 6);
        out.push(tag);
        let n = content.len();
        if n < 0x80 {
            out.push(n as u8);
        } else {
            let bytes = (n as u64).to_be_bytes();
            let skip = bytes.iter().take_while(|b| **b == 0).count();
            out.push(0x80 | (8 - skip) as u8);
            out.extend_from_slice(&bytes[skip..]);
        }
        out.extend_from_slice(content);
        out
    }

    pub fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
        tlv(SEQUENCE, &parts.concat())
    }

    /// A non-negative INTEGER from big-endian magnitude bytes.
    pub fn uint(bytes: &[u8]) -> Vec<u8> {
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        let mut body = bytes[skip..].to_vec();
        if body.first().is_none_or(|b| b & 0x80 != 0) {
            body.insert(0, 0);
        }
        tlv(INTEGER, &body)
    }

    pub fn small_int(v: u8) -> Vec<u8> {
        uint(&[v])
    }

    pub fn oid(arcs: &[u64]) -> Vec<u8> {
        let mut body = Vec::new();
        let mut push = |mut v: u64| {
            let mut tmp = vec![(v & 0x7f) as u8];
            v >>= 7;
            while v > 0 {
                tmp.push(0x80 | (v & 0x7f) as u8);
                v >>= 7;
            }
            tmp.reverse();
            body.extend_from_slice(&tmp);
        };
        if arcs.len() >= 2 {
            push(arcs[0] * 40 + arcs[1]);
            for a in &arcs[2..] {
                push(*a);
            }
        }
        tlv(OID, &body)
    }

    pub fn bit_string(bytes: &[u8]) -> Vec<u8> {
        let mut body = vec![0u8];
        body.extend_from_slice(bytes);
        tlv(BIT_STRING, &body)
    }

    pub fn octet_string(bytes: &[u8]) -> Vec<u8> {
        tlv(OCTET_STRING, bytes)
    }

    pub fn null() -> Vec<u8> {
        vec![NULL, 0]
    }

    /// One element read from DER input.
    #[derive(Clone, Copy, Debug)]
    pub struct Tlv<'a> {
        pub tag: u8,
        pub content: &'a [u8],
        /// The whole encoding, header included.
        pub raw: &'a [u8],
    }

    /// Reads one element from the front of `input`, returning it and the rest.
    pub fn read(input: &[u8]) -> Result<(Tlv<'_>, &[u8]), String> {
        let truncated = || "asn1: syntax error: data truncated".to_string();
        let (&tag, rest) = input.split_first().ok_or_else(truncated)?;
        if tag & 0x1f == 0x1f {
            return Err("asn1: structure error: multi-byte tags are not supported".into());
        }
        let (&first, mut rest) = rest.split_first().ok_or_else(truncated)?;
        let len = if first < 0x80 {
            usize::from(first)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || rest.len() < n {
                return Err("asn1: syntax error: invalid length".into());
            }
            let len = rest[..n]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            rest = &rest[n..];
            len
        };
        if rest.len() < len {
            return Err(truncated());
        }
        let header = input.len() - rest.len();
        let el = Tlv {
            tag,
            content: &rest[..len],
            raw: &input[..header + len],
        };
        Ok((el, &rest[len..]))
    }

    /// Reads one element of the expected tag.
    pub fn expect(input: &[u8], tag: u8) -> Result<(Tlv<'_>, &[u8]), String> {
        let (el, rest) = read(input)?;
        if el.tag != tag {
            return Err(format!(
                "asn1: structure error: tags don't match (expected {tag:#04x}, got {:#04x})",
                el.tag
            ));
        }
        Ok((el, rest))
    }

    /// The elements of a constructed value's content.
    pub fn children(content: &[u8]) -> Result<Vec<Tlv<'_>>, String> {
        let mut out = Vec::new();
        let mut rest = content;
        while !rest.is_empty() {
            let (el, r) = read(rest)?;
            out.push(el);
            rest = r;
        }
        Ok(out)
    }

    /// An INTEGER's magnitude (leading zero stripped); negatives are refused.
    pub fn uint_bytes(el: &Tlv<'_>) -> Result<Vec<u8>, String> {
        if el.tag != INTEGER || el.content.is_empty() {
            return Err("asn1: structure error: integer expected".into());
        }
        if el.content[0] & 0x80 != 0 {
            return Err("asn1: structure error: negative integer".into());
        }
        let skip = el.content.iter().take_while(|b| **b == 0).count();
        Ok(el.content[skip..].to_vec())
    }
}

// ---- PEM ----------------------------------------------------------------------------

/// Go `pem.EncodeToMemory` for a block without headers: 64-column base64 lines.
pub(crate) fn pem_encode(kind: &str, der: &[u8]) -> String {
    let b64 = base64_encode(der);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or(""));
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

/// The first PEM block in `text` (Go `pem.Decode`, minus header support): its type
/// and decoded bytes, or `None` when there is no well-formed block.
pub(crate) fn pem_decode(text: &str) -> Option<(String, Vec<u8>)> {
    let mut search = text;
    loop {
        let start = search.find("-----BEGIN ")?;
        let after = &search[start + 11..];
        let type_end = after.find("-----")?;
        let kind = &after[..type_end];
        let body_start = &after[type_end + 5..];
        let end_marker = format!("-----END {kind}-----");
        if kind.contains('\n') || !body_start.starts_with(['\n', '\r']) {
            search = after;
            continue;
        }
        let Some(end) = body_start.find(&end_marker) else {
            search = after;
            continue;
        };
        let body: String = body_start[..end]
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        if body.contains(':') {
            // Headers are not supported; Go would parse them, we refuse the block.
            return None;
        }
        match base64_decode(body.as_bytes()) {
            Ok(bytes) => return Some((kind.to_string(), bytes)),
            Err(_) => {
                search = after;
                continue;
            }
        }
    }
}

// ---- keys ---------------------------------------------------------------------------

pub(crate) const OID_RSA: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
pub(crate) const OID_EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
pub(crate) const OID_P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
pub(crate) const OID_ED25519: &[u64] = &[1, 3, 101, 112];

/// DSA key material as big-endian magnitudes.
#[derive(Clone, Debug)]
pub(crate) struct DsaKey {
    pub p: Vec<u8>,
    pub q: Vec<u8>,
    pub g: Vec<u8>,
    pub y: Vec<u8>,
    pub x: Vec<u8>,
}

/// A private key of one of the types Sprig can generate or parse.
#[derive(Clone)]
pub(crate) enum PrivKey {
    Rsa(Box<rsa::PrivateKey>),
    Ecdsa(p256::SecretKey),
    Ed25519(ed25519_dalek::SigningKey),
    Dsa(DsaKey),
}

impl std::fmt::Debug for PrivKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PrivKey::Rsa(_) => "PrivKey::Rsa",
            PrivKey::Ecdsa(_) => "PrivKey::Ecdsa",
            PrivKey::Ed25519(_) => "PrivKey::Ed25519",
            PrivKey::Dsa(_) => "PrivKey::Dsa",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum KeyKind {
    Rsa(usize),
    Dsa,
    Ecdsa,
    Ed25519,
}

/// Generated keys by (seed, kind). Key generation is a pure function of the seed,
/// so the table only saves time (RSA and DSA generation take seconds in debug
/// builds), and matrix runs render the same seeds over and over.
static KEYS: Memo<([u8; 32], KeyKind), PrivKey> = Memo::new(512);

/// The prime of `bits` bits (top two set) that `crypto_primes::sieve_and_find`
/// with `is_prime` finds from `seed`. Candidates with a factor the crate's sieve
/// does not try, up to [`super::primes::sieve::BOUND`], are dropped before the
/// primality test: they fail it anyway, so the prime found is the same.
pub(crate) fn rsa_prime(seed: [u8; 32], bits: u32) -> Result<rsa::BoxedUint, String> {
    use crypto_primes::hazmat::{SetBits, SmallFactorsSieveFactory};
    use crypto_primes::{sieve_and_find, Flavor};

    let mut rng = ChaCha20Rng::from_seed(seed);
    let factory = SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb)
        .map_err(|e| e.to_string())?;
    // `sieve_and_find` takes a `Fn`; the search is sequential.
    let deep = std::cell::RefCell::new(super::primes::sieve::DeepSieve::new());
    sieve_and_find(&mut rng, factory, |_, c: &rsa::BoxedUint| {
        !deep.borrow_mut().rejects(&limbs_u64(c)) && is_probable_prime(c)
    })
    .map_err(|e| e.to_string())?
    .ok_or_else(|| "crypto/rsa: no prime found".to_string())
}

/// The little-endian 64-bit limbs of `c`, as the deep sieve reads them.
/// crypto-bigint's own limbs are `u64` only on 64-bit targets.
#[cfg(target_pointer_width = "64")]
fn limbs_u64(c: &rsa::BoxedUint) -> std::borrow::Cow<'_, [u64]> {
    std::borrow::Cow::Borrowed(c.as_words())
}

#[cfg(not(target_pointer_width = "64"))]
fn limbs_u64(c: &rsa::BoxedUint) -> std::borrow::Cow<'_, [u64]> {
    let be = c.to_be_bytes();
    std::borrow::Cow::Owned(
        be.rchunks(8)
            .map(|ch| {
                let mut b = [0u8; 8];
                b[8 - ch.len()..].copy_from_slice(ch);
                u64::from_be_bytes(b)
            })
            .collect(),
    )
}

/// `crypto_primes::is_prime(Flavor::Any, c)`, decided faster. The full test is a
/// base-2 round and then the Lucas test. Their fixed-width versions decide every
/// candidate as the crate does, so the prime found, and every key drawn from a
/// seed, stays the same; other widths, and the rare base the fast Lucas test
/// leaves to the crate, go to the crate.
fn is_probable_prime(c: &rsa::BoxedUint) -> bool {
    use crypto_primes::hazmat::{lucas_test, AStarBase, LucasCheck};
    use crypto_primes::{is_prime, Flavor};

    let be = c.to_be_bytes();
    match super::primes::base2_round(&be) {
        Some(false) => false,
        Some(true) => super::primes::lucas_bpsw21(&be).unwrap_or_else(|| {
            Option::<crypto_bigint::Odd<rsa::BoxedUint>>::from(crypto_bigint::Odd::new(c.clone()))
                .is_some_and(|odd| !lucas_test(odd, AStarBase, LucasCheck::Bpsw21).is_composite())
        }),
        None => is_prime(Flavor::Any, c),
    }
}

/// An RSA key shaped like Go's `rsa.GenerateKey` makes them: e = 65537 and two primes
/// of half the size with their top two bits set, so the modulus has exactly `bits`
/// bits. The two primes are searched for at the same time, each from its own stream
/// drawn from `rng`: a key costs the slower search rather than the sum of both, which
/// is most of a chart's render time when it calls `genCA` (the search itself is what
/// it is in Go too). The second search runs on a thread of its own rather than as a
/// pool task: waiting for a pool task lets this thread take other work (a whole
/// chart of the same stack) and finish its own chart only after that.
fn generate_rsa(rng: &mut ChaCha20Rng, bits: usize) -> Result<rsa::PrivateKey, String> {
    use rand_core::Rng;
    use rsa::BoxedUint;

    let half = u32::try_from(bits / 2)
        .ok()
        .filter(|b| *b >= 16 && bits % 2 == 0)
        .ok_or_else(|| format!("crypto/rsa: unsupported key size {bits}"))?;
    let prime = |seed: [u8; 32]| rsa_prime(seed, half);
    loop {
        let (mut sp, mut sq) = ([0u8; 32], [0u8; 32]);
        rng.fill_bytes(&mut sp);
        rng.fill_bytes(&mut sq);
        let (p, q) = std::thread::scope(|scope| {
            let other = std::thread::Builder::new()
                .spawn_scoped(scope, || prime(sq))
                .ok();
            let p = prime(sp);
            // Without a thread (the system refused one), the searches run in turn.
            let q = match other.map(|h| h.join()) {
                Some(Ok(q)) => q,
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => prime(sq),
            };
            (p, q)
        });
        let (p, q) = (p?, q?);
        if p == q {
            continue;
        }
        // Fails only when 65537 divides p-1 or q-1; Go draws new primes then too.
        if let Ok(key) = rsa::PrivateKey::from_p_q(p, q, BoxedUint::from(65537u64)) {
            return Ok(key);
        }
    }
}

/// A new key drawn from the host's seeded stream.
pub(crate) fn generate_key(host: &Host, kind: KeyKind) -> Result<PrivKey, String> {
    let seed = host.derive_seed();
    if let Some(k) = KEYS.get(&(seed, kind)) {
        return Ok(k);
    }
    let mut rng = ChaCha20Rng::from_seed(seed);
    let key = match kind {
        KeyKind::Rsa(bits) => PrivKey::Rsa(Box::new(generate_rsa(&mut rng, bits)?)),
        KeyKind::Ecdsa => {
            use rand_core::Rng;
            loop {
                let mut b = [0u8; 32];
                rng.fill_bytes(&mut b);
                if let Ok(k) = p256::SecretKey::from_slice(&b) {
                    break PrivKey::Ecdsa(k);
                }
            }
        }
        KeyKind::Ed25519 => {
            use rand_core::Rng;
            let mut b = [0u8; 32];
            rng.fill_bytes(&mut b);
            PrivKey::Ed25519(ed25519_dalek::SigningKey::from_bytes(&b))
        }
        KeyKind::Dsa => {
            let comps = dsa::Components::try_generate_from_rng_with_key_size(
                &mut rng,
                dsa::KeySize::DSA_2048_256,
            )
            .map_err(|e| format!("{e:?}"))?;
            let sk = dsa::SigningKey::try_generate_from_rng_with_components(&mut rng, comps)
                .map_err(|e| format!("{e:?}"))?;
            let vk = sk.verifying_key();
            let c = vk.components();
            PrivKey::Dsa(DsaKey {
                p: c.p().to_be_bytes().to_vec(),
                q: c.q().to_be_bytes().to_vec(),
                g: c.g().to_be_bytes().to_vec(),
                y: vk.y().to_be_bytes().to_vec(),
                x: sk.x().to_be_bytes().to_vec(),
            })
        }
    };
    KEYS.insert((seed, kind), key.clone());
    Ok(key)
}

fn ec_public_point(k: &p256::SecretKey) -> Vec<u8> {
    use p256::elliptic_curve::sec1::ToSec1Point;
    k.public_key().to_sec1_point(false).as_bytes().to_vec()
}

/// The PEM block Sprig's `pemBlockForKey` writes for a key: PKCS#1 for RSA, SEC 1 for
/// ECDSA, Sprig's own `DSAKeyFormat` sequence for DSA, PKCS#8 for Ed25519.
pub(crate) fn pem_for_key(key: &PrivKey) -> Result<String, String> {
    Ok(match key {
        PrivKey::Rsa(k) => {
            use rsa::pkcs1::EncodeRsaPrivateKey;
            let der = k.to_pkcs1_der().map_err(|e| e.to_string())?;
            pem_encode("RSA PRIVATE KEY", der.as_bytes())
        }
        PrivKey::Ecdsa(k) => {
            let der = der::seq(&[
                der::small_int(1),
                der::octet_string(&k.to_bytes()),
                der::tlv(0xa0, &der::oid(OID_P256)),
                der::tlv(0xa1, &der::bit_string(&ec_public_point(k))),
            ]);
            pem_encode("EC PRIVATE KEY", &der)
        }
        PrivKey::Ed25519(k) => {
            let der = der::seq(&[
                der::small_int(0),
                der::seq(&[der::oid(OID_ED25519)]),
                der::octet_string(&der::octet_string(k.as_bytes())),
            ]);
            pem_encode("PRIVATE KEY", &der)
        }
        PrivKey::Dsa(k) => {
            let der = der::seq(&[
                der::small_int(0),
                der::uint(&k.p),
                der::uint(&k.q),
                der::uint(&k.g),
                der::uint(&k.y),
                der::uint(&k.x),
            ]);
            pem_encode("DSA PRIVATE KEY", &der)
        }
    })
}

/// The DER `SubjectPublicKeyInfo` of a key's public half, and the bytes of its
/// `subjectPublicKey` BIT STRING (what Go hashes into a subject key identifier).
pub(crate) fn public_key_info(key: &PrivKey) -> Result<(Vec<u8>, Vec<u8>), String> {
    let (alg, bits) = match key {
        PrivKey::Rsa(k) => {
            use rsa::pkcs1::EncodeRsaPublicKey;
            let der = k
                .to_public_key()
                .to_pkcs1_der()
                .map_err(|e| e.to_string())?;
            (
                der::seq(&[der::oid(OID_RSA), der::null()]),
                der.as_bytes().to_vec(),
            )
        }
        PrivKey::Ecdsa(k) => (
            der::seq(&[der::oid(OID_EC_PUBLIC_KEY), der::oid(OID_P256)]),
            ec_public_point(k),
        ),
        PrivKey::Ed25519(k) => (
            der::seq(&[der::oid(OID_ED25519)]),
            k.verifying_key().to_bytes().to_vec(),
        ),
        PrivKey::Dsa(_) => {
            return Err("x509: unsupported public key type: *dsa.PublicKey".to_string());
        }
    };
    Ok((der::seq(&[alg, der::bit_string(&bits)]), bits))
}

/// Go `parsePrivateKeyPEM` from Sprig: the first PEM block, by type.
pub(crate) fn parse_private_key_pem(text: &str) -> Result<PrivKey, String> {
    let Some((kind, bytes)) = pem_decode(text) else {
        return Err("no PEM data in input".to_string());
    };
    if kind == "PRIVATE KEY" {
        return parse_pkcs8(&bytes).map_err(|e| format!("decoding PEM as PKCS#8: {e}"));
    }
    let Some(prefix) = kind.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {kind}"));
    };
    match prefix {
        "RSA" => parse_pkcs1(&bytes).map_err(|e| format!("parsing RSA private key from PEM: {e}")),
        "EC" => {
            parse_sec1(&bytes, None).map_err(|e| format!("parsing EC private key from PEM: {e}"))
        }
        "DSA" => parse_dsa(&bytes).map_err(|e| format!("parsing DSA private key from PEM: {e}")),
        _ => Err(format!("invalid private key type {kind}")),
    }
}

/// Go's asn1 complaint when a SEQUENCE has fewer elements than the structure needs.
const SEQUENCE_TRUNCATED: &str = "asn1: syntax error: sequence truncated";

/// The elements of the outer SEQUENCE of `bytes`, at least `min` of them.
fn sequence_of(bytes: &[u8], min: usize) -> Result<Vec<der::Tlv<'_>>, String> {
    let (outer, _) = der::expect(bytes, der::SEQUENCE)?;
    let parts = der::children(outer.content)?;
    if parts.len() < min {
        return Err(SEQUENCE_TRUNCATED.to_string());
    }
    Ok(parts)
}

fn parse_pkcs1(bytes: &[u8]) -> Result<PrivKey, String> {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    if parse_pkcs8(bytes).is_err() && parse_sec1(bytes, None).is_err() {
        // version, n, e, d, p, q, dp, dq, qinv
        sequence_of(bytes, 9)?;
    }
    match rsa::PrivateKey::from_pkcs1_der(bytes) {
        Ok(k) => Ok(PrivKey::Rsa(Box::new(k))),
        Err(_) if parse_pkcs8(bytes).is_ok() => Err(
            "x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)"
                .to_string(),
        ),
        Err(_) if parse_sec1(bytes, None).is_ok() => Err(
            "x509: failed to parse private key (use ParseECPrivateKey instead for this key format)"
                .to_string(),
        ),
        Err(e) => Err(format!("asn1: structure error: {e}")),
    }
}

fn parse_sec1(bytes: &[u8], curve_from_pkcs8: Option<&[u8]>) -> Result<PrivKey, String> {
    let parts =
        sequence_of(bytes, 2).map_err(|e| format!("x509: failed to parse EC private key: {e}"))?;
    let version = &parts[0];
    if version.content != [1] {
        return Err(format!(
            "x509: unknown EC private key version {}",
            version.content.first().copied().unwrap_or(0)
        ));
    }
    let priv_bytes = parts
        .get(1)
        .filter(|p| p.tag == der::OCTET_STRING)
        .ok_or("x509: failed to parse EC private key")?;
    let named_curve = parts
        .iter()
        .find(|p| p.tag == 0xa0)
        .map(|p| p.content)
        .or(curve_from_pkcs8);
    let p256_oid = der::oid(OID_P256);
    match named_curve {
        Some(c) if c == p256_oid.as_slice() => {}
        _ => return Err("x509: unknown elliptic curve".to_string()),
    }
    let k = p256::SecretKey::from_slice(priv_bytes.content)
        .map_err(|_| "x509: invalid elliptic curve private key value".to_string())?;
    Ok(PrivKey::Ecdsa(k))
}

fn parse_dsa(bytes: &[u8]) -> Result<PrivKey, String> {
    let parts = sequence_of(bytes, 6)?;
    let n = |i: usize| der::uint_bytes(&parts[i]);
    Ok(PrivKey::Dsa(DsaKey {
        p: n(1)?,
        q: n(2)?,
        g: n(3)?,
        y: n(4)?,
        x: n(5)?,
    }))
}

fn parse_pkcs8(bytes: &[u8]) -> Result<PrivKey, String> {
    let parts = sequence_of(bytes, 3)?;
    let (alg, key) = (&parts[1], &parts[2]);
    let alg_parts = der::children(alg.content)?;
    let alg_oid = alg_parts.first().map(|o| o.raw).unwrap_or(&[]);
    if alg_oid == der::oid(OID_RSA).as_slice() {
        use rsa::pkcs1::DecodeRsaPrivateKey;
        let k = rsa::PrivateKey::from_pkcs1_der(key.content).map_err(|e| {
            format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}")
        })?;
        Ok(PrivKey::Rsa(Box::new(k)))
    } else if alg_oid == der::oid(OID_EC_PUBLIC_KEY).as_slice() {
        let curve = alg_parts.get(1).map(|c| c.raw);
        parse_sec1(key.content, curve)
            .map_err(|e| format!("x509: failed to parse EC private key embedded in PKCS#8: {e}"))
    } else if alg_oid == der::oid(OID_ED25519).as_slice() {
        let (inner, _) = der::expect(key.content, der::OCTET_STRING)
            .map_err(|e| format!("x509: invalid Ed25519 private key: {e}"))?;
        let seed: [u8; 32] = inner.content.try_into().map_err(|_| {
            format!(
                "x509: invalid Ed25519 private key length: {}",
                inner.content.len()
            )
        })?;
        Ok(PrivKey::Ed25519(ed25519_dalek::SigningKey::from_bytes(
            &seed,
        )))
    } else {
        Err("x509: PKCS#8 wrapping contained private key with unknown algorithm".to_string())
    }
}

fn gen_private_key(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let typ = str_arg(args, 0);
    let kind = match typ {
        "" | "rsa" => KeyKind::Rsa(4096),
        "dsa" => KeyKind::Dsa,
        "ecdsa" => KeyKind::Ecdsa,
        "ed25519" => KeyKind::Ed25519,
        _ => return Ok(Value::from(format!("Unknown type {typ}"))),
    };
    let key = match generate_key(ctx.host, kind) {
        Ok(k) => k,
        Err(e) => return Ok(Value::from(format!("failed to generate private key: {e}"))),
    };
    // Go's encoder cannot fail for these keys; an error here is ours, not Sprig's.
    pem_for_key(&key).map(Value::from).map_err(FuncError::call)
}

fn build_custom_cert(args: &[Value]) -> FuncResult {
    let cert = base64_decode(str_arg(args, 0).as_bytes())
        .map_err(|_| FuncError::call("unable to decode base64 certificate"))?;
    let key = base64_decode(str_arg(args, 1).as_bytes())
        .map_err(|_| FuncError::call("unable to decode base64 private key"))?;
    let cert_text = String::from_utf8_lossy(&cert).into_owned();
    let key_text = String::from_utf8_lossy(&key).into_owned();
    let Some((_, der_bytes)) = pem_decode(&cert_text) else {
        return Err(FuncError::call("unable to decode certificate"));
    };
    super::certs::parse_certificate(&der_bytes).map_err(|e| {
        FuncError::call(format!("error parsing certificate: decodedCert.Bytes: {e}"))
    })?;
    parse_private_key_pem(&key_text)
        .map_err(|e| FuncError::call(format!("error parsing private key: {e}")))?;
    Ok(Value::Object(Arc::new(Certificate {
        cert: cert_text,
        key: key_text,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: FuncResult) -> String {
        match v {
            Ok(Value::String(s)) => s.to_string(),
            other => panic!("unexpected {other:?}"),
        }
    }

    fn strs(xs: &[&str]) -> Vec<Value> {
        xs.iter().map(|x| Value::from(*x)).collect()
    }

    fn with_ctx<R>(host: &Host, f: impl FnOnce(&mut CallCtx<'_>) -> R) -> R {
        let mut engine = crate::template::registry::NullEngine::default();
        let mut ctx = CallCtx {
            engine: &mut engine,
            host,
        };
        f(&mut ctx)
    }

    // Expected values below were produced by helm v3.15.3 on a scratch chart.
    #[test]
    fn digests_match_go() {
        assert_eq!(
            s(sha1sum(&strs(&["hello"]))),
            "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"
        );
        assert_eq!(
            s(sha256sum(&strs(&[""]))),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            s(sha256sum(&strs(&["hi"]))),
            "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"
        );
        assert_eq!(
            s(sha1sum(&strs(&["héllo"]))),
            "35b5ea45c5e41f78b46a937cc74d41dfea920890"
        );
        assert_eq!(
            s(sha256sum(&strs(&["héllo"]))),
            "3c48591d8d098a4538f5e013dfcf406e948eac4d3277b10bf614e295d6068179"
        );
        // helm v4.3.1 (Sprig 3.3.0).
        assert_eq!(
            s(sha512sum(&strs(&["hi"]))),
            "150a14ed5bea6cc731cf86c41566ac427a8db48ef1b9fd626664b3bfbb99071fa4c922f33dde38719b8c8354e2b7ab9d77e0e67fc12843920a712e73d558e197"
        );
        assert_eq!(s(adler32sum(&strs(&["hi"]))), "20644050");
        assert_eq!(s(adler32sum(&strs(&["hello world"]))), "436929629");
        assert_eq!(s(adler32sum(&strs(&[""]))), "1");
        let long = "x".repeat(100_000);
        assert_eq!(adler32(long.as_bytes()), {
            // Straightforward reference with reduction at every step.
            let (mut a, mut b) = (1u64, 0u64);
            for &c in long.as_bytes() {
                a = (a + u64::from(c)) % 65521;
                b = (b + a) % 65521;
            }
            ((b << 16) | a) as u32
        });
    }

    #[test]
    fn derive_password_matches_go() {
        let cases: &[(u32, &str, &str, &str, &str, &str)] = &[
            (
                1,
                "maximum",
                "pw",
                "user",
                "example.com",
                "FbB@VT3s89GGAonAWc7~",
            ),
            (1, "long", "pw", "user", "example.com", "DinaHinfJads4_"),
            (1, "medium", "pw", "user", "example.com", "DinMer9)"),
            (1, "short", "pw", "user", "example.com", "Din5"),
            (1, "basic", "pw", "user", "example.com", "FlB56sqs"),
            (1, "pin", "pw", "user", "example.com", "5705"),
            (0, "long", "", "", "", "Rozi8;WilbQoyu"),
            (
                4294967295,
                "long",
                "pässwörd",
                "üser",
                "site",
                "Tuhl5%DaboYogm",
            ),
            (
                1,
                "long",
                "password",
                "user",
                "example.com",
                "ZedaFaxcZaso9*",
            ),
            (
                1,
                "nope",
                "pw",
                "user",
                "example.com",
                "cannot find password template nope",
            ),
        ];
        for (counter, kind, pw, user, site, want) in cases {
            let mut args = vec![Value::Uint(
                u64::from(*counter),
                crate::template::UintType::Uint32,
            )];
            args.extend(strs(&[kind, pw, user, site]));
            assert_eq!(&s(derive_password(&args)), want, "{kind} {pw}");
        }
    }

    #[test]
    fn bcrypt_shape_and_determinism() {
        let a = with_ctx(&Host::new(1), |c| s(bcrypt(c, &strs(&["pw"]))));
        let b = with_ctx(&Host::new(1), |c| s(bcrypt(c, &strs(&["pw"]))));
        let c = with_ctx(&Host::new(2), |c| s(bcrypt(c, &strs(&["pw"]))));
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Helm: `$2a$10$r7LpeMNTp2hyM0lfsX1Ozun4vT3fseCDPbxUUFsYW9YjhpOZCau1K`.
        assert_eq!(a.len(), 60);
        assert!(a.starts_with("$2a$10$"), "{a}");
        assert!(bcrypt::verify("pw", &a).unwrap_or(false));
        let long = "0".repeat(73);
        assert_eq!(
            with_ctx(&Host::new(1), |c| s(bcrypt(c, &strs(&[&long])))),
            "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
        );
        let h = with_ctx(&Host::new(1), |c| s(htpasswd(c, &strs(&["user", "pw"]))));
        assert_eq!(h.len(), 65);
        assert!(h.starts_with("user:$2a$10$"));
        assert_eq!(
            with_ctx(&Host::new(1), |c| s(htpasswd(c, &strs(&["a:b", "x"])))),
            "invalid username: a:b"
        );
    }

    fn decrypt(key: &str, data: &str) -> Result<String, String> {
        match decrypt_aes(&strs(&[key, data])) {
            Ok(Value::String(s)) => Ok(s.to_string()),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e.message().to_string()),
        }
    }

    #[test]
    fn aes_decrypts_helm_output_and_keeps_go_errors() {
        // Ciphertexts produced by helm's encryptAES.
        assert_eq!(
            decrypt(
                "secretkey",
                "yezAVuNosQpfPr8cjiS3XmZ7rP6MKa+ow/6ukBPwIl+soci4tuO+2l6rSaPypyzpMfnuorOhS80itXslcv2bPQ=="
            ),
            Ok("plaintext here, longer than a block".to_string())
        );
        assert_eq!(
            decrypt("", "Ws4/UCja0a77hH56td04ndmLfZ+SSx5q7umBsNIARuM="),
            Ok("x".to_string())
        );
        assert_eq!(decrypt("k", ""), Ok(String::new()));
        let errs = [
            ("k", "!!", "illegal base64 data at input byte 0"),
            (
                "k",
                "YWJj",
                "runtime error: slice bounds out of range [:16] with capacity 3",
            ),
            (
                "k",
                "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3",
                "crypto/cipher: input not full blocks",
            ),
            (
                "k",
                "MDEyMzQ1Njc4OWFiY2RlZg==",
                "runtime error: index out of range [-1]",
            ),
            (
                "secretkey",
                "xX5VEl2g7MzAf2xXqbh5LAkkeqfo9mZHMcNYlXmqhIg=",
                "runtime error: slice bounds out of range [:-89]",
            ),
            (
                "k",
                "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                "runtime error: slice bounds out of range [:-233]",
            ),
            (
                "0123456789abcdef0123456789abcdefXYZ",
                "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
                "runtime error: slice bounds out of range [:-106]",
            ),
        ];
        for (k, d, want) in errs {
            assert_eq!(decrypt(k, d), Err(want.to_string()), "{d}");
        }
    }

    #[test]
    fn aes_round_trip_is_seeded() {
        let enc = |seed| {
            with_ctx(&Host::new(seed), |c| {
                s(encrypt_aes(c, &strs(&["secretkey", "round trip"])))
            })
        };
        assert_eq!(enc(3), enc(3));
        assert_ne!(enc(3), enc(4));
        assert_eq!(enc(3).len(), 44);
        assert_eq!(decrypt("secretkey", &enc(3)), Ok("round trip".to_string()));
        assert_eq!(
            with_ctx(&Host::new(1), |c| s(encrypt_aes(c, &strs(&["k", ""])))),
            ""
        );
    }

    #[test]
    fn small_keys_are_valid_and_seeded() {
        for typ in ["ecdsa", "ed25519"] {
            let a = with_ctx(&Host::new(9), |c| s(gen_private_key(c, &strs(&[typ]))));
            let b = with_ctx(&Host::new(9), |c| s(gen_private_key(c, &strs(&[typ]))));
            let c = with_ctx(&Host::new(10), |c| s(gen_private_key(c, &strs(&[typ]))));
            assert_eq!(a, b);
            assert_ne!(a, c);
            let parsed = parse_private_key_pem(&a).unwrap_or_else(|e| panic!("{typ}: {e}"));
            // Re-encoding a parsed key gives the same PEM (Go re-encodes keys too).
            assert_eq!(pem_for_key(&parsed).ok(), Some(a.clone()));
        }
        let ec = with_ctx(&Host::new(9), |c| s(gen_private_key(c, &strs(&["ecdsa"]))));
        assert!(ec.starts_with("-----BEGIN EC PRIVATE KEY-----\n"));
        // SEC 1 DER for P-256 with parameters and public key is 121 bytes.
        assert_eq!(pem_decode(&ec).map(|(_, d)| d.len()), Some(121));
        let ed = with_ctx(&Host::new(9), |c| {
            s(gen_private_key(c, &strs(&["ed25519"])))
        });
        assert!(ed.starts_with("-----BEGIN PRIVATE KEY-----\n"));
        assert_eq!(pem_decode(&ed).map(|(_, d)| d.len()), Some(48));
        assert_eq!(
            with_ctx(&Host::new(9), |c| s(gen_private_key(c, &strs(&["x"])))),
            "Unknown type x"
        );
    }

    #[test]
    fn large_keys_are_valid_and_sized() {
        use dsa::signature::{Signer, Verifier};
        let host = Host::new(21);
        let pem = with_ctx(&host, |c| s(gen_private_key(c, &strs(&["dsa"]))));
        assert!(pem.starts_with("-----BEGIN DSA PRIVATE KEY-----\n"));
        let Ok(PrivKey::Dsa(k)) = parse_private_key_pem(&pem) else {
            panic!("DSA key does not parse back");
        };
        // L2048N256, as Sprig asks of Go's dsa.GenerateParameters.
        assert_eq!((k.p.len(), k.q.len()), (256, 32));
        let n = |b: &[u8], bits| rsa::BoxedUint::from_be_slice(b, bits).unwrap();
        let comps =
            dsa::Components::from_components(n(&k.p, 2048), n(&k.q, 256), n(&k.g, 2048)).unwrap();
        let vk = dsa::VerifyingKey::from_components(comps, n(&k.y, 2048)).unwrap();
        let sk = dsa::SigningKey::from_components(vk.clone(), n(&k.x, 256)).unwrap();
        // A signature made with x verifies under y only if y = g^x mod p.
        let sig: dsa::Signature = sk.sign(b"message");
        assert!(vk.verify(b"message", &sig).is_ok());
        assert_eq!(pem_for_key(&PrivKey::Dsa(k)).ok(), Some(pem));

        let rsa_pem = with_ctx(&host, |c| s(gen_private_key(c, &strs(&[""]))));
        let Ok(PrivKey::Rsa(r)) = parse_private_key_pem(&rsa_pem) else {
            panic!("RSA key does not parse back");
        };
        use rsa::traits::PublicKeyParts;
        // Sprig's genPrivateKey uses RSA 4096.
        assert_eq!(r.size(), 512);
        assert!(r.validate().is_ok());
    }

    #[test]
    fn parse_errors_follow_sprig() {
        assert_eq!(
            parse_private_key_pem("nothing").err().as_deref(),
            Some("no PEM data in input")
        );
        let cert = pem_encode("CERTIFICATE", &[0x30, 0]);
        assert_eq!(
            parse_private_key_pem(&cert).err().as_deref(),
            Some("no private key data in PEM block of type CERTIFICATE")
        );
        // Texts helm v3.15.3 gives for an empty SEQUENCE in each block type.
        let empty = |kind: &str| parse_private_key_pem(&pem_encode(kind, &[0x30, 0])).err();
        assert_eq!(
            empty("RSA PRIVATE KEY").as_deref(),
            Some("parsing RSA private key from PEM: asn1: syntax error: sequence truncated")
        );
        assert_eq!(
            empty("PRIVATE KEY").as_deref(),
            Some("decoding PEM as PKCS#8: asn1: syntax error: sequence truncated")
        );
        assert_eq!(
            empty("EC PRIVATE KEY").as_deref(),
            Some("parsing EC private key from PEM: x509: failed to parse EC private key: asn1: syntax error: sequence truncated")
        );
        let odd = pem_encode("FOO PRIVATE KEY", &[0x30, 0]);
        assert_eq!(
            parse_private_key_pem(&odd).err().as_deref(),
            Some("invalid private key type FOO PRIVATE KEY")
        );
    }

    #[test]
    fn pem_layout_is_go_layout() {
        let data: Vec<u8> = (0..100).collect();
        let p = pem_encode("X", &data);
        let lines: Vec<&str> = p.lines().collect();
        assert_eq!(lines[0], "-----BEGIN X-----");
        assert_eq!(lines[1].len(), 64);
        assert_eq!(lines.last().copied(), Some("-----END X-----"));
        assert!(p.ends_with('\n'));
        assert_eq!(pem_decode(&p), Some(("X".to_string(), data)));
    }

    /// The crate's own search, `is_prime` on every candidate its sieve gives.
    fn reference_prime(seed: [u8; 32], bits: u32) -> rsa::BoxedUint {
        use crypto_primes::hazmat::{SetBits, SmallFactorsSieveFactory};
        use crypto_primes::{is_prime, sieve_and_find, Flavor};
        let mut rng = ChaCha20Rng::from_seed(seed);
        let factory = SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb).unwrap();
        sieve_and_find(&mut rng, factory, |_, c: &rsa::BoxedUint| {
            is_prime(Flavor::Any, c)
        })
        .unwrap()
        .unwrap()
    }

    #[test]
    fn rsa_primes_are_the_crates_primes() {
        let seeds =
            (0u8..20)
                .map(|i| (i, 1024))
                .chain([(20, 512), (21, 512), (22, 2048), (23, 2048)]);
        for (i, bits) in seeds {
            let mut seed = [0u8; 32];
            seed[0] = i;
            seed[31] = 0x5a;
            assert_eq!(
                rsa_prime(seed, bits).unwrap(),
                reference_prime(seed, bits),
                "seed {i}, {bits} bits"
            );
        }
    }

    /// Times the prime search with and without the deeper sieve on the same
    /// seeds and counts the base-2 rounds each runs:
    /// `cargo test --profile quick-release --lib funcs::crypto::tests::rsa_prime_timing -- --ignored --nocapture`
    /// (`PRIME_BITS` and `PRIME_RUNS` change the width and the number of seeds).
    #[test]
    #[ignore]
    fn rsa_prime_timing() {
        use crypto_primes::hazmat::{SetBits, SmallFactorsSieveFactory};
        use crypto_primes::{sieve_and_find, Flavor};
        use std::cell::{Cell, RefCell};
        use std::time::Instant;

        let env = |name: &str, default: u32| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let bits = env("PRIME_BITS", 1024);
        let runs = env("PRIME_RUNS", 200);
        let seeds: Vec<[u8; 32]> = (0..runs)
            .map(|i| {
                let mut s = [0u8; 32];
                s[..4].copy_from_slice(&i.to_le_bytes());
                s[31] = 0xa5;
                s
            })
            .collect();
        let plain = |seed: [u8; 32], rounds: &Cell<u64>| -> rsa::BoxedUint {
            let mut rng = ChaCha20Rng::from_seed(seed);
            let factory =
                SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb).unwrap();
            sieve_and_find(&mut rng, factory, |_, c: &rsa::BoxedUint| {
                rounds.set(rounds.get() + 1);
                is_probable_prime(c)
            })
            .unwrap()
            .unwrap()
        };
        let deep = |seed: [u8; 32], rounds: &Cell<u64>| -> rsa::BoxedUint {
            let mut rng = ChaCha20Rng::from_seed(seed);
            let factory =
                SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb).unwrap();
            let sieve = RefCell::new(super::super::primes::sieve::DeepSieve::new());
            sieve_and_find(&mut rng, factory, |_, c: &rsa::BoxedUint| {
                if sieve.borrow_mut().rejects(&limbs_u64(c)) {
                    return false;
                }
                rounds.set(rounds.get() + 1);
                is_probable_prime(c)
            })
            .unwrap()
            .unwrap()
        };
        // Builds the sieve's tables outside the timings, and reports what that costs.
        let start = Instant::now();
        let _ = rsa_prime([0xffu8; 32], 128);
        println!(
            "first search (tables): {:.2} ms",
            start.elapsed().as_secs_f64() * 1e3
        );

        let (plain_rounds, deep_rounds) = (Cell::new(0), Cell::new(0));
        let mut plain_primes = Vec::new();
        for s in &seeds {
            plain_primes.push(plain(*s, &plain_rounds));
        }
        for (s, p) in seeds.iter().zip(&plain_primes) {
            assert_eq!(&deep(*s, &deep_rounds), p);
        }
        let time = |f: &dyn Fn([u8; 32]) -> rsa::BoxedUint| {
            let start = Instant::now();
            for s in &seeds {
                std::hint::black_box(f(*s));
            }
            start.elapsed().as_secs_f64() * 1e3 / f64::from(runs)
        };
        let scratch = Cell::new(0);
        let mut plain_ms = Vec::new();
        let mut deep_ms = Vec::new();
        for _ in 0..3 {
            plain_ms.push(time(&|s| plain(s, &scratch)));
            deep_ms.push(time(&|s| rsa_prime(s, bits).unwrap()));
        }
        println!(
            "{bits}-bit primes, {runs} seeds: base-2 rounds per prime {:.2} -> {:.2}; \
             ms per prime (3 passes) plain {plain_ms:.3?}, deep {deep_ms:.3?}",
            plain_rounds.get() as f64 / f64::from(runs),
            deep_rounds.get() as f64 / f64::from(runs),
        );
    }
}
