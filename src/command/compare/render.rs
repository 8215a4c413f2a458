//! `compare`'s output: sacreBLEU's table as text, or JSON Lines records with full-precision
//! numbers (a header record, then one record per system).

use std::fmt::Write as _;

use serde::ser::{Serialize, Serializer};
use serde::Serialize as DeriveSerialize;

use super::segments::Scored;
use super::{MetricResult, Test};
use crate::metric::pymath::fixed;
use crate::significance::paired::Comparison;

/// sacreBLEU's `(p = 0.0123)`, with `*` when p ≤ 0.05.
pub fn p_text(p: f64) -> String {
    let star = if p <= 0.05 { "*" } else { "" };
    format!("(p = {p:.4}){star}")
}

/// The text table, sacreBLEU's columns: a header line, a row per system, the signatures.
pub fn write_text(
    out: &mut Vec<u8>,
    scored: &Scored,
    test: &Test,
    seed: u64,
    results: &[MetricResult],
    width: usize,
) {
    let what = match test {
        Test::Bootstrap(n) => format!("paired bootstrap resampling, {n} resamples"),
        Test::Randomization(n) => format!("paired approximate randomization, {n} trials"),
    };
    let mut text = format!(
        "# bleu-stream {} compare: {what}, seed {seed}, {} segments, {} against the \
         baseline\n",
        env!("CARGO_PKG_VERSION"),
        scored.segments,
        match scored.names.len() - 1 {
            1 => "1 system".to_owned(),
            n => format!("{n} systems"),
        }
    );
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["System".to_owned()];
    for r in results {
        header.push(match test {
            Test::Bootstrap(_) => format!("{} (μ ± 95% CI)", r.name),
            Test::Randomization(_) => r.name.clone(),
        });
    }
    table.push(header);
    for (s, name) in scored.names.iter().enumerate() {
        // A file name with a line feed (or a bidirectional override) must not break the table.
        let name = crate::diagnostic::escaped(name);
        let mut row = vec![if s == 0 && scored.from_files {
            format!("Baseline: {name}")
        } else {
            name.into_owned()
        }];
        for r in results {
            let c = &r.rows[s];
            // Python's spelling (`nan`, where Rust's `{:.2}` wrote `NaN`): an infinite score's
            // interval is NaN.
            let mut cell = fixed(c.score, width);
            if let Some(i) = &c.interval {
                let _ = write!(cell, " ({} ± {})", fixed(i.mean, width), fixed(i.ci, width));
            }
            if let Some(p) = c.p_value {
                let _ = write!(cell, " {}", p_text(p));
            }
            row.push(cell);
        }
        table.push(row);
    }
    let columns = table[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            table
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            let pad = widths[c] - cell.chars().count();
            line.extend(std::iter::repeat_n(' ', pad));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    for r in results {
        let _ = writeln!(text, "# {} signature: {}", r.name, r.signature);
    }
    text.push_str(
        "# p: how often chance alone gives a difference from the baseline at least this large; \
         * marks p <= 0.05\n",
    );
    out.extend_from_slice(text.as_bytes());
}

/// A JSON object whose keys are metric keys, in the order of `-m` (`serde_json` is built with
/// `preserve_order`; this keeps the order without building a map).
struct ByMetric<T>(Vec<(&'static str, T)>);

impl<T: Serialize> Serialize for ByMetric<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// The first JSONL record: what was run.
#[derive(DeriveSerialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    test: &'static str,
    samples: usize,
    seed: u64,
    segments: usize,
    /// Systems compared with the baseline.
    systems: usize,
    metrics: ByMetric<MetricInfo<'a>>,
    tool: String,
}

#[derive(DeriveSerialize)]
struct MetricInfo<'a> {
    name: &'a str,
    signature: &'a str,
}

/// One system's JSONL record: its name, then one [`Cell`] per metric key.
#[derive(DeriveSerialize)]
struct SystemRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    system: &'a str,
    baseline: bool,
    #[serde(flatten)]
    metrics: ByMetric<Cell>,
}

/// A system's numbers for one metric: `null` where the test has none (the baseline's p-value;
/// means and intervals under --paired-ar, where `lower` and `upper` are left out).
#[derive(DeriveSerialize)]
struct Cell {
    score: f64,
    p_value: Option<f64>,
    mean: Option<f64>,
    ci: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lower: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper: Option<f64>,
}

impl From<&Comparison> for Cell {
    fn from(c: &Comparison) -> Cell {
        Cell {
            score: c.score,
            p_value: c.p_value,
            mean: c.interval.map(|i| i.mean),
            ci: c.interval.map(|i| i.ci),
            lower: c.interval.map(|i| i.lower),
            upper: c.interval.map(|i| i.upper),
        }
    }
}

/// The JSON Lines records: [`Header`], then a [`SystemRecord`] per system, the baseline first.
pub fn write_jsonl(
    out: &mut Vec<u8>,
    scored: &Scored,
    test: &Test,
    seed: u64,
    results: &[MetricResult],
) {
    let header = Header {
        kind: "compare",
        test: test.name(),
        samples: test.samples(),
        seed,
        segments: scored.segments,
        systems: scored.names.len() - 1,
        metrics: ByMetric(
            results
                .iter()
                .map(|r| {
                    let info = MetricInfo {
                        name: &r.name,
                        signature: &r.signature,
                    };
                    (r.key, info)
                })
                .collect(),
        ),
        tool: format!("bleu-stream {}", env!("CARGO_PKG_VERSION")),
    };
    serde_json::to_writer(&mut *out, &header).expect("writing to a Vec");
    out.push(b'\n');
    for (s, name) in scored.names.iter().enumerate() {
        let record = SystemRecord {
            kind: "system",
            system: name,
            baseline: s == 0,
            metrics: ByMetric(
                results
                    .iter()
                    .map(|r| (r.key, Cell::from(&r.rows[s])))
                    .collect(),
            ),
        };
        serde_json::to_writer(&mut *out, &record).expect("writing to a Vec");
        out.push(b'\n');
    }
}
