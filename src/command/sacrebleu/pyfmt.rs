//! Python's text forms of numbers and strings that sacreBLEU's output goes through:
//! `repr(float)` (what `json.dumps` writes for a float) and `json.dumps` of a string.

/// `repr(x)` of a Python float: the shortest round-trip digits, in fixed notation when the
/// decimal exponent is in [-4, 16), else `d.ddde+XX`; `inf`, `nan` as `json.dumps` writes them
/// (`Infinity`, `NaN`) when `json` is set.
pub fn float_repr(x: f64, json: bool) -> String {
    if x.is_nan() {
        return if json { "NaN".into() } else { "nan".into() };
    }
    if x.is_infinite() {
        let s = if json { "Infinity" } else { "inf" };
        return if x < 0.0 { format!("-{s}") } else { s.into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits too: `3.38e1`. Where they take all 17
    // digits, any correctly rounded 17 digits round-trip, and Python's `repr` gives those,
    // rounding an exact tie to even; Rust's shortest form rounds it up (10.5555572509765625:
    // `…562` in Python, `…563` here before; found by the significance re-run). `{:.16e}` is
    // the correctly rounded form.
    let mut e = format!("{:e}", x.abs());
    if e.split_once('e').is_some_and(|(m, _)| m.len() == 18) {
        e = format!("{:.16e}", x.abs());
    }
    let (mantissa, exp) = e.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x < 0.0 { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let s = if exp >= n - 1 {
            format!("{digits}{}.0", "0".repeat((exp - (n - 1)) as usize))
        } else if exp >= 0 {
            let (a, b) = digits.split_at(exp as usize + 1);
            format!("{a}.{b}")
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{s}")
    } else {
        let (a, b) = digits.split_at(1);
        let m = if b.is_empty() {
            a.to_owned()
        } else {
            format!("{a}.{b}")
        };
        format!(
            "{sign}{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

/// `json.dumps(s, ensure_ascii=…)`.
pub fn json_string(s: &str, ensure_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ensure_ascii && (c as u32) > 0x7e) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub use crate::metric::pymath::fixed;

/// Python's `repr(str)` for the simple names used in log lines and error messages.
pub fn py_str_repr(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// The decimals of `-w`: sacreBLEU formats `f"{score:.{width}f}"`, which Python refuses for a
/// negative width, past `PY_SSIZE_T_MAX` (parsing the spec) and past `INT_MAX` (formatting),
/// and otherwise prints that many decimals, any number of them. bleu-stream prints the same
/// digits up to [`MAX_WIDTH`] (`pymath::fixed`) and refuses a wider one rather than build a
/// score of gigabytes.
pub fn width(w: i128) -> Result<usize, String> {
    let python = match w {
        w if w < 0 => "Format specifier missing precision",
        w if w > i128::from(i64::MAX) => "Too many decimal digits in format string",
        w if w > i128::from(i32::MAX) => "precision too big",
        w => {
            return usize::try_from(w)
                .ok()
                .filter(|&w| w <= MAX_WIDTH)
                .ok_or_else(|| {
                    format!(
                        "--width {w}: bleu-stream prints at most {MAX_WIDTH} decimals \
                         (sacreBLEU would print {w} for every score)"
                    )
                });
        }
    };
    // A width past i128 is kept as i128::MAX (`args.rs`), which prints as a number all the same.
    Err(format!("--width {w}: ValueError: {python}"))
}

/// The widest `-w` bleu-stream prints (sacreBLEU's limit is `INT_MAX`).
pub const MAX_WIDTH: usize = 1_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_like_python() {
        for (x, s) in [
            (33.8, "33.8"),
            (100.0, "100.0"),
            (34.0, "34.0"),
            (33.76106264092923, "33.76106264092923"),
            (1e16, "1e+16"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (-2.5, "-2.5"),
            (1234567890123456.0, "1234567890123456.0"),
            // Regression (significance re-run): 17 digits, an exact tie, rounded to even as
            // Python's repr does (…563 before); and 17-digit forms around it.
            (f64::from(10.555_557_f32), "10.555557250976562"),
            (0.1 + 0.2, "0.30000000000000004"),
            (2.0f64.powi(-1074), "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (9007199254740993.0, "9007199254740992.0"),
        ] {
            assert_eq!(float_repr(x, true), s, "{x:e}");
        }
        assert_eq!(json_string("a\"μ", true), "\"a\\\"\\u03bc\"");
        assert_eq!(json_string("a\"μ", false), "\"a\\\"μ\"");
        assert_eq!(fixed(0.25, 1), "0.2");
    }

    /// `-w` as Python's format spec takes it (the messages of CPython 3.11), and bleu-stream's
    /// own ceiling.
    #[test]
    fn widths_as_python_takes_them() {
        assert_eq!(width(0), Ok(0));
        assert_eq!(width(65_536), Ok(65_536));
        assert_eq!(width(1_000_000), Ok(MAX_WIDTH));
        let err = |w: i128| width(w).unwrap_err();
        assert!(err(1_000_001).contains("at most 1000000 decimals"));
        assert!(err(2_147_483_647).contains("sacreBLEU would print 2147483647"));
        assert!(err(-1).ends_with("ValueError: Format specifier missing precision"));
        assert!(err(2_147_483_648).ends_with("ValueError: precision too big"));
        assert!(err(i128::from(i64::MAX)).ends_with("ValueError: precision too big"));
        assert!(err(i128::from(i64::MAX) + 1)
            .ends_with("ValueError: Too many decimal digits in format string"));
    }
}
