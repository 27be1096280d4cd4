//! Go's `strconv` formatting primitives that `fmt`, `encoding/json` and Sprig rely on:
//! float formatting (`FormatFloat` in every format Go supports), integer formatting,
//! and Go-syntax quoting (`Quote`, `QuoteToASCII`, `QuoteRune`, `CanBackquote`).
//!
//! Floats: shortest digits come from Rust's own shortest round-trip formatter (the
//! digit string is unique, so any correct algorithm agrees with Go's Ryu); fixed
//! precisions are computed from the exact decimal expansion of the binary value and
//! rounded half-to-even, which is what Go's `decimal.Round` and its fixed Ryu path
//! produce. Layout (exponent sign and width, `%g` switch-over points, trimming) follows
//! Go's `ftoa.go`.
//!
//! Quoting: Go escapes every rune that `unicode.IsPrint` rejects. That is decided from
//! the Unicode general category (Unicode 15.0, the version Go 1.22 uses).

use unicode_general_category::{get_general_category, GeneralCategory as G};

// ---- UTF-8 ------------------------------------------------------------------------

/// Go `utf8.DecodeRune`: the first rune of `b` and its width; an invalid or truncated
/// sequence yields U+FFFD with width 1, an empty input width 0.
pub(crate) fn decode_rune(b: &[u8]) -> (char, usize) {
    if b.is_empty() {
        return ('\u{FFFD}', 0);
    }
    if b[0] < 0x80 {
        return (b[0] as char, 1);
    }
    let head = &b[..b.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => {
            let n = e.valid_up_to();
            // The prefix up to `n` is valid UTF-8 by construction.
            std::str::from_utf8(&head[..n]).unwrap_or("")
        }
    };
    match valid.chars().next() {
        Some(c) => (c, c.len_utf8()),
        None => ('\u{FFFD}', 1),
    }
}

/// Go `strconv.IsPrint` / `unicode.IsPrint`: letters, marks, numbers, punctuation,
/// symbols and the ASCII space.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if (c as u32) < 0x80 {
        return ('!'..='~').contains(&c);
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
            | G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
    )
}

// ---- quoting ----------------------------------------------------------------------

const LOWER_HEX: &[u8; 16] = b"0123456789abcdef";

fn push_hex(out: &mut String, v: u32, digits: usize) {
    for k in (0..digits).rev() {
        out.push(LOWER_HEX[((v >> (4 * k)) & 0xF) as usize] as char);
    }
}

fn append_escaped_rune(out: &mut String, r: char, quote: u8, ascii_only: bool) {
    if r == quote as char || r == '\\' {
        out.push('\\');
        out.push(r);
        return;
    }
    if ascii_only {
        if (r as u32) < 0x80 && is_print(r) {
            out.push(r);
            return;
        }
    } else if is_print(r) {
        out.push(r);
        return;
    }
    match r {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        _ => {
            let u = r as u32;
            if u < 0x20 || u == 0x7f {
                out.push_str("\\x");
                push_hex(out, u, 2);
            } else if u < 0x10000 {
                out.push_str("\\u");
                push_hex(out, u, 4);
            } else {
                out.push_str("\\U");
                push_hex(out, u, 8);
            }
        }
    }
}

/// Go's `quoteWith`: `s` quoted with `quote`, escaping non-printable runes (all
/// non-ASCII runes too when `ascii_only`) and each invalid UTF-8 byte as `\xNN`.
pub fn quote_bytes_with(s: &[u8], quote: u8, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote as char);
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        if w == 1 && s[i] >= 0x80 {
            out.push_str("\\x");
            push_hex(&mut out, u32::from(s[i]), 2);
            i += 1;
            continue;
        }
        append_escaped_rune(&mut out, r, quote, ascii_only);
        i += w;
    }
    out.push(quote as char);
    out
}

/// Go `strconv.QuoteRune`: a single-quoted character literal.
pub fn quote_rune(r: char) -> String {
    let mut out = String::from("'");
    append_escaped_rune(&mut out, r, b'\'', false);
    out.push('\'');
    out
}

/// Go `strconv.QuoteRuneToASCII`.
pub fn quote_rune_ascii(r: char) -> String {
    let mut out = String::from("'");
    append_escaped_rune(&mut out, r, b'\'', true);
    out.push('\'');
    out
}

