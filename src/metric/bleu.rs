//! `bleu`: sacreBLEU 2.6.0 `BLEU`, bit for bit (`SACREBLEU.md` §3).
//!
//! Segment statistics are sacreBLEU's vector `[hyp_len, closest_ref_len, match_1..N,
//! total_1..N]`; corpus statistics are their integer sum, so every running or final corpus score
//! equals `corpus_score` on that prefix. Scoring follows `BLEU.compute_bleu` operation by
//! operation, because the last bit depends on the order of floating-point operations.

use std::fmt::Write as _;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::SmallVec;

use super::options::CommonArgs;
use super::pymath::fixed;
use super::score::{self, Piece, Score};
use super::Registered;
use super::{saved, Metric, NgramOrders};
use crate::input::{RefCounts, Segment};
use crate::ngram::{clipped_matches, ClipWorkspace};
use crate::tokenize::{Scratch, Tokenizer, Tokens};

/// sacreBLEU version whose behaviour `bleu` reproduces (and prints in signatures).
pub const SACREBLEU_VERSION: &str = "2.6.0";

/// BLEU smoothing methods (`--smooth-method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SmoothMethod {
    /// NIST geometric sequence smoothing (the default): the k-th zero-match order gets 1/2^k.
    Exp,
    /// Zero-match precisions replaced by `smooth_value / total`.
    Floor,
    /// `smooth_value` added to matches and totals of orders ≥ 2.
    AddK,
    /// No smoothing.
    None,
}

impl SmoothMethod {
    /// Parses a sacreBLEU method name.
    pub fn from_name(name: &str) -> Option<SmoothMethod> {
        Some(match name {
            "exp" => SmoothMethod::Exp,
            "floor" => SmoothMethod::Floor,
            "add-k" => SmoothMethod::AddK,
            "none" => SmoothMethod::None,
            _ => return None,
        })
    }

    /// The sacreBLEU name.
    pub fn name(self) -> &'static str {
        match self {
            SmoothMethod::Exp => "exp",
            SmoothMethod::Floor => "floor",
            SmoothMethod::AddK => "add-k",
            SmoothMethod::None => "none",
        }
    }

    /// `BLEU.SMOOTH_DEFAULTS`: floor 0.1, add-k 1 (an integer in sacreBLEU, which only matters
    /// for how smoothed counts are reported), none for the others.
    fn default_value(self) -> Option<f64> {
        match self {
            SmoothMethod::Floor => Some(0.1),
            SmoothMethod::AddK => Some(1.0),
            SmoothMethod::Exp | SmoothMethod::None => None,
        }
    }
}

/// `bleu`'s own options (`--tokenize` and `--lowercase` are shared: [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "BLEU options")]
pub struct BleuArgs {
    /// BLEU smoothing method.
    #[arg(short, long, value_enum, value_name = "METHOD", default_value = "exp")]
    pub smooth_method: SmoothMethod,

    /// Smoothing value for floor (default 0.1) and add-k (default 1); a non-negative number.
    #[arg(long, value_name = "F")]
    pub smooth_value: Option<f64>,

    /// Maximum n-gram order of BLEU. Above 5, lines longer than --max-line-bytes × 5 / N are
    /// skipped (each order takes memory per token).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_ngram_order: u32,

    /// Effective order: `auto` is sacreBLEU's choice (on for sentence scores, off for corpus
    /// scores); `yes` or `no` set both.
    #[arg(long, value_enum, default_value_t = EffectiveOrder::Auto, value_name = "WHEN")]
    pub effective_order: EffectiveOrder,
}

/// `--effective-order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EffectiveOrder {
    Auto,
    Yes,
    No,
}

/// BLEU settings; `Default` is sacreBLEU's `BLEU()` for corpus scores and `sentence_score`
/// settings (effective order) for sentence rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BleuConfig {
    pub tokenizer: Tokenizer,
    pub lowercase: bool,
    pub smooth_method: SmoothMethod,
    /// `None` = the method's default.
    pub smooth_value: Option<f64>,
    pub max_ngram_order: usize,
    /// Effective order for sentence rows (sacreBLEU `sentence_bleu`/`-sl`: on).
    pub sentence_effective_order: bool,
    /// Effective order for corpus reports (sacreBLEU `BLEU()`: off).
    pub corpus_effective_order: bool,
}

