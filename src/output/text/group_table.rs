//! The text form of `--group-by` reports: after the overall report, a table with one row per
//! group and metric, columns aligned.
//!
//! ```text
//! Group             Metric  Score  Segments  Bad lines
//! Online-B          BLEU    33.25      1984          0
//! Online-B          chrF2   58.28      1984          0
//! JDExploreAcademy  BLEU    33.70      1984          0
//! ```
//!
//! Scores have `--width` decimals (and the interval of `--confidence`, as `-b` prints it); each
//! group's own signature and details are in the JSONL records (`-f jsonl`, `--report-file`).

use std::fmt::Write as _;

use super::score_only;
use crate::output::GroupReport;

/// The table of `groups` (nothing without groups).
pub fn render(groups: &[GroupReport], width: usize) -> String {
    if groups.is_empty() {
        return String::new();
    }
    let header = ["Group", "Metric", "Score", "Segments", "Bad lines"];
    let mut rows: Vec<[String; 5]> = Vec::new();
    let labels: Vec<String> = groups.iter().map(GroupReport::label).collect();
    for (g, label) in groups.iter().zip(&labels) {
        let shared = labels.iter().filter(|l| *l == label).count() > 1;
        let label = if !g.is_number() && (shared || unclear(label)) {
            // The JSON string, quoted and escaped: "7" beside the number 7, "" and " ",
            // a backslash beside an escaped line feed.
            printable(&g.key)
        } else {
            printable(label)
        };
        for m in &g.metrics {
            rows.push([
                label.clone(),
                m.name.clone(),
                // Several `--weights` sets: one cell, the sets as in the report line.
                score_only(m, width).replace('\t', "/"),
                g.segments.to_string(),
                g.bad_lines.to_string(),
            ]);
        }
    }
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut s = String::new();
    let mut line = |cells: [&str; 5]| {
        let mut l = String::new();
        for (i, (cell, &w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                l.push_str("  ");
            }
            let pad = w - cell.chars().count();
            // Text left, numbers right.
            if i < 2 {
                l.push_str(cell);
                l.extend(std::iter::repeat_n(' ', pad));
            } else {
                l.extend(std::iter::repeat_n(' ', pad));
                l.push_str(cell);
            }
        }
        let _ = writeln!(s, "{}", l.trim_end());
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4]]);
    }
    s
}

/// Whether a string key shown bare could be mistaken for another: empty, white space at an
/// end (invisible in the column), or a backslash or control character (whose escapes would
/// look alike).
fn unclear(label: &str) -> bool {
    label.is_empty()
        || label.starts_with(char::is_whitespace)
        || label.ends_with(char::is_whitespace)
        // A quote: the key `"7"` (quotes included) would look like the string 7 shown quoted.
        || label.chars().any(|c| c == '\\' || c == '"' || c.is_control())
}

/// A key with control characters escaped, so that a row stays one line, and bidirectional
/// overrides too (as in diagnostics, [`crate::diagnostic::escaped`]), so that a key cannot
/// reorder the columns after it on a terminal.
fn printable(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for c in label.chars() {
        match (c.is_control(), crate::diagnostic::unsafe_char(c)) {
            (true, _) => out.extend(c.escape_debug()),
            (false, true) => out.extend(c.escape_unicode()),
            (false, false) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::Score;

    fn group(key: &str, value: f64) -> GroupReport {
        let score = Score::new(
            "bleu",
            "BLEU".into(),
            value,
            String::new(),
            Default::default(),
            Vec::new(),
        );
        GroupReport {
            key: key.to_owned(),
            segments: 12,
            bad_lines: 1,
            metrics: vec![score],
        }
    }

    #[test]
    fn rows_are_aligned_and_keys_printable() {
        let table = render(&[group("\"a\\tb\"", 7.5), group("1234567", 10.25)], 2);
        assert_eq!(
            table,
            "Group    Metric  Score  Segments  Bad lines\n\
             \"a\\tb\"   BLEU     7.50        12          1\n\
             1234567  BLEU    10.25        12          1\n"
        );
        assert_eq!(render(&[], 2), "");
        // Regression: a right-to-left override was printed raw.
        let table = render(&[group("\"x\\u202ey\\u2066\"", 1.0)], 2);
        assert!(table.contains("x\\u{202e}y\\u{2066} "), "{table}");
    }

    /// Regression (audit 2026-11-26): keys that are different groups printed alike — the
    /// string "7" and the number 7, "" and " ", a backslash-n and a line feed, and keys with
    /// quotes in them.
    #[test]
    fn different_keys_never_print_alike() {
        let keys = [
            "\"7\"",
            "7",
            "\"\"",
            "\" \"",
            "\"n\\\\nx\"",
            "\"n\\nx\"",
            // Keys with quotes in them (regression, audit 2026-11-27: the string `"7"` printed
            // as the string 7 beside the number 7, and `""` as the empty string).
            "\"\\\"7\\\"\"",
            "\"\\\"\\\"\"",
            "\"plain\"",
        ];
        let groups: Vec<GroupReport> = keys.iter().map(|k| group(k, 1.0)).collect();
        let table = render(&groups, 2);
        let shown: Vec<&str> = table
            .lines()
            .skip(1)
            .map(|l| l.split("  BLEU").next().unwrap().trim_end())
            .collect();
        // Each as its JSON text, but for the one that cannot be mistaken: bare.
        let mut expected = keys.to_vec();
        *expected.last_mut().unwrap() = "plain";
        assert_eq!(shown, expected, "{table}");
    }
}
