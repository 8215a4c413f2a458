//! `chrf`: sacreBLEU 2.6.0 `CHRF` (chrF, and chrF++ with word n-grams), bit for bit
//! (`SACREBLEU.md` §4).
//!
//! Segment statistics are, per order (character orders 1..nc, then word orders 1..nw), the
//! triple `[hyp_count, ref_count, match]` of the **best** reference; corpus statistics are their
//! integer sum, and every score is `f(stats)` computed as `CHRF._compute_f_score` does.
//!
//! Lines of files (TSV, `-r`) are `rstrip`ped first, like every line the sacreBLEU CLI reads;
//! JSONL strings are scored as given, as the Python API scores its strings (the difference only
//! shows with `--chrf-whitespace` and trailing white space).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::options::CommonArgs;
use super::score::{self, Piece, Score};
use super::Registered;
use super::{saved, Metric, NgramOrders};
use crate::input::{RefCounts, Segment};
use crate::ngram::{
    CharNgrams, ClipWorkspace, CountTables, NgramIds, NgramIndex, SortedNgrams, Spaces, Vocab,
    WordNgrams, ABSENT,
};
use crate::tokenize::Tokens;
use crate::unicode::{is_py_whitespace, py_lower_into, py_rstrip};

use super::bleu::SACREBLEU_VERSION;

mod word_orders;

/// A segment whose hypothesis and longest reference together exceed this many bytes has its
/// word n-grams counted by [`WordNgrams`] (a few bytes a word: bounded memory) rather than by
/// the general [`NgramIndex`] (faster on sentences, but some 90 bytes a word).
const PACKED_WORDS_BYTES: usize = 1 << 16;

/// A segment as big has character orders too long for [`CharNgrams`]' 128-bit keys counted by
/// [`SortedNgrams`] (4 bytes a character and position) rather than by the index.
const SORTED_CHARS_BYTES: usize = 1 << 16;

/// `chrf`'s own options (`--lowercase` is shared: [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "chrF options")]
pub struct ChrfArgs {
    /// chrF: character n-gram order (sacreBLEU --chrf-char-order); 0 with a word order scores
    /// word n-grams only. Above 8 orders in all (character + word), lines longer than
    /// --max-line-bytes × 8 / orders are skipped (each order takes memory per character).
    #[arg(long, value_name = "N", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(0..=64))]
    pub chrf_char_order: u32,

    /// chrF: word n-gram order; 2 gives chrF++ (sacreBLEU --chrf-word-order). Counts
    /// towards the line limit of --chrf-char-order.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=64))]
    pub chrf_word_order: u32,

    /// chrF: beta, the weight of recall against precision (sacreBLEU --chrf-beta).
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub chrf_beta: u32,

    /// chrF: keep white space in character n-grams (sacreBLEU --chrf-whitespace).
    #[arg(long)]
    pub chrf_whitespace: bool,

    /// chrF: chrF++.py's epsilon smoothing instead of sacreBLEU's effective-order averaging
    /// (sacreBLEU --chrf-eps-smoothing).
    #[arg(long)]
    pub chrf_eps_smoothing: bool,
}

/// chrF settings; `Default` is sacreBLEU's `CHRF()` (chrF2: 6 character orders, no words).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChrfConfig {
    pub char_order: usize,
    pub word_order: usize,
    /// sacreBLEU's `beta` (`int`): the main command takes 0..=1000, the drop-in any absolute
    /// value below 2^64.
    pub beta: u64,
    pub lowercase: bool,
    /// Keep white space in character n-grams (`--chrf-whitespace`).
    pub whitespace: bool,
    /// chrF++.py-style smoothing of every order's F-score (`--chrf-eps-smoothing`) instead of
    /// sacreBLEU's default "effective order" averaging.
    pub eps_smoothing: bool,
}

