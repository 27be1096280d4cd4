//! Sprig arithmetic: the int64 family (`add`, `sub`, `mul`, `div`, `mod`, `max`,
//! `min`, ...), the float family (`addf`, `divf`, `maxf`, `floor`, `round`, ...) and
//! the integer sequences (`until`, `untilStep`, `seq`).
//!
//! The integer functions convert every operand with cast.ToInt64 first (`add 1 1.9`
//! is 2) and wrap on overflow like Go. The `*f` functions that combine operands go
//! through shopspring/decimal: each float is turned into its shortest decimal
//! representation, combined exactly (division rounds half away from zero at 16
//! decimal places), and rounded back to the nearest float64 — so `addf 0.1 0.2` is
//! 0.3, not 0.30000000000000004. `maxf`/`minf`/`floor`/`ceil`/`round` use Go's
//! `math` rules directly.

use num_bigint::{BigInt, Sign};

use super::conversion::{arg, arg_int, to_float64, to_int64};
use super::strings::runtime;
use crate::template::{FuncDef, FuncError, FuncResult, List, ListType, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("add1", &[Ty::Any], add1),
    FuncDef::variadic("add", &[], Ty::Any, add),
    FuncDef::plain("sub", &[Ty::Any, Ty::Any], sub),
    FuncDef::plain("div", &[Ty::Any, Ty::Any], div),
    FuncDef::plain("mod", &[Ty::Any, Ty::Any], modulo),
    FuncDef::variadic("mul", &[Ty::Any], Ty::Any, mul),
    FuncDef::plain("add1f", &[Ty::Any], add1f),
    FuncDef::variadic("addf", &[], Ty::Any, addf),
    FuncDef::variadic("subf", &[Ty::Any], Ty::Any, subf),
    FuncDef::variadic("divf", &[Ty::Any], Ty::Any, divf),
    FuncDef::variadic("mulf", &[Ty::Any], Ty::Any, mulf),
    FuncDef::variadic("biggest", &[Ty::Any], Ty::Any, max),
    FuncDef::variadic("max", &[Ty::Any], Ty::Any, max),
    FuncDef::variadic("min", &[Ty::Any], Ty::Any, min),
    FuncDef::variadic("maxf", &[Ty::Any], Ty::Any, maxf),
    FuncDef::variadic("minf", &[Ty::Any], Ty::Any, minf),
    FuncDef::plain("ceil", &[Ty::Any], ceil),
    FuncDef::plain("floor", &[Ty::Any], floor),
    FuncDef::variadic("round", &[Ty::Any, Ty::Int], Ty::Float64, round),
    FuncDef::variadic("seq", &[], Ty::Int, seq),
    FuncDef::plain("until", &[Ty::Int], until),
    FuncDef::plain("untilStep", &[Ty::Int, Ty::Int, Ty::Int], until_step),
];

fn i64v(v: i64) -> FuncResult {
    Ok(Value::int64(v))
}

fn add1(args: &[Value]) -> FuncResult {
    i64v(to_int64(arg(args, 0)?).wrapping_add(1))
}

fn add(args: &[Value]) -> FuncResult {
    i64v(args.iter().fold(0i64, |a, b| a.wrapping_add(to_int64(b))))
}

fn sub(args: &[Value]) -> FuncResult {
    i64v(to_int64(arg(args, 0)?).wrapping_sub(to_int64(arg(args, 1)?)))
}

fn divide_by_zero() -> FuncError {
    runtime("integer divide by zero".to_string())
}

fn div(args: &[Value]) -> FuncResult {
    let b = to_int64(arg(args, 1)?);
    if b == 0 {
        return Err(divide_by_zero());
    }
    i64v(to_int64(arg(args, 0)?).wrapping_div(b))
}

fn modulo(args: &[Value]) -> FuncResult {
    let b = to_int64(arg(args, 1)?);
    if b == 0 {
        return Err(divide_by_zero());
    }
    i64v(to_int64(arg(args, 0)?).wrapping_rem(b))
}

fn mul(args: &[Value]) -> FuncResult {
    let first = to_int64(arg(args, 0)?);
    i64v(
        args[1..]
            .iter()
            .fold(first, |a, b| a.wrapping_mul(to_int64(b))),
    )
}

fn max(args: &[Value]) -> FuncResult {
    let first = to_int64(arg(args, 0)?);
    i64v(args[1..].iter().map(to_int64).fold(first, i64::max))
}

fn min(args: &[Value]) -> FuncResult {
    let first = to_int64(arg(args, 0)?);
    i64v(args[1..].iter().map(to_int64).fold(first, i64::min))
}

