//! CPython 3.11 numerics that NLTK's scores depend on, bit for bit (`NLTK.md` §1).
//!
//! NLTK computes BLEU with Python's number tower: exact `int`s, `Fraction`s that keep the
//! numerator and denominator they were built from, and IEEE doubles, mixed by Python's operator
//! rules. The last bit of a score depends on which of those a value is at each step, so the
//! smoothing methods are evaluated here with the same four kinds ([`Num`]) and the same rules:
//!
//! * `int / int` and `Fraction → float` are **correctly rounded** quotients of the exact integers
//!   ([`ratio_to_f64`]); converting numerator and denominator to `f64` first would round twice.
//! * `math.fsum` is CPython's exactly rounded Shewchuk summation ([`fsum`]); a naive or Kahan sum
//!   differs in the last bit.
//! * `float ** 2` calls the C library's `pow`, which differs from `x * x` by one ulp for about
//!   0.08% of arguments ([`pow2`]).
//! * `math.exp` raises `OverflowError` instead of returning infinity ([`exp`]).
//!
//! Errors are the Python exceptions NLTK would raise ([`PyError`]), so the caller can report what
//! NLTK does instead of panicking or printing a number NLTK never produces.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// A Python exception: its type name and message, as NLTK would raise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyError {
    /// `ZeroDivisionError`, `OverflowError`, …
    pub kind: &'static str,
    /// The exception's message (`str(e)`).
    pub message: String,
}

impl PyError {
    /// An exception of type `kind` with `message`.
    pub fn new(kind: &'static str, message: impl Into<String>) -> PyError {
        PyError {
            kind,
            message: message.into(),
        }
    }

    /// The exception type named `name`, for errors read back from saved statistics (`merge`);
    /// a name this crate never raises reads as `Exception`.
    pub fn kind_named(name: &str) -> &'static str {
        const KINDS: [&str; 6] = [
            "ZeroDivisionError",
            "OverflowError",
            "ValueError",
            "KeyError",
            "RuntimeError",
            "IndexError",
        ];
        KINDS
            .into_iter()
            .find(|&k| k == name)
            .unwrap_or("Exception")
    }

    fn zero_division(message: impl Into<String>) -> PyError {
        PyError::new("ZeroDivisionError", message)
    }

    fn overflow(message: &str) -> PyError {
        PyError::new("OverflowError", message)
    }
}

impl fmt::Display for PyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

/// Python's true division `n / d` of two integers: the double nearest to the exact quotient,
/// ties to even (`NLTK.md` §1.1–1.2; CPython `long_true_divide`). `d == 0` raises
/// `ZeroDivisionError`, a quotient beyond the double range raises `OverflowError`.
///
/// num-rational's `to_f64` is that correctly rounded conversion (it gives infinity where
/// CPython raises, and `0 / -d` is `-0.0` as in CPython). It replaced a hand-written version
/// after a property test found the same bits on every case, huge operands, subnormal and
/// overflowing quotients included; that version is kept as the test's oracle.
pub fn ratio_to_f64(n: &BigInt, d: &BigInt) -> Result<f64, PyError> {
    if d.is_zero() {
        return Err(PyError::zero_division("division by zero"));
    }
    // Both exact in a double: one IEEE division is the correctly rounded quotient (what
    // num-rational does too, without cloning the operands).
    if n.bits() <= 53 && d.bits() <= 53 {
        return Ok(n.to_f64().unwrap_or(0.0) / d.to_f64().unwrap_or(1.0));
    }
    let q = BigRational::new_raw(n.clone(), d.clone())
        .to_f64()
        .unwrap_or(f64::INFINITY);
    if q.is_infinite() {
        return Err(PyError::overflow(
            "integer division result too large for a float",
        ));
    }
    Ok(q)
}

/// `ratio_to_f64` for two machine integers (counts): exact operands up to 2^53, so one IEEE
/// division is correctly rounded; beyond that the big-integer path.
pub fn u64_ratio(n: u64, d: u64) -> Result<f64, PyError> {
    if d == 0 {
        return Err(PyError::zero_division("division by zero"));
    }
    if n < (1 << 53) && d < (1 << 53) {
        return Ok(n as f64 / d as f64);
    }
    ratio_to_f64(&BigInt::from(n), &BigInt::from(d))
}

