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

use unicode_width::UnicodeWidthStr;

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
    let mut widths = header.map(UnicodeWidthStr::width);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let mut s = String::new();
    let mut line = |cells: [&str; 5]| {
        let mut l = String::new();
        for (i, (cell, &w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                l.push_str("  ");
            }
            // Terminal columns, not characters: a CJK system name takes two a character.
            let pad = w - cell.width();
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
/// end (invisible in the column), a backslash (whose escapes would look alike), or a character
/// that [`hidden`] shows escaped.
fn unclear(label: &str) -> bool {
    label.is_empty()
        || label.starts_with(char::is_whitespace)
        || label.ends_with(char::is_whitespace)
        // A quote: the key `"7"` (quotes included) would look like the string 7 shown quoted.
        || label.chars().any(|c| c == '\\' || c == '"' || hidden(c))
}

/// A character a key cannot show raw in a table cell: a control character (a row must stay
/// one line), a bidirectional embedding, override or isolate (it would reorder the columns
/// after it, [`crate::diagnostic::unsafe_char`]), white space other than the ASCII space
/// (U+00A0 or U+2028 in `a b` looks like a space or breaks the line), or a default-ignorable
/// code point (Unicode's `Default_Ignorable_Code_Point`: zero-width spaces and joiners, the
/// byte order mark, variation selectors…), which a terminal shows as nothing, so that
/// `sys\u{200b}A` printed like `sysA` (group audit).
fn hidden(c: char) -> bool {
    crate::diagnostic::unsafe_char(c)
        || (c.is_whitespace() && c != ' ')
        || matches!(c,
            '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}'..='\u{1160}' | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
            | '\u{ffa0}' | '\u{fff0}'..='\u{fff8}' | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// A key's JSON text with every [`hidden`] character written as a JSON `\uXXXX` escape (a
/// surrogate pair above U+FFFF), so that the cell stays valid JSON for the same string.
fn printable(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
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
        // Regression: a right-to-left override was printed raw, and then in Rust's escapes
        // without quotes.
        let table = render(&[group("\"x\u{202e}y\u{2066}\"", 1.0)], 2);
        assert!(table.contains("\"x\\u202ey\\u2066\" "), "{table}");
    }

    /// Columns line up on a terminal with wide characters in a key (group audit: CJK names
    /// pushed the columns after them one place per character).
    #[test]
    fn wide_characters_take_two_columns() {
        let table = render(&[group("\"東京\"", 1.0), group("\"abcd\"", 2.0)], 2);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[1], "東京   BLEU     1.00        12          1",
            "{table}"
        );
        assert_eq!(
            lines[2], "abcd   BLEU     2.00        12          1",
            "{table}"
        );
    }

    /// Regression (group audit): keys with invisible characters printed like the plain key
    /// (a zero-width space, a byte order mark), or broke the row (U+2028).
    #[test]
    fn invisible_characters_are_escaped_in_quotes() {
        for (key, shown) in [
            ("\"sys\u{200b}A\"", "\"sys\\u200bA\""),
            ("\"\u{feff}sysA\"", "\"\\ufeffsysA\""),
            ("\"a\u{2028}b\"", "\"a\\u2028b\""),
            ("\"a\u{a0}b\"", "\"a\\u00a0b\""),
            ("\"a\u{7f}\"", "\"a\\u007f\""),
            ("\"t\u{e0041}\"", "\"t\\udb40\\udc41\""),
        ] {
            let table = render(&[group(key, 1.0), group("\"sysA\"", 2.0)], 2);
            assert!(table.contains(&format!("{shown} ")), "{key}: {table}");
            let decoded: String = serde_json::from_str(shown).unwrap();
            assert_eq!(decoded, serde_json::from_str::<String>(key).unwrap());
        }
        // A plain key, and one with a visible non-ASCII letter, stay bare.
        let table = render(&[group("\"sysA\"", 1.0), group("\"Übersetzer\"", 1.0)], 2);
        assert!(
            table.contains("\nsysA ") && table.contains("\nÜbersetzer "),
            "{table}"
        );
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