impl Default for BleuConfig {
    fn default() -> Self {
        BleuConfig {
            tokenizer: Tokenizer::T13a,
            lowercase: false,
            smooth_method: SmoothMethod::Exp,
            smooth_value: None,
            max_ngram_order: 4,
            sentence_effective_order: true,
            corpus_effective_order: false,
        }
    }
}

/// The `bleu` metric.
#[derive(Debug)]
pub struct Bleu {
    config: BleuConfig,
    /// The smoothing value in force (explicit or the method default).
    smooth_value: Option<f64>,
}

/// Statistics of one segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BleuStats {
    /// `[hyp_len, closest_ref_len, match_1..N, total_1..N]`, inline up to BLEU-4: a segment's
    /// statistics are made, sent to the merger and dropped once per line, and a heap allocation
    /// each costs measurably (`bench/run.sh`).
    pub counts: SmallVec<[u64; 10]>,
    /// Number of references the segment had (for the signature's `nrefs`).
    pub nrefs: usize,
}

/// Running corpus totals; serialized as they are for stats documents.
#[derive(Clone, Debug, Serialize)]
pub struct BleuTotals {
    /// Element-wise sum of the segments' `counts`.
    pub counts: Vec<u64>,
    /// Numbers of references seen (for the signature's `nrefs`).
    pub nrefs: RefCounts,
}

/// A computed BLEU score with everything `BLEUScore` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct BleuScore {
    pub score: f64,
    /// Matches per order as sacreBLEU reports them (after add-k smoothing).
    pub counts: Vec<f64>,
    /// Totals per order as sacreBLEU reports them (after add-k smoothing).
    pub totals: Vec<f64>,
    pub precisions: Vec<f64>,
    pub bp: f64,
    pub sys_len: u64,
    pub ref_len: u64,
}

impl BleuScore {
    /// `sys_len / ref_len`, or 0 for an empty reference side.
    pub fn ratio(&self) -> f64 {
        if self.ref_len == 0 {
            0.0
        } else {
            self.sys_len as f64 / self.ref_len as f64
        }
    }

    /// `BLEUScore.format(width)` without signature:
    /// `BLEU = 34.92 64.8/40.9/28.6/20.7 (BP = 0.987 ratio = 0.987 hyp_len = … ref_len = …)`.
    /// Rust's `{:.N}` rounds the exact binary value half to even, like Python's `format`.
    pub fn format(&self, width: usize) -> String {
        format!("BLEU = {:.*}{}", width, self.score, self.details())
    }

    /// What `BLEUScore.format` prints after the score, in fixed precision:
    /// ` 64.8/40.9/28.6/20.7 (BP = 0.987 ratio = 0.987 hyp_len = … ref_len = …)`.
    pub fn details(&self) -> String {
        let mut s = String::from(" ");
        for (i, p) in self.precisions.iter().enumerate() {
            if i > 0 {
                s.push('/');
            }
            // `nan` as Python spells it (sacreBLEU's `-sv nan`).
            s.push_str(&fixed(*p, 1));
        }
        let _ = write!(
            s,
            " (BP = {:.3} ratio = {:.3} hyp_len = {} ref_len = {})",
            self.bp,
            self.ratio(),
            self.sys_len,
            self.ref_len
        );
        s
    }
}

/// Per-worker buffers: nothing is allocated per segment once they have grown.
#[derive(Default)]
pub struct BleuWorkspace {
    scratch: Scratch,
    hyp: Tokens,
    refs: Vec<Tokens>,
    clip: ClipWorkspace,
}

impl Bleu {
    /// A BLEU metric with these settings.
    pub fn new(config: BleuConfig) -> Bleu {
        let smooth_value = config
            .smooth_value
            .or_else(|| config.smooth_method.default_value());
        Bleu {
            config,
            smooth_value,
        }
    }

    /// The settings.
    pub fn config(&self) -> &BleuConfig {
        &self.config
    }