/// CPython 3.11 `math.fsum`: the correctly rounded sum of `xs` (Shewchuk's non-overlapping
/// partials, then the half-even correction of the final rounding), including its handling of
/// infinities and NaN and its two exceptions.
pub fn fsum(xs: &[f64]) -> Result<f64, PyError> {
    let mut partials: Vec<f64> = Vec::with_capacity(8);
    let mut special_sum = 0.0f64;
    let mut inf_sum = 0.0f64;
    for &x0 in xs {
        let mut x = x0;
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        if x != 0.0 {
            if !x.is_finite() {
                // A non-finite x from finite inputs is an intermediate overflow.
                if x0.is_finite() {
                    return Err(PyError::overflow("intermediate overflow in fsum"));
                }
                if x0.is_infinite() {
                    inf_sum += x0;
                }
                special_sum += x0;
                partials.clear();
            } else {
                partials.push(x);
            }
        }
    }
    if special_sum != 0.0 {
        if inf_sum.is_nan() {
            return Err(PyError::new("ValueError", "-inf + inf in fsum"));
        }
        return Ok(special_sum);
    }
    let mut n = partials.len();
    let mut hi = 0.0f64;
    if n > 0 {
        n -= 1;
        hi = partials[n];
        let mut lo = 0.0f64;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = partials[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        // Make half-way cases round to even: if the rest of the partials has the sign of `lo`,
        // the true sum lies beyond the half-way point.
        if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
    }
    Ok(hi)
}

/// `math.exp(x)`: the C library's `exp`, with CPython's `OverflowError("math range error")` for
/// a finite argument whose result overflows (NLTK.md §1.5).
pub fn exp(x: f64) -> Result<f64, PyError> {
    let y = x.exp();
    if y.is_infinite() && x.is_finite() {
        return Err(PyError::overflow("math range error"));
    }
    Ok(y)
}

/// `x ** 2` for a Python float: the C library's `pow(x, 2.0)`, **not** `x * x` (glibc's `pow`
/// is not correctly rounded and differs by one ulp for about 0.08% of arguments).
///
/// LLVM rewrites `pow(x, 2.0)` with a constant exponent into `x * x` at any optimisation level
/// above 0, even through `extern "C"`; hiding the exponent behind `black_box` keeps the call.
pub fn pow2(x: f64) -> Result<f64, PyError> {
    let y = x.powf(std::hint::black_box(2.0));
    if y.is_infinite() && x.is_finite() {
        return Err(PyError::new(
            "OverflowError",
            "(34, 'Numerical result out of range')",
        ));
    }
    Ok(y)
}

/// A value of Python's number tower as NLTK's BLEU smoothing passes it around (`NLTK.md` §1.3).
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    /// `int` (I): literals, counts, powers of two.
    Int(BigInt),
    /// A precision as `modified_precision` and the corpus sums build it (C): an exact rational
    /// that keeps its *unreduced* numerator and denominator, which methods 1–4 and 6 read.
    Count { num: u64, den: u64 },
    /// An exact rational produced by arithmetic on I/C/R (R); reduction does not matter.
    Rat(BigRational),
    /// `float` (F).
    Float(f64),
}

impl Num {
    /// `int` from a machine integer.
    pub fn int(v: i64) -> Num {
        Num::Int(BigInt::from(v))
    }

    /// The exact value as a rational (I, C and R only).
    fn frac(&self) -> BigRational {
        match self {
            Num::Int(i) => BigRational::from_integer(i.clone()),
            Num::Count { num, den } => BigRational::new_raw(BigInt::from(*num), BigInt::from(*den)),
            Num::Rat(r) => r.clone(),
            Num::Float(_) => unreachable!("frac() of a float"),
        }
    }

    fn is_float(&self) -> bool {
        matches!(self, Num::Float(_))
    }

    /// `float(self)`: exact for ints that fit, correctly rounded for every rational. An int
    /// beyond the double range raises CPython's `int.__float__` error (an int meeting a float
    /// in `2**κ * k / math.log(T)`, smoothing method 4), a rational `Fraction.__float__`'s,
    /// which is an int division.
    pub fn to_f64(&self) -> Result<f64, PyError> {
        match self {
            Num::Float(x) => Ok(*x),
            Num::Int(i) => ratio_to_f64(i, &BigInt::one())
                .map_err(|_| PyError::overflow("int too large to convert to float")),
            Num::Count { num, den } => u64_ratio(*num, *den),
            Num::Rat(r) => ratio_to_f64(r.numer(), r.denom()),
        }
    }

