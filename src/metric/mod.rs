//! Metrics: per-segment **statistics** (computed on worker threads) separated from **scoring**
//! (a pure function of statistics and settings), as every reference implementation allows:
//! corpus scores come from summed statistics, never from averaged sentence scores.
//!
//! A metric implements the typed [`Metric`] trait in a file of its own; the pipeline sees it
//! through the object-safe [`DynMetric`], which every `Metric` gets for free. Adding a metric is
//! adding a file and one line in [`build`].

pub mod bleu;
pub mod chrf;
pub mod gleu;
pub mod mteval_bleu;
pub mod multi_bleu;
pub mod nist;
pub mod nltk_bleu;
pub mod nltk_chrf;
pub mod pymath;

use std::any::Any;

use serde_json::{Map, Value};

use crate::input::Segment;

/// A metric, typed: what one segment yields, what a corpus sums, and the scratch space of a worker.
pub trait Metric: Send + Sync + 'static {
    /// Statistics of one segment (integers for every metric so far).
    type Stats: Send + 'static;
    /// Running corpus totals.
    type Totals: Send + 'static;
    /// Per-worker reusable buffers (tokenizer and n-gram scratch).
    type Workspace: Default + Send + 'static;

    /// The metric's `--metrics` name and JSON key, e.g. `bleu`.
    fn key(&self) -> &'static str;
    /// Computes the statistics of one well-formed segment.
    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut Self::Workspace) -> Self::Stats;
    /// Appends the sentence score, formatted with `width` decimals, to a text row.
    ///
    /// `Err` when the reference implementation has no sentence score for these statistics (it
    /// raises, e.g. NLTK's division by zero): the caller discards anything written, leaves the
    /// field empty and reports the message; the statistics still count for the corpus.
    fn write_sentence_text(
        &self,
        stats: &Self::Stats,
        width: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), String>;
    /// Appends the sentence score as a JSON object (full precision) to a JSONL record; `Err` as
    /// for [`write_sentence_text`](Metric::write_sentence_text).
    fn write_sentence_json(&self, stats: &Self::Stats, out: &mut Vec<u8>) -> Result<(), String>;
    /// Empty totals.
    fn new_totals(&self) -> Self::Totals;
    /// Adds one segment's statistics to the totals.
    fn add(&self, totals: &mut Self::Totals, stats: &Self::Stats);
    /// Scores the totals: a corpus report.
    fn report(&self, totals: &Self::Totals, width: usize) -> MetricReport;
    /// Number of tab-separated fields the metric writes in a text row (NLTK BLEU with several
    /// weight vectors writes one score per vector); empty rows keep this many fields.
    fn columns(&self) -> usize {
        1
    }

    /// Mergeable statistics (SPEC §7): the totals as JSON, integers only, so that a shard's
    /// statistics can be written (`--emit stats`) and summed elsewhere (`merge`).
    fn save_totals(&self, totals: &Self::Totals) -> Value;
    /// Adds totals written by [`save_totals`](Metric::save_totals) of a shard that **follows**
    /// everything added so far (shards are merged in input order, so order-sensitive parts such
    /// as NIST's table ids stay exactly as one run builds them). `Err` for a malformed document.
    fn merge_saved(&self, totals: &mut Self::Totals, saved: &Value) -> Result<(), String>;
    /// Why this metric's totals cannot be split and merged exactly with these settings, if so:
    /// the reference tool itself depends on segment order (NLTK smoothing methods 5–7 read the
    /// last sentence; NLTK `corpus_chrf` is a sequential float sum).
    fn merge_refusal(&self) -> Option<String> {
        None
    }
    /// Why the totals built so far cannot be merged exactly, if so (checked when they are
    /// written): e.g. a float sum that was rounded, so its shard sums would round differently.
    fn totals_refusal(&self, _totals: &Self::Totals) -> Option<String> {
        None
    }

    /// Resampling (bootstrap confidence intervals, paired tests): the number of integers of the
    /// fixed-width vector form of a segment's statistics, whose element-wise sum over any
    /// multiset of segments scores like those segments' totals. `None`: the metric cannot be
    /// resampled (its totals are not a fixed integer vector, or they depend on order).
    fn vector_len(&self) -> Option<usize> {
        None
    }
    /// Writes the vector form of `stats` into `out` (`vector_len` long).
    fn stats_vector(&self, _stats: &Self::Stats, _out: &mut [u64]) {
        unreachable!("stats_vector of a metric without a vector form")
    }
    /// The corpus score of summed vectors, in the metric's scale.
    fn score_vector(&self, _sums: &[u64]) -> f64 {
        unreachable!("score_vector of a metric without a vector form")
    }
}

