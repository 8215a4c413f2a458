//! `nltk-bleu`: NLTK 3.10.4 `sentence_bleu` for each row and `corpus_bleu` for corpus reports,
//! bit for bit (`NLTK.md` §3–7), with MATLAB `bleuEvaluationScore` semantics as an option
//! (`--compat matlab`).
//!
//! **Statistics.** NLTK's `corpus_bleu` sums, over sentences, the clipped n-gram matches and the
//! n-gram counts `max(1, len − n + 1)` of every order, the hypothesis lengths and the closest
//! reference lengths; everything it computes afterwards is a function of those sums — except
//! that smoothing methods 5–7 also look at the **last** sentence (`NLTK.md` Q7: method 5's
//! order-5 precision and method 6's hypothesis length come from it). A segment's statistics
//! therefore carry its order-5 precision and its length, and the running totals keep those of
//! the last segment added: totals stay mergeable (sums, plus "the later one wins"), and every
//! running or final report equals `corpus_bleu` on the segments so far. `sentence_bleu` is
//! `corpus_bleu` of one sentence in NLTK, and so it is here: a row is the report of a corpus made
//! of that segment alone.
//!
//! **Numbers.** Scoring follows NLTK operation by operation with Python's number tower
//! ([`super::pymath`]): precisions stay exact fractions until `math.log`, smoothing methods 5–7
//! run in exact big rationals, logs are summed with `math.fsum`, and squares use the C
//! library's `pow`. NLTK's quirks are reproduced, not fixed (see the man page, QUIRKS).

use std::fmt::Write as _;

use clap::{ArgAction, ValueEnum};
use num_bigint::BigInt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::{smallvec, SmallVec};

use super::options::CommonArgs;
use super::pymath::{exp, fsum, parse_py_number, u64_ratio, Num, PyError};
use super::score::{self, Piece, Score, Variants};
use super::Registered;
use super::{Metric, NgramOrders};
use crate::input::{RefCounts, Segment};
use crate::ngram::{clipped_matches, ClipWorkspace};
use crate::tokenize::{Scratch, Tokenizer, Tokens};

mod corpus;
mod matlab;
mod options;
mod saved_totals;
mod smoothing;

pub use corpus::{brevity_penalty, closest_ref_length, modified_precision};
pub use options::{Compat, NltkBleuArgs, NltkBleuConfig, NltkBleuSettings};

use corpus::*;
use options::*;

/// NLTK version whose behaviour `nltk-bleu` reproduces (and prints in signatures).
pub const NLTK_VERSION: &str = "3.10.4";

/// A score as NLTK returns it: Python `int` 0 from the early exit (Q2), or a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PyValue {
    Int(i64),
    Float(f64),
}

impl PyValue {
    /// The value as a double.
    pub fn as_f64(self) -> f64 {
        match self {
            PyValue::Int(i) => i as f64,
            PyValue::Float(x) => x,
        }
    }
}

/// JSON like Python's `json.dumps`: an int stays `0`, a float is written in full precision
/// (`null` for NaN, which MATLAB semantics can produce).
impl Serialize for PyValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            PyValue::Int(i) => s.serialize_i64(i),
            PyValue::Float(x) => s.serialize_f64(x),
        }
    }
}

/// What `corpus_bleu` returns, serialized as NLTK returns it: a number, or a list of numbers
/// for two or more weight vectors.
impl Serialize for NltkScore {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.list {
            self.values.serialize(s)
        } else {
            self.values[0].serialize(s)
        }
    }
}

/// What `corpus_bleu` returns: one value per weight vector (a Python list when `list`).
#[derive(Clone, Debug, PartialEq)]
pub struct NltkScore {
    pub values: Vec<PyValue>,
    /// NLTK returns a list (two or more weight vectors) rather than a scalar.
    pub list: bool,
    /// Orders for which method 0 issued its "0 counts of n-gram overlaps" `UserWarning`, in
    /// emission order (`NLTK.md` §6.1).
    pub warnings: Vec<usize>,
}

