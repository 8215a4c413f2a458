//! Python's `int()` and `float()` of a string, as sacreBLEU's `argparse` types and
//! `SACREBLEU_SEED` read numbers: digits of any script, white space of any kind around, `_`
//! only between digits (PEP 515).

/// Python's `int(s)` for the forms people type (sign, digits, `_` between digits, spaces),
/// within 64 bits.
pub fn py_int(s: &str) -> Option<i64> {
    i64::try_from(py_int_big(s)?).ok()
}

/// Python's `int(s)`: a sign, decimal digits of any script with single `_` between them, white
/// space of any kind around; no size limit.
pub fn py_int_big(s: &str) -> Option<num_bigint::BigInt> {
    let s = crate::unicode::py_number_ascii(s)?;
    let t = s.trim_matches(' ');
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        || !underscores_between_digits(digits)
    {
        return None;
    }
    let v: num_bigint::BigInt = digits.replace('_', "").parse().ok()?;
    Some(if neg { -v } else { v })
}

/// PEP 515 (`_Py_string_to_number_with_underscores`): every underscore stands between two
/// digits, so `1__0`, `_1`, `1_.5` and `1e_5` are refused, `1_0.5` and `1e1_0` read.
fn underscores_between_digits(t: &str) -> bool {
    let b = t.as_bytes();
    (0..b.len()).all(|i| {
        b[i] != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// Python's `float(s)` for the forms people type (digits of any script, as `int()`).
pub fn py_float(s: &str) -> Option<f64> {
    let t = crate::unicode::py_number_ascii(s)?;
    let t = t.trim_matches(' ');
    if !underscores_between_digits(t) {
        return None;
    }
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        let v = if body == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Some(if lower.starts_with('-') { -v } else { v });
    }
    if body.is_empty() || body.starts_with(|c: char| !c.is_ascii_digit() && c != '.') {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `float()`'s underscores (PEP 515), from CPython 3.11 (regression: `-sv 1__0` read 10).
    #[test]
    fn floats_take_underscores_only_between_digits() {
        for s in [
            "1__0", "_1", "1_", "1._5", "1_.5", "_1.0", "1.0_", "1e_5", "in_f", "i_nf", "1_e5",
            "1E+_5", "+_1",
        ] {
            assert_eq!(py_float(s), None, "{s}");
        }
        for (s, v) in [
            ("1_0.5", 10.5),
            ("0.0_5", 0.05),
            ("1e1_0", 1e10),
            ("1_0e1_0", 1e11),
            ("-1_0", -10.0),
            (" 1_0 ", 10.0),
            ("٣_٤", 34.0),
            ("1_٣", 13.0),
        ] {
            assert_eq!(py_float(s), Some(v), "{s}");
        }
        for s in ["1__0", "_1", "1_", "-_1", "1_ 0"] {
            assert_eq!(py_int(s), None, "{s}");
        }
        assert_eq!(py_int(" -1_0_0 "), Some(-100));
    }
}
