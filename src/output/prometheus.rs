//! `--prometheus PATH`: the latest corpus report in the Prometheus text exposition format, for
//! node_exporter's textfile collector (which reads `*.prom` files that are replaced atomically).

use std::fmt::Write as _;

use serde_json::Value;

use super::CorpusReport;
use crate::metric::MetricReport;

/// Renders a report: a score gauge per metric (labelled with its name and signature), for
/// `nltk-bleu` a gauge per weight set (`--weights`, labelled `weights="0.5,0.5"`), counters of
/// segments and bad lines, whether the report is final, and the tool's version.
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
            escape(&m.signature),
            number(m.score)
        );
    }
    // `bleu_stream_score` keeps one sample per metric (for nltk-bleu the first weight set, as
    // always); every weight set gets its own sample in a family of its own, so that the label
    // sets within each family stay uniform.
    let weighted: Vec<_> = report
        .metrics
        .iter()
        .filter(|m| m.key == "nltk-bleu")
        .collect();
    if !weighted.is_empty() {
        s.push_str(
            "# HELP bleu_stream_nltk_bleu_score Corpus NLTK BLEU of the segments read so far, one \
             sample per --weights set.\n# TYPE bleu_stream_nltk_bleu_score gauge\n",
        );
        for m in weighted {
            for (weights, score) in weight_sets(m) {
                let _ = writeln!(
                    s,
                    "bleu_stream_nltk_bleu_score{{metric=\"{}\",name=\"{}\",signature=\"{}\",\
                     weights=\"{}\"}} {}",
                    escape(m.key),
                    escape(&m.name),
                    escape(&m.signature),
                    escape(weights),
                    number(score)
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
    s
}

/// The weight sets of an `nltk-bleu` report with their scores, in `--weights` order, each set
/// once (a repeated set would be a duplicate series, which the textfile collector rejects).
/// The sets are the signature's `weights:` field as given on the command line (`;` between
/// sets); the scores are the report's `score` (a list with several sets). A report without a
/// score (NLTK raises) gives NaN for every set.
fn weight_sets(m: &MetricReport) -> Vec<(&str, f64)> {
    let sets: Vec<&str> = m
        .signature
        .split('|')
        .find_map(|field| field.strip_prefix("weights:"))
        .map(|w| w.split(';').collect())
        .unwrap_or_default();
    let scores: Vec<f64> = match m.fields.get("score") {
        Some(Value::Array(list)) => list
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect(),
        _ => vec![m.score; sets.len().min(1)],
    };
    let mut out: Vec<(&str, f64)> = Vec::new();
    for (i, set) in sets.into_iter().enumerate() {
        if out.iter().all(|(w, _)| *w != set) {
            out.push((set, scores.get(i).copied().unwrap_or(f64::NAN)));
        }
    }
    out
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

    fn nltk_report(weights: &str, score: Value) -> MetricReport {
        let mut fields = serde_json::Map::new();
        let first = match &score {
            Value::Array(list) => list[0].as_f64().unwrap(),
            v => v.as_f64().unwrap_or(f64::NAN),
        };
        fields.insert("score".into(), score);
        MetricReport::new(
            "nltk-bleu",
            "NLTK-BLEU".into(),
            first,
            String::new(),
            format!("nrefs:1|case:mixed|tok:split|weights:{weights}|smooth:none|nltk:3.10.4"),
            fields,
        )
    }

    #[test]
    fn weight_sets_pair_each_set_with_its_score_once() {
        let m = nltk_report("0.5,0.5;1,0;0.5,0.5", serde_json::json!([0.75, 1, 0.75]));
        assert_eq!(weight_sets(&m), vec![("0.5,0.5", 0.75), ("1,0", 1.0)]);
        let m = nltk_report("0.25,0.25,0.25,0.25", serde_json::json!(0.5));
        assert_eq!(weight_sets(&m), vec![("0.25,0.25,0.25,0.25", 0.5)]);
        // NLTK raised: no score, NaN for every set.
        let m = nltk_report("0.5,0.5;1", Value::Null);
        let sets = weight_sets(&m);
        assert_eq!(sets.len(), 2);
        assert!(sets.iter().all(|(_, x)| x.is_nan()), "{sets:?}");
    }
}
