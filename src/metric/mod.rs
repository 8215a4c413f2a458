//! Metrics: per-segment **statistics** (computed on worker threads) separated from **scoring**
//! (a pure function of statistics and settings), as every reference implementation allows:
//! corpus scores come from summed statistics, never from averaged sentence scores.
//!
//! A metric implements the typed [`Metric`] trait in a module of its own and is listed once in
//! [`registry`]; everything else — the scoring command, `--emit stats` and `merge`, `compare`
//! and `--confidence`, every output format — reaches it through the registry and the type-erased
//! [`DynMetric`], which every `Metric` gets for free. Metrics compute; they never format:
//! sentence scores are numbers or serde records, corpus scores are [`Score`] values, and
//! `output/` renders both.

pub mod bleu;
pub mod chrf;
mod dynamic;
pub mod gleu;
pub mod mteval_bleu;
pub mod multi_bleu;
pub mod nist;
pub mod nltk_bleu;
pub mod nltk_chrf;
pub mod options;
pub mod pymath;
pub mod registry;
pub mod score;
pub mod ter;

pub use dynamic::{smallest_batch, DynMetric};
pub use registry::{build, REGISTRY};
pub use score::{Confidence, Piece, Score, Variants};

use serde::Serialize;
use serde_json::Value;

use crate::input::Segment;

/// The n-gram orders a metric's settings count ([`Metric::ngram_orders`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NgramOrders {
    /// Orders counted.
    pub orders: usize,
    /// Orders counted at the defaults of the metric's family, up to which a line may take the
    /// whole `--max-line-bytes`: 5 for word n-grams (BLEU's 4, NIST's 5), more for chrF.
    pub base: usize,
    /// The option that asks for them (`--gleu-max-len 1024`).
    pub option: String,
}

impl NgramOrders {
    /// Orders of word n-grams: the base is 5 (BLEU's 4, NIST's 5).
    pub fn words(orders: usize, option: String) -> Self {
        NgramOrders {
            orders,
            base: 5,
            option,
        }
    }
}