/// Numerators then denominators of `modified_precision`, inline up to BLEU-4.
pub type Counts = SmallVec<[u64; 8]>;

/// Statistics of one segment, or running corpus totals (the same shape: a segment's statistics
/// are the totals of a corpus of one).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NltkStats {
    /// `numerator_1..N` then `denominator_1..N` of `modified_precision` (NLTK), or the true
    /// hypothesis n-gram counts `max(0, len − n + 1)` as denominators (MATLAB).
    /// Inline up to BLEU-4 (eight counts): a segment's statistics are made, sent to the merger
    /// and dropped once per line, which a heap allocation each would slow down measurably.
    pub counts: Counts,
    /// Hypothesis length(s).
    pub hyp_len: u64,
    /// Closest reference length(s) (ties → the shorter reference, Q13).
    pub ref_len: u64,
    /// Longest reference seen (MATLAB's "all empty" test).
    pub max_ref_len: u64,
    /// The last segment's order-5 `modified_precision` and hypothesis length: smoothing
    /// methods 5–7 read them (Q7). `None` for an empty corpus.
    pub last: Option<Last>,
    /// Segments summed (1 for a segment).
    pub segments: u64,
    /// Smallest and largest number of references (signature `nrefs`).
    pub nrefs: RefCounts,
    /// NLTK raised while reading a segment (no references): the whole `corpus_bleu` call
    /// raises, so the first such error sticks to the totals.
    /// Boxed: rare, and a segment's statistics are moved several times per line (200 bytes
    /// unboxed, 168 boxed).
    pub raised: Option<Box<PyError>>,
}

/// What methods 5–7 need of the last sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Last {
    /// `modified_precision(refs, hyp, 5)`, unreduced (only computed for methods 5 and 7).
    pub q5: (u64, u64),
    /// `len(hypothesis)`.
    pub hyp_len: u64,
}

/// The `nltk-bleu` metric.
#[derive(Debug)]
pub struct NltkBleu {
    config: NltkBleuConfig,
    weights: Weights,
    /// N: the largest weight-vector length, the orders counted.
    max_order: usize,
    /// Orders indexed per segment (N, or at least 5 for methods 5 and 7).
    index_order: usize,
    /// MATLAB: the normalised weight vectors.
    matlab_weights: Vec<Vec<f64>>,
    /// Smoothing method 5 or 7: segments carry their order-5 precision.
    needs_q5: bool,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct NltkWorkspace {
    scratch: Scratch,
    lower: String,
    hyp: Tokens,
    refs: Vec<Tokens>,
    clip: ClipWorkspace,
}

impl NltkBleu {
    /// Validates the settings; errors are usage errors (they depend on options only).
    pub fn new(config: NltkBleuConfig) -> Result<NltkBleu, String> {
        if let Some(m) = config.smoothing {
            if m > 7 {
                return Err(format!("--nltk-smoothing must be 0 to 7, not {m}"));
            }
        }
        if config.weights.is_empty() {
            return Err("no weight vector".to_owned());
        }
        if config.weights.iter().flatten().any(|w| !w.is_finite()) {
            return Err("--weights must be finite numbers".to_owned());
        }
        let nested = config.weights_nested || config.weights.len() >= 2;
        let weights = if nested && config.weights[0].is_empty() {
            Weights::Wrapped(config.weights.len())
        } else {
            let tuple = config.weights.len() >= 2 || !config.weights_as_list;
            Weights::Vectors(config.weights.iter().map(|w| (w.clone(), tuple)).collect())
        };
        let max_order = match &weights {
            Weights::Wrapped(n) => *n,
            Weights::Vectors(v) => v.iter().map(|(w, _)| w.len()).max().unwrap_or(0),
        };
        let mut matlab_weights = Vec::new();
        if config.compat == Compat::Matlab {
            if config.smoothing.is_some() || config.auto_reweigh {
                return Err(
                    "--compat matlab has no smoothing and no re-weighting: drop \
                     --nltk-smoothing and --auto-reweigh"
                        .to_owned(),
                );
            }
            for w in &config.weights {
                // MATLAB: "a row vector of finite nonnegative values", normalised to sum one.
                let sum: f64 = w.iter().sum();
                if w.is_empty() {
                    return Err("--compat matlab needs at least one weight (a set `()` is \
                                NLTK's empty tuple, which MATLAB has no form of)"
                        .to_owned());
                }
                if w.iter().any(|&x| x < 0.0) || sum <= 0.0 {
                    return Err(
                        "--compat matlab needs non-negative weights that are not all zero"
                            .to_owned(),
                    );
                }
                matlab_weights.push(w.iter().map(|&x| x / sum).collect());
            }
        }
        let needs_q5 = config.compat == Compat::Nltk && matches!(config.smoothing, Some(5 | 7));
        let index_order = if needs_q5 {
            max_order.max(5)
        } else {
            max_order
        };
        Ok(NltkBleu {
            config,
            weights,
            max_order,
            index_order,
            matlab_weights,
            needs_q5,
        })
    }