impl ChrfConfig {
    /// `factor = beta ** 2` and `1 + factor` of `CHRF._compute_f_score` as Python's
    /// int-times-float sees them: each exact integer rounded once to the nearest double (ties
    /// to even, as `int.__float__`). Squaring in `u32` wrapped past beta 65,535, and
    /// `1.0 + factor` in doubles rounds twice, differing from Python's past 2^53.
    #[must_use]
    pub fn factors(&self) -> (f64, f64) {
        let square = u128::from(self.beta) * u128::from(self.beta);
        // Rust's integer-to-float `as` rounds to nearest, ties to even.
        (square as f64, (square + 1) as f64)
    }
}

impl Default for ChrfConfig {
    fn default() -> Self {
        ChrfConfig {
            char_order: 6,
            word_order: 0,
            beta: 2,
            lowercase: false,
            whitespace: false,
            eps_smoothing: false,
        }
    }
}

/// The `chrf` metric.
#[derive(Debug)]
pub struct Chrf {
    config: ChrfConfig,
    /// `rstrip` every line of a file first (the main command: what the sacreBLEU CLI does to
    /// every line it reads; JSONL strings never are). `bleu-stream sacrebleu` reads its lines
    /// exactly as `sacrebleu.py` does and turns this off ([`Chrf::lines_as_given`]).
    rstrip: bool,
}

/// Statistics of one segment: the best reference's triples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChrfStats {
    /// `[h_1, r_1, m_1, h_2, r_2, m_2, …]`, character orders first, then word orders.
    pub counts: Vec<u64>,
    /// Index (among the segment's references) of the reference chosen.
    pub best_ref: usize,
    /// Number of references of the segment.
    pub nrefs: usize,
}

/// Running corpus totals; serialized as they are for stats documents.
#[derive(Clone, Debug, Serialize)]
pub struct ChrfTotals {
    pub counts: Vec<u64>,
    pub nrefs: RefCounts,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct ChrfWorkspace {
    hyp_text: String,
    ref_text: String,
    chars: CharNgrams,
    words: WordNgrams,
    /// The count tables of both.
    tables: CountTables,
    hyp_chars: Tokens,
    hyp_words: Tokens,
    ref_chars: Tokens,
    ref_words: Tokens,
    index: NgramIndex,
    hyp_ids: NgramIds,
    ref_ids: NgramIds,
    hyp_count: Vec<u32>,
    ref_count: Vec<u32>,
    candidate: Vec<u64>,
    /// Ids for [`SortedNgrams`]: code points of the kept characters, then words' [`Vocab`] ids.
    hyp_points: Vec<u32>,
    ref_points: Vec<u32>,
    sorted: SortedNgrams,
    vocab: Vocab,
    /// Word n-gram matches ([`word_orders::word_triples`]).
    clip: ClipWorkspace,
}

impl Chrf {
    /// A chrF metric with these settings.
    pub fn new(config: ChrfConfig) -> Chrf {
        Chrf {
            config,
            rstrip: true,
        }
    }

    /// Scores lines as given, without the `rstrip`: for `bleu-stream sacrebleu`, whose reader
    /// strips exactly what `sacrebleu.py` strips. That is not every field: with `-nr N` a
    /// reference line is stripped as a whole before it is split at TABs, so the references
    /// before the last keep their trailing white space, and so do the systems of the first
    /// line of standard input — which shows with `--chrf-whitespace`.
    pub fn lines_as_given(mut self) -> Chrf {
        self.rstrip = false;
        self
    }

    /// Number of orders (character + word).
    fn orders(&self) -> usize {
        self.config.char_order + self.config.word_order
    }

    /// `chrF2`, `chrF2++`, `chrF1`, …
    pub fn name(&self) -> String {
        format!(
            "chrF{}{}",
            self.config.beta,
            "+".repeat(self.config.word_order)
        )
    }

    /// The line as sacreBLEU scores it: lowercased if asked (into `text`), `rstrip`ped if
    /// `rstrip`.
    fn prepare<'a>(&self, line: &'a str, rstrip: bool, text: &'a mut String) -> &'a str {
        let line = if self.config.lowercase {
            text.clear();
            py_lower_into(line, text);
            text.as_str()
        } else {
            line
        };
        if rstrip {
            py_rstrip(line)
        } else {
            line
        }
    }

