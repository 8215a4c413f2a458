//! Stats documents (SPEC §7): the summed statistics of a shard, written by `--emit stats` and
//! summed by `bleu-stream merge`, so that `parallel --pipe`, Hadoop Streaming or Spark
//! `rdd.pipe` give exactly the score of one process over the whole input.
//!
//! A document is one JSON object (one line):
//!
//! ```text
//! {"format":"bleu-stream-stats","version":1,"tool":"bleu-stream 0.1.0",
//!  "segments":N,"bad_lines":B,
//!  "metrics":[{"key":"bleu","options":["--tokenize=13a",…],"signature":"nrefs:1|…","stats":{…}}],
//!  "resampling":{…}}                       (only with --confidence, see `significance`)
//! ```
//!
//! `options` are the metric's settings as canonical command-line options (every option
//! explicit): two shards merge only when their metric keys and options are equal, and `merge`
//! rebuilds each metric from them. `stats` holds integers only (NIST: its n-gram table in id
//! order), whatever each metric's [`Metric::save_totals`](crate::metric::Metric::save_totals)
//! writes. Shards are merged in the order given, which is the input order for `parallel -k`;
//! sums do not depend on it, and the one metric whose internal ids do (NIST) comes out as one
//! run would build it when the order is kept.

use std::any::Any;

use serde_json::{json, Map, Value};

use crate::confidence::Resampler;
use crate::metric::DynMetric;
use crate::output::CorpusReport;

/// The `format` of a stats document.
pub const FORMAT: &str = "bleu-stream-stats";
/// The version of the document layout; documents of another version are refused.
pub const VERSION: u64 = 1;

/// The tool that wrote a document (informational).
const TOOL: &str = concat!("bleu-stream ", env!("CARGO_PKG_VERSION"));

/// What a run (or a merge) has summed: the contents of a stats document.
pub struct Sums<'a> {
    pub metrics: &'a [Box<dyn DynMetric>],
    pub totals: &'a [Box<dyn Any + Send>],
    /// Per metric, its canonical options.
    pub options: &'a [Vec<String>],
    /// The framing the lines were read with ([`crate::input::Framing::record`]).
    pub framing: Option<&'a Value>,
    pub segments: u64,
    pub bad_lines: u64,
    pub resampler: Option<&'a Resampler>,
}

impl Sums<'_> {
    /// The stats document. `Err` when a metric's totals cannot be merged exactly
    /// ([`DynMetric::totals_refusal`]).
    pub fn document(&self, width: usize) -> Result<Map<String, Value>, String> {
        let mut parts = Vec::with_capacity(self.metrics.len());
        for ((m, t), opts) in self.metrics.iter().zip(self.totals).zip(self.options) {
            if let Some(why) = m.totals_refusal(t.as_ref()) {
                return Err(format!("cannot emit mergeable statistics: {why}"));
            }
            parts.push(json!({
                "key": m.key(),
                "options": opts,
                "signature": m.report(t.as_ref(), width).signature,
                "stats": m.save_totals(t.as_ref()),
            }));
        }
        let mut doc = Map::new();
        doc.insert("format".into(), Value::from(FORMAT));
        doc.insert("version".into(), Value::from(VERSION));
        doc.insert("tool".into(), Value::from(TOOL));
        doc.insert(
            "framing".into(),
            self.framing.cloned().unwrap_or(Value::Null),
        );
        doc.insert("segments".into(), Value::from(self.segments));
        doc.insert("bad_lines".into(), Value::from(self.bad_lines));
        doc.insert("metrics".into(), Value::from(parts));
        if let Some(r) = self.resampler {
            doc.insert("resampling".into(), r.save(self.metrics));
        }
        Ok(doc)
    }
}

/// `TSV with 2 references`, for messages.
fn describe_framing(f: &Value) -> String {
    let input = f.get("input").and_then(Value::as_str).unwrap_or("?");
    match f.get("refs") {
        Some(Value::Number(n)) => format!(
            "{input} with {n} reference{}",
            if n.as_u64() == Some(1) { "" } else { "s" }
        ),
        Some(Value::String(s)) if s == "any" => format!("{input} with any number of references"),
        _ => input.to_owned(),
    }
}

/// The header of a document, checked.
struct Header<'a> {
    keys: Vec<&'a str>,
    options: Vec<Vec<String>>,
    segments: u64,
    bad_lines: u64,
    parts: &'a [Value],
}

fn header(doc: &Value) -> Result<Header<'_>, String> {
    let obj = doc
        .as_object()
        .ok_or("not a stats document (not a JSON object)")?;
    if obj.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(format!(
            "not a stats document (no \"format\": \"{FORMAT}\"; write one with --emit stats)"
        ));
    }
    match obj.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => {
            return Err(format!(
                "stats format version {v}, but this bleu-stream reads version {VERSION}"
            ))
        }
        None => return Err("stats document without a version".to_owned()),
    }
    let count = |key: &str| {
        obj.get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("stats document without \"{key}\""))
    };
    let parts = obj
        .get("metrics")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("stats document without metrics")?;
    let mut keys = Vec::new();
    let mut options = Vec::new();
    for p in parts {
        keys.push(
            p.get("key")
                .and_then(Value::as_str)
                .ok_or("metric statistics without a key")?,
        );
        let opts: Vec<String> = p
            .get("options")
            .and_then(|o| serde_json::from_value(o.clone()).ok())
            .ok_or("metric statistics without options")?;
        options.push(opts);
    }
    Ok(Header {
        keys,
        options,
        segments: count("segments")?,
        bad_lines: count("bad_lines")?,
        parts,
    })
}