    /// The settings.
    pub fn config(&self) -> &NltkBleuConfig {
        &self.config
    }

    /// Number of scores per row (one per weight vector, or one for NLTK's wrapped form).
    pub fn columns(&self) -> usize {
        match &self.weights {
            Weights::Vectors(v) => v.len(),
            Weights::Wrapped(_) => 1,
        }
    }

    fn tokenize(&self, text: &str, ws_scratch: &mut Scratch, lower: &mut String, out: &mut Tokens) {
        match self.config.tokenizer {
            Some(t) => t.tokenize(text, self.config.lowercase, ws_scratch, out),
            None => {
                out.clear();
                if self.config.lowercase {
                    out.extend_split_lowercased(text, lower);
                } else {
                    out.extend_split(text);
                }
            }
        }
    }

    /// Statistics of `hyp` against `refs`, from raw text.
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut NltkWorkspace) -> NltkStats {
        let mut hyp_tokens = std::mem::take(&mut ws.hyp);
        self.tokenize(hyp, &mut ws.scratch, &mut ws.lower, &mut hyp_tokens);
        let mut ref_tokens = std::mem::take(&mut ws.refs);
        if ref_tokens.len() < refs.len() {
            ref_tokens.resize_with(refs.len(), Tokens::default);
        }
        for (r, out) in refs.iter().zip(&mut ref_tokens) {
            self.tokenize(r, &mut ws.scratch, &mut ws.lower, out);
        }
        let stats = self.token_stats(&hyp_tokens, &ref_tokens[..refs.len()], ws);
        ws.hyp = hyp_tokens;
        ws.refs = ref_tokens;
        stats
    }

    /// Statistics of a tokenized segment: `modified_precision` for orders 1..N,
    /// `closest_ref_length`, and what smoothing needs of a last sentence.
    pub fn token_stats(&self, hyp: &Tokens, refs: &[Tokens], ws: &mut NltkWorkspace) -> NltkStats {
        let n = self.max_order;
        let hyp_len = hyp.len() as u64;
        let mut stats = NltkStats {
            counts: smallvec![0; 2 * n],
            hyp_len,
            segments: 1,
            nrefs: RefCounts::one(refs.len()),
            ..NltkStats::default()
        };
        if refs.is_empty() {
            // `modified_precision` looks the first hypothesis n-gram up in an empty dict of
            // reference counts; without any n-gram to look up, `closest_ref_length` calls
            // `min()` on nothing (Q12).
            stats.raised = Some(Box::new(if n >= 1 && hyp_len >= 1 {
                PyError::new(
                    "KeyError",
                    format!("({},) (a sentence without references)", py_repr(hyp.get(0))),
                )
            } else {
                PyError::new(
                    "ValueError",
                    "min() arg is an empty sequence (a sentence without references)",
                )
            }));
            return stats;
        }
        stats.ref_len = closest_ref_len(hyp.len(), refs.iter().map(Tokens::len)) as u64;
        stats.max_ref_len = refs.iter().map(Tokens::len).max().unwrap_or(0) as u64;
        let orders = self.index_order;
        if orders > 0 {
            clipped_matches(hyp, refs, orders, &mut ws.clip);
        }
        let matlab = self.config.compat == Compat::Matlab;
        for i in 1..=n {
            let grams = (hyp.len() + 1).saturating_sub(i) as u64;
            stats.counts[i - 1] = ws.clip.matches[i - 1];
            // `modified_precision` divides by max(1, count): a too-short hypothesis still adds
            // 1 to the corpus denominator. MATLAB sums true n-gram counts.
            stats.counts[n + i - 1] = if matlab { grams } else { grams.max(1) };
        }
        let q5 = if self.needs_q5 {
            (
                ws.clip.matches[4],
                (hyp.len() + 1).saturating_sub(5).max(1) as u64,
            )
        } else {
            (0, 1)
        };
        stats.last = Some(Last { q5, hyp_len });
        stats
    }