    /// Character "tokens" (one per code point; white space removed unless `whitespace`) of a
    /// prepared line, for the general n-gram index ([`CharNgrams::count`] declined).
    fn char_tokens(&self, line: &str, chars: &mut Tokens) {
        chars.clear();
        let mut buf = [0u8; 4];
        for c in line.chars() {
            if self.config.whitespace || !is_py_whitespace(c) {
                chars.push(c.encode_utf8(&mut buf));
            }
        }
    }

    /// The code points of the characters [`Chrf::char_tokens`] keeps: equal characters, equal
    /// ids.
    fn code_points(&self, line: &str, out: &mut Vec<u32>) {
        out.clear();
        out.extend(
            line.chars()
                .filter(|&c| self.config.whitespace || !is_py_whitespace(c))
                .map(u32::from),
        );
    }

    /// Which white space character n-grams leave out.
    fn spaces(&self) -> Spaces {
        if self.config.whitespace {
            Spaces::Keep
        } else {
            Spaces::Python
        }
    }

    /// Segment statistics of `hyp` against `refs` (at least one reference).
    ///
    /// Character n-grams are counted by [`CharNgrams`] (exact integer keys, no per-n-gram
    /// allocation); word n-grams by [`word_orders::word_triples`], or by [`WordNgrams`] on
    /// huge segments; character n-grams whose keys would not fit 128 bits by the index.
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut ChrfWorkspace) -> ChrfStats {
        self.stats_stripped(hyp, refs, self.rstrip, ws)
    }

    /// [`stats`](Chrf::stats), with the lines `rstrip`ped or not.
    fn stats_stripped(
        &self,
        hyp: &str,
        refs: &[&str],
        rstrip: bool,
        ws: &mut ChrfWorkspace,
    ) -> ChrfStats {
        let ChrfWorkspace {
            hyp_text,
            ref_text,
            chars,
            words,
            tables,
            hyp_chars,
            hyp_words,
            ref_chars,
            ref_words,
            index,
            hyp_ids,
            ref_ids,
            hyp_count,
            ref_count,
            candidate,
            hyp_points,
            ref_points,
            sorted,
            vocab,
            clip,
        } = ws;
        let spaces = self.spaces();
        let hyp = self.prepare(hyp, rstrip, hyp_text);
        chars.set_hyp(hyp, spaces);
        let longest_ref = refs.iter().map(|r| r.len()).max().unwrap_or(0);
        let packed = self.config.word_order > 0 && hyp.len() + longest_ref > PACKED_WORDS_BYTES;
        if packed {
            words.start();
            word_orders::each_word(hyp, |w| words.hyp_word(w));
            hyp_words.clear();
        } else {
            word_orders::split_words(self.config.word_order, hyp, hyp_words);
        }
        hyp_chars.clear();
        let mut best = Vec::new();
        let mut best_f = -1.0;
        let mut best_ref = 0;
        for (j, r) in refs.iter().enumerate() {
            let r = self.prepare(r, rstrip, ref_text);
            candidate.clear();
            let mut orders = |hyp: &Tokens, rf: &Tokens, n: usize, out: &mut Vec<u64>| {
                index.clear();
                index.index(rf, n, ref_ids);
                index.lookup(hyp, n, hyp_ids);
                let ids = index.num_ids();
                if hyp_count.len() < ids {
                    hyp_count.resize(ids, 0);
                    ref_count.resize(ids, 0);
                }
                for order in 1..=n {
                    order_triple(
                        hyp_ids.order(order),
                        ref_ids.order(order),
                        hyp_count,
                        ref_count,
                        out,
                    );
                }
            };
            let char_order = self.config.char_order;
            let counted = chars.count(hyp, r, char_order, tables, candidate);
            if !counted && hyp.len() + r.len() > SORTED_CHARS_BYTES {
                self.code_points(hyp, hyp_points);
                self.code_points(r, ref_points);
                sorted_triples(sorted, hyp_points, ref_points, char_order, candidate);
            } else if !counted {
                if hyp_chars.is_empty() {
                    self.char_tokens(hyp, hyp_chars);
                }
                self.char_tokens(r, ref_chars);
                orders(hyp_chars, ref_chars, self.config.char_order, candidate);
            }
            if self.config.word_order > 0 {
                let counted = packed && {
                    words.start_ref();
                    word_orders::each_word(r, |w| words.ref_word(w));
                    words.count(self.config.word_order, tables, candidate)
                };
                if !counted && packed {
                    // Word orders too long for 128-bit keys on a huge segment: sorted.
                    vocab.clear();
                    hyp_points.clear();
                    word_orders::each_word(hyp, |w| hyp_points.push(vocab.id(w)));
                    ref_points.clear();
                    word_orders::each_word(r, |w| ref_points.push(vocab.id(w)));
                    sorted_triples(
                        sorted,
                        hyp_points,
                        ref_points,
                        self.config.word_order,
                        candidate,
                    );
                } else if !counted {
                    if packed && hyp_words.is_empty() {
                        word_orders::split_words(self.config.word_order, hyp, hyp_words);
                    }
                    word_orders::split_words(self.config.word_order, r, ref_words);
                    word_orders::word_triples(
                        hyp_words,
                        ref_words,
                        self.config.word_order,
                        clip,
                        candidate,
                    );
                }
            }
            // The first strictly best reference wins (ties keep the earlier one).
            let f = self.f_score(candidate);
            if f > best_f {
                best_f = f;
                best.clone_from(candidate);
                best_ref = j;
            }
        }
        ChrfStats {
            counts: best,
            best_ref,
            nrefs: refs.len(),
        }
    }