/// A corpus score ready to print in any output format.
#[derive(Clone, Debug)]
pub struct MetricReport {
    /// The metric's key (`bleu`), naming its object in JSON reports.
    pub key: &'static str,
    /// Display name, e.g. `BLEU`.
    pub name: String,
    /// The score, in the reference implementation's scale.
    pub score: f64,
    /// The reference tool's one-line text form, e.g. `BLEU = 34.92 64.8/40.9/… (BP = …)`.
    pub text: String,
    /// The reference tool's signature, e.g. `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`.
    pub signature: String,
    /// All fields at full precision, for JSON output (`score`, `signature`, `text` included).
    pub fields: Map<String, Value>,
    /// The confidence interval, with `--confidence`.
    pub confidence: Option<Confidence>,
}

/// A confidence interval from resampling segments (`--confidence`), as sacreBLEU reports it:
/// the mean of the resampled scores and the half-width of the 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Confidence {
    /// `bootstrap` (resampling with replacement, sacreBLEU's) or `poisson` (online).
    pub method: &'static str,
    pub samples: usize,
    pub seed: u64,
    pub mean: f64,
    /// Half-width: `(upper − lower) / 2`.
    pub ci: f64,
    /// The 2.5% and 97.5% resampled scores (sacreBLEU's indices `n/40` and `n − n/40 − 1`).
    pub lower: f64,
    pub upper: f64,
}

impl Confidence {
    /// sacreBLEU's ` (μ = 34.7 ± 3.0)`, both numbers with `width` decimals.
    pub fn text(&self, width: usize) -> String {
        format!(
            " (\u{3bc} = {:.width$} \u{b1} {:.width$})",
            self.mean, self.ci
        )
    }
}

impl MetricReport {
    /// A report whose JSON `fields` end with `signature` and `text` (every metric's layout).
    pub fn new(
        key: &'static str,
        name: String,
        score: f64,
        text: String,
        signature: String,
        mut fields: Map<String, Value>,
    ) -> MetricReport {
        fields.insert("signature".into(), Value::from(signature.clone()));
        fields.insert("text".into(), Value::from(text.clone()));
        MetricReport {
            key,
            name,
            score,
            text,
            signature,
            fields,
            confidence: None,
        }
    }

    /// Adds a confidence interval the way sacreBLEU shows it: ` (μ = mean ± ci)` right after
    /// the score in the text line, `bs:N|seed:S|` after `nrefs` in the signature (plus
    /// `resample:poisson` for the online variant, which sacreBLEU does not have), and a
    /// `confidence` object in JSON.
    pub fn set_confidence(&mut self, c: Confidence, width: usize) {
        if let Some(at) = self.text.find(" = ") {
            let start = at + 3;
            let end = self.text[start..]
                .find([' ', ','])
                .map_or(self.text.len(), |i| start + i);
            self.text.insert_str(end, &c.text(width));
        }
        let mut extra = format!("bs:{}|seed:{}", c.samples, c.seed);
        if c.method != "bootstrap" {
            extra.push_str("|resample:");
            extra.push_str(c.method);
        }
        self.signature = match self.signature.split_once('|') {
            Some((first, rest)) if first.starts_with("nrefs:") => format!("{first}|{extra}|{rest}"),
            _ => format!("{extra}|{}", self.signature),
        };
        self.fields
            .insert("signature".into(), Value::from(self.signature.clone()));
        self.fields
            .insert("text".into(), Value::from(self.text.clone()));
        let mut obj = Map::new();
        obj.insert("method".into(), Value::from(c.method));
        obj.insert("samples".into(), Value::from(c.samples));
        obj.insert("seed".into(), Value::from(c.seed));
        obj.insert("mean".into(), Value::from(c.mean));
        obj.insert("ci".into(), Value::from(c.ci));
        obj.insert("lower".into(), Value::from(c.lower));
        obj.insert("upper".into(), Value::from(c.upper));
        self.fields.insert("confidence".into(), Value::from(obj));
        self.confidence = Some(c);
    }
}