/// Go's math.Max: +Inf wins over NaN, NaN wins over numbers, +0 beats -0.
fn go_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        f64::INFINITY
    } else if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && x == y {
        if x.is_sign_negative() {
            y
        } else {
            x
        }
    } else if x > y {
        x
    } else {
        y
    }
}

/// Go's math.Min: -Inf wins over NaN, NaN wins over numbers, -0 beats +0.
fn go_min(x: f64, y: f64) -> f64 {
    if x == f64::NEG_INFINITY || y == f64::NEG_INFINITY {
        f64::NEG_INFINITY
    } else if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && x == y {
        if x.is_sign_negative() {
            x
        } else {
            y
        }
    } else if x < y {
        x
    } else {
        y
    }
}

fn maxf(args: &[Value]) -> FuncResult {
    let first = to_float64(arg(args, 0)?);
    Ok(Value::Float(
        args[1..].iter().map(to_float64).fold(first, go_max),
    ))
}

fn minf(args: &[Value]) -> FuncResult {
    let first = to_float64(arg(args, 0)?);
    Ok(Value::Float(
        args[1..].iter().map(to_float64).fold(first, go_min),
    ))
}

fn ceil(args: &[Value]) -> FuncResult {
    Ok(Value::Float(to_float64(arg(args, 0)?).ceil()))
}

fn floor(args: &[Value]) -> FuncResult {
    Ok(Value::Float(to_float64(arg(args, 0)?).floor()))
}

fn round(args: &[Value]) -> FuncResult {
    let val = to_float64(arg(args, 0)?);
    let places = arg_int(args, 1)?;
    let round_on = match args.get(2) {
        Some(Value::Float(f)) => *f,
        _ => 0.5,
    };
    let pow = pow10(places);
    let digit = pow * val;
    let frac = digit.fract();
    let r = if frac >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    Ok(Value::Float(r / pow))
}

/// math.Pow(10, n) for integral n: exact up to 10^22, and Go takes the reciprocal of
/// the positive power for negative n.
fn pow10(n: i64) -> f64 {
    let n = n.clamp(-400, 400) as i32;
    if n >= 0 {
        10f64.powi(n)
    } else {
        1.0 / 10f64.powi(-n)
    }
}

// ---- shopspring/decimal ---------------------------------------------------------------

/// An exact decimal `mant * 10^exp`.
#[derive(Clone, Debug)]
struct Decimal {
    mant: BigInt,
    exp: i64,
}

/// The precision of decimal.Div (`DivisionPrecision`).
const DIVISION_PRECISION: i64 = 16;

impl Decimal {
    /// decimal.NewFromFloat: the shortest decimal that rounds back to `f`.
    fn from_f64(f: f64) -> Result<Decimal, FuncError> {
        if !f.is_finite() {
            let shown = if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "+Inf"
            } else {
                "-Inf"
            };
            return Err(FuncError::Call(format!(
                "Cannot create a Decimal from {shown}"
            )));
        }
        if f == 0.0 {
            return Ok(Decimal {
                mant: BigInt::from(0),
                exp: 0,
            });
        }
        // `{:e}` prints the shortest round-trip digits, e.g. "-1.25e-7".
        let text = format!("{f:e}");
        let (m, e) = text.split_once('e').unwrap_or((&text, "0"));
        let e: i64 = e.parse().unwrap_or(0);
        let (int_part, frac_part) = m.split_once('.').unwrap_or((m, ""));
        let digits = format!("{int_part}{frac_part}");
        let mant: BigInt = digits.parse().unwrap_or_default();
        Ok(Decimal {
            mant,
            exp: e - frac_part.len() as i64,
        })
    }

    fn scaled(&self, exp: i64) -> BigInt {
        // Only called with exp <= self.exp.
        let shift = u32::try_from(self.exp - exp).unwrap_or(u32::MAX);
        &self.mant * BigInt::from(10).pow(shift)
    }

    fn add(&self, o: &Decimal) -> Decimal {
        let exp = self.exp.min(o.exp);
        Decimal {
            mant: self.scaled(exp) + o.scaled(exp),
            exp,
        }
    }

    fn sub(&self, o: &Decimal) -> Decimal {
        let exp = self.exp.min(o.exp);
        Decimal {
            mant: self.scaled(exp) - o.scaled(exp),
            exp,
        }
    }

    fn mul(&self, o: &Decimal) -> Decimal {
        Decimal {
            mant: &self.mant * &o.mant,
            exp: self.exp + o.exp,
        }
    }

    /// decimal.Div: the quotient rounded half away from zero to 16 places.
    fn div(&self, o: &Decimal) -> Result<Decimal, FuncError> {
        if o.mant.sign() == Sign::NoSign {
            return Err(FuncError::call("decimal division by 0"));
        }
        let k = self.exp - o.exp + DIVISION_PRECISION;
        let ten = BigInt::from(10);
        let (num, den) = if k >= 0 {
            (
                &self.mant * ten.pow(u32::try_from(k).unwrap_or(u32::MAX)),
                o.mant.clone(),
            )
        } else {
            (
                self.mant.clone(),
                &o.mant * ten.pow(u32::try_from(-k).unwrap_or(u32::MAX)),
            )
        };
        let mut q = &num / &den;
        let r = &num % &den;
        let twice: BigInt = r.magnitude().clone().into();
        let twice = twice * 2;
        let den_abs: BigInt = den.magnitude().clone().into();
        if twice >= den_abs {
            if (num.sign() == Sign::Minus) != (den.sign() == Sign::Minus) {
                q -= 1;
            } else {
                q += 1;
            }
        }
        Ok(Decimal {
            mant: q,
            exp: -DIVISION_PRECISION,
        })
    }

    /// The nearest float64 (Rust's parser rounds correctly, as big.Rat does).
    fn to_f64(&self) -> f64 {
        format!("{}e{}", self.mant, self.exp).parse().unwrap_or(0.0)
    }
}