/// A metric, typed: what one segment yields, what a corpus sums, and the scratch space of a worker.
pub trait Metric: Send + Sync + 'static {
    /// Statistics of one segment.
    type Stats: Send + 'static;
    /// Running corpus totals.
    type Totals: Send + 'static;
    /// Per-worker reusable buffers (tokenizer and n-gram scratch).
    type Workspace: Default + Send + 'static;
    /// The settings, typed end to end: a stats document carries them through serde and `merge`
    /// rebuilds the metric from them ([`registry::Entry::from_config`]).
    type Config: Serialize;
    /// The JSON record of a sentence score (field order = the record's).
    type Sentence: Serialize;

    /// The metric's `--metrics` name and JSON key, e.g. `bleu`.
    fn key(&self) -> &'static str;
    /// The settings.
    fn config(&self) -> &Self::Config;
    /// Computes the statistics of one well-formed segment.
    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut Self::Workspace) -> Self::Stats;
    /// Pushes the sentence score(s) of a text row onto `out` (one per [`columns`](Metric::columns)).
    ///
    /// `Err` when the reference implementation has no sentence score for these statistics (it
    /// raises, e.g. NLTK's division by zero): the row's fields stay empty and the message is
    /// reported; the statistics still count for the corpus.
    fn sentence_scores(&self, stats: &Self::Stats, out: &mut Vec<f64>) -> Result<(), String>;
    /// The sentence score as a JSON record (full precision); `Err` as for
    /// [`sentence_scores`](Metric::sentence_scores).
    fn sentence(&self, stats: &Self::Stats) -> Result<Self::Sentence, String>;
    /// Number of scores in a text row (NLTK BLEU with several weight vectors writes one score
    /// per vector); empty rows keep this many fields.
    fn columns(&self) -> usize {
        1
    }
    /// The reference tool warns when the text looks tokenized (sacreBLEU's BLEU): many
    /// hypotheses ending in a tokenized period get its warning.
    fn expects_detokenized(&self) -> bool {
        false
    }
    /// The metric is better when lower (TER): `--fail-over` gates it, not `--fail-under`.
    fn lower_is_better(&self) -> bool {
        false
    }
    /// Segments per batch at most. Statistics travel from the workers to the merger a batch at
    /// a time, so a metric whose statistics are large (NIST's carry the tokenized references)
    /// asks for smaller batches to bound the memory they hold in flight.
    fn max_batch_segments(&self) -> usize {
        crate::input::reader::MAX_RECORDS
    }
    /// The n-gram orders this metric's settings count, against the orders its defaults count
    /// (`None` for a metric whose cost per line does not grow with orders). Word n-gram ids take
    /// 4 bytes per token and order, and character n-grams are counted order by order, so above
    /// the default orders the longest line scored shrinks in proportion (`pipeline::LineLimit`).
    fn ngram_orders(&self) -> Option<NgramOrders> {
        None
    }
    /// A warning about one segment that its row may not carry (`-b`, `--corpus-only` write
    /// none): the segment makes the corpus report an error, and the report cannot name the input
    /// line (it counts scored segments). The worker prints it with the line number.
    fn segment_warning(&self, _stats: &Self::Stats) -> Option<String> {
        None
    }
    /// Empty totals.
    fn new_totals(&self) -> Self::Totals;
    /// Adds one segment's statistics to the totals.
    fn add(&self, totals: &mut Self::Totals, stats: &Self::Stats);
    /// The integer sums in `totals` that any split of the segments adds up to exactly (counts,
    /// lengths, segments; not maxima, float sums or per-segment lists), so that `merge` can
    /// check a document's groups and resampling vectors against its totals. When it has the
    /// length of [`vector_len`](Metric::vector_len), it is laid out as the vectors and is
    /// their sum over the segments. Empty: nothing to check.
    fn sums(&self, _totals: &Self::Totals) -> Vec<u64> {
        Vec::new()
    }
    /// Scores the totals: a corpus score.
    fn score(&self, totals: &Self::Totals) -> Score;

    /// Mergeable statistics (SPEC §7): the totals as JSON, integers only, so that a shard's
    /// statistics can be written (`--emit stats`) and summed elsewhere (`merge`).
    fn save_totals(&self, totals: &Self::Totals) -> Value;
    /// Adds totals written by [`save_totals`](Metric::save_totals) of a shard that **follows**
    /// everything added so far (shards are merged in input order, so order-sensitive parts such
    /// as NIST's table ids stay exactly as one run builds them). `Err` for a malformed document.
    fn merge_saved(&self, totals: &mut Self::Totals, saved: &Value) -> Result<(), String>;
    /// Checks saved totals against the number of segments they sum (`merge`, before
    /// [`merge_saved`](Metric::merge_saved)): what a document's counts cannot be for that many
    /// segments, e.g. more hypotheses ending before order n than there are segments
    /// ([`saved::orders_fit`]). Metrics that save no per-order hypothesis counts check nothing.
    fn check_saved_segments(&self, _saved: &Value, _segments: u64) -> Result<(), String> {
        Ok(())
    }
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
    /// Checks a vector of a stats document's resampling part (`merge`): one segment's vector
    /// (bootstrap) or a sum of them with non-negative integer weights (streaming replicates), so
    /// the invariants of [`stats_vector`](Metric::stats_vector) that such sums keep — e.g.
    /// BLEU's matches at most its n-gram counts — must hold. `Err` names the broken one.
    fn check_vector(&self, _vector: &[u64]) -> Result<(), String> {
        Ok(())
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

/// What a metric module provides besides [`Metric`] (the metric [`registry`] builds every
/// metric through it). Beside `Metric` rather than in `registry`, so that a metric module
/// imports nothing from the registry that lists it.
pub trait Registered: Metric<Config: serde::de::DeserializeOwned> + Sized {
    /// The `--metrics` name (also the metric's [`Metric::key`]).
    const NAME: &'static str;
    /// One line for listings (`--help`, error messages).
    const SUMMARY: &'static str;
    /// The metric's own command-line options.
    type Args: clap::Args + clap::FromArgMatches;
    /// Validates options into settings (`Err`: a usage error).
    fn config_from_args(
        common: &options::CommonArgs,
        args: Self::Args,
    ) -> Result<Self::Config, String>;
    /// The metric with these settings (`Err`: settings no command line could give, e.g. from
    /// a hand-edited stats document).
    fn new(config: Self::Config) -> Result<Self, String>;
}

/// Reading saved totals (`merge`): small helpers that turn a malformed document into a message.
pub mod saved {
    use serde::de::DeserializeOwned;
    use serde::Deserialize;
    use serde_json::Value;

    /// Field `key` of the saved object, deserialized.
    pub fn field<T: DeserializeOwned>(saved: &Value, key: &str) -> Result<T, String> {
        let value = saved
            .get(key)
            .ok_or_else(|| format!("statistics without \"{key}\""))?;
        T::deserialize(value).map_err(|e| format!("statistics field \"{key}\": {e}"))
    }

    /// The most segments (and bad lines) a document may count, alone or merged: 2^53, the largest
    /// count every JSON reader keeps exactly (as `--first-line`); a count near 2^64 is a forged or
    /// corrupt document, and printed by a reader of signed integers it would read as negative.
    pub const MAX_COUNT: u64 = 1 << 53;

    /// A count of a document (`segments`, `bad_lines`), checked: a non-negative integer up to
    /// [`MAX_COUNT`]; the message says what the field holds instead.
    pub fn count_field(obj: &serde_json::Map<String, Value>, key: &str) -> Result<u64, String> {
        match obj.get(key) {
            None => Err(format!("stats document without \"{key}\"")),
            Some(v) => match v.as_u64() {
                Some(n) if n <= MAX_COUNT => Ok(n),
                _ => Err(format!(
                    "\"{key}\" is {v}, not a count (an integer from 0 to {MAX_COUNT})"
                )),
            },
        }
    }

    /// Checks that a metric's statistics agree with the segment count and framing of the
    /// document (or group) they belong to, as one run's always do:
    ///
    /// * statistics that count their own segments (TER, NIST, NLTK BLEU save a `"segments"`
    ///   field) count as many: one run adds every scored segment to every metric;
    /// * a count of no segments comes with the statistics of none (`metric`'s empty totals):
    ///   BLEU, chrF and the others keep no count of their own, and their sums over no segment
    ///   are all zero;
    /// * the reference counts fit the segments and the framing (`nrefs_fit`), and the
    ///   metric's own counts fit the segments ([`Metric::check_saved_segments`]).
    ///
    /// A difference is a forged or corrupt document, whose report would show counts that do
    /// not belong together (a score "over 0 segments").
    ///
    /// [`Metric::check_saved_segments`]: super::Metric::check_saved_segments
    pub fn fits_document(
        metric: &dyn super::dynamic::DynMetric,
        stats: &Value,
        segments: u64,
        framing: &Value,
    ) -> Result<(), String> {
        let key = metric.key();
        match stats.get("segments") {
            Some(n) if n.as_u64() != Some(segments) => Err(format!(
                "inconsistent statistics: {key} counts {n} segments where the document counts \
                 {segments}"
            )),
            _ if segments == 0 && *stats != metric.save_totals(metric.new_totals().as_ref()) => {
                Err(format!(
                    "inconsistent statistics: {key} statistics of scored segments where the \
                     document counts none"
                ))
            }
            _ => nrefs_fit(stats, segments, framing)
                .and_then(|()| counts_fit(stats, segments))
                .map_err(|e| format!("{key}: {e}"))
                .and_then(|()| metric.check_saved_segments(stats, segments)),
        }
    }

    /// Most of anything one segment adds to a count of a metric's statistics: a line is at most
    /// 1 GiB (`--max-line-bytes`), so it has fewer than 2^30 tokens or characters, each counted
    /// in at most 9 orders (NIST's `--nist-order`), and every table id is below the number of
    /// n-grams counted.
    const PER_SEGMENT: u64 = 1 << 34;

    /// Every integer of a metric's saved statistics is at most `segments` ×
    /// [`PER_SEGMENT`] (one segment's worth when there are none): the audit's GLEU document of
    /// one segment with `matches` and `total` of 2^64 − 1 printed `GLEU = 1.00`.
    fn counts_fit(stats: &Value, segments: u64) -> Result<(), String> {
        let most = segments.max(1).saturating_mul(PER_SEGMENT);
        let mut stack = vec![stats];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(a) => stack.extend(a),
                Value::Object(o) => stack.extend(o.values()),
                Value::Number(n) => match n.as_u64() {
                    Some(x) if x > most => {
                        return Err(format!(
                            "inconsistent statistics: a count of {x} over {segments} segments \
                             (one segment counts fewer than 2^34 of anything: a line is at most \
                             1 GiB)"
                        ))
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks a metric's `"nrefs"` (the fewest and most references of its segments) against
    /// the document's segment count and framing, as one run records them: no range before any
    /// segment; otherwise at least one reference, at most what the framing allows, and exactly
    /// its number for TSV (an empty field is an empty reference; only JSONL has missing ones,
    /// `null`). A difference would put a forged `nrefs:` into the report's signature.
    fn nrefs_fit(stats: &Value, segments: u64, framing: &Value) -> Result<(), String> {
        let nrefs = match stats.get("nrefs") {
            None | Some(Value::Null) => None,
            Some(v) => match <(u64, u64)>::deserialize(v) {
                Ok(range) => Some(range),
                Err(_) => return Err(format!("\"nrefs\" is {v}, not a range [fewest, most]")),
            },
        };
        let limit = framing.get("refs").and_then(Value::as_u64);
        let tsv = framing.get("input").and_then(Value::as_str) == Some("tsv");
        let fits = match nrefs {
            None => segments == 0,
            Some((lo, hi)) => {
                segments > 0
                    && 1 <= lo
                    && lo <= hi
                    && hi <= limit.unwrap_or(crate::input::MAX_REFS as u64)
                    && !(tsv && limit.is_some_and(|n| lo != n))
            }
        };
        if fits {
            return Ok(());
        }
        Err(format!(
            "inconsistent statistics: \"nrefs\" {} for {segments} segment{} framed as {framing}",
            nrefs.map_or("null".to_owned(), |(lo, hi)| format!("[{lo}, {hi}]")),
            if segments == 1 { "" } else { "s" }
        ))
    }

    /// Per-order hypothesis n-gram totals of `segments` segments, `totals[0]` for order 1: a
    /// hypothesis of L tokens has `max(L − n + 1, 0)` n-grams of order n, so going up an order
    /// takes at most one n-gram per segment away (a forged order-1 total of 10^15 would make
    /// a plausible score, not an error, without this check), and at least one while any are
    /// left (a segment with an n-gram of order n + 1 has one more of order n: the source audit
    /// found equal totals of all orders accepted).
    pub fn orders_fit(totals: &[u64], segments: u64, what: &str) -> Result<(), String> {
        for n in 1..totals.len() {
            if totals[n] > 0 && totals[n] >= totals[n - 1] {
                return Err(format!(
                    "inconsistent statistics: {what}: order {} counts {} n-grams, order {n} {} \
                     (a segment with an n-gram of order {} has one more of order {n})",
                    n + 1,
                    totals[n],
                    totals[n - 1],
                    n + 1
                ));
            }
            let ended = totals[n - 1].saturating_sub(totals[n]);
            if ended > segments {
                return Err(format!(
                    "inconsistent statistics: {what}: order {} counts {ended} n-grams more than \
                     order {} over {segments} segments (at most one per segment)",
                    n,
                    n + 1
                ));
            }
        }
        Ok(())
    }

    /// Refuses a key of `obj` that bleu-stream does not write there: a field of another
    /// version, or a typo in an edited document (`"resamplinG"` dropped the interval in silence,
    /// found by the output audit), would otherwise be ignored.
    pub fn only_keys(
        obj: &serde_json::Map<String, Value>,
        known: &[&str],
        what: &str,
    ) -> Result<(), String> {
        match obj.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(format!(
                "{what}: unknown field \"{k}\" (bleu-stream writes {}: a document of another \
                 version, or edited?)",
                known.join(", ")
            )),
        }
    }

    /// The keys a metric's saved statistics may have: those its
    /// [`save_totals`](super::Metric::save_totals) writes, which do not depend on what the
    /// totals hold (the registry's tests check this), so they are read off empty totals once:
    /// saving merged totals to learn them would build a second copy of a NIST table.
    pub struct KnownKeys(Vec<String>);

    impl KnownKeys {
        /// The keys `m` writes.
        pub fn new(m: &dyn super::DynMetric) -> KnownKeys {
            KnownKeys(match m.save_totals(m.new_totals().as_ref()) {
                Value::Object(saved) => saved.keys().cloned().collect(),
                _ => Vec::new(),
            })
        }

        /// Checks the saved statistics of metric `key`.
        pub fn check(&self, key: &str, stats: &Value) -> Result<(), String> {
            match stats.as_object() {
                Some(obj) => {
                    let known: Vec<&str> = self.0.iter().map(String::as_str).collect();
                    only_keys(obj, &known, &format!("{key} statistics"))
                }
                None => Ok(()),
            }
        }
    }

    /// What merging a document added to a metric's [`sums`](super::Metric::sums): `after −
    /// before`, element by element (merging only adds, so no element decreases).
    pub fn added(before: &[u64], after: &[u64]) -> Vec<u64> {
        debug_assert_eq!(before.len(), after.len());
        after
            .iter()
            .zip(before)
            .map(|(a, b)| a.wrapping_sub(*b))
            .collect()
    }

    /// `*into += other`, element by element (`into` empty: `other`); an error when a sum
    /// overflows 64 bits.
    pub fn add_sums(into: &mut Vec<u64>, other: &[u64]) -> Result<(), String> {
        if into.is_empty() {
            into.extend_from_slice(other);
            return Ok(());
        }
        for (a, &b) in into.iter_mut().zip(other) {
            add_to(a, b, "the groups' statistics")?;
        }
        Ok(())
    }

    /// `a + b` of counts, at most [`MAX_COUNT`].
    pub fn add_count(a: u64, b: u64, what: &str) -> Result<u64, String> {
        a.checked_add(b)
            .filter(|&n| n <= MAX_COUNT)
            .ok_or_else(|| format!("{what}: the sum exceeds {MAX_COUNT}"))
    }

    /// `*into += other`, or an error naming `what` when the sum overflows 64 bits.
    pub fn add_to(into: &mut u64, other: u64, what: &str) -> Result<(), String> {
        *into = into
            .checked_add(other)
            .ok_or_else(|| format!("{what}: sum overflows 64 bits"))?;
        Ok(())
    }

    /// Checks a saved reference-count range (`nrefs`): smallest first, at most
    /// [`MAX_REFS`](crate::input::MAX_REFS).
    pub fn check_nrefs(nrefs: crate::input::RefCounts, what: &str) -> Result<(), String> {
        match nrefs.range() {
            Some((lo, hi)) if lo > hi || hi > crate::input::MAX_REFS => Err(format!(
                "{what}: \"nrefs\" [{lo}, {hi}] is not a range of reference counts (0 to {})",
                crate::input::MAX_REFS
            )),
            _ => Ok(()),
        }
    }

    /// The invariant `small <= big` of statistics (`what` names both).
    pub fn at_most(small: u64, big: u64, what: &str) -> Result<(), String> {
        if small <= big {
            Ok(())
        } else {
            Err(format!("inconsistent statistics: {what} ({small} > {big})"))
        }
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
