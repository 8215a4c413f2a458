//! `nltk-chrf`: NLTK 3.10.4 `sentence_chrf` / `corpus_chrf`, bit for bit (`NLTK.md` §10).
//!
//! Unlike sacreBLEU's chrF (`chrf`), NLTK's corpus chrF is a **macro average**: the mean over
//! sentences of each sentence's average F-score over the character n-gram orders. Its statistics
//! are therefore floats, one F-score per order and segment, and the totals keep exactly what
//! `corpus_chrf` sums, in its order: one running Python-3.11 `sum()` per order (plain
//! left-to-right addition, in input order — the merger adds segments in input order) and the
//! number of sentences. Each report then divides like NLTK: `(Σ_orders T_n / K) / sentences`.
//!
//! The hypothesis and reference are used as the strings NLTK is given (a whitespace-joined token
//! list gives the same result). NLTK's chrF takes one reference per sentence (Q22): a segment's
//! first reference is used, further ones are ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::SmallVec;

use super::nltk_bleu::NLTK_VERSION;
use super::options::CommonArgs;
use super::pymath::{pow2, PyError};
use super::score::{self, Piece, Score};
use super::Registered;
use super::{Metric, NgramOrders};
use crate::input::{RefCounts, Segment};
use crate::ngram::{overlap, CharNgrams, CountTables, NgramIds, NgramIndex, SortedNgrams, Spaces};
use crate::tokenize::mteval::is_perl_whitespace;
use crate::tokenize::Tokens;
use crate::unicode::py_lower_into;

/// NLTK's chrF epsilon: the value of an order with no overlap or a too-short string (Q18).
const EPS: f64 = 1e-16;

/// `beta` as written: a Python `int` squares exactly, a `float` through the C `pow`. Settings
/// keep the distinction as JSON does (`3` against `3.0`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Beta {
    Int(i64),
    Float(f64),
}

impl Beta {
    /// Parses `--nltk-chrf-beta`: an integer literal is a Python `int`, anything else a float.
    /// An integer beyond the signed 64-bit range is refused: Python squares it exactly (and raises converting
    /// a square over the double range), which a float stand-in would only approximate.
    pub fn parse(s: &str) -> Result<Beta, String> {
        let s = s.trim();
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Beta::Int(i));
        }
        let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "the integer '{s}' is beyond 64 bits (-2^63..2^63-1); give it as a float (such \
                 as {}) for NLTK's float arithmetic",
                s.parse::<f64>()
                    .map_or("1e30".to_owned(), |f| format!("{f:e}"))
            ));
        }
        match s.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Beta::Float(f)),
            _ => Err(format!("'{s}' is not a finite number")),
        }
    }

    /// As Python prints it (`3`, `3.0`, `0.5`), for the signature.
    pub fn repr(&self) -> String {
        match *self {
            Beta::Int(i) => i.to_string(),
            Beta::Float(f) if f == f.trunc() && f.abs() < 1e16 => format!("{f:.1}"),
            Beta::Float(f) => format!("{f}"),
        }
    }
}

/// `nltk-chrf`'s own options.
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "NLTK chrF options")]
pub struct NltkChrfArgs {
    /// nltk-chrf: smallest character n-gram order (NLTK min_len).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub nltk_chrf_min_len: u32,

    /// nltk-chrf: largest character n-gram order (NLTK max_len). Above 6 orders (min to max),
    /// lines longer than --max-line-bytes × 6 / orders are skipped (each order takes memory
    /// per character).
    #[arg(long, value_name = "N", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub nltk_chrf_max_len: u32,

    /// nltk-chrf: beta, as a Python number (an integer squares exactly, a float through C pow).
    #[arg(long, value_name = "X", default_value = "3.0")]
    pub nltk_chrf_beta: String,

    /// nltk-chrf: keep white space in the strings (NLTK ignore_whitespace=False).
    #[arg(long)]
    pub nltk_chrf_whitespace: bool,
}

/// NLTK chrF settings; `Default` is NLTK's (`min_len=1, max_len=6, beta=3.0,
/// ignore_whitespace=True`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NltkChrfConfig {
    pub min_len: usize,
    pub max_len: usize,
    pub beta: Beta,
    pub ignore_whitespace: bool,
    /// Python `str.lower()` of both sides first (`--lowercase`; NLTK has no case option, so
    /// this is `sentence_chrf(ref.lower(), hyp.lower())`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lowercase: bool,
}