    /// Adds `stats` (a segment, or later totals) to `totals`.
    pub fn merge(&self, totals: &mut NltkStats, stats: &NltkStats) {
        if totals.counts.len() < stats.counts.len() {
            totals.counts.resize(stats.counts.len(), 0);
        }
        for (t, s) in totals.counts.iter_mut().zip(&stats.counts) {
            *t += s;
        }
        totals.hyp_len += stats.hyp_len;
        totals.ref_len += stats.ref_len;
        totals.max_ref_len = totals.max_ref_len.max(stats.max_ref_len);
        if stats.last.is_some() {
            totals.last = stats.last;
        }
        totals.segments += stats.segments;
        totals.nrefs.merge(stats.nrefs);
        if totals.raised.is_none() {
            totals.raised.clone_from(&stats.raised);
        }
    }

    /// The signature, e.g. `nrefs:1|case:mixed|tok:split|weights:0.25,0.25,0.25,0.25|smooth:none|nltk:3.10.4`.
    pub fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        let tok = match c.tokenizer {
            Some(t) => format!("{}+split", t.name()),
            None => "split".to_owned(),
        };
        let mut s = format!(
            "nrefs:{nrefs}|case:{}|tok:{tok}|weights:{}",
            if c.lowercase { "lc" } else { "mixed" },
            c.weights_text.join(";")
        );
        if c.compat == Compat::Matlab {
            s.push_str("|compat:matlab");
            return s;
        }
        let [eps, alpha, k] = &c.params_text;
        let smooth = match c.smoothing {
            None => "none".to_owned(),
            Some(1) => format!("1[epsilon={eps}]"),
            Some(4) => format!("4[k={k}]"),
            Some(6) => format!("6[alpha={alpha}]"),
            Some(7) => format!("7[k={k}]"),
            Some(m) => m.to_string(),
        };
        let _ = write!(s, "|smooth:{smooth}");
        if c.auto_reweigh {
            s.push_str("|reweigh:yes");
        }
        let _ = write!(s, "|nltk:{NLTK_VERSION}");
        s
    }

    fn display_name(&self) -> &'static str {
        match self.config.compat {
            Compat::Nltk => "NLTK-BLEU",
            Compat::Matlab => "MATLAB-BLEU",
        }
    }
}

/// Python's `repr()` of a string, for error messages (`KeyError(('tok',))`).
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A score for a text row or report: `{:.width$}`, with NaN as `nan`.
/// "NLTK raises …" for a row or report: what NLTK does instead of returning a score.
fn raises(e: &PyError) -> String {
    format!("NLTK raises {e}")
}

/// The JSON record of a sentence NLTK BLEU score.
#[derive(Serialize)]
pub struct NltkBleuRecord {
    pub score: NltkScore,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<usize>,
    pub counts: Vec<u64>,
    pub totals: Vec<u64>,
    pub hyp_len: u64,
    pub ref_len: u64,
}