/// What the pipeline needs of a metric, with the types erased.
///
/// Batches carry one `Box<dyn Any>` per metric holding a `Vec<Stats>`, so the type erasure costs
/// one allocation per batch, not per segment.
pub trait DynMetric: Send + Sync {
    /// See [`Metric::key`].
    fn key(&self) -> &'static str;
    /// A fresh workspace for one worker thread.
    fn new_workspace(&self) -> Box<dyn Any + Send>;
    /// An empty per-batch statistics vector.
    fn new_batch(&self, capacity: usize) -> Box<dyn Any + Send>;
    /// Computes one segment's statistics, appends them to `batch` and writes its row field.
    /// Returns the message of a sentence score the reference tool would not produce (the field
    /// is then empty in text rows and `{"error": …}` in JSONL).
    fn score(
        &self,
        segment: &Segment<'_>,
        ws: &mut (dyn Any + Send),
        batch: &mut (dyn Any + Send),
        row: RowStyle,
        out: &mut Vec<u8>,
    ) -> Option<String>;
    /// Empty corpus totals.
    fn new_totals(&self) -> Box<dyn Any + Send>;
    /// Adds entry `index` of `batch` to `totals`.
    fn accumulate(&self, totals: &mut (dyn Any + Send), batch: &(dyn Any + Send), index: usize);
    /// See [`Metric::report`].
    fn report(&self, totals: &(dyn Any + Send), width: usize) -> MetricReport;
    /// See [`Metric::columns`].
    fn columns(&self) -> usize;
    /// See [`Metric::save_totals`].
    fn save_totals(&self, totals: &(dyn Any + Send)) -> Value;
    /// See [`Metric::merge_saved`].
    fn merge_saved(&self, totals: &mut (dyn Any + Send), saved: &Value) -> Result<(), String>;
    /// See [`Metric::merge_refusal`].
    fn merge_refusal(&self) -> Option<String>;
    /// See [`Metric::totals_refusal`].
    fn totals_refusal(&self, totals: &(dyn Any + Send)) -> Option<String>;
    /// See [`Metric::vector_len`].
    fn vector_len(&self) -> Option<usize>;
    /// Writes the vector form of entry `index` of `batch` (see [`Metric::stats_vector`]).
    fn batch_vector(&self, batch: &(dyn Any + Send), index: usize, out: &mut [u64]);
    /// See [`Metric::score_vector`].
    fn score_vector(&self, sums: &[u64]) -> f64;
}

/// How a worker renders a sentence score into the row of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStyle {
    /// No row (score-only or corpus-only output): statistics only.
    None,
    /// Text with this many decimals.
    Text(usize),
    /// A JSON object.
    Json,
}

const TYPE_MISMATCH: &str = "metric state of a different metric type (pipeline bug)";

impl<M: Metric> DynMetric for M {
    fn key(&self) -> &'static str {
        Metric::key(self)
    }

    fn new_workspace(&self) -> Box<dyn Any + Send> {
        Box::<M::Workspace>::default()
    }

    fn new_batch(&self, capacity: usize) -> Box<dyn Any + Send> {
        Box::new(Vec::<M::Stats>::with_capacity(capacity))
    }

    fn score(
        &self,
        segment: &Segment<'_>,
        ws: &mut (dyn Any + Send),
        batch: &mut (dyn Any + Send),
        row: RowStyle,
        out: &mut Vec<u8>,
    ) -> Option<String> {
        let ws = ws.downcast_mut::<M::Workspace>().expect(TYPE_MISMATCH);
        let batch = batch.downcast_mut::<Vec<M::Stats>>().expect(TYPE_MISMATCH);
        let stats = self.segment_stats(segment, ws);
        let start = out.len();
        let result = match row {
            RowStyle::None => Ok(()),
            RowStyle::Text(width) => self.write_sentence_text(&stats, width, out),
            RowStyle::Json => self.write_sentence_json(&stats, out),
        };
        batch.push(stats);
        match result {
            Ok(()) => None,
            Err(message) => {
                out.truncate(start);
                if let RowStyle::Text(_) = row {
                    // Keep the row's columns aligned: one empty field per column.
                    out.extend(std::iter::repeat_n(
                        b'\t',
                        Metric::columns(self).saturating_sub(1),
                    ));
                }
                if row == RowStyle::Json {
                    out.extend_from_slice(b"{\"error\":");
                    serde_json::to_writer(&mut *out, &message).expect("writing to a Vec");
                    out.push(b'}');
                }
                Some(message)
            }
        }
    }

    fn new_totals(&self) -> Box<dyn Any + Send> {
        Box::new(Metric::new_totals(self))
    }

    fn accumulate(&self, totals: &mut (dyn Any + Send), batch: &(dyn Any + Send), index: usize) {
        let totals = totals.downcast_mut::<M::Totals>().expect(TYPE_MISMATCH);
        let batch = batch.downcast_ref::<Vec<M::Stats>>().expect(TYPE_MISMATCH);
        self.add(totals, &batch[index]);
    }

    fn report(&self, totals: &(dyn Any + Send), width: usize) -> MetricReport {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::report(self, totals, width)
    }

    fn columns(&self) -> usize {
        Metric::columns(self)
    }

    fn save_totals(&self, totals: &(dyn Any + Send)) -> Value {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::save_totals(self, totals)
    }

    fn merge_saved(&self, totals: &mut (dyn Any + Send), saved: &Value) -> Result<(), String> {
        let totals = totals.downcast_mut::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::merge_saved(self, totals, saved)
    }

    fn merge_refusal(&self) -> Option<String> {
        Metric::merge_refusal(self)
    }

    fn totals_refusal(&self, totals: &(dyn Any + Send)) -> Option<String> {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::totals_refusal(self, totals)
    }

    fn vector_len(&self) -> Option<usize> {
        Metric::vector_len(self)
    }

    fn batch_vector(&self, batch: &(dyn Any + Send), index: usize, out: &mut [u64]) {
        let batch = batch.downcast_ref::<Vec<M::Stats>>().expect(TYPE_MISMATCH);
        self.stats_vector(&batch[index], out);
    }

    fn score_vector(&self, sums: &[u64]) -> f64 {
        Metric::score_vector(self, sums)
    }
}