impl Default for NltkChrfConfig {
    fn default() -> Self {
        NltkChrfConfig {
            min_len: 1,
            max_len: 6,
            beta: Beta::Float(3.0),
            ignore_whitespace: true,
            lowercase: false,
        }
    }
}

/// The `nltk-chrf` metric.
#[derive(Debug)]
pub struct NltkChrf {
    config: NltkChrfConfig,
    /// `(factor, 1 + factor)` as doubles, or the error computing `beta ** 2` raises.
    factor: Result<(f64, f64), PyError>,
}

/// One value per character order `min_len..=max_len`: inline for up to 8 orders (NLTK's 1..6),
/// so that a segment's statistics allocate nothing (the per-segment vectors were 5 % of the
/// run on the bench corpus).
pub type PerOrder<T> = SmallVec<[T; 8]>;

/// Statistics of one segment: the F-score of every order `min_len..=max_len`, or the error NLTK
/// raises computing them.
#[derive(Clone, Debug, PartialEq)]
pub struct NltkChrfStats {
    pub fscores: Result<PerOrder<f64>, PyError>,
    pub nrefs: usize,
}

/// Running corpus totals.
#[derive(Clone, Debug)]
pub struct NltkChrfTotals {
    /// Per order, the running built-in `sum()` over sentences.
    pub sums: Vec<f64>,
    /// Number of sentences.
    pub sentences: u64,
    /// The first error a sentence raised (NLTK's `corpus_chrf` would raise it too).
    pub error: Option<PyError>,
    pub nrefs: RefCounts,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct NltkChrfWorkspace {
    chars: CharNgrams,
    tables: CountTables,
    triples: Vec<u64>,
    hyp: Tokens,
    reference: Tokens,
    index: NgramIndex,
    hyp_ids: NgramIds,
    ref_ids: NgramIds,
    count: Vec<u32>,
    /// Code points of the kept characters, for [`SortedNgrams`].
    hyp_points: Vec<u32>,
    ref_points: Vec<u32>,
    sorted: SortedNgrams,
    /// The lowercased hypothesis and reference (`--lowercase`).
    lower_hyp: String,
    lower_ref: String,
}

/// A segment whose hypothesis and reference together exceed this many bytes has orders too long
/// for [`CharNgrams`]' 128-bit keys counted by [`SortedNgrams`] (4 bytes a character and
/// position) rather than by the index.
const SORTED_CHARS_BYTES: usize = 1 << 16;

impl NltkChrf {
    /// An NLTK chrF metric with these settings.
    pub fn new(config: NltkChrfConfig) -> NltkChrf {
        // `factor = beta ** 2`: exact for an int (then `1 + factor` is an int too, converted
        // once); C `pow(beta, 2.0)` for a float, which is not always `beta * beta`.
        let factor = match config.beta {
            Beta::Int(b) => {
                let f = i128::from(b) * i128::from(b);
                Ok((f as f64, (f + 1) as f64))
            }
            Beta::Float(b) => pow2(b).map(|f| (f, 1.0 + f)),
        };
        NltkChrf { config, factor }
    }

    /// Number of orders `K` (0 when `min_len > max_len`).
    fn orders(&self) -> usize {
        (self.config.max_len + 1).saturating_sub(self.config.min_len)
    }

    /// The code points of the characters [`NltkChrf::chars`] keeps.
    fn code_points(&self, s: &str, out: &mut Vec<u32>) {
        out.clear();
        out.extend(
            s.chars()
                .filter(|&c| !(self.config.ignore_whitespace && is_perl_whitespace(c)))
                .map(u32::from),
        );
    }

    /// Code points of `s` as one-character tokens, white space (the `regex` module's `\s`, i.e.
    /// Unicode `White_Space`, without U+001C–U+001F: Q19) removed if `ignore_whitespace`.
    fn chars(&self, s: &str, out: &mut Tokens) {
        out.clear();
        let mut buf = [0u8; 4];
        for c in s.chars() {
            if !(self.config.ignore_whitespace && is_perl_whitespace(c)) {
                out.push(c.encode_utf8(&mut buf));
            }
        }
    }