/// The JSON form of a corpus NLTK BLEU score: `score` null and `error` when NLTK raises.
#[derive(Serialize)]
struct NltkBleuCorpusRecord<'a> {
    score: Option<&'a NltkScore>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    counts: &'a [u64],
    totals: &'a [u64],
    hyp_len: u64,
    ref_len: u64,
}

impl Registered for NltkBleu {
    const NAME: &'static str = "nltk-bleu";
    const SUMMARY: &'static str = "NLTK 3.10.4 sentence_bleu/corpus_bleu (and MATLAB's BLEU)";
    type Args = NltkBleuArgs;

    fn config_from_args(common: &CommonArgs, args: NltkBleuArgs) -> Result<NltkBleuConfig, String> {
        NltkBleuConfig::from_cli(
            common.tokenizer()?,
            common.lowercase,
            &args.weights,
            args.nltk_smoothing,
            &args.epsilon,
            &args.alpha,
            &args.k,
            args.auto_reweigh,
            args.compat,
        )
    }

    fn new(config: NltkBleuConfig) -> Result<NltkBleu, String> {
        NltkBleu::new(config)
    }
}

impl Metric for NltkBleu {
    type Stats = NltkStats;
    type Totals = NltkStats;
    type Workspace = NltkWorkspace;
    type Config = NltkBleuConfig;
    type Sentence = NltkBleuRecord;

