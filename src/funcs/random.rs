//! Sprig's random family: `randAlphaNum`, `randAlpha`, `randNumeric`, `randAscii`,
//! `randBytes`, `randInt`, `uuidv4` and `shuffle`.
//!
//! Every random draw comes from the render's [`Host`] stream: a fixed seed renders
//! the same bytes every time (checks, diffs, `--seed`), a secret one (the default of
//! `template`) is as unpredictable as Sprig's `crypto/rand`; the distributions and output shapes are Sprig's (uniform over the
//! same alphabets, RFC 4122 version-4 UUIDs, standard base64 for `randBytes`), and
//! so are the failure texts Go produces for impossible arguments.

use crate::template::{CallCtx, FuncDef, FuncError, FuncResult, Host, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::ctx("randAlphaNum", &[Ty::Int], None, rand_alpha_num).nondeterministic(),
    FuncDef::ctx("randAlpha", &[Ty::Int], None, rand_alpha).nondeterministic(),
    FuncDef::ctx("randNumeric", &[Ty::Int], None, rand_numeric).nondeterministic(),
    FuncDef::ctx("randAscii", &[Ty::Int], None, rand_ascii).nondeterministic(),
    FuncDef::ctx("randBytes", &[Ty::Int], None, rand_bytes).nondeterministic(),
    FuncDef::ctx("randInt", &[Ty::Int, Ty::Int], None, rand_int).nondeterministic(),
    FuncDef::ctx("uuidv4", &[], None, uuidv4).nondeterministic(),
    FuncDef::ctx("shuffle", &[Ty::String], None, shuffle).nondeterministic(),
];

const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS: &[u8] = b"0123456789";
const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn int_arg(args: &[Value], i: usize) -> i64 {
    match args.get(i) {
        Some(Value::Int(n, _)) => *n,
        Some(Value::Uint(n, _)) => *n as i64,
        _ => 0,
    }
}

/// A uniform draw from `0..n` (`n > 0`), without modulo bias.
pub(crate) fn below(host: &Host, n: u64) -> u64 {
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let x = host.next_u64();
        if x < zone {
            return x % n;
        }
    }
}

/// `count` characters drawn uniformly from `alphabet`; a negative or zero count gives
/// `""` (Sprig discards goutils' error for negative counts).
fn random_string(host: &Host, count: i64, alphabet: &[u8]) -> Value {
    let n = usize::try_from(count).unwrap_or(0);
    let s: String = (0..n)
        .map(|_| alphabet[below(host, alphabet.len() as u64) as usize] as char)
        .collect();
    Value::from(s)
}

fn rand_alpha_num(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    Ok(random_string(ctx.host, int_arg(args, 0), ALNUM))
}

fn rand_alpha(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    Ok(random_string(ctx.host, int_arg(args, 0), LETTERS))
}

fn rand_numeric(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    Ok(random_string(ctx.host, int_arg(args, 0), DIGITS))
}

fn rand_ascii(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    // Printable ASCII, space through tilde.
    let printable: Vec<u8> = (32u8..127).collect();
    Ok(random_string(ctx.host, int_arg(args, 0), &printable))
}

fn rand_bytes(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let count = int_arg(args, 0);
    let Ok(n) = usize::try_from(count) else {
        return Err(FuncError::call(
            "runtime error: makeslice: len out of range",
        ));
    };
    if n > 1 << 30 {
        return Err(FuncError::call(
            "runtime error: makeslice: len out of range",
        ));
    }
    let mut buf = vec![0u8; n];
    ctx.host.fill_bytes(&mut buf);
    Ok(Value::from(super::encoding::base64_encode(&buf)))
}

fn rand_int(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let (min, max) = (int_arg(args, 0), int_arg(args, 1));
    let span = max.wrapping_sub(min);
    if span <= 0 {
        return Err(FuncError::call("invalid argument to Intn"));
    }
    let r = below(ctx.host, span as u64) as i64;
    Ok(Value::int(r.wrapping_add(min)))
}

