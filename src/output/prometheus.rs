//! `--prometheus PATH`: the latest corpus report in the Prometheus text exposition format, for
//! node_exporter's textfile collector (which reads `*.prom` files that are replaced atomically).

use std::fmt::Write as _;

use super::CorpusReport;

/// Renders a report: a score gauge per metric (labelled with its name and signature); for a
/// metric with labelled variants (NLTK BLEU's `--weights` sets) a gauge family of its own, one
/// sample per variant (and per group with `--group-by`); counters of segments and bad lines, whether the report is final, and the
/// tool's version.
pub fn render(report: &CorpusReport) -> String {
    let mut s = String::new();
    s.push_str(
        "# HELP bleu_stream_score Corpus score of the segments read so far, in the scale of the \
         reference implementation.\n# TYPE bleu_stream_score gauge\n",
    );
    for m in &report.metrics {
        let _ = writeln!(
            s,
            "bleu_stream_score{{metric=\"{}\",name=\"{}\",signature=\"{}\"}} {}",
            escape(m.key),
            escape(&m.name),
            escape(&m.full_signature()),
            number(m.value)
        );
    }
    // `bleu_stream_score` keeps one sample per metric (the first variant); every variant gets
    // its own sample in a family of its own, so that the label sets within each family stay
    // uniform.
    for g in &report.groups {
        let group = group_labels(g);
        for m in &g.metrics {
            let _ = writeln!(
                s,
                "bleu_stream_score{{metric=\"{}\",name=\"{}\",signature=\"{}\",{group}}} {}",
                escape(m.key),
                escape(&m.name),
                escape(&m.full_signature()),
                number(m.value)
            );
        }
    }
    for (k, m) in report.metrics.iter().enumerate() {
        let Some(variants) = &m.variants else {
            continue;
        };
        let family = format!("bleu_stream_{}_score", m.key.replace('-', "_"));
        let _ = write!(
            s,
            "# HELP {family} Corpus {} of the segments read so far, one sample per --{} \
             set.\n# TYPE {family} gauge\n",
            m.name, variants.label
        );
        for (value, score) in &variants.scores {
            let _ = writeln!(
                s,
                "{family}{{metric=\"{}\",name=\"{}\",signature=\"{}\",{}=\"{}\"}} {}",
                escape(m.key),
                escape(&m.name),
                escape(&m.full_signature()),
                variants.label,
                escape(value),
                number(*score)
            );
        }
        // Each group's variants too (regression, output audit: the groups' second and later
        // `--weights` sets were in no series, though the table and JSONL show them).
        for g in &report.groups {
            let Some(variants) = g.metrics.get(k).and_then(|m| m.variants.as_ref()) else {
                continue;
            };
            let group = group_labels(g);
            for (value, score) in &variants.scores {
                let _ = writeln!(
                    s,
                    "{family}{{metric=\"{}\",name=\"{}\",signature=\"{}\",{}=\"{}\",{group}}} {}",
                    escape(m.key),
                    escape(&g.metrics[k].name),
                    escape(&g.metrics[k].full_signature()),
                    variants.label,
                    escape(value),
                    number(*score)
                );
            }
        }
    }
    let _ = write!(
        s,
        "# HELP bleu_stream_segments_total Segments scored.\n\
         # TYPE bleu_stream_segments_total counter\n\
         bleu_stream_segments_total {}\n\
         # HELP bleu_stream_bad_lines_total Bad input lines, excluded from the scores.\n\
         # TYPE bleu_stream_bad_lines_total counter\n\
         bleu_stream_bad_lines_total {}\n\
         # HELP bleu_stream_final 1 when the input has ended and the report is final.\n\
         # TYPE bleu_stream_final gauge\n\
         bleu_stream_final {}\n\
         # HELP bleu_stream_info The bleu-stream version that wrote this file.\n\
         # TYPE bleu_stream_info gauge\n\
         bleu_stream_info{{version=\"{}\"}} 1\n",
        report.segments,
        report.bad_lines,
        u8::from(report.is_final),
        env!("CARGO_PKG_VERSION"),
    );
    if !report.groups.is_empty() {
        s.push_str(
            "# HELP bleu_stream_group_segments_total Segments scored, per --group-by group.\n\
             # TYPE bleu_stream_group_segments_total counter\n",
        );
        for g in &report.groups {
            let _ = writeln!(
                s,
                "bleu_stream_group_segments_total{{{}}} {}",
                group_labels(g),
                g.segments
            );
        }
        s.push_str(
            "# HELP bleu_stream_group_bad_lines_total Bad lines whose --group-by key could be \
             read, per group.\n# TYPE bleu_stream_group_bad_lines_total counter\n",
        );
        for g in &report.groups {
            let _ = writeln!(
                s,
                "bleu_stream_group_bad_lines_total{{{}}} {}",
                group_labels(g),
                g.bad_lines
            );
        }
    }
    s
}

/// A group's labels: `group="7"`, and for a number key `group_type="number"` as well, so that
/// the JSON number 7 and the string "7" (two groups) stay two series: a repeated label set
/// makes the file invalid for Prometheus' textfile collector. The empty string gets
/// `group_type="empty"`: Prometheus reads a label with an empty value as no label, so
/// `group=""` alone named the overall series (found by the group audit).
fn group_labels(g: &crate::output::GroupReport) -> String {
    let label = g.label();
    let group = escape(&label);
    if g.is_number() {
        format!("group=\"{group}\",group_type=\"number\"")
    } else if label.is_empty() {
        "group=\"\",group_type=\"empty\"".to_owned()
    } else {
        format!("group=\"{group}\"")
    }
}

/// Label values escape `\`, `"` and line feeds.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Go `ParseFloat` syntax: shortest round-trip digits, `NaN`, `+Inf`, `-Inf`.
fn number(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        format!("{x:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(number(34.5), "34.5");
        assert_eq!(number(100.0), "100.0");
        assert_eq!(number(1e-20), "1e-20");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
