//! JSON Lines output: `segment`, `error` and `corpus` records (SPEC §4). Scores are written at
//! full precision (shortest round-trip form of the f64), in the reference tool's scale.

use serde_json::{Map, Value};

use super::CorpusReport;
use crate::input::Segment;
use crate::metric::Score;

/// `{"type":"segment","line":N[,"id":…]` — the metrics follow, then `}`.
pub fn begin_segment(line: u64, segment: &Segment<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"type\":\"segment\",\"line\":");
    out.extend_from_slice(line.to_string().as_bytes());
    if let Some(id) = &segment.id {
        out.extend_from_slice(b",\"id\":");
        out.extend_from_slice(id.get().as_bytes());
    }
}

/// `,"bleu":` — the metric's object follows.
pub fn metric_key(key: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// `{"error":"…"}`: a metric's field when its reference tool has no sentence score.
pub fn error_object(message: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"error\":");
    serde_json::to_writer(&mut *out, message).expect("writing to a Vec cannot fail");
    out.push(b'}');
}

/// `{"type":"error","line":N,"message":"…"}`.
pub fn error_record(line: u64, message: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"type\":\"error\",\"line\":");
    out.extend_from_slice(line.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    serde_json::to_writer(&mut *out, message).expect("writing to a Vec cannot fail");
    out.extend_from_slice(b"}\n");
}

/// `{"type":"corpus","final":…,"segments":…,"bad_lines":…[,"note":…],"<metric>":{…},…,
/// "tool":"bleu-stream X"}`.
pub fn corpus_record(report: &CorpusReport, width: usize, out: &mut Vec<u8>) {
    let mut obj = Map::new();
    obj.insert("type".into(), Value::from("corpus"));
    obj.insert("final".into(), Value::from(report.is_final));
    obj.insert("segments".into(), Value::from(report.segments));
    obj.insert("bad_lines".into(), Value::from(report.bad_lines));
    if let Some(note) = &report.note {
        obj.insert("note".into(), Value::from(note.clone()));
    }
    for m in &report.metrics {
        obj.insert(m.key.to_owned(), Value::Object(score_object(m, width)));
    }
    obj.insert(
        "tool".into(),
        Value::from(concat!("bleu-stream ", env!("CARGO_PKG_VERSION"))),
    );
    serde_json::to_writer(&mut *out, &obj).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

/// `--group-by`: one corpus record per group after the overall one (which
/// [`corpus_record`] writes as without groups), `{"type":"corpus","final":…,"group":VALUE,…}`,
/// in order of first appearance.
pub fn group_records(report: &CorpusReport, width: usize, out: &mut Vec<u8>) {
    for g in &report.groups {
        let mut obj = Map::new();
        obj.insert("segments".into(), Value::from(g.segments));
        obj.insert("bad_lines".into(), Value::from(g.bad_lines));
        for m in &g.metrics {
            obj.insert(m.key.to_owned(), Value::Object(score_object(m, width)));
        }
        obj.insert(
            "tool".into(),
            Value::from(concat!("bleu-stream ", env!("CARGO_PKG_VERSION"))),
        );
        let rest = serde_json::to_string(&obj).expect("numbers serialize");
        out.extend_from_slice(b"{\"type\":\"corpus\",\"final\":");
        out.extend_from_slice(if report.is_final { b"true" } else { b"false" });
        out.extend_from_slice(b",\"group\":");
        // Canonical JSON text of a string or a number ([`crate::input::group`]).
        out.extend_from_slice(g.key.as_bytes());
        out.push(b',');
        out.extend_from_slice(&rest.as_bytes()[1..]);
        out.push(b'\n');
    }
}

/// `-b -f jsonl`: `{"bleu":34.92,"chrf":…}`, each final score at full precision.
pub fn scores_record(report: &CorpusReport, out: &mut Vec<u8>) {
    let obj: Map<String, Value> = report
        .metrics
        .iter()
        .map(|m| {
            let value = match m.set_scores() {
                Some(scores) => Value::from(scores.to_vec()),
                None => Value::from(m.value),
            };
            (m.key.to_owned(), value)
        })
        .collect();
    serde_json::to_writer(&mut *out, &obj).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

/// A metric's object in a corpus record: its fields, then `signature`, `text` and, with
/// `--confidence`, the interval.
pub fn score_object(m: &Score, width: usize) -> Map<String, Value> {
    let mut fields = m.fields.clone();
    fields.insert("signature".into(), Value::from(m.full_signature()));
    fields.insert("text".into(), Value::from(super::text::line(m, width)));
    if let Some(c) = &m.confidence {
        fields.insert(
            "confidence".into(),
            serde_json::to_value(c).expect("numbers serialize"),
        );
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores carry Python's `repr` of the f64 (SPEC §4): serde_json's shortest form rounds
    /// an exact 17-digit tie to even as Python does (10.5555572509765625 → …562), where Rust's
    /// own shortest form does not (see `command::sacrebleu::pyfmt`).
    #[test]
    fn full_precision_numbers_are_pythons_repr() {
        for (x, s) in [
            (f64::from(10.555_557_f32), "10.555557250976562"),
            (0.1 + 0.2, "0.30000000000000004"),
            (33.76106264092923, "33.76106264092923"),
        ] {
            assert_eq!(serde_json::to_string(&x).unwrap(), s);
        }
    }

    #[test]
    fn error_records_escape_messages() {
        let mut out = Vec::new();
        error_record(7, "bad \"x\"\t", &mut out);
        assert_eq!(
            out,
            b"{\"type\":\"error\",\"line\":7,\"message\":\"bad \\\"x\\\"\\t\"}\n"
        );
    }
}