    /// Segment statistics of `hyp` against `refs` (at least one reference).
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut BleuWorkspace) -> BleuStats {
        let n = self.config.max_ngram_order;
        let (tok, lc) = (self.config.tokenizer, self.config.lowercase);
        tok.tokenize(hyp, lc, &mut ws.scratch, &mut ws.hyp);
        if ws.refs.len() < refs.len() {
            ws.refs.resize_with(refs.len(), Tokens::default);
        }
        for (r, out) in refs.iter().zip(&mut ws.refs) {
            tok.tokenize(r, lc, &mut ws.scratch, out);
        }
        let refs_tok = &ws.refs[..refs.len()];
        clipped_matches(&ws.hyp, refs_tok, n, &mut ws.clip);
        let hyp_len = ws.hyp.len();
        let mut stats = SmallVec::with_capacity(2 + 2 * n);
        stats.push(hyp_len as u64);
        stats.push(closest_ref_len(hyp_len, refs_tok.iter().map(Tokens::len)) as u64);
        stats.extend_from_slice(&ws.clip.matches);
        // A sequence of length L has max(0, L − n + 1) n-grams of order n.
        stats.extend((1..=n).map(|order| (hyp_len + 1).saturating_sub(order) as u64));
        BleuStats {
            counts: stats,
            nrefs: refs.len(),
        }
    }

    /// `BLEU.compute_bleu` on a statistics vector, literally (`SACREBLEU.md` §3.3).
    pub fn compute(&self, stats: &[u64], effective_order: bool) -> BleuScore {
        let n = self.config.max_ngram_order;
        let (sys_len, ref_len) = (stats[0], stats[1]);
        let mut counts: Vec<f64> = stats[2..2 + n].iter().map(|&c| c as f64).collect();
        let mut totals: Vec<f64> = stats[2 + n..2 + 2 * n].iter().map(|&c| c as f64).collect();
        let method = self.config.smooth_method;
        let value = self.smooth_value.unwrap_or(0.0);

        let mut bp = 1.0;
        if sys_len < ref_len {
            bp = if sys_len > 0 {
                (1.0 - ref_len as f64 / sys_len as f64).exp()
            } else {
                0.0
            };
        }
        let mut precisions = vec![0.0; n];
        // Early exit before any smoothing when nothing matches at all.
        if stats[2..2 + n].iter().all(|&c| c == 0) {
            return BleuScore {
                score: 0.0,
                counts,
                totals,
                precisions,
                bp,
                sys_len,
                ref_len,
            };
        }
        let mut smooth_mteval = 1.0f64;
        let mut eff_order = n;
        for i in 0..n {
            if method == SmoothMethod::AddK && i > 0 {
                // sacreBLEU mutates (and then reports) the counts and totals.
                counts[i] += value;
                totals[i] += value;
            }
            if totals[i] == 0.0 {
                break;
            }
            if effective_order {
                eff_order = i + 1;
            }
            if counts[i] == 0.0 {
                match method {
                    SmoothMethod::Exp => {
                        smooth_mteval *= 2.0;
                        precisions[i] = 100.0 / (smooth_mteval * totals[i]);
                    }
                    SmoothMethod::Floor => precisions[i] = 100.0 * value / totals[i],
                    SmoothMethod::AddK | SmoothMethod::None => {}
                }
            } else {
                precisions[i] = 100.0 * counts[i] / totals[i];
            }
        }
        // CPython <= 3.11 `sum()`: plain left-to-right addition; log(0) is the integer constant
        // -9999999999 (`my_log`).
        let mut acc = 0.0f64;
        for &p in &precisions[..eff_order] {
            acc += if p == 0.0 { -9_999_999_999.0 } else { p.ln() };
        }
        let score = bp * (acc / eff_order as f64).exp();
        BleuScore {
            score,
            counts,
            totals,
            precisions,
            bp,
            sys_len,
            ref_len,
        }
    }

    /// sacreBLEU's signature for these settings, e.g.
    /// `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`.
    pub fn signature(&self, nrefs: &str, effective_order: bool) -> String {
        // sacreBLEU shows the value only for the methods that use one (floor, add-k): an
        // explicit value with exp or none is ignored and not shown.
        let mut smooth = self.config.smooth_method.name().to_owned();
        if let (Some(v), Some(_)) = (self.smooth_value, self.config.smooth_method.default_value()) {
            let _ = write!(smooth, "[{}]", fixed(v, 2));
        }
        format!(
            "nrefs:{nrefs}|case:{}|eff:{}|tok:{}|smooth:{smooth}|version:{SACREBLEU_VERSION}",
            if self.config.lowercase { "lc" } else { "mixed" },
            if effective_order { "yes" } else { "no" },
            self.config.tokenizer.name(),
        )
    }
}