    /// The sign (−1, 0, 1), exact for I/C/R; NaN counts as 0 (it is neither `> 0` nor `< 0`).
    pub fn signum(&self) -> i32 {
        match self {
            Num::Float(x) => match x.partial_cmp(&0.0) {
                Some(Ordering::Greater) => 1,
                Some(Ordering::Less) => -1,
                _ => 0,
            },
            Num::Int(i) => sign_of(i),
            Num::Count { num, .. } => i32::from(*num > 0),
            Num::Rat(r) => sign_of(r.numer()) * sign_of(r.denom()),
        }
    }

    /// `self + other` under Python's rules: float if either is a float (one IEEE addition),
    /// int for two ints, exact rational otherwise.
    pub fn add(&self, other: &Num) -> Result<Num, PyError> {
        Ok(match (self, other) {
            _ if self.is_float() || other.is_float() => {
                Num::Float(self.to_f64()? + other.to_f64()?)
            }
            (Num::Int(a), Num::Int(b)) => Num::Int(a + b),
            _ => Num::Rat(self.frac() + other.frac()),
        })
    }

    /// `self * other` under Python's rules.
    pub fn mul(&self, other: &Num) -> Result<Num, PyError> {
        Ok(match (self, other) {
            _ if self.is_float() || other.is_float() => {
                Num::Float(self.to_f64()? * other.to_f64()?)
            }
            (Num::Int(a), Num::Int(b)) => Num::Int(a * b),
            _ => Num::Rat(self.frac() * other.frac()),
        })
    }

    /// `self / other` under Python's rules: `int / int` is a correctly rounded float; a zero
    /// divisor raises `ZeroDivisionError` (Python never produces an infinity here).
    pub fn div(&self, other: &Num) -> Result<Num, PyError> {
        if self.is_float() || other.is_float() {
            let y = other.to_f64()?;
            if y == 0.0 {
                return Err(PyError::zero_division("float division by zero"));
            }
            return Ok(Num::Float(self.to_f64()? / y));
        }
        if let (Num::Int(a), Num::Int(b)) = (self, other) {
            return Ok(Num::Float(ratio_to_f64(a, b)?));
        }
        let divisor = other.frac();
        if divisor.is_zero() {
            return Err(PyError::zero_division(format!(
                "Fraction({}, 0)",
                zero_division_numerator(&self.frac(), &divisor)
            )));
        }
        Ok(Num::Rat(self.frac() / divisor))
    }

    /// `self ** 2`: exact for ints and rationals, C `pow(x, 2.0)` for floats.
    pub fn square(&self) -> Result<Num, PyError> {
        Ok(match self {
            Num::Float(x) => Num::Float(pow2(*x)?),
            Num::Int(i) => Num::Int(i * i),
            _ => {
                let f = self.frac();
                Num::Rat(&f * &f)
            }
        })
    }
}

/// `f"{x:.{width}f}"`: Rust's `{:.N}` rounds the exact binary value half to even, as Python
/// does; `nan` (Rust: `NaN`) and `inf` as Python spells them. Any width: every finite double
/// is a multiple of 2^-1074, so past 1,074 decimals Python's digits are zeros, and Rust's
/// formatter panics past 65,535 (the drop-in's `-w 65536`).
pub fn fixed(x: f64, width: usize) -> String {
    use fmt::Write as _;
    const EXACT: usize = 1074;
    if x.is_nan() {
        return "nan".into();
    }
    if width <= EXACT || x.is_infinite() {
        return format!("{x:.prec$}", prec = width.min(EXACT));
    }
    let mut s = String::with_capacity(width + 330);
    let _ = write!(s, "{x:.EXACT$}");
    s.extend(std::iter::repeat_n('0', width - EXACT));
    s
}