    /// `chrf_precision_recall_fscore_support` of one order `n` from its counts.
    fn prfs_counts(&self, tp: u64, tpfp: u64, tpfn: u64) -> Result<(f64, f64, f64), PyError> {
        if tpfp == 0 || tpfn == 0 {
            // NLTK catches the ZeroDivisionError of `tp / tpfp` (or `/ tpfn`).
            return Ok((EPS, EPS, EPS));
        }
        let prec = tp as f64 / tpfp as f64;
        let rec = tp as f64 / tpfn as f64;
        let (factor, one_plus) = self.factor.clone()?;
        let denominator = factor * prec + rec;
        if denominator == 0.0 {
            return Ok((EPS, EPS, EPS));
        }
        Ok((prec, rec, (one_plus * (prec * rec)) / denominator))
    }

    /// `chrf_precision_recall_fscore_support(reference, hypothesis, n, beta)` on already
    /// preprocessed strings: `(precision, recall, fscore, tp)`.
    pub fn prfs(
        &self,
        reference: &str,
        hypothesis: &str,
        n: usize,
    ) -> Result<(f64, f64, f64, u64), PyError> {
        let mut ws = NltkChrfWorkspace::default();
        let all = |s: &str, out: &mut Tokens| {
            out.clear();
            let mut buf = [0u8; 4];
            for c in s.chars() {
                out.push(c.encode_utf8(&mut buf));
            }
        };
        all(reference, &mut ws.reference);
        all(hypothesis, &mut ws.hyp);
        let (tp, tpfp, tpfn) = self.counts(&mut ws, n, n);
        let (p, r, f) = self.prfs_counts(tp[0], tpfp[0], tpfn[0])?;
        Ok((p, r, f, tp[0]))
    }

    /// Per order `lo..=hi`: `(tp, tpfp, tpfn)` of the character n-grams of the workspace strings.
    fn counts(
        &self,
        ws: &mut NltkChrfWorkspace,
        lo: usize,
        hi: usize,
    ) -> (PerOrder<u64>, PerOrder<u64>, PerOrder<u64>) {
        let (lh, lr) = (ws.hyp.len(), ws.reference.len());
        let top = hi.min(lh).min(lr);
        if top >= 1 {
            ws.index.clear();
            ws.index.index(&ws.reference, top, &mut ws.ref_ids);
            ws.index.lookup(&ws.hyp, top, &mut ws.hyp_ids);
            if ws.count.len() < ws.index.num_ids() {
                ws.count.resize(ws.index.num_ids(), 0);
            }
        }
        tally(lh, lr, lo, hi, |n| {
            if n <= top {
                overlap(ws.hyp_ids.order(n), ws.ref_ids.order(n), &mut ws.count)
            } else {
                0
            }
        })
    }

    /// Segment statistics: the F-score of each order `min_len..=max_len`, as `corpus_chrf`
    /// computes them, or the error it raises.
    pub fn fscores(
        &self,
        hyp: &str,
        reference: &str,
        ws: &mut NltkChrfWorkspace,
    ) -> Result<PerOrder<f64>, PyError> {
        let (lo, hi) = (self.config.min_len, self.config.max_len);
        if lo > hi {
            return Ok(PerOrder::new());
        }
        // Character n-grams as exact integer keys in capped tables (bounded memory for any
        // line); the general index only when the keys would not fit 128 bits.
        let spaces = if self.config.ignore_whitespace {
            Spaces::Regex
        } else {
            Spaces::Keep
        };
        ws.chars.set_hyp(hyp, spaces);
        ws.triples.clear();
        if ws
            .chars
            .count(hyp, reference, hi, &mut ws.tables, &mut ws.triples)
        {
            let (lh, lr) = ws.chars.lens();
            let triples = &ws.triples;
            let (tp, tpfp, tpfn) = tally(lh, lr, lo, hi, |n| triples[3 * n - 1]);
            return self.order_fscores(&tp, &tpfp, &tpfn);
        }
        if hyp.len() + reference.len() > SORTED_CHARS_BYTES {
            // Orders too long for 128-bit keys on a huge segment: sorted positions (bounded
            // memory) rather than the index (about 100 × the line).
            self.code_points(hyp, &mut ws.hyp_points);
            self.code_points(reference, &mut ws.ref_points);
            let NltkChrfWorkspace {
                hyp_points,
                ref_points,
                sorted,
                ..
            } = ws;
            let (lh, lr) = (hyp_points.len(), ref_points.len());
            let (tp, tpfp, tpfn) = tally(lh, lr, lo, hi, |n| {
                sorted.matches(hyp_points, ref_points, n)
            });
            return self.order_fscores(&tp, &tpfp, &tpfn);
        }
        let (mut h, mut r) = (
            std::mem::take(&mut ws.hyp),
            std::mem::take(&mut ws.reference),
        );
        self.chars(hyp, &mut h);
        self.chars(reference, &mut r);
        ws.hyp = h;
        ws.reference = r;
        let (tp, tpfp, tpfn) = self.counts(ws, lo, hi);
        self.order_fscores(&tp, &tpfp, &tpfn)
    }