/// The reference length closest to the hypothesis length; ties go to the shorter reference.
fn closest_ref_len(hyp_len: usize, ref_lens: impl Iterator<Item = usize>) -> usize {
    ref_lens
        .min_by_key(|&r| (hyp_len.abs_diff(r), r))
        .expect("a segment has at least one reference")
}

/// The JSON record of a sentence BLEU score (`BLEUScore`'s fields).
#[derive(Serialize)]
pub struct BleuRecord {
    pub score: f64,
    #[serde(serialize_with = "score::counts")]
    pub counts: Vec<f64>,
    #[serde(serialize_with = "score::counts")]
    pub totals: Vec<f64>,
    pub precisions: Vec<f64>,
    pub bp: f64,
    pub sys_len: u64,
    pub ref_len: u64,
}

/// The JSON form of a corpus BLEU score: the sentence record plus `ratio`.
#[derive(Serialize)]
struct BleuCorpusRecord {
    score: f64,
    #[serde(serialize_with = "score::counts")]
    counts: Vec<f64>,
    #[serde(serialize_with = "score::counts")]
    totals: Vec<f64>,
    precisions: Vec<f64>,
    bp: f64,
    ratio: f64,
    sys_len: u64,
    ref_len: u64,
}

impl Registered for Bleu {
    const NAME: &'static str = "bleu";
    const SUMMARY: &'static str = "sacreBLEU 2.6.0 BLEU";
    type Args = BleuArgs;

    fn config_from_args(common: &CommonArgs, args: BleuArgs) -> Result<BleuConfig, String> {
        if let Some(v) = args.smooth_value {
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "--smooth-value must be a non-negative number, not {v}"
                ));
            }
        }
        let (sentence_effective_order, corpus_effective_order) = match args.effective_order {
            EffectiveOrder::Auto => (true, false),
            EffectiveOrder::Yes => (true, true),
            EffectiveOrder::No => (false, false),
        };
        Ok(BleuConfig {
            tokenizer: common.tokenizer()?.unwrap_or(Tokenizer::T13a),
            lowercase: common.lowercase,
            smooth_method: args.smooth_method,
            smooth_value: args.smooth_value,
            max_ngram_order: args.max_ngram_order as usize,
            sentence_effective_order,
            corpus_effective_order,
        })
    }

    fn new(config: BleuConfig) -> Result<Bleu, String> {
        if !(1..=64).contains(&config.max_ngram_order) {
            return Err(format!(
                "bleu: max_ngram_order {} is not between 1 and 64",
                config.max_ngram_order
            ));
        }
        if config
            .smooth_value
            .is_some_and(|v| !v.is_finite() || v < 0.0)
        {
            return Err("bleu: smooth_value must be a non-negative number".to_owned());
        }
        Ok(Bleu::new(config))
    }
}

impl Metric for Bleu {
    type Stats = BleuStats;
    type Totals = BleuTotals;
    type Workspace = BleuWorkspace;
    type Config = BleuConfig;
    type Sentence = BleuRecord;