type DecOp = fn(&Decimal, &Decimal) -> Result<Decimal, FuncError>;

/// Sprig's execDecimalOp: fold the operands into the first with `op`.
fn decimal_fold(first: &Value, rest: &[Value], op: DecOp) -> FuncResult {
    let mut acc = Decimal::from_f64(to_float64(first))?;
    for x in rest {
        let d = Decimal::from_f64(to_float64(x))?;
        acc = op(&acc, &d)?;
    }
    Ok(Value::Float(acc.to_f64()))
}

fn dec_add(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    Ok(a.add(b))
}

fn dec_sub(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    Ok(a.sub(b))
}

fn dec_mul(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    Ok(a.mul(b))
}

fn dec_div(a: &Decimal, b: &Decimal) -> Result<Decimal, FuncError> {
    a.div(b)
}

fn add1f(args: &[Value]) -> FuncResult {
    decimal_fold(arg(args, 0)?, &[Value::int(1)], dec_add)
}

fn addf(args: &[Value]) -> FuncResult {
    decimal_fold(&Value::Float(0.0), args, dec_add)
}

fn subf(args: &[Value]) -> FuncResult {
    decimal_fold(arg(args, 0)?, &args[1..], dec_sub)
}

fn divf(args: &[Value]) -> FuncResult {
    decimal_fold(arg(args, 0)?, &args[1..], dec_div)
}

fn mulf(args: &[Value]) -> FuncResult {
    decimal_fold(arg(args, 0)?, &args[1..], dec_mul)
}

// ---- sequences ------------------------------------------------------------------------

/// Longest sequence `until`/`untilStep`/`seq` will build; Go would try to allocate
/// any size and run out of memory.
const MAX_SEQUENCE: usize = 10_000_000;

fn too_long() -> FuncError {
    FuncError::Call(format!(
        "sequence longer than {MAX_SEQUENCE} elements (stackproof limit)"
    ))
}