    fn key(&self) -> &'static str {
        "nltk-bleu"
    }

    fn ngram_orders(&self) -> Option<NgramOrders> {
        Some(NgramOrders::words(
            self.index_order,
            format!("--weights of {} orders", self.max_order),
        ))
    }

    fn config(&self) -> &NltkBleuConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut NltkWorkspace) -> NltkStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &NltkStats, out: &mut Vec<f64>) -> Result<(), String> {
        let score = self.compute(stats).map_err(|e| raises(&e))?;
        out.extend(score.values.iter().map(|v| v.as_f64()));
        Ok(())
    }

    fn sentence(&self, stats: &NltkStats) -> Result<NltkBleuRecord, String> {
        let n = self.max_order;
        let score = self.compute(stats).map_err(|e| raises(&e))?;
        Ok(NltkBleuRecord {
            warnings: score.warnings.clone(),
            score,
            counts: stats.counts[..n].to_vec(),
            totals: stats.counts[n..].to_vec(),
            hyp_len: stats.hyp_len,
            ref_len: stats.ref_len,
        })
    }

    fn new_totals(&self) -> NltkStats {
        NltkStats {
            counts: smallvec![0; 2 * self.max_order],
            ..NltkStats::default()
        }
    }

    fn add(&self, totals: &mut NltkStats, stats: &NltkStats) {
        self.merge(totals, stats);
    }

    fn columns(&self) -> usize {
        NltkBleu::columns(self)
    }

    /// The counts, lengths and segments (not the longest reference or the last segment).
    fn sums(&self, t: &NltkStats) -> Vec<u64> {
        [&t.counts[..], &[t.hyp_len, t.ref_len, t.segments]].concat()
    }

    fn save_totals(&self, t: &NltkStats) -> Value {
        /// The saved form (read back by `read_saved`).
        #[derive(Serialize)]
        struct Saved<'a> {
            counts: &'a [u64],
            hyp_len: u64,
            ref_len: u64,
            max_ref_len: u64,
            last: Option<[u64; 3]>,
            segments: u64,
            nrefs: &'a RefCounts,
            raised: Option<[&'a str; 2]>,
        }
        serde_json::to_value(Saved {
            counts: &t.counts,
            hyp_len: t.hyp_len,
            ref_len: t.ref_len,
            max_ref_len: t.max_ref_len,
            last: t.last.map(|l| [l.q5.0, l.q5.1, l.hyp_len]),
            segments: t.segments,
            nrefs: &t.nrefs,
            raised: t.raised.as_ref().map(|e| [e.kind, e.message.as_str()]),
        })
        .expect("NLTK BLEU totals serialize")
    }

    fn merge_saved(&self, totals: &mut NltkStats, saved: &Value) -> Result<(), String> {
        let other = self.read_saved(saved)?;
        self.add_checked(totals, &other)
    }

    /// Methods 5–7 smooth the corpus score with the **last** sentence's order-5 precision and
    /// length (`NLTK.md` Q7): which segment is last depends on how the corpus was split.
    fn merge_refusal(&self) -> Option<String> {
        match (self.config.compat, self.config.smoothing) {
            (Compat::Nltk, Some(m @ 5..=7)) => Some(format!(
                "nltk-bleu with --nltk-smoothing {m}: NLTK's corpus_bleu smooths with the last \
                 sentence's statistics, so the corpus score depends on how the input is split"
            )),
            _ => None,
        }
    }

    fn score(&self, totals: &NltkStats) -> Score {
        let signature = self.signature(&totals.nrefs.signature_value());
        let name = self.display_name();
        let n = self.max_order;
        let (nums, dens) = totals.counts.split_at(n);
        let mut line = vec![Piece::Text(format!("{name} = "))];
        let result = self.compute(totals);
        let mut record = NltkBleuCorpusRecord {
            score: result.as_ref().ok(),
            warnings: Vec::new(),
            error: None,
            counts: nums,
            totals: dens,
            hyp_len: totals.hyp_len,
            ref_len: totals.ref_len,
        };
        let value = match &result {
            Ok(score) => {
                for (i, v) in score.values.iter().enumerate() {
                    if i > 0 {
                        line.push(Piece::Text("/".to_owned()));
                    }
                    line.push(Piece::Score(v.as_f64()));
                }
                record.warnings = score.warnings.clone();
                score.values[0].as_f64()
            }
            Err(e) => {
                let message = raises(e);
                line.push(Piece::Text(format!("error: {message}")));
                record.error = Some(message);
                f64::NAN
            }
        };
        // Plain precisions (num/den, 4 decimals) and lengths, for a human reading the report.
        let mut details = String::from(" (precisions ");
        for (i, (&a, &b)) in nums.iter().zip(dens).enumerate() {
            if i > 0 {
                details.push('/');
            }
            let p = if b == 0 { 0.0 } else { a as f64 / b as f64 };
            let _ = write!(details, "{p:.4}");
        }
        let ratio = if totals.ref_len == 0 {
            0.0
        } else {
            totals.hyp_len as f64 / totals.ref_len as f64
        };
        let _ = write!(
            details,
            ", ratio = {ratio:.3}, hyp_len = {}, ref_len = {})",
            totals.hyp_len, totals.ref_len
        );
        line.push(Piece::Text(details));
        let fields = score::fields(&record);
        // One labelled score per weight set, each set once (a repeated set would be a
        // duplicate series); NaN for every set when NLTK raises.
        let mut variants = Variants {
            label: "weights",
            scores: Vec::new(),
        };
        for (i, set) in self.config.weights_text.iter().enumerate() {
            if variants.scores.iter().all(|(w, _)| w != set) {
                let value = match &result {
                    Ok(s) => s.values.get(i).map_or(f64::NAN, |v| v.as_f64()),
                    Err(_) => f64::NAN,
                };
                variants.scores.push((set.clone(), value));
            }
        }
        let mut score = Score::new("nltk-bleu", name.to_owned(), value, signature, fields, line);
        score.variants = Some(variants);
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(config: NltkBleuConfig) -> NltkBleu {
        NltkBleu::new(config).unwrap()
    }

    fn sentence(m: &NltkBleu, hyp: &str, refs: &[&str]) -> Result<NltkScore, PyError> {
        let st = m.stats(hyp, refs, &mut NltkWorkspace::default());
        m.compute(&st)
    }

    fn float(s: Result<NltkScore, PyError>) -> f64 {
        match s.unwrap().values[0] {
            PyValue::Float(x) => x,
            PyValue::Int(_) => panic!("int result"),
        }
    }

    #[test]
    fn default_is_bleu4_without_smoothing() {
        let m = metric(NltkBleuConfig::default());
        let refs = ["It is a guide to action that ensures that the military will forever heed Party commands",
            "It is the guiding principle which guarantees the military forces always being under the command of the Party",
            "It is the practical guide for the army always to heed the directions of the party"];
        let hyp = "It is a guide to action which ensures that the military always obeys the commands of the party";
        assert_eq!(float(sentence(&m, hyp, &refs)), 0.5045666840058485);
    }

    #[test]
    fn early_exit_is_int_zero_and_zero_orders_are_tiny() {
        let m = metric(NltkBleuConfig::default());
        let s = sentence(&m, "x y", &["a b"]).unwrap();
        assert_eq!(s.values, [PyValue::Int(0)]);
        // Exact prefix "the cat": zero 3- and 4-gram orders (NLTK.md line format example).
        let s = sentence(&m, "the cat", &["the cat"]).unwrap();
        assert_eq!(s.values[0].as_f64().to_bits(), 0x200000000000003e);
        assert_eq!(s.warnings, [3, 4]);
    }

    #[test]
    fn statistics_sum_and_keep_the_last_sentence() {
        let m = metric(NltkBleuConfig {
            smoothing: Some(5),
            ..NltkBleuConfig::default()
        });
        let mut ws = NltkWorkspace::default();
        let a = m.stats("a b c d e f", &["a b c d e f"], &mut ws);
        let b = m.stats("a b", &["a b c"], &mut ws);
        assert_eq!(a.counts[..], [6, 5, 4, 3, 6, 5, 4, 3]);
        assert_eq!(a.last.unwrap().q5, (2, 2));
        assert_eq!(b.counts[..], [2, 1, 0, 0, 2, 1, 1, 1]);
        let mut t = m.new_totals();
        m.merge(&mut t, &a);
        m.merge(&mut t, &b);
        assert_eq!(t.counts[..], [8, 6, 4, 3, 8, 6, 5, 4]);
        assert_eq!((t.hyp_len, t.ref_len), (8, 9));
        assert_eq!(
            t.last,
            Some(Last {
                q5: (0, 1),
                hyp_len: 2
            })
        );
    }

    #[test]
    fn errors_are_what_nltk_raises() {
        let m = metric(NltkBleuConfig::default());
        assert_eq!(sentence(&m, "a", &[]).unwrap_err().kind, "KeyError");
        assert_eq!(sentence(&m, "", &[]).unwrap_err().kind, "ValueError");
        let empty = m.compute(&m.new_totals()).unwrap_err();
        assert_eq!(empty.kind, "ZeroDivisionError");
        let m6 = metric(NltkBleuConfig {
            smoothing: Some(6),
            ..NltkBleuConfig::default()
        });
        let e = sentence(&m6, "a b c", &["a b x"]).unwrap_err();
        assert_eq!(e.kind, "AssertionError");
        let m6short = metric(NltkBleuConfig {
            smoothing: Some(6),
            weights: vec![vec![0.5, 0.5]],
            ..NltkBleuConfig::default()
        });
        assert_eq!(
            sentence(&m6short, "a b c", &["a b c"]).unwrap_err().kind,
            "IndexError"
        );
        // ...but the early exit comes first.
        assert_eq!(
            sentence(&m6short, "x", &["a"]).unwrap().values,
            [PyValue::Int(0)]
        );
    }

    #[test]
    fn ascii_split_is_python_split() {
        for s in [
            "",
            " ",
            "a",
            " a  b\t\x0bc\x1c\x1fd\r\n",
            "x\x7f y\x00z",
            "\x1d",
        ] {
            // The splitter NLTK's metrics use against the character-by-character model of
            // Python's `str.split()`.
            let mut fast = Tokens::default();
            fast.extend_split(s);
            assert_eq!(
                fast.iter().collect::<Vec<_>>(),
                crate::unicode::py_split(s).collect::<Vec<_>>(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn repr_of_strings() {
        assert_eq!(py_repr("a"), "'a'");
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("a'\"b\\\u{1}"), "'a\\'\"b\\\\\\x01'");
    }
}