/// Go `strconv.CanBackquote`: whether `s` can be a raw string literal unchanged
/// (valid UTF-8, no control characters but tab, no backquote, no BOM).
pub fn can_backquote(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode_rune(&s[i..]);
        i += w.max(1);
        if w > 1 {
            if r == '\u{FEFF}' {
                return false;
            }
            continue;
        }
        if r == '\u{FFFD}' {
            return false;
        }
        if (r < ' ' && r != '\t') || r == '`' || r == '\x7f' {
            return false;
        }
    }
    true
}

// ---- integers ---------------------------------------------------------------------

const DIGITS36: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// Go `strconv.FormatUint` (`base` in 2..=36; other bases are treated as 10).
pub fn format_uint(mut u: u64, base: u32) -> String {
    let base = if (2..=36).contains(&base) {
        u64::from(base)
    } else {
        10
    };
    let mut rev = Vec::new();
    loop {
        rev.push(DIGITS36[(u % base) as usize]);
        u /= base;
        if u == 0 {
            break;
        }
    }
    rev.reverse();
    String::from_utf8_lossy(&rev).into_owned()
}

/// Go `strconv.FormatInt` (`base` in 2..=36; other bases are treated as 10).
pub fn format_int(i: i64, base: u32) -> String {
    if i < 0 {
        format!("-{}", format_uint(i.unsigned_abs(), base))
    } else {
        format_uint(i as u64, base)
    }
}

// ---- floats -----------------------------------------------------------------------

/// A decimal digit string `0.d1d2d3… × 10^dp` with no trailing zeros (Go's
/// `decimalSlice`); zero has no digits.
#[derive(Debug, Clone)]
struct Decimal {
    d: Vec<u8>,
    dp: i32,
}

impl Decimal {
    fn nd(&self) -> i32 {
        self.d.len() as i32
    }

    fn trim(&mut self) {
        while self.d.last() == Some(&b'0') {
            self.d.pop();
        }
        if self.d.is_empty() {
            self.dp = 0;
        }
    }

    /// Go `decimal.Round`: keep `nd` digits, rounding half to even (the expansion is
    /// exact, so a lone trailing 5 is a true tie).
    fn round(&mut self, nd: i32) {
        if nd < 0 || nd >= self.nd() {
            return;
        }
        let n = nd as usize;
        let up = if self.d[n] == b'5' && n + 1 == self.d.len() {
            n > 0 && (self.d[n - 1] - b'0') % 2 == 1
        } else {
            self.d[n] >= b'5'
        };
        if up {
            let mut i = n;
            loop {
                if i == 0 {
                    // Every kept digit was 9 (or none was kept).
                    self.d.clear();
                    self.d.push(b'1');
                    self.dp += 1;
                    return;
                }
                i -= 1;
                if self.d[i] < b'9' {
                    self.d[i] += 1;
                    self.d.truncate(i + 1);
                    return;
                }
            }
        } else {
            self.d.truncate(n);
            self.trim();
        }
    }
}

/// An unsigned big integer in base 10^9, little-endian limbs.
struct Big(Vec<u64>);

const LIMB: u64 = 1_000_000_000;

impl Big {
    fn from_u64(mut v: u64) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push(v % LIMB);
            v /= LIMB;
        }
        Big(limbs)
    }

    fn mul_small(&mut self, k: u64) {
        let mut carry = 0u64;
        for l in self.0.iter_mut() {
            let p = *l * k + carry;
            *l = p % LIMB;
            carry = p / LIMB;
        }
        while carry > 0 {
            self.0.push(carry % LIMB);
            carry /= LIMB;
        }
    }

    fn to_digits(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, l) in self.0.iter().rev().enumerate() {
            let s = if i == 0 {
                l.to_string()
            } else {
                format!("{l:09}")
            };
            out.extend_from_slice(s.as_bytes());
        }
        out
    }
}

/// The exact decimal expansion of `mant × 2^exp2`.
fn exact_decimal(mant: u64, exp2: i32) -> Decimal {
    if mant == 0 {
        return Decimal {
            d: Vec::new(),
            dp: 0,
        };
    }
    let mut big = Big::from_u64(mant);
    let mut dec = if exp2 >= 0 {
        let mut e = exp2;
        while e >= 29 {
            big.mul_small(1 << 29);
            e -= 29;
        }
        big.mul_small(1 << e);
        let d = big.to_digits();
        let dp = d.len() as i32;
        Decimal { d, dp }
    } else {
        // mant × 2^-k = mant × 5^k / 10^k
        let k = -exp2;
        let mut e = k;
        while e >= 13 {
            big.mul_small(1_220_703_125); // 5^13
            e -= 13;
        }
        big.mul_small(5u64.pow(e as u32));
        let d = big.to_digits();
        let dp = d.len() as i32 - k;
        Decimal { d, dp }
    };
    dec.trim();
    dec
}