/// Sprig's untilStep, with Go's wrapping `i += step`.
fn until_step_vec(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, FuncError> {
    let mut v = Vec::new();
    if stop < start {
        if step >= 0 {
            return Ok(v);
        }
        let mut i = start;
        while i > stop {
            if v.len() >= MAX_SEQUENCE {
                return Err(too_long());
            }
            v.push(i);
            i = i.wrapping_add(step);
        }
        return Ok(v);
    }
    if step <= 0 {
        return Ok(v);
    }
    let mut i = start;
    while i < stop {
        if v.len() >= MAX_SEQUENCE {
            return Err(too_long());
        }
        v.push(i);
        i = i.wrapping_add(step);
    }
    Ok(v)
}

fn int_slice(v: Vec<i64>) -> Value {
    Value::List(
        List::new(v.into_iter().map(Value::int).collect()).with_type(ListType::Named("[]int")),
    )
}

fn until(args: &[Value]) -> FuncResult {
    let count = arg_int(args, 0)?;
    let step = if count < 0 { -1 } else { 1 };
    Ok(int_slice(until_step_vec(0, count, step)?))
}

fn until_step(args: &[Value]) -> FuncResult {
    Ok(int_slice(until_step_vec(
        arg_int(args, 0)?,
        arg_int(args, 1)?,
        arg_int(args, 2)?,
    )?))
}

fn seq(args: &[Value]) -> FuncResult {
    let p: Vec<i64> = args
        .iter()
        .map(|v| match v {
            Value::Int(i, _) => *i,
            _ => 0,
        })
        .collect();
    let v = match p.len() {
        1 => {
            let (start, end) = (1, p[0]);
            let inc = if end < start { -1 } else { 1 };
            until_step_vec(start, end.wrapping_add(inc), inc)?
        }
        2 => {
            let (start, end) = (p[0], p[1]);
            let step = if end < start { -1 } else { 1 };
            until_step_vec(start, end.wrapping_add(step), step)?
        }
        3 => {
            let (start, step, end) = (p[0], p[1], p[2]);
            let mut inc = 1;
            if end < start {
                inc = -1;
                if step > 0 {
                    return Ok(Value::str(""));
                }
            }
            until_step_vec(start, end.wrapping_add(inc), step)?
        }
        _ => Vec::new(),
    };
    let parts: Vec<String> = v.iter().map(i64::to_string).collect();
    Ok(Value::str(parts.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::funcs::conversion::go_int;

    fn show(r: FuncResult) -> String {
        match r {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    fn f(x: f64) -> Value {
        Value::Float(x)
    }

    #[test]
    fn integer_family_truncates_operands() {
        assert_eq!(show(add(&[go_int(1), f(1.9)])), "int64(2)");
        assert_eq!(show(add(&[f(1.5), f(1.5)])), "int64(2)");
        assert_eq!(show(div(&[go_int(7), go_int(2)])), "int64(3)");
        assert_eq!(show(modulo(&[go_int(7), go_int(3)])), "int64(1)");
        assert_eq!(show(mul(&[go_int(2), f(2.5)])), "int64(4)");
        assert_eq!(show(sub(&[go_int(5), f(7.5)])), "int64(-2)");
        assert_eq!(show(max(&[go_int(1), f(5.5), go_int(3)])), "int64(5)");
        assert_eq!(show(min(&[go_int(4), Value::str("2")])), "int64(2)");
        assert_eq!(show(add1(&[Value::str("5")])), "int64(6)");
        assert_eq!(show(add(&[Value::str("a"), go_int(1)])), "int64(1)");
        assert_eq!(
            show(div(&[go_int(1), go_int(0)])),
            "ERR runtime error: integer divide by zero"
        );
        assert_eq!(
            show(add(&[Value::int64(i64::MAX), go_int(1)])),
            format!("int64({})", i64::MIN)
        );
    }

    #[test]
    fn float_family_goes_through_decimals() {
        assert_eq!(show(addf(&[go_int(1), f(1.9)])), "float64(2.9)");
        assert_eq!(show(addf(&[f(0.1), f(0.2)])), "float64(0.3)");
        assert_eq!(show(divf(&[go_int(7), go_int(2)])), "float64(3.5)");
        assert_eq!(
            show(divf(&[go_int(1), go_int(3)])),
            "float64(0.3333333333333333)"
        );
        assert_eq!(
            show(divf(&[go_int(2), go_int(3)])),
            "float64(0.6666666666666667)"
        );
        assert_eq!(show(mulf(&[f(1.1), f(1.1)])), "float64(1.21)");
        assert_eq!(show(subf(&[f(1.0), f(0.9)])), "float64(0.1)");
        assert_eq!(show(add1f(&[f(1.5)])), "float64(2.5)");
        assert_eq!(
            show(divf(&[go_int(1), go_int(0)])),
            "ERR decimal division by 0"
        );
        assert_eq!(show(maxf(&[go_int(1), f(5.5)])), "float64(5.5)");
        assert_eq!(show(minf(&[f(f64::NAN), f(1.0)])), "float64(NaN)");
        assert_eq!(show(round(&[f(2.5), go_int(0)])), "float64(3.0)");
        assert_eq!(show(round(&[f(1.23456), go_int(2)])), "float64(1.23)");
        assert_eq!(show(round(&[f(-2.5), go_int(0)])), "float64(-3.0)");
        assert_eq!(show(floor(&[f(2.7)])), "float64(2.0)");
        assert_eq!(show(ceil(&[f(2.1)])), "float64(3.0)");
    }

    #[test]
    fn sequences() {
        assert_eq!(show(seq(&[go_int(3)])), "\"1 2 3\"");
        assert_eq!(show(seq(&[go_int(5), go_int(-2), go_int(1)])), "\"5 3 1\"");
        assert_eq!(show(seq(&[go_int(0)])), "\"1 0\"");
        assert_eq!(show(seq(&[go_int(2), go_int(4)])), "\"2 3 4\"");
        assert_eq!(show(seq(&[])), "\"\"");
        assert_eq!(show(until(&[go_int(3)])), "[]int[0, 1, 2]");
        assert_eq!(show(until(&[go_int(-2)])), "[]int[0, -1]");
        assert_eq!(
            show(until_step(&[go_int(0), go_int(10), go_int(4)])),
            "[]int[0, 4, 8]"
        );
        assert_eq!(
            show(until_step(&[go_int(0), go_int(10), go_int(0)])),
            "[]int[]"
        );
    }
}