    /// The F-score of every order from its counts.
    fn order_fscores(
        &self,
        tp: &[u64],
        tpfp: &[u64],
        tpfn: &[u64],
    ) -> Result<PerOrder<f64>, PyError> {
        let mut out = PerOrder::new();
        for ((&tp, &tpfp), &tpfn) in tp.iter().zip(tpfp).zip(tpfn) {
            out.push(self.prfs_counts(tp, tpfp, tpfn)?.2);
        }
        Ok(out)
    }

    /// `corpus_chrf`'s final step on per-order sums: `(Σ T_n / K) / sentences`, with its
    /// `ZeroDivisionError` when there are no orders (empty corpus, or `min_len > max_len`).
    fn finish(&self, sums: &[f64], sentences: u64) -> Result<f64, PyError> {
        let k = if sentences == 0 { 0 } else { self.orders() };
        if k == 0 {
            return Err(PyError::new("ZeroDivisionError", "division by zero"));
        }
        // Built-in `sum()` starting from int 0 (CPython 3.11: plain addition; `0 + x` is `x`
        // for the positive values that occur).
        let total = sums.iter().fold(0.0f64, |acc, &t| acc + t);
        Ok((total / k as f64) / sentences as f64)
    }

    /// The sentence score (`sentence_chrf`): a corpus of one.
    pub fn sentence_score(&self, stats: &NltkChrfStats) -> Result<f64, PyError> {
        let fs = stats.fscores.as_ref().map_err(Clone::clone)?;
        let sums: PerOrder<f64> = fs.iter().map(|&f| 0.0 + f).collect();
        self.finish(&sums, 1)
    }

    fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        format!(
            "nrefs:{nrefs}|case:{}|min:{}|max:{}|beta:{}|space:{}|nltk:{NLTK_VERSION}",
            if c.lowercase { "lc" } else { "mixed" },
            c.min_len,
            c.max_len,
            c.beta.repr(),
            if c.ignore_whitespace { "no" } else { "yes" }
        )
    }
}

/// Per order `lo..=hi` of a hypothesis of `lh` characters against a reference of `lr`: `(tp,
/// tpfp, tpfn)`, the overlap of order n ≥ 1 being `tp(n)`.
fn tally(
    lh: usize,
    lr: usize,
    lo: usize,
    hi: usize,
    mut tp: impl FnMut(usize) -> u64,
) -> (PerOrder<u64>, PerOrder<u64>, PerOrder<u64>) {
    let grams = |len: usize, n: usize| -> u64 {
        // `ngrams(s, 0)` yields len + 1 empty tuples.
        if n == 0 {
            len as u64 + 1
        } else {
            (len + 1).saturating_sub(n) as u64
        }
    };
    let (mut tps, mut tpfps, mut tpfns) = (PerOrder::new(), PerOrder::new(), PerOrder::new());
    for n in lo..=hi {
        tps.push(if n == 0 {
            // Every empty n-gram is the same: min(len(hyp) + 1, len(ref) + 1).
            (lh.min(lr) + 1) as u64
        } else {
            tp(n)
        });
        tpfps.push(grams(lh, n));
        tpfns.push(grams(lr, n));
    }
    (tps, tpfps, tpfns)
}

/// "NLTK raises …": what a row or report says instead of a score.
fn raises(e: &PyError) -> String {
    format!("NLTK raises {e}")
}