    /// `CHRF._compute_f_score`, operation by operation.
    pub fn f_score(&self, stats: &[u64]) -> f64 {
        const EPS: f64 = 1e-16;
        let (factor, one_plus) = self.config.factors();
        let mut score = 0.0;
        let (mut avg_p, mut avg_r) = (0.0f64, 0.0f64);
        let mut effective = 0u32;
        for triple in stats.chunks_exact(3) {
            let (h, r, m) = (triple[0], triple[1], triple[2]);
            let p = if h > 0 { m as f64 / h as f64 } else { EPS };
            let rc = if r > 0 { m as f64 / r as f64 } else { EPS };
            let d = factor * p + rc;
            score += if d > 0.0 { one_plus * p * rc / d } else { EPS };
            if h > 0 && r > 0 {
                avg_p += p;
                avg_r += rc;
                effective += 1;
            }
        }
        if self.config.eps_smoothing {
            return 100.0 * score / self.orders() as f64;
        }
        if effective == 0 {
            avg_p = 0.0;
            avg_r = 0.0;
        } else {
            avg_p /= f64::from(effective);
            avg_r /= f64::from(effective);
        }
        if avg_p + avg_r != 0.0 {
            let mut s = one_plus * avg_p * avg_r;
            s /= factor * avg_p + avg_r;
            100.0 * s
        } else {
            0.0
        }
    }

    /// sacreBLEU's signature, e.g. `nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0`.
    pub fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        format!(
            "nrefs:{nrefs}|case:{}|eff:{}|nc:{}|nw:{}|space:{}|version:{SACREBLEU_VERSION}",
            if c.lowercase { "lc" } else { "mixed" },
            if c.eps_smoothing { "no" } else { "yes" },
            c.char_order,
            c.word_order,
            if c.whitespace { "yes" } else { "no" },
        )
    }
}

/// One order's `[hyp_count, ref_count, match]` from the numbers of hypothesis and reference
/// n-grams of that order and their matches. The hypothesis count is 0 when the reference has no
/// n-gram of the order (sacreBLEU's quirk, which also keeps those n-grams out of corpus totals).
fn triple(hyp_ngrams: usize, ref_ngrams: usize, matched: u64) -> [u64; 3] {
    let hyp_total = if ref_ngrams == 0 { 0 } else { hyp_ngrams };
    [hyp_total as u64, ref_ngrams as u64, matched]
}

/// The number of n-grams of order `n` in a sequence of `len` units.
fn ngrams(len: usize, n: usize) -> usize {
    (len + 1).saturating_sub(n)
}