/// The shortest digits that read back as `v` (non-negative, finite).
fn shortest_decimal(v: f64) -> Decimal {
    if v == 0.0 {
        return Decimal {
            d: Vec::new(),
            dp: 0,
        };
    }
    let s = format!("{v:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let d: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    let mut dec = Decimal { d, dp: exp + 1 };
    dec.trim();
    break_tie_to_even(v, dec)
}

/// When the exact value sits exactly halfway between two shortest candidates, Go
/// (Ryu) takes the even one while Rust rounds up; e.g. 2228614405248955.25 prints
/// as `…955.2` in Go. A tie needs an exact expansion only one digit longer than the
/// shortest one, which only values with few binary fraction digits (or huge
/// integers) have, so the exact expansion is computed only for those.
fn break_tie_to_even(v: f64, dec: Decimal) -> Decimal {
    let bits = v.to_bits();
    let raw_exp = ((bits >> 52) & 0x7FF) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    let mut exp = if raw_exp == 0 {
        -1074
    } else {
        mant |= 1u64 << 52;
        raw_exp - 1075
    };
    if mant == 0 {
        return dec;
    }
    let tz = mant.trailing_zeros();
    mant >>= tz;
    exp += tz as i32;
    let could_tie = if exp < 0 {
        -exp <= 26
    } else {
        v >= 9.007_199_254_740_992e15
    };
    if !could_tie {
        return dec;
    }
    let exact = exact_decimal(mant, exp);
    let n = dec.nd();
    if exact.nd() != n + 1 || exact.d.last() != Some(&b'5') {
        return dec;
    }
    let mut even = exact;
    even.round(n);
    let text = format!("0.{}e{}", String::from_utf8_lossy(&even.d), even.dp);
    if text.parse::<f64>().ok() == Some(v) {
        even
    } else {
        dec
    }
}

/// Go `strconv.AppendFloat(buf, v, fmt, prec, 64)`.
pub fn append_float(buf: &mut Vec<u8>, v: f64, fmt: u8, prec: i32) {
    let bits = v.to_bits();
    let neg = bits >> 63 != 0;
    let mut exp = ((bits >> 52) & 0x7FF) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    if exp == 0x7FF {
        let s: &[u8] = if mant != 0 {
            b"NaN"
        } else if neg {
            b"-Inf"
        } else {
            b"+Inf"
        };
        buf.extend_from_slice(s);
        return;
    }
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1u64 << 52;
    }
    exp -= 1023;

    match fmt {
        b'b' => return fmt_b(buf, neg, mant, exp),
        b'x' | b'X' => return fmt_x(buf, prec, fmt, neg, mant, exp),
        _ => {}
    }

    let shortest = prec < 0;
    let mut prec = prec;
    let digs = if shortest {
        let digs = shortest_decimal(v.abs());
        match fmt {
            b'e' | b'E' => prec = (digs.nd() - 1).max(0),
            b'f' => prec = (digs.nd() - digs.dp).max(0),
            b'g' | b'G' => prec = digs.nd(),
            _ => {}
        }
        digs
    } else {
        let mut digs = exact_decimal(mant, exp - 52);
        match fmt {
            b'e' | b'E' => digs.round(prec + 1),
            b'f' => digs.round(digs.dp + prec),
            b'g' | b'G' => {
                if prec == 0 {
                    prec = 1;
                }
                digs.round(prec);
            }
            _ => {}
        }
        digs
    };
    format_digits(buf, shortest, neg, &digs, prec, fmt);
}

