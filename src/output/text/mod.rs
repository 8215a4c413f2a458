//! Text output: tab-separated sentence scores, and corpus reports in sacreBLEU's text form
//! (with the `--group-by` table after them, [`group_table`]).

pub mod group_table;

use std::fmt::Write as _;

use super::CorpusReport;
use crate::metric::{Piece, Score};

/// A score with `width` decimals, as Python's `format(x, '.Nf')` prints it (NaN, of
/// MATLAB-style scores, is `nan`).
pub fn score(x: f64, width: usize) -> String {
    crate::metric::pymath::fixed(x, width)
}

/// Appends a row's scores of one metric, tab-separated, with `width` decimals.
pub fn scores(scores: &[f64], width: usize, out: &mut Vec<u8>) {
    use std::io::Write as _;
    for (i, &x) in scores.iter().enumerate() {
        if i > 0 {
            out.push(b'\t');
        }
        if x.is_nan() {
            out.extend_from_slice(b"nan");
        } else {
            let _ = write!(out, "{x:.width$}");
        }
    }
}

/// Appends the empty fields of a metric that has no sentence score here (`columns` of them).
pub fn empty_fields(columns: usize, out: &mut Vec<u8>) {
    out.extend(std::iter::repeat_n(b'\t', columns.saturating_sub(1)));
}

/// sacreBLEU's ` (μ = 34.7 ± 3.0)`, the numbers as [`score`] prints them (a NaN interval of an
/// infinite score is `nan`, as Python spells it; Rust's `{:.2}` wrote `NaN`).
fn interval(mean: f64, ci: f64, width: usize, s: &mut String) {
    let _ = write!(
        s,
        " (\u{3bc} = {} \u{b1} {})",
        score(mean, width),
        score(ci, width)
    );
}

/// A metric's one-line text form with `width` decimals: its [`Piece`]s, with sacreBLEU's
/// ` (μ = 34.7 ± 3.0)` right after the first score when there is a confidence interval.
pub fn line(score: &Score, width: usize) -> String {
    let mut s = String::new();
    let mut confidence = score.confidence;
    for piece in &score.line {
        match piece {
            Piece::Text(t) => s.push_str(t),
            Piece::Score(x) => {
                s.push_str(&self::score(*x, width));
                if let Some(c) = confidence.take() {
                    interval(c.mean, c.ci, width, &mut s);
                }
            }
        }
    }
    s
}

/// What `-b` prints of a score: the number, and with a confidence interval sacreBLEU's
/// `34.8 (μ = 34.7 ± 3.0)`. NLTK BLEU with several `--weights` sets prints one number per set,
/// tab-separated as in its rows (its report's `score` is then the array of them).
pub fn score_only(m: &Score, width: usize) -> String {
    if let Some(scores) = m.set_scores() {
        let scores: Vec<String> = scores
            .iter()
            .map(|v| score(v.as_f64().unwrap_or(f64::NAN), width))
            .collect();
        return scores.join("\t");
    }
    let mut s = score(m.value, width);
    if let Some(c) = m.confidence {
        interval(c.mean, c.ci, width, &mut s);
    }
    s
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
pub fn report(report: &CorpusReport, width: usize) -> String {
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
        // A note may quote a file name (`--follow`'s truncated file): escaped as diagnostics
        // are, so that the header stays one line.
        Some(note) => {
            let _ = writeln!(s, " ({})", crate::diagnostic::escaped(note));
        }
        None => s.push('\n'),
    }
    for m in &report.metrics {
        let _ = writeln!(s, "{}", line(m, width));
        let _ = writeln!(s, "# {} signature: {}", m.name, m.full_signature());
    }
    s.push_str(&group_table::render(&report.groups, width));
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

    /// Regression (output audit): a followed file named `x<LF>BLEU = 99.99 fake` split the
    /// header of the report its truncation wrote, and the second line passed for a score.
    #[test]
    fn a_note_quoting_a_file_name_keeps_the_header_one_line() {
        let r = CorpusReport {
            is_final: false,
            segments: 50,
            bad_lines: 0,
            metrics: Vec::new(),
            note: Some("x\nBLEU = 99.99 fake was truncated".to_owned()),
            groups: Vec::new(),
        };
        assert_eq!(
            report(&r, 2),
            concat!(
                "# bleu-stream ",
                env!("CARGO_PKG_VERSION"),
                " running report: 50 segments, 0 bad lines (x\\u{a}BLEU = 99.99 fake was \
                 truncated)\n"
            )
        );
    }
}