/// Reading saved totals (`merge`): small helpers that turn a malformed document into a message.
pub mod saved {
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    /// Field `key` of the saved object, deserialized.
    pub fn field<T: DeserializeOwned>(saved: &Value, key: &str) -> Result<T, String> {
        let value = saved
            .get(key)
            .ok_or_else(|| format!("statistics without \"{key}\""))?;
        T::deserialize(value).map_err(|e| format!("statistics field \"{key}\": {e}"))
    }

    /// Adds `other` to `into` element-wise; both must have the same length.
    pub fn add_counts(into: &mut [u64], other: &[u64], what: &str) -> Result<(), String> {
        if into.len() != other.len() {
            return Err(format!(
                "{what}: {} numbers where {} were expected",
                other.len(),
                into.len()
            ));
        }
        for (t, o) in into.iter_mut().zip(other) {
            *t = t
                .checked_add(*o)
                .ok_or_else(|| format!("{what}: sum overflows 64 bits"))?;
        }
        Ok(())
    }
}

/// Settings of every metric, as given on the command line.
#[derive(Clone, Debug)]
pub struct MetricOptions {
    /// BLEU settings (sacreBLEU family).
    pub bleu: bleu::BleuConfig,
    /// chrF settings (sacreBLEU family).
    pub chrf: chrf::ChrfConfig,
    /// NLTK BLEU settings (`nltk-bleu`, also MATLAB semantics).
    pub nltk_bleu: nltk_bleu::NltkBleuConfig,
    /// multi-bleu.perl settings (`multi-bleu`).
    pub multi_bleu: multi_bleu::MultiBleuConfig,
    /// NLTK GLEU settings (`gleu`).
    pub gleu: gleu::GleuConfig,
    /// NLTK chrF settings (`nltk-chrf`).
    pub nltk_chrf: nltk_chrf::NltkChrfConfig,
    /// NIST settings (`nist`: mteval-v13a, or NLTK).
    pub nist: nist::NistConfig,
    /// mteval-v13a BLEU settings (`mteval-bleu`).
    pub mteval_bleu: mteval_bleu::MtevalBleuConfig,
}

/// Names accepted by `--metrics`.
pub const METRIC_NAMES: [&str; 8] = [
    "bleu",
    "chrf",
    "nltk-bleu",
    "multi-bleu",
    "nltk-chrf",
    "gleu",
    "nist",
    "mteval-bleu",
];

/// Builds the metrics named in `names`, in the order given.
pub fn build(names: &[String], options: &MetricOptions) -> Result<Vec<Box<dyn DynMetric>>, String> {
    let mut metrics: Vec<Box<dyn DynMetric>> = Vec::new();
    for name in names {
        let metric: Box<dyn DynMetric> = match name.as_str() {
            "bleu" => Box::new(bleu::Bleu::new(options.bleu.clone())),
            "chrf" => Box::new(chrf::Chrf::new(options.chrf.clone())),
            "nltk-bleu" => Box::new(nltk_bleu::NltkBleu::new(options.nltk_bleu.clone())?),
            "multi-bleu" => Box::new(multi_bleu::MultiBleu::new(options.multi_bleu)),
            "nltk-chrf" => Box::new(nltk_chrf::NltkChrf::new(options.nltk_chrf)),
            "gleu" => Box::new(gleu::Gleu::new(options.gleu)),
            "nist" => Box::new(nist::Nist::new(options.nist)),
            "mteval-bleu" => Box::new(mteval_bleu::MtevalBleu::new(options.mteval_bleu)),
            other => {
                return Err(format!(
                    "unknown metric '{other}' (available: {})",
                    METRIC_NAMES.join(", ")
                ))
            }
        };
        if metrics.iter().any(|m| m.key() == metric.key()) {
            return Err(format!("metric '{name}' given twice"));
        }
        metrics.push(metric);
    }
    if metrics.is_empty() {
        return Err("no metric selected".to_owned());
    }
    Ok(metrics)
}

/// Writes `x` as a JSON number at full (shortest round-trip) precision; NaN and infinities,
/// which JSON cannot carry, become `null`.
pub fn write_json_f64(out: &mut Vec<u8>, x: f64) {
    serde_json::to_writer(&mut *out, &x).expect("writing to a Vec cannot fail");
}