/// The numerator CPython 3.11's `Fraction._div(a, b)` builds before `Fraction(n, 0)` raises, for
/// a zero `b`: it divides `a`'s numerator and `b`'s (0) by their gcd, which is `|na|`, leaving
/// the sign of `a`; and the denominators by theirs, leaving `db / gcd(db, da)`; then
/// `n = na · db`. So `Fraction(-7, 8) / 0` raises `Fraction(-1, 0)`, and an unnormalized
/// `Fraction(6, 4) / Fraction(0, 8)` raises `Fraction(2, 0)`: the representations count, which
/// `Num::Count` keeps as NLTK built them.
fn zero_division_numerator(a: &BigRational, b: &BigRational) -> BigInt {
    let sign = sign_of(a.numer()) * sign_of(a.denom());
    // Denominators are never 0, so the gcd is at least 1 (dividing by 1 changes nothing).
    let (da, db) = (a.denom().abs(), b.denom().abs());
    BigInt::from(sign) * (&db / da.gcd(&db))
}

fn sign_of(i: &BigInt) -> i32 {
    match i.sign() {
        Sign::Minus => -1,
        Sign::NoSign => 0,
        Sign::Plus => 1,
    }
}

/// A number parameter as Python would receive it from a literal: `5` is an `int`, `5.0`, `1e-9`
/// and `0.1` are `float`s. The distinction matters for NLTK: an int `alpha` keeps smoothing
/// method 6 in exact rational arithmetic, a float one does not.
pub fn parse_py_number(text: &str) -> Option<Num> {
    let t = text.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        let clean: String = t.chars().filter(|&c| c != '_').collect();
        return clean.parse::<BigInt>().ok().map(Num::Int);
    }
    // Rust's float parser is correctly rounded like Python's `float()`; words like "inf" and
    // "nan" are rejected here (the callers want finite parameters).
    let lower = digits.to_ascii_lowercase();
    if lower.contains("inf") || lower.contains("nan") {
        return None;
    }
    t.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(Num::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any width, as Python's `f"{x:.{width}f}"` (regression: Rust's formatter panicked past
    /// 65,535, the drop-in's `-w 65536`): past a double's 1,074 decimals only zeros follow.
    #[test]
    fn fixed_takes_any_width() {
        let tiny = 2f64.powi(-1074);
        let exact = fixed(tiny, 1074);
        assert!(
            exact.starts_with("0.000")
                && exact.ends_with("4565229087538682506419718265533447265625")
        );
        assert_eq!(fixed(tiny, 1080), format!("{exact}000000"));
        let wide = fixed(53.7, 70_000);
        assert_eq!(wide.len(), 3 + 70_000);
        assert_eq!(wide[..1077], format!("{:.1074}", 53.7));
        assert!(wide[1077..].bytes().all(|b| b == b'0'));
        assert_eq!(fixed(f64::INFINITY, 70_000), "inf");
        assert_eq!(fixed(f64::NEG_INFINITY, 3), "-inf");
        assert_eq!(fixed(f64::NAN, 70_000), "nan");
        assert_eq!(fixed(-0.0, 2), "-0.00");
    }

    fn r(n: &str, d: &str) -> f64 {
        ratio_to_f64(&n.parse().unwrap(), &d.parse().unwrap()).unwrap()
    }

    #[test]
    fn ratio_is_correctly_rounded_where_double_rounding_fails() {
        // Converting both operands to doubles first rounds twice (checked with CPython).
        let (n, d) = ("37868570447954583862113081", "756785900325770290915");
        assert_eq!(r(n, d), 50038.683902083096);
        let naive = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap();
        assert_eq!(naive, 50038.6839020831);
        assert_eq!(r("1", "3"), 1.0 / 3.0);
        assert_eq!(r("-7", "2"), -3.5);
        assert_eq!(r("0", "5"), 0.0);
        // Subnormal and deep-underflow results.
        let tiny = BigInt::one() << 1074u32;
        assert_eq!(ratio_to_f64(&BigInt::one(), &tiny).unwrap(), 5e-324);
        assert_eq!(
            ratio_to_f64(&BigInt::one(), &(BigInt::one() << 1076u32)).unwrap(),
            0.0
        );
        // Exactly half of the smallest subnormal rounds to even (0); a bit more rounds up.
        assert_eq!(
            ratio_to_f64(&BigInt::one(), &(BigInt::one() << 1075u32)).unwrap(),
            0.0
        );
        let just_above = (BigInt::one() << 1075u32) - BigInt::one();
        assert_eq!(ratio_to_f64(&BigInt::one(), &just_above).unwrap(), 5e-324);
        assert_eq!(
            ratio_to_f64(&BigInt::one(), &BigInt::zero())
                .unwrap_err()
                .kind,
            "ZeroDivisionError"
        );
        assert_eq!(
            ratio_to_f64(&(BigInt::one() << 2000u32), &BigInt::one())
                .unwrap_err()
                .kind,
            "OverflowError"
        );
    }

    /// The message of a division by a zero `Fraction`, as CPython 3.11 words it (values from
    /// `python3 -c 'from fractions import Fraction as F; F(-7, 8) / 0'` and alike). Regression:
    /// nltk-bleu's method 6 with `--alpha=-1` said `Fraction(-121, 0)` where NLTK says
    /// `Fraction(-1, 0)`.
    #[test]
    fn division_by_a_zero_fraction_names_cpythons_numerator() {
        let rat = |n: i64, d: i64| Num::Rat(BigRational::new(n.into(), d.into()));
        let count = |num, den| Num::Count { num, den };
        let message = |a: Num, b: Num| a.div(&b).unwrap_err().to_string();
        let cases = [
            (rat(-7, 8), Num::int(0), "Fraction(-1, 0)"),
            (rat(5, 2), count(0, 4), "Fraction(2, 0)"),
            (rat(0, 1), Num::int(0), "Fraction(0, 0)"),
            (rat(-7, 3), count(0, 9), "Fraction(-3, 0)"),
            (count(6, 4), count(0, 8), "Fraction(2, 0)"),
            (count(121, 1), Num::int(0), "Fraction(1, 0)"),
        ];
        for (a, b, want) in cases {
            assert_eq!(message(a, b), format!("ZeroDivisionError: {want}"));
        }
    }

    #[test]
    fn fsum_is_exactly_rounded() {
        assert_eq!(fsum(&[]).unwrap(), 0.0);
        assert_eq!(fsum(&[0.1; 10]).unwrap(), 1.0);
        assert_eq!(fsum(&[1e100, 1.0, -1e100, 1e-100]).unwrap(), 1.0);
        // Half-way case: 1 + 2^-53 + 2^-106 must round up.
        let x = fsum(&[1.0, 2f64.powi(-53), 2f64.powi(-106)]).unwrap();
        assert_eq!(x, 1.0 + f64::EPSILON);
        assert_eq!(
            fsum(&[f64::MAX, f64::MAX]).unwrap_err().kind,
            "OverflowError"
        );
        assert_eq!(
            fsum(&[f64::INFINITY, f64::NEG_INFINITY]).unwrap_err().kind,
            "ValueError"
        );
        assert_eq!(fsum(&[f64::INFINITY, 1.0]).unwrap(), f64::INFINITY);
    }

    #[test]
    fn pow_is_the_c_library_not_a_product() {
        // NLTK.md §1.5: glibc pow(x, 2.0) differs from x*x for this x.
        let x = f64::from_bits(0xbfc3dc5270b201a1);
        assert_eq!(pow2(x).unwrap().to_bits(), 0x3f98a71da86aa945);
        assert_eq!((x * x).to_bits(), 0x3f98a71da86aa946);
    }

    #[test]
    fn python_operator_rules() {
        let c = Num::Count { num: 2, den: 4 };
        assert_eq!(c.to_f64().unwrap(), 0.5);
        // int / int is a float even when exact.
        assert_eq!(Num::int(4).div(&Num::int(2)).unwrap(), Num::Float(2.0));
        // Fractions stay exact.
        let third = Num::int(1).add(&c).unwrap().div(&Num::int(3)).unwrap();
        assert_eq!(
            third,
            Num::Rat(BigRational::new(BigInt::from(1), BigInt::from(2)))
        );
        assert_eq!(
            Num::Float(1.0).div(&Num::Float(0.0)).unwrap_err().message,
            "float division by zero"
        );
        assert_eq!(Num::Count { num: 0, den: 7 }.signum(), 0);
        assert_eq!(Num::Float(f64::NAN).signum(), 0);
        assert!(matches!(parse_py_number("5"), Some(Num::Int(_))));
        assert!(matches!(parse_py_number("5.0"), Some(Num::Float(_))));
        assert!(matches!(parse_py_number("-0.1"), Some(Num::Float(x)) if x == -0.1));
        assert!(parse_py_number("nan").is_none() && parse_py_number("x").is_none());
    }

    /// num-rational's `Ratio::to_f64` against [`ratio_to_f64`] (issue 15 asked whether the
    /// crate's conversion can replace ours): the same bits wherever both give a number — small
    /// and huge operands, subnormal and overflowing quotients — with the crate's infinity where
    /// ours raises `OverflowError`. Differences, if any, are listed in the failure message.
    mod against_num_rational {
        use super::*;
        use num_traits::Signed;

        /// `ldexp(x, e)` for an integral `x < 2^64` whose result is known to be representable: scaling
        /// by powers of two in steps that keep every intermediate exact.
        fn ldexp(mut x: f64, mut e: i64) -> f64 {
            const UP: f64 = 8.98846567431158e307; // 2^1023
            const DOWN: f64 = 1.0 / 8.98846567431158e307; // 2^-1023
            while e > 1023 {
                x *= UP;
                e -= 1023;
            }
            while e < -1000 {
                x *= DOWN;
                e += 1023;
            }
            // 2^e is a normal double for -1022 <= e <= 1023.
            let scale = f64::from_bits(((e + 1023) as u64) << 52);
            x * scale
        }
        /// The hand-written conversion that num-rational's replaced: an independent oracle.
        fn reference_ratio_to_f64(n: &BigInt, d: &BigInt) -> Result<f64, PyError> {
            if d.is_zero() {
                return Err(PyError::zero_division("division by zero"));
            }
            if n.is_zero() {
                return Ok(0.0);
            }
            let negative = (n.sign() == Sign::Minus) != (d.sign() == Sign::Minus);
            let (n, d) = (n.abs(), d.abs());
            // Both exact in a double: one IEEE division is the correctly rounded quotient.
            if n.bits() <= 53 && d.bits() <= 53 {
                let q = n.to_f64().unwrap_or(0.0) / d.to_f64().unwrap_or(1.0);
                return Ok(if negative { -q } else { q });
            }
            let shift = 55 - (n.bits() as i64 - d.bits() as i64);
            let (q, r) = if shift >= 0 {
                let scaled = &n << (shift as usize);
                (&scaled / &d, &scaled % &d)
            } else {
                let scaled = &d << ((-shift) as usize);
                (&n / &scaled, &n % &scaled)
            };
            // value = (q + r/d') · 2^-shift, q has 55 or 56 bits.
            let mut q = q.to_u64().unwrap_or(u64::MAX);
            let q_bits = 64 - i64::from(q.leading_zeros());
            let exponent = q_bits - 1 - shift;
            let mut extra = q_bits - 53;
            if exponent < -1022 {
                extra += -1022 - exponent;
            }
            let mut shift = shift;
            if extra > 0 {
                let (low, half) = if extra >= 64 {
                    // Everything is rounded off; `half` exceeds any 56-bit q.
                    (u128::from(q), u128::MAX)
                } else {
                    (u128::from(q) & ((1u128 << extra) - 1), 1u128 << (extra - 1))
                };
                q = if extra >= 64 { 0 } else { q >> extra };
                if low > half || (low == half && (!r.is_zero() || q & 1 == 1)) {
                    q += 1;
                }
                shift -= extra;
            }
            let result = ldexp(q as f64, -shift);
            if result.is_infinite() {
                return Err(PyError::overflow(
                    "integer division result too large for a float",
                ));
            }
            Ok(if negative { -result } else { result })
        }

        use num_rational::Ratio;
        use proptest::prelude::*;

        fn crate_to_f64(n: &BigInt, d: &BigInt) -> Option<f64> {
            Ratio::new_raw(n.clone(), d.clone()).to_f64()
        }

        fn same(n: &BigInt, d: &BigInt) -> Result<(), String> {
            let ours = reference_ratio_to_f64(n, d);
            let theirs = crate_to_f64(n, d);
            // And the production function is the crate's conversion.
            let production = ratio_to_f64(n, d);
            let agrees = match (&production, theirs) {
                (Ok(a), Some(b)) => a.to_bits() == b.to_bits(),
                (Err(_), Some(b)) => b.is_infinite(),
                (Err(_), None) => true,
                (Ok(_), None) => false,
            };
            if !agrees {
                return Err(format!(
                    "{n} / {d}: ratio_to_f64 {production:?}, num-rational {theirs:?}"
                ));
            }
            let agree = match (&ours, theirs) {
                (Ok(a), Some(b)) => a.to_bits() == b.to_bits(),
                (Err(e), Some(b)) => e.kind == "OverflowError" && b.is_infinite(),
                (Err(e), None) => e.kind == "ZeroDivisionError",
                (Ok(_), None) => false,
            };
            if agree {
                Ok(())
            } else {
                Err(format!("{n} / {d}: ours {ours:?}, num-rational {theirs:?}"))
            }
        }

        /// A big integer of about `bits` bits from random limbs, with a sign.
        fn big(limbs: Vec<u64>, bits: u32, negative: bool) -> BigInt {
            let mut x = BigInt::zero();
            for l in limbs {
                x = (x << 64u32) + BigInt::from(l);
            }
            let excess = x.bits().saturating_sub(u64::from(bits)) as usize;
            let x = x >> excess;
            if negative {
                -x
            } else {
                x
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(20_000))]

            #[test]
            fn same_bits_on_random_operands(
                nl in prop::collection::vec(any::<u64>(), 1..40),
                dl in prop::collection::vec(any::<u64>(), 1..40),
                nb in 1u32..2500,
                db in 1u32..2500,
                ns in any::<bool>(),
                ds in any::<bool>(),
            ) {
                let (n, d) = (big(nl, nb, ns), big(dl, db, ds));
                prop_assume!(!d.is_zero() && !n.is_zero());
                prop_assert!(same(&n, &d).is_ok(), "{}", same(&n, &d).unwrap_err());
            }

            /// Quotients near the subnormal range and near the largest double.
            #[test]
            fn same_bits_at_the_edges(
                k in 1000u32..1100,
                m in 1000u32..1030,
                a in any::<u64>(),
                b in 1u64..,
                off in -3i64..=3,
            ) {
                let one = BigInt::one();
                let tiny = BigInt::from(a) + BigInt::from(off);
                let deep = (&one << k) + BigInt::from(b);
                prop_assume!(!tiny.is_zero());
                prop_assert!(same(&tiny, &deep).is_ok(), "{}", same(&tiny, &deep).unwrap_err());
                let huge = (&one << m) * BigInt::from(a | 1) + BigInt::from(off);
                prop_assert!(same(&huge, &BigInt::from(b)).is_ok(), "{}", same(&huge, &BigInt::from(b)).unwrap_err());
            }
        }

        #[test]
        fn same_bits_on_fixed_edges() {
            let one = BigInt::one();
            let max = BigInt::from(u64::MAX);
            let cases = [
                (one.clone(), &one << 1074u32),
                (one.clone(), &one << 1075u32),
                (one.clone(), (&one << 1075u32) - &one),
                (one.clone(), (&one << 1075u32) + &one),
                (BigInt::from(3), &one << 1076u32),
                ((&one << 1024u32) - (&one << 970u32), one.clone()),
                ((&one << 1024u32) - (&one << 971u32), one.clone()),
                ((&one << 1024u32) - (&one << 970u32) - &one, one.clone()),
                (&one << 1024u32, one.clone()),
                (max.clone(), max.clone() - &one),
                ((&one << 53u32) + &one, BigInt::from(3)),
                (BigInt::from(-7), BigInt::from(2)),
                (BigInt::from(7), BigInt::from(-2)),
            ];
            // CPython: 0 / -5 is -0.0 (the hand-written version gave 0.0).
            assert_eq!(
                ratio_to_f64(&BigInt::zero(), &BigInt::from(-5))
                    .unwrap()
                    .to_bits(),
                (-0.0f64).to_bits()
            );
            let failures: Vec<String> =
                cases.iter().filter_map(|(n, d)| same(n, d).err()).collect();
            assert!(failures.is_empty(), "{failures:#?}");
        }
    }
}