/// The JSON record of a sentence NLTK chrF score.
#[derive(Serialize)]
pub struct NltkChrfRecord {
    pub score: f64,
    /// The F-score of every order.
    pub fscores: Vec<f64>,
}

#[derive(Serialize)]
struct NltkChrfCorpusRecord<'a> {
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    sums: &'a [f64],
    sentences: u64,
}

impl Registered for NltkChrf {
    const NAME: &'static str = "nltk-chrf";
    const SUMMARY: &'static str = "NLTK 3.10.4 chrF";
    type Args = NltkChrfArgs;

    fn config_from_args(common: &CommonArgs, args: NltkChrfArgs) -> Result<NltkChrfConfig, String> {
        Ok(NltkChrfConfig {
            lowercase: common.lowercase,
            min_len: args.nltk_chrf_min_len as usize,
            max_len: args.nltk_chrf_max_len as usize,
            beta: Beta::parse(&args.nltk_chrf_beta)
                .map_err(|e| format!("--nltk-chrf-beta: {e}"))?,
            ignore_whitespace: !args.nltk_chrf_whitespace,
        })
    }

    fn new(config: NltkChrfConfig) -> Result<NltkChrf, String> {
        if config.min_len > 1024 || config.max_len > 1024 {
            return Err("nltk-chrf: n-gram orders above 1024".to_owned());
        }
        Ok(NltkChrf::new(config))
    }
}

impl Metric for NltkChrf {
    type Stats = NltkChrfStats;
    type Totals = NltkChrfTotals;
    type Workspace = NltkChrfWorkspace;
    type Config = NltkChrfConfig;
    type Sentence = NltkChrfRecord;

