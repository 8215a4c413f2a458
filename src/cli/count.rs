//! Count options (`--seed`, `--every`, `--confidence-n`, `compare --paired-bs-n`, …): a whole
//! number in a range, refused with the range's message whatever the number. clap's `u64`
//! parsers said "invalid digit found in string" for `-1` and "number too large to fit in target
//! type" for `2^64` (the numeric-extremes audit), where its `u32` ones say "-1 is not in 0..=17".

/// A parser of whole numbers in `lo..=hi` for clap's `value_parser`. `-0` is 0, as clap's
/// `i64`-based parsers and Python's `int()` read it.
pub fn count(lo: u64, hi: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync {
    move |text: &str| {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("'{text}' is not a whole number"));
        }
        let out_of_range = || format!("{text} is not in {lo}..={hi}");
        if text.starts_with('-') && digits.bytes().any(|b| b != b'0') {
            return Err(out_of_range());
        }
        digits
            .parse::<u64>()
            .ok()
            .filter(|v| (lo..=hi).contains(v))
            .ok_or_else(out_of_range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_range_and_every_refusal_names_it() {
        let p = count(1, 100);
        assert_eq!(p("1"), Ok(1));
        assert_eq!(p("+100"), Ok(100));
        assert_eq!(p("007"), Ok(7));
        assert_eq!(p("-1"), Err("-1 is not in 1..=100".to_owned()));
        assert_eq!(p("0"), Err("0 is not in 1..=100".to_owned()));
        assert_eq!(p("-0"), Err("-0 is not in 1..=100".to_owned()));
        assert_eq!(p("101"), Err("101 is not in 1..=100".to_owned()));
        assert_eq!(
            p("18446744073709551616"),
            Err("18446744073709551616 is not in 1..=100".to_owned())
        );
        assert_eq!(p("1.5"), Err("'1.5' is not a whole number".to_owned()));
        assert_eq!(p("-"), Err("'-' is not a whole number".to_owned()));
        assert_eq!(p(""), Err("'' is not a whole number".to_owned()));
        let any = count(0, u64::MAX);
        assert_eq!(any("-0"), Ok(0));
        assert_eq!(any("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            any("18446744073709551616"),
            Err("18446744073709551616 is not in 0..=18446744073709551615".to_owned())
        );
    }
}