fn format_digits(buf: &mut Vec<u8>, shortest: bool, neg: bool, digs: &Decimal, prec: i32, fmt: u8) {
    match fmt {
        b'e' | b'E' => fmt_e(buf, neg, digs, prec, fmt),
        b'f' => fmt_f(buf, neg, digs, prec),
        b'g' | b'G' => {
            let mut prec = prec;
            let mut eprec = prec;
            if eprec > digs.nd() && digs.nd() >= digs.dp {
                eprec = digs.nd();
            }
            // Shortest output switches to an exponent at the same point as `%e`
            // would with the default precision of 6.
            if shortest {
                eprec = 6;
            }
            let exp = digs.dp - 1;
            if exp < -4 || exp >= eprec {
                if prec > digs.nd() {
                    prec = digs.nd();
                }
                fmt_e(buf, neg, digs, prec - 1, fmt + b'e' - b'g');
                return;
            }
            if prec > digs.dp {
                prec = digs.nd();
            }
            fmt_f(buf, neg, digs, (prec - digs.dp).max(0));
        }
        _ => {
            buf.push(b'%');
            buf.push(fmt);
        }
    }
}

fn fmt_e(buf: &mut Vec<u8>, neg: bool, d: &Decimal, prec: i32, fmt: u8) {
    if neg {
        buf.push(b'-');
    }
    buf.push(d.d.first().copied().unwrap_or(b'0'));
    if prec > 0 {
        buf.push(b'.');
        let m = d.d.len().min(prec as usize + 1);
        let mut i = 1;
        if i < m {
            buf.extend_from_slice(&d.d[i..m]);
            i = m;
        }
        while i <= prec as usize {
            buf.push(b'0');
            i += 1;
        }
    }
    buf.push(fmt);
    let mut exp = if d.d.is_empty() { 0 } else { d.dp - 1 };
    if exp < 0 {
        buf.push(b'-');
        exp = -exp;
    } else {
        buf.push(b'+');
    }
    if exp < 10 {
        buf.push(b'0');
        buf.push(b'0' + exp as u8);
    } else {
        buf.extend_from_slice(exp.to_string().as_bytes());
    }
}

fn fmt_f(buf: &mut Vec<u8>, neg: bool, d: &Decimal, prec: i32) {
    if neg {
        buf.push(b'-');
    }
    if d.dp > 0 {
        let m = d.d.len().min(d.dp as usize);
        buf.extend_from_slice(&d.d[..m]);
        for _ in m..d.dp as usize {
            buf.push(b'0');
        }
    } else {
        buf.push(b'0');
    }
    if prec > 0 {
        buf.push(b'.');
        for i in 1..=prec {
            let j = d.dp + i - 1;
            let ch = if j >= 0 && (j as usize) < d.d.len() {
                d.d[j as usize]
            } else {
                b'0'
            };
            buf.push(ch);
        }
    }
}

/// `%b`: decimal mantissa, `p`, binary exponent (`4503599627370496p-52`).
fn fmt_b(buf: &mut Vec<u8>, neg: bool, mant: u64, exp: i32) {
    if neg {
        buf.push(b'-');
    }
    buf.extend_from_slice(mant.to_string().as_bytes());
    buf.push(b'p');
    let e = exp - 52;
    if e >= 0 {
        buf.push(b'+');
    }
    buf.extend_from_slice(e.to_string().as_bytes());
}

/// `%x`: hexadecimal mantissa and binary exponent (`0x1.8p+01`).
fn fmt_x(buf: &mut Vec<u8>, prec: i32, fmt: u8, neg: bool, mut mant: u64, mut exp: i32) {
    if mant == 0 {
        exp = 0;
    }
    // Put the leading 1 (if any) at bit 60.
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1u64 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8; 16] = if fmt == b'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    if neg {
        buf.push(b'-');
    }
    buf.push(b'0');
    buf.push(fmt);
    buf.push(b'0' + ((mant >> 60) & 1) as u8);
    mant <<= 4;
    if prec < 0 && mant != 0 {
        buf.push(b'.');
        while mant != 0 {
            buf.push(hex[((mant >> 60) & 15) as usize]);
            mant <<= 4;
        }
    } else if prec > 0 {
        buf.push(b'.');
        for _ in 0..prec {
            buf.push(hex[((mant >> 60) & 15) as usize]);
            mant <<= 4;
        }
    }
    buf.push(if fmt == b'X' { b'P' } else { b'p' });
    if exp < 0 {
        buf.push(b'-');
        exp = -exp;
    } else {
        buf.push(b'+');
    }
    if exp < 10 {
        buf.push(b'0');
    }
    buf.extend_from_slice(exp.to_string().as_bytes());
}