/// Builds metrics from their keys and canonical options (the command line's job).
pub type Builder<'b> =
    dyn Fn(&[String], &[Vec<String>]) -> Result<Vec<Box<dyn DynMetric>>, String> + 'b;

/// Stats documents summed so far.
pub struct Merged {
    pub keys: Vec<String>,
    pub options: Vec<Vec<String>>,
    pub metrics: Vec<Box<dyn DynMetric>>,
    pub totals: Vec<Box<dyn Any + Send>>,
    pub segments: u64,
    pub bad_lines: u64,
    /// The documents' resampling parts (`--confidence`), merged.
    pub resampler: Option<Resampler>,
    /// The framing every document was read with (`None`: no document's lines decided one).
    pub framing: Option<Value>,
}

impl Merged {
    /// Starts from the first document: its metrics and settings are what every other document
    /// must have.
    pub fn new(first: &Value, build: &Builder<'_>) -> Result<Merged, String> {
        let h = header(first)?;
        let keys: Vec<String> = h.keys.iter().map(|k| (*k).to_owned()).collect();
        let metrics = build(&keys, &h.options)?;
        if let Some(why) = metrics.iter().find_map(|m| m.merge_refusal()) {
            return Err(format!("cannot merge: {why}"));
        }
        let totals = metrics.iter().map(|m| m.new_totals()).collect();
        let resampler = match first.get("resampling") {
            None => None,
            Some(saved) => Some(Resampler::new(Resampler::saved_settings(saved)?, &metrics)?),
        };
        Ok(Merged {
            resampler,
            framing: None,
            keys,
            options: h.options,
            metrics,
            totals,
            segments: 0,
            bad_lines: 0,
        })
    }

    /// Adds a document whose segments follow everything added so far.
    pub fn add(&mut self, doc: &Value) -> Result<(), String> {
        let h = header(doc)?;
        if h.keys != self.keys {
            return Err(format!(
                "metrics {} differ from the first document's {}",
                h.keys.join(","),
                self.keys.join(",")
            ));
        }
        for ((key, mine), theirs) in self.keys.iter().zip(&self.options).zip(&h.options) {
            if mine != theirs {
                let differ: Vec<&String> = theirs
                    .iter()
                    .filter(|o| !mine.contains(o))
                    .chain(mine.iter().filter(|o| !theirs.contains(o)))
                    .collect();
                let differ: Vec<&str> = differ.iter().map(|s| s.as_str()).collect();
                return Err(format!(
                    "{key} settings differ from the first document's ({}): statistics of \
                     different settings do not add up",
                    differ.join(" ")
                ));
            }
        }
        match (&self.framing, doc.get("framing").filter(|f| !f.is_null())) {
            (Some(mine), Some(theirs)) if mine != theirs => {
                return Err(format!(
                    "its input was framed as {}, the earlier documents' as {}; one run over \
                     the whole input frames every line alike (give every shard explicit \
                     --input and --refs)",
                    describe_framing(theirs),
                    describe_framing(mine)
                ))
            }
            (None, Some(theirs)) => self.framing = Some(theirs.clone()),
            _ => {}
        }
        match (&mut self.resampler, doc.get("resampling")) {
            (None, None) => {}
            (Some(r), Some(saved)) => r.merge_saved(&self.metrics, saved)?,
            (Some(_), None) => {
                return Err("no resampling statistics (written without --confidence), \
                            unlike the first document"
                    .to_owned())
            }
            (None, Some(_)) => {
                return Err("resampling statistics (written with --confidence), unlike \
                            the first document"
                    .to_owned())
            }
        }
        for ((m, t), part) in self.metrics.iter().zip(&mut self.totals).zip(h.parts) {
            let stats = part
                .get("stats")
                .ok_or_else(|| format!("{} statistics missing", m.key()))?;
            m.merge_saved(t.as_mut(), stats)?;
        }
        self.segments += h.segments;
        self.bad_lines += h.bad_lines;
        Ok(())
    }

    /// The corpus report of everything merged.
    pub fn report(&self, width: usize) -> CorpusReport {
        CorpusReport {
            is_final: true,
            segments: self.segments,
            bad_lines: self.bad_lines,
            metrics: crate::confidence::metric_reports(
                &self.metrics,
                &self.totals,
                self.resampler.as_ref(),
                true,
                width,
            ),
            note: None,
        }
    }

    /// Why the merged totals are not exact, if so (see [`DynMetric::totals_refusal`]).
    pub fn refusal(&self) -> Option<String> {
        self.metrics
            .iter()
            .zip(&self.totals)
            .find_map(|(m, t)| m.totals_refusal(t.as_ref()))
    }

    /// The merged statistics as one document (tree-shaped merges: merge the merges).
    pub fn document(&self, width: usize) -> Result<Map<String, Value>, String> {
        Sums {
            metrics: &self.metrics,
            totals: &self.totals,
            options: &self.options,
            framing: self.framing.as_ref(),
            segments: self.segments,
            bad_lines: self.bad_lines,
            resampler: self.resampler.as_ref(),
        }
        .document(width)
    }
}