    fn key(&self) -> &'static str {
        "bleu"
    }

    fn ngram_orders(&self) -> Option<NgramOrders> {
        let n = self.config.max_ngram_order;
        Some(NgramOrders::words(n, format!("--max-ngram-order {n}")))
    }

    fn config(&self) -> &BleuConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut BleuWorkspace) -> BleuStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &BleuStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(
            self.compute(&stats.counts, self.config.sentence_effective_order)
                .score,
        );
        Ok(())
    }

    fn sentence(&self, stats: &BleuStats) -> Result<BleuRecord, String> {
        let s = self.compute(&stats.counts, self.config.sentence_effective_order);
        Ok(BleuRecord {
            score: s.score,
            counts: s.counts,
            totals: s.totals,
            precisions: s.precisions,
            bp: s.bp,
            sys_len: s.sys_len,
            ref_len: s.ref_len,
        })
    }

    /// sacreBLEU warns about tokenized-looking hypotheses (`metrics/base.py`), for BLEU only:
    /// `Metric.__init__` sets `_force = True` and only `BLEU` sets it to its `force` argument
    /// (`False` by default), so chrF and TER never warn.
    fn expects_detokenized(&self) -> bool {
        true
    }

    fn new_totals(&self) -> BleuTotals {
        BleuTotals {
            counts: vec![0; 2 + 2 * self.config.max_ngram_order],
            nrefs: RefCounts::default(),
        }
    }

    fn add(&self, totals: &mut BleuTotals, stats: &BleuStats) {
        for (t, s) in totals.counts.iter_mut().zip(&stats.counts) {
            *t += s;
        }
        totals.nrefs.add(stats.nrefs);
    }

    /// The counts: the stats vector's layout.
    fn sums(&self, totals: &BleuTotals) -> Vec<u64> {
        totals.counts.to_vec()
    }

    fn save_totals(&self, totals: &BleuTotals) -> Value {
        serde_json::to_value(totals).expect("BLEU totals serialize")
    }

    fn check_saved_segments(&self, saved: &Value, segments: u64) -> Result<(), String> {
        let n = self.config.max_ngram_order;
        match saved::field::<Vec<u64>>(saved, "counts") {
            Ok(counts) if counts.len() == 2 + 2 * n => {
                saved::orders_fit(&counts[2 + n..], segments, "BLEU n-gram totals")
            }
            // Said by `merge_saved`.
            _ => Ok(()),
        }
    }

    fn merge_saved(&self, totals: &mut BleuTotals, saved: &Value) -> Result<(), String> {
        let counts: Vec<u64> = saved::field(saved, "counts")?;
        let nrefs = saved::field(saved, "nrefs")?;
        saved::check_nrefs(nrefs, "BLEU statistics")?;
        if counts.len() == totals.counts.len() {
            self.check_vector(&counts)?;
        }
        saved::add_counts(&mut totals.counts, &counts, "BLEU counts")?;
        totals.nrefs.merge(nrefs);
        Ok(())
    }

    /// What [`stats`](Bleu::stats) makes of every segment, and so of any sum of segments:
    /// `[hyp_len, ref_len, matches…, totals…]` with the order-1 total the hypothesis length,
    /// each order's total at most the previous one's (a segment of L words has L − n + 1
    /// n-grams), and clipped matches at most the total of their order.
    fn check_vector(&self, v: &[u64]) -> Result<(), String> {
        let n = self.config.max_ngram_order;
        if v.len() != 2 + 2 * n {
            return Err(format!(
                "BLEU statistics: {} numbers, not {}",
                v.len(),
                2 + 2 * n
            ));
        }
        let (matches, totals) = v[2..].split_at(n);
        if totals[0] != v[0] {
            return Err(format!(
                "inconsistent statistics: BLEU unigram total {} is not the hypothesis length {}",
                totals[0], v[0]
            ));
        }
        for order in 1..=n {
            saved::at_most(
                matches[order - 1],
                totals[order - 1],
                &format!("BLEU order-{order} matches above the order-{order} total"),
            )?;
            if order > 1 {
                saved::at_most(
                    totals[order - 1],
                    totals[order - 2],
                    &format!(
                        "BLEU order-{order} total above the order-{} total",
                        order - 1
                    ),
                )?;
            }
        }
        Ok(())
    }

    /// sacreBLEU's stats vector `[hyp_len, ref_len, matches…, totals…]`, which its bootstrap
    /// resamples too.
    fn vector_len(&self) -> Option<usize> {
        Some(2 + 2 * self.config.max_ngram_order)
    }

    fn stats_vector(&self, stats: &BleuStats, out: &mut [u64]) {
        out.copy_from_slice(&stats.counts);
    }

    fn score_vector(&self, sums: &[u64]) -> f64 {
        self.compute(sums, self.config.corpus_effective_order).score
    }

    fn score(&self, totals: &BleuTotals) -> Score {
        let eff = self.config.corpus_effective_order;
        let s = self.compute(&totals.counts, eff);
        let signature = self.signature(&totals.nrefs.signature_value(), eff);
        let line = vec![
            Piece::Text("BLEU = ".to_owned()),
            Piece::Score(s.score),
            Piece::Text(s.details()),
        ];
        let fields = score::fields(&BleuCorpusRecord {
            score: s.score,
            ratio: s.ratio(),
            counts: s.counts,
            totals: s.totals,
            precisions: s.precisions,
            bp: s.bp,
            sys_len: s.sys_len,
            ref_len: s.ref_len,
        });
        Score::new("bleu", "BLEU".to_owned(), s.score, signature, fields, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(hyp: &str, refs: &[&str], config: BleuConfig) -> BleuScore {
        let bleu = Bleu::new(config);
        let stats = bleu.stats(hyp, refs, &mut BleuWorkspace::default());
        bleu.compute(&stats.counts, bleu.config.sentence_effective_order)
    }

    #[test]
    fn perfect_match_is_not_exactly_100() {
        // exp(ln(100)) != 100: sacreBLEU issue #275.
        let s = sentence("a b c d", &["a b c d"], BleuConfig::default());
        assert_eq!(s.score, 100.00000000000004);
    }

    #[test]
    fn clipping_closest_length_and_multiple_references() {
        let bleu = Bleu::new(BleuConfig::default());
        let mut ws = BleuWorkspace::default();
        let st = bleu.stats("the the the the", &["the cat", "the the x y z"], &mut ws);
        // hyp_len 4; ref lengths 2 and 5 are at distance 2 and 1 → 5.
        assert_eq!(st.counts[..2], [4, 5]);
        // "the" clipped at the max over references (2), bigram "the the" max 1.
        assert_eq!(st.counts[2..6], [2, 1, 0, 0]);
        assert_eq!(st.counts[6..], [4, 3, 2, 1]);
        // Ties go to the shorter reference; an empty reference counts.
        let st = bleu.stats("a b", &["", "a b c d"], &mut ws);
        assert_eq!(st.counts[1], 0);
        let st = bleu.stats("a b c", &["a b", "a b c d"], &mut ws);
        assert_eq!(st.counts[1], 2);
    }

    #[test]
    fn add_k_quirk_reports_smoothed_counts() {
        let config = BleuConfig {
            smooth_method: SmoothMethod::AddK,
            ..BleuConfig::default()
        };
        let s = sentence("a", &["a"], config);
        assert_eq!(s.score, 100.00000000000004);
        assert_eq!(s.counts, [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(s.totals, [1.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn formatting_rounds_half_to_even_on_the_binary_value() {
        let s = BleuScore {
            score: 6.25,
            counts: vec![],
            totals: vec![],
            precisions: vec![6.25, 12.75],
            bp: 1.0,
            sys_len: 17,
            ref_len: 16,
        };
        assert_eq!(
            s.format(1),
            "BLEU = 6.2 6.2/12.8 (BP = 1.000 ratio = 1.062 hyp_len = 17 ref_len = 16)"
        );
    }

    #[test]
    fn signatures() {
        let b = Bleu::new(BleuConfig::default());
        assert_eq!(
            b.signature("1", false),
            "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
        );
        let b = Bleu::new(BleuConfig {
            smooth_method: SmoothMethod::Floor,
            lowercase: true,
            ..BleuConfig::default()
        });
        assert_eq!(
            b.signature("var", true),
            "nrefs:var|case:lc|eff:yes|tok:13a|smooth:floor[0.10]|version:2.6.0"
        );
        // Regression: an explicit value is not shown for exp/none (checked with sacreBLEU 2.6.0).
        for method in [SmoothMethod::Exp, SmoothMethod::None] {
            let b = Bleu::new(BleuConfig {
                smooth_method: method,
                smooth_value: Some(0.5),
                ..BleuConfig::default()
            });
            assert!(b
                .signature("1", false)
                .contains(&format!("|smooth:{}|", method.name())));
        }
        let b = Bleu::new(BleuConfig {
            smooth_method: SmoothMethod::AddK,
            smooth_value: Some(2.0),
            ..BleuConfig::default()
        });
        assert!(b.signature("1", false).contains("|smooth:add-k[2.00]|"));
    }

    #[test]
    fn empty_hypothesis_still_adds_reference_length() {
        let b = Bleu::new(BleuConfig::default());
        let st = b.stats("", &["a b c"], &mut BleuWorkspace::default());
        assert_eq!(st.counts[..], [0, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
        let s = b.compute(&st.counts, false);
        assert_eq!((s.score, s.bp), (0.0, 0.0));
    }
}