/// [`order_triple`] of orders `1..=max_order` of two id sequences, counted by [`SortedNgrams`].
fn sorted_triples(
    sorted: &mut SortedNgrams,
    hyp: &[u32],
    rf: &[u32],
    max_order: usize,
    out: &mut Vec<u64>,
) {
    for n in 1..=max_order {
        let matched = sorted.matches(hyp, rf, n);
        out.extend_from_slice(&triple(ngrams(hyp.len(), n), ngrams(rf.len(), n), matched));
    }
}

/// One order's [`triple`] from the n-gram ids of that order; the count arrays are left all
/// zero.
fn order_triple(
    hyp: &[u32],
    rf: &[u32],
    hyp_count: &mut [u32],
    ref_count: &mut [u32],
    out: &mut Vec<u64>,
) {
    for &g in rf {
        ref_count[g as usize] += 1;
    }
    for &g in hyp {
        if g != ABSENT {
            hyp_count[g as usize] += 1;
        }
    }
    let mut matched = 0u64;
    for &g in hyp {
        if g != ABSENT {
            let c = std::mem::take(&mut hyp_count[g as usize]);
            matched += u64::from(c.min(ref_count[g as usize]));
        }
    }
    for &g in rf {
        ref_count[g as usize] = 0;
    }
    out.extend_from_slice(&triple(hyp.len(), rf.len(), matched));
}

/// The JSON record of a sentence chrF score.
#[derive(Serialize)]
pub struct ChrfRecord {
    pub score: f64,
    /// The best reference's triples per order.
    pub stats: Vec<u64>,
    pub best_ref: usize,
}

#[derive(Serialize)]
struct ChrfCorpusRecord<'a> {
    name: &'a str,
    score: f64,
    stats: &'a [u64],
}

impl Registered for Chrf {
    const NAME: &'static str = "chrf";
    const SUMMARY: &'static str = "sacreBLEU 2.6.0 chrF and chrF++";
    type Args = ChrfArgs;

    fn config_from_args(common: &CommonArgs, args: ChrfArgs) -> Result<ChrfConfig, String> {
        // sacreBLEU scores no order at all as 0.0 for one segment and raises IndexError for
        // more (its `sum_of_lists` of empty lists): nothing a score could mean.
        if args.chrf_char_order == 0 && args.chrf_word_order == 0 {
            return Err(
                "--chrf-char-order 0 needs a word order (--chrf-word-order 1 or more): \
                        chrF of no n-grams is not a score"
                    .to_owned(),
            );
        }
        Ok(ChrfConfig {
            char_order: args.chrf_char_order as usize,
            word_order: args.chrf_word_order as usize,
            beta: args.chrf_beta.into(),
            lowercase: common.lowercase,
            whitespace: args.chrf_whitespace,
            eps_smoothing: args.chrf_eps_smoothing,
        })
    }

    fn new(config: ChrfConfig) -> Result<Chrf, String> {
        if config.char_order > 64
            || config.word_order > 64
            || config.char_order + config.word_order == 0
            || config.beta > 1000
        {
            return Err("chrf: orders or beta out of range".to_owned());
        }
        Ok(Chrf::new(config))
    }
}

impl Metric for Chrf {
    type Stats = ChrfStats;
    type Totals = ChrfTotals;
    type Workspace = ChrfWorkspace;
    type Config = ChrfConfig;
    type Sentence = ChrfRecord;

