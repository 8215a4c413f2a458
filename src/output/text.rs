//! Text output: tab-separated sentence scores, and corpus reports in sacreBLEU's text form.

use std::fmt::Write as _;

use super::CorpusReport;

/// A score with `width` decimals, as Python's `format(x, '.Nf')` prints it: Rust's `{:.N}`
/// rounds the exact binary value half to even like Python; NaN (MATLAB-style scores) is `nan`.
pub fn score(x: f64, width: usize) -> String {
    if x.is_nan() {
        "nan".to_owned()
    } else {
        format!("{x:.width$}")
    }
}

/// The row of a bad line: one empty field per metric, so `cut -f N` stays aligned.
pub fn bad_row(metrics: usize, out: &mut Vec<u8>) {
    out.extend(std::iter::repeat_n(b'\t', metrics.saturating_sub(1)));
    out.push(b'\n');
}

/// A corpus report: a header line, then per metric sacreBLEU's `BLEUScore.format()` line (so
/// `grep '^BLEU = '` finds it) and its signature.
///
/// ```text
/// # bleu-stream 0.1.0 final report: 1448 segments, 0 bad lines
/// BLEU = 36.84 73.1/45.4/30.0/20.0 (BP = 0.981 ratio = 0.981 hyp_len = 29533 ref_len = 30110)
/// # BLEU signature: nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0
/// ```
pub fn report(report: &CorpusReport) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "# bleu-stream {} {} report: {} segment{}, {} bad line{}",
        env!("CARGO_PKG_VERSION"),
        if report.is_final { "final" } else { "running" },
        report.segments,
        plural(report.segments),
        report.bad_lines,
        plural(report.bad_lines),
    );
    match &report.note {
        Some(note) => {
            let _ = writeln!(s, " ({note})");
        }
        None => s.push('\n'),
    }
    for m in &report.metrics {
        let _ = writeln!(s, "{}", m.text);
        let _ = writeln!(s, "# {} signature: {}", m.name, m.signature);
    }
    s
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_print_like_python() {
        assert_eq!(score(6.25, 1), "6.2");
        assert_eq!(score(100.00000000000004, 2), "100.00");
        assert_eq!(score(f64::NAN, 2), "nan");
    }

    #[test]
    fn bad_rows_keep_columns() {
        let mut out = Vec::new();
        bad_row(1, &mut out);
        bad_row(3, &mut out);
        assert_eq!(out, b"\n\t\t\n");
    }
}
