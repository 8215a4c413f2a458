//! `--interval` durations: `10s`, `1m`, `500ms`, `2h`, `1.5s`, compound `1m30s` or `1h 5m`; a
//! bare number is seconds (what `sleep` and systemd users type).

use std::time::Duration;

/// Parses a duration; at least one millisecond.
pub fn parse(text: &str) -> Result<Duration, String> {
    let bad = || format!("'{}' is not a duration like 10s, 1m30s, 500ms", text.trim());
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut seconds = 0.0f64;
    let mut parts = 0;
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(split);
        let value: f64 = number.parse().map_err(|_| bad())?;
        let after = after.trim_start();
        let unit_len = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let factor = match unit {
            // A bare number is seconds, but only alone: `1m30` is ambiguous.
            "" if parts == 0 && after.trim().is_empty() => 1.0,
            "s" | "sec" => 1.0,
            "ms" => 0.001,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            "" => return Err(bad()),
            other => return Err(format!("unknown unit '{other}' (use ms, s, m or h)")),
        };
        seconds += value * factor;
        parts += 1;
        rest = after.trim_start();
    }
    // The digits rule out NaN: the only failure left is a number past `Duration::MAX`, for
    // which std's message ("value is either too big or NaN") would puzzle.
    let duration = Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("'{}' is too long a duration", text.trim()))?;
    if duration < Duration::from_millis(1) {
        return Err("the interval must be at least 1ms".to_owned());
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_and_compound_durations() {
        assert_eq!(parse("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse("1h 5m"), Ok(Duration::from_secs(3900)));
        assert_eq!(parse("2m500ms"), Ok(Duration::from_millis(120_500)));
        assert!(parse("10x").is_err());
        assert!(parse("s").is_err());
        assert!(parse("0s").is_err());
        assert!(parse("1m30").is_err());
        assert!(parse("").is_err());
        // Regression: std's "value is either too big or NaN" for a number past Duration::MAX.
        assert_eq!(
            parse("999999999999999999999h"),
            Err("'999999999999999999999h' is too long a duration".to_owned())
        );
    }
}