    fn key(&self) -> &'static str {
        "chrf"
    }

    /// Character and word n-grams are counted order by order, so a line's time grows with the
    /// orders: past chrF++'s 6 + 2, the line limit shrinks.
    fn ngram_orders(&self) -> Option<NgramOrders> {
        let c = &self.config;
        Some(NgramOrders {
            orders: c.char_order + c.word_order,
            base: 8,
            option: format!(
                "--chrf-char-order {} --chrf-word-order {}",
                c.char_order, c.word_order
            ),
        })
    }

    fn config(&self) -> &ChrfConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut ChrfWorkspace) -> ChrfStats {
        // JSONL strings are scored as given, as the Python API scores them; lines of files
        // as the CLI does.
        let rstrip = self.rstrip && !segment.exact;
        segment.with_refs(|hyp, refs| self.stats_stripped(hyp, refs, rstrip, ws))
    }

    fn sentence_scores(&self, stats: &ChrfStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(self.f_score(&stats.counts));
        Ok(())
    }

    fn sentence(&self, stats: &ChrfStats) -> Result<ChrfRecord, String> {
        Ok(ChrfRecord {
            score: self.f_score(&stats.counts),
            stats: stats.counts.clone(),
            best_ref: stats.best_ref,
        })
    }

    fn new_totals(&self) -> ChrfTotals {
        ChrfTotals {
            counts: vec![0; 3 * self.orders()],
            nrefs: RefCounts::default(),
        }
    }

    fn add(&self, totals: &mut ChrfTotals, stats: &ChrfStats) {
        for (t, s) in totals.counts.iter_mut().zip(&stats.counts) {
            *t += s;
        }
        totals.nrefs.add(stats.nrefs);
    }

    /// The per-order counts: the stats vector's layout.
    fn sums(&self, totals: &ChrfTotals) -> Vec<u64> {
        totals.counts.clone()
    }

    fn save_totals(&self, totals: &ChrfTotals) -> Value {
        serde_json::to_value(totals).expect("chrF totals serialize")
    }

    fn merge_saved(&self, totals: &mut ChrfTotals, saved: &Value) -> Result<(), String> {
        let counts: Vec<u64> = saved::field(saved, "counts")?;
        let nrefs = saved::field(saved, "nrefs")?;
        saved::check_nrefs(nrefs, "chrF statistics")?;
        if counts.len() == totals.counts.len() {
            self.check_vector(&counts)?;
        }
        saved::add_counts(&mut totals.counts, &counts, "chrF counts")?;
        totals.nrefs.merge(nrefs);
        Ok(())
    }

    /// What [`stats`](Chrf::stats) makes of every segment, and so of any sum of segments: per
    /// order `[hyp, ref, match]` with the matches at most either count (`order_triple` clips
    /// them), and, among the character orders and among the word orders, each order's counts
    /// at most the previous one's (L − n + 1 n-grams of a sequence of L; the hypothesis count
    /// is 0 when the reference has no n-gram of the order, which then holds for higher orders
    /// too).
    fn check_vector(&self, v: &[u64]) -> Result<(), String> {
        let orders = self.orders();
        if v.len() != 3 * orders {
            return Err(format!(
                "chrF statistics: {} numbers, not {}",
                v.len(),
                3 * orders
            ));
        }
        let chars = self.config.char_order;
        for (i, t) in v.chunks_exact(3).enumerate() {
            let (kind, order) = if i < chars {
                ("character", i + 1)
            } else {
                ("word", i - chars + 1)
            };
            saved::at_most(
                t[2],
                t[0].min(t[1]),
                &format!("chrF {kind} order-{order} matches above its n-gram counts"),
            )?;
            if order > 1 {
                let before = &v[3 * (i - 1)..3 * i];
                for (j, side) in ["hypothesis", "reference"].into_iter().enumerate() {
                    saved::at_most(
                        t[j],
                        before[j],
                        &format!(
                            "chrF {kind} order-{order} {side} count above the order-{} one",
                            order - 1
                        ),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// sacreBLEU's chrF stats vector (the best reference's triples per order), which its
    /// bootstrap resamples too.
    fn vector_len(&self) -> Option<usize> {
        Some(3 * self.orders())
    }

    fn stats_vector(&self, stats: &ChrfStats, out: &mut [u64]) {
        out.copy_from_slice(&stats.counts);
    }

    fn score_vector(&self, sums: &[u64]) -> f64 {
        self.f_score(sums)
    }

    fn score(&self, totals: &ChrfTotals) -> Score {
        let score = self.f_score(&totals.counts);
        let name = self.name();
        let signature = self.signature(&totals.nrefs.signature_value());
        let line = vec![Piece::Text(format!("{name} = ")), Piece::Score(score)];
        let fields = score::fields(&ChrfCorpusRecord {
            name: &name,
            score,
            stats: &totals.counts,
        });
        Score::new("chrf", name, score, signature, fields, line)
    }
}

#[cfg(test)]
mod tests;