    fn key(&self) -> &'static str {
        "nltk-chrf"
    }

    /// Character n-grams are counted order by order, so a line's time grows with the orders
    /// (a 1.75 MB line took 331 s at `--nltk-chrf-max-len 1024`): past NLTK's 6, the line limit
    /// shrinks.
    fn ngram_orders(&self) -> Option<NgramOrders> {
        let c = &self.config;
        Some(NgramOrders {
            orders: (c.max_len + 1).saturating_sub(c.min_len),
            base: 6,
            option: format!(
                "--nltk-chrf-min-len {} --nltk-chrf-max-len {}",
                c.min_len, c.max_len
            ),
        })
    }

    fn config(&self) -> &NltkChrfConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut NltkChrfWorkspace) -> NltkChrfStats {
        let reference = segment.refs.first().map_or("", |r| &**r);
        let fscores = if self.config.lowercase {
            let (mut hyp, mut reference_lc) = (
                std::mem::take(&mut ws.lower_hyp),
                std::mem::take(&mut ws.lower_ref),
            );
            hyp.clear();
            py_lower_into(&segment.hyp, &mut hyp);
            reference_lc.clear();
            py_lower_into(reference, &mut reference_lc);
            let fscores = self.fscores(&hyp, &reference_lc, ws);
            (ws.lower_hyp, ws.lower_ref) = (hyp, reference_lc);
            fscores
        } else {
            self.fscores(&segment.hyp, reference, ws)
        };
        NltkChrfStats {
            fscores,
            nrefs: segment.refs.len(),
        }
    }

    fn sentence_scores(&self, stats: &NltkChrfStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(self.sentence_score(stats).map_err(|e| raises(&e))?);
        Ok(())
    }

    fn sentence(&self, stats: &NltkChrfStats) -> Result<NltkChrfRecord, String> {
        Ok(NltkChrfRecord {
            score: self.sentence_score(stats).map_err(|e| raises(&e))?,
            fscores: stats.fscores.as_deref().unwrap_or_default().to_vec(),
        })
    }

    fn new_totals(&self) -> NltkChrfTotals {
        NltkChrfTotals {
            sums: vec![0.0; self.orders()],
            sentences: 0,
            error: None,
            nrefs: RefCounts::default(),
        }
    }

    fn add(&self, totals: &mut NltkChrfTotals, stats: &NltkChrfStats) {
        match &stats.fscores {
            Ok(fs) => {
                for (t, &f) in totals.sums.iter_mut().zip(fs) {
                    *t += f;
                }
            }
            Err(e) => {
                if totals.error.is_none() {
                    totals.error = Some(e.clone());
                }
            }
        }
        totals.sentences += 1;
        totals.nrefs.add(stats.nrefs);
    }

    /// Not mergeable (see [`merge_refusal`](Metric::merge_refusal)): nothing to save.
    fn save_totals(&self, _totals: &NltkChrfTotals) -> Value {
        Value::Null
    }

    fn merge_saved(&self, _totals: &mut NltkChrfTotals, _saved: &Value) -> Result<(), String> {
        Err(Metric::merge_refusal(self).expect("nltk-chrf is never mergeable"))
    }

    /// `corpus_chrf` is the built-in `sum()` of sentence scores divided by their number: a
    /// sequential float sum, whose rounding depends on where the corpus is split.
    fn merge_refusal(&self) -> Option<String> {
        Some(
            "nltk-chrf: NLTK's corpus_chrf sums sentence scores in floating point, one after \
             the other, so shard sums would round differently from one run"
                .to_owned(),
        )
    }

    fn score(&self, totals: &NltkChrfTotals) -> Score {
        let signature = self.signature(&totals.nrefs.signature_value());
        let name = "NLTK-chrF";
        let result = match &totals.error {
            Some(e) => Err(e.clone()),
            None => self.finish(&totals.sums, totals.sentences),
        };
        let mut line = vec![Piece::Text(format!("{name} = "))];
        let (score, error) = match result {
            Ok(score) => {
                line.push(Piece::Score(score));
                (score, None)
            }
            Err(e) => {
                let message = raises(&e);
                line.push(Piece::Text(format!("error: {message}")));
                (f64::NAN, Some(message))
            }
        };
        let plural = if totals.sentences == 1 { "" } else { "s" };
        line.push(Piece::Text(format!(
            " ({} sentence{plural})",
            totals.sentences
        )));
        let fields = score::fields(&NltkChrfCorpusRecord {
            score: error.is_none().then_some(score),
            error,
            sums: &totals.sums,
            sentences: totals.sentences,
        });
        Score::new("nltk-chrf", name.to_owned(), score, signature, fields, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(hyp: &str, reference: &str, config: NltkChrfConfig) -> Result<f64, PyError> {
        let chrf = NltkChrf::new(config);
        let mut ws = NltkChrfWorkspace::default();
        let stats = NltkChrfStats {
            fscores: chrf.fscores(hyp, reference, &mut ws),
            nrefs: 1,
        };
        chrf.sentence_score(&stats)
    }

    #[test]
    fn no_overlap_is_epsilon_with_rounding() {
        // NLTK.md §10: six 1e-16 values summed, then divided by 6.
        let got = sentence("xyz", "abc", NltkChrfConfig::default()).unwrap();
        assert_eq!(got, 1.0000000000000001e-16);
        assert!(sentence("abc", "abc", NltkChrfConfig::default()).unwrap() > 0.49);
    }

    #[test]
    fn empty_order_range_raises() {
        let config = NltkChrfConfig {
            min_len: 3,
            max_len: 2,
            ..NltkChrfConfig::default()
        };
        assert_eq!(
            sentence("a", "a", config).unwrap_err().kind,
            "ZeroDivisionError"
        );
    }

    #[test]
    fn beta_parsing() {
        assert_eq!(Beta::parse("3").unwrap(), Beta::Int(3));
        assert_eq!(Beta::parse("3.0").unwrap(), Beta::Float(3.0));
        assert_eq!(Beta::parse("3.0").unwrap().repr(), "3.0");
        assert_eq!(Beta::parse("0.5").unwrap().repr(), "0.5");
        assert!(Beta::parse("x").is_err() && Beta::parse("inf").is_err());
        // Regression: an integer past i64 was taken as a float, whose errors and roundings are
        // not those of Python's exact int (audit: `OverflowError: (34, …)` where NLTK raises
        // `int too large to convert to float`).
        assert_eq!(
            Beta::parse("-9223372036854775808").unwrap(),
            Beta::Int(i64::MIN)
        );
        let big = format!("1{}", "0".repeat(155));
        let e = Beta::parse(&big).unwrap_err();
        assert!(e.contains("beyond 64 bits") && e.contains("1e155"), "{e}");
        assert!(Beta::parse("9223372036854775808").is_err());
        assert_eq!(Beta::parse("1e155").unwrap(), Beta::Float(1e155));
    }
}