fn uuidv4(ctx: &mut CallCtx<'_>, _args: &[Value]) -> FuncResult {
    let mut b = [0u8; 16];
    ctx.host.fill_bytes(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(Value::from(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )))
}

/// xstrings `Shuffle`: the string's characters (runes) in a random order.
fn shuffle(ctx: &mut CallCtx<'_>, args: &[Value]) -> FuncResult {
    let s = args.first().and_then(Value::as_str).unwrap_or("");
    // `[]rune(s)`: a byte that is not UTF-8 becomes U+FFFD.
    let mut chars: Vec<char> = crate::template::gostr::lossy(s).chars().collect();
    for i in (1..chars.len()).rev() {
        let j = below(ctx.host, i as u64 + 1) as usize;
        chars.swap(i, j);
    }
    Ok(Value::from(chars.into_iter().collect::<String>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(
        host: &Host,
        f: crate::template::registry::CtxFn,
        args: &[Value],
    ) -> Result<String, String> {
        match crate::funcs::testing::call(host, f, args) {
            Ok(Value::String(s)) => Ok(s.to_string()),
            Ok(Value::Int(i, _)) => Ok(i.to_string()),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e.message().to_string()),
        }
    }

    #[test]
    fn strings_have_sprig_shapes_and_follow_the_seed() {
        let h = Host::new(42);
        let an = call(&h, rand_alpha_num, &[Value::int(64)]).unwrap();
        assert_eq!(an.len(), 64);
        assert!(an.bytes().all(|c| c.is_ascii_alphanumeric()));
        let a = call(&h, rand_alpha, &[Value::int(64)]).unwrap();
        assert!(a.bytes().all(|c| c.is_ascii_alphabetic()));
        let n = call(&h, rand_numeric, &[Value::int(64)]).unwrap();
        assert!(n.bytes().all(|c| c.is_ascii_digit()));
        let asc = call(&h, rand_ascii, &[Value::int(64)]).unwrap();
        assert!(asc.bytes().all(|c| (32..127).contains(&c)));
        assert_eq!(
            call(&h, rand_alpha_num, &[Value::int(0)]),
            Ok(String::new())
        );
        assert_eq!(
            call(&h, rand_alpha_num, &[Value::int(-1)]),
            Ok(String::new())
        );

        let same = Host::new(42);
        assert_eq!(call(&same, rand_alpha_num, &[Value::int(64)]).unwrap(), an);
        let other = Host::new(43);
        assert_ne!(call(&other, rand_alpha_num, &[Value::int(64)]).unwrap(), an);
    }

    #[test]
    fn bytes_ints_uuids_shuffle() {
        let h = Host::new(7);
        // Helm: `randBytes 12` is 16 base64 characters.
        assert_eq!(
            call(&h, rand_bytes, &[Value::int(12)]).map(|s| s.len()),
            Ok(16)
        );
        assert_eq!(call(&h, rand_bytes, &[Value::int(0)]), Ok(String::new()));
        assert_eq!(
            call(&h, rand_bytes, &[Value::int(-1)]),
            Err("runtime error: makeslice: len out of range".to_string())
        );
        for _ in 0..200 {
            let v: i64 = call(&h, rand_int, &[Value::int(1), Value::int(10)])
                .unwrap()
                .parse()
                .unwrap();
            assert!((1..10).contains(&v));
        }
        assert_eq!(
            call(&h, rand_int, &[Value::int(5), Value::int(5)]),
            Err("invalid argument to Intn".to_string())
        );
        let u = call(&h, uuidv4, &[]).unwrap();
        let parts: Vec<&str> = u.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
        let sh = call(&h, shuffle, &[Value::from("hello wörld")]).unwrap();
        let mut x: Vec<char> = sh.chars().collect();
        let mut y: Vec<char> = "hello wörld".chars().collect();
        x.sort_unstable();
        y.sort_unstable();
        assert_eq!(x, y);
    }
}
