//! `nist`: the NIST score of `mteval-v13a.pl` (N = 5) at corpus level (`MTEVAL.md` §4.2–§4.4),
//! streamed; NLTK 3.10.4 `sentence_nist` for the rows and, with `--nist-compat nltk`, NLTK's
//! `corpus_nist` for the reports (`NLTK.md` §8).
//!
//! # Why the totals hold a table
//!
//! NIST weighs a matched n-gram by its information, `Info(w₁…wₙ) = log2(C(w₁…wₙ₋₁) / C(w₁…wₙ))`,
//! where the counts `C` run over **every reference of the whole corpus**. No weight is known
//! before the corpus ends, so NIST cannot be a sum of per-segment numbers. It is still a single
//! pass: the information sum of order n is `Σ_g Info(g)·M(g)` over distinct n-grams g, with
//! `M(g)` the clipped matches of g summed over all segments. The totals therefore keep
//!
//! * the reference n-gram table: every distinct reference n-gram of orders 1..N, interned (each
//!   token's text stored once, an n-gram as one id keyed by (prefix id, last token id), the
//!   hash table holding a tag byte and an id per slot), with its count `C(g)`, its prefix and
//!   its order;
//! * `M(g)` for every n-gram that has matched, and the list of those n-grams;
//! * the hypothesis n-gram counts per order and the reference word count;
//!
//! and each report (periodic or final) computes the weights from the table as it stands: the
//! NIST of the corpus read so far, and at the end mteval's number. The table grows with the
//! number of distinct reference n-grams (measured in the README: "NIST memory").
//!
//! The merger interns on its thread (prefetching a reference's lookups order by order, see
//! `table.rs`; a reference line seen before is counted from the ids it got then, see
//! `memo.rs`); workers ship each segment's tokenized references (with the memo's hash of each)
//! and, for every matched hypothesis n-gram, where it occurs in a reference (reference, order,
//! position), so the merger maps it to its table id without hashing the hypothesis. With one
//! reference of up to 128 tokens (nearly every segment) a worker finds the matches with bit
//! masks of reference positions (`ngram::bitparallel`) instead of interning the segment's
//! n-grams. A worker computes a row's `sentence_nist` only when the row is written.
//!
//! # mteval's quirks, reproduced
//!
//! * Clipping by the maximum count over references (n-grams matched in different references all
//!   count).
//! * The brevity penalty compares the hypothesis length with the **average** reference length
//!   (total reference words / number of references), and is 0.5 at ratio 2/3.
//! * `Info("0" x) = log2(W / C("0" x))`: for a bigram whose first token is the string `0`, the
//!   script's prefix lookup sees a false value and falls back to the total word count W.
//! * A hypothesis side without n-grams of some order divides by `max(count, 1)`, giving 0.
//! * A segment whose references are all empty kills the script ("Illegal division by zero" in
//!   its segment-level NIST): the report is then an error, as mteval gives no score.
//!
//! Agreement with mteval is within the vectors' relative tolerance (1e-12): mteval sums the
//! information in Perl's randomised hash order and is not bit-reproducible itself.
//!
//! # NLTK
//!
//! Rows are `sentence_nist(refs, hyp, n)`: weights from the segment's own references, and for
//! each order the single best reference by (precision, numerator, longer reference), with NLTK's
//! float summation order — bit for bit. NLTK raises where a hypothesis is shorter than n tokens
//! or all references are empty; the row is then an error. `corpus_nist` (reports with
//! `--nist-compat nltk`) re-chooses the best reference per order and sentence with corpus-wide
//! weights, so it keeps each segment's per-order, per-reference overlap lists in input order and
//! recomputes from them at each report.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::nltk_bleu::NLTK_VERSION;
use super::options::CommonArgs;
use super::score::{Piece, Score};
use super::Registered;
use super::{Metric, NgramOrders};
use crate::input::{RefCounts, Segment};
use crate::tokenize::mteval::MtevalTokenizer;

mod memo;
mod mteval;
mod nltk;
mod segment;
mod table;
mod totals;

pub use mteval::mteval_brevity_penalty;
pub use nltk::nltk_length_penalty;
pub use segment::{NistStats, NistWorkspace};
pub use totals::NistTotals;

use memo::LineMemo;
use nltk::raises;
use table::{Counts, NgramTable, NO_PREFIX};
use totals::NltkCorpus;

/// mteval-v13a's NIST order.
pub const DEFAULT_ORDER: usize = 5;

/// Which reference implementation the corpus report follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum NistCompat {
    /// `mteval-v13a.pl` (the default).
    #[default]
    Mteval,
    /// NLTK's `corpus_nist`.
    Nltk,
}

impl NistCompat {
    /// The option value.
    pub fn name(self) -> &'static str {
        match self {
            NistCompat::Mteval => "mteval",
            NistCompat::Nltk => "nltk",
        }
    }
}

/// How segments become tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NistTokenize {
    /// mteval-v13a's tokenization (normal or international, case folding or not).
    Mteval(MtevalTokenizer),
    /// Python `str.split()`: the tokens as given, no case folding (how NLTK is usually fed).
    Split,
}

/// `nist`'s own options (the mteval tokenization switches are shared with `mteval-bleu`:
/// [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "NIST options")]
pub struct NistArgs {
    /// nist: corpus reports follow mteval-v13a.pl (streamed, the default) or NLTK corpus_nist.
    /// Rows always follow NLTK sentence_nist.
    #[arg(long, value_enum, value_name = "TOOL", default_value = "mteval")]
    pub nist_compat: NistCompat,

    /// nist: highest n-gram order N (mteval-v13a: 5; NLTK's n). 1 to 9 follow mteval's
    /// cumulative N-gram columns (mteval counts up to 9); 0 (with --nist-compat nltk only)
    /// makes NLTK raise. NLTK's n above 9 is not offered. Above 5, lines longer than
    /// --max-line-bytes × 5 / N are skipped (each order takes memory per token).
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u32).range(0..=9))]
    pub nist_order: u32,

    /// nist: `mteval` (mteval-v13a's own tokenization, see --mteval-international and
    /// --case-sensitive) or `none` (Python str.split() tokens as given, no case folding: NLTK's
    /// usual input).
    #[arg(long, value_name = "NAME", default_value = "mteval", value_parser = ["mteval", "none"])]
    pub nist_tokenize: String,
}

/// NIST settings; `Default` is `mteval-v13a.pl` without options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NistConfig {
    pub tokenize: NistTokenize,
    /// N: the highest n-gram order (mteval: 5; NLTK's `n`).
    pub order: usize,
    pub compat: NistCompat,
    /// Python `str.lower()` before [`NistTokenize::Split`] (`--lowercase`); mteval's own
    /// tokenization folds case itself unless `--case-sensitive`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lowercase: bool,
}

impl Default for NistConfig {
    fn default() -> Self {
        NistConfig {
            tokenize: NistTokenize::Mteval(MtevalTokenizer::default()),
            order: DEFAULT_ORDER,
            compat: NistCompat::Mteval,
            lowercase: false,
        }
    }
}

/// The `nist` metric.
#[derive(Debug)]
pub struct Nist {
    config: NistConfig,
}

/// Segments per batch ([`Metric::max_batch_segments`]).
const BATCH_SEGMENTS: usize = 256;

/// `log(2.0)`.
const LN2: f64 = std::f64::consts::LN_2;

impl Nist {
    /// A NIST metric with these settings.
    pub fn new(config: NistConfig) -> Nist {
        Nist { config }
    }

    /// The settings.
    pub fn config(&self) -> &NistConfig {
        &self.config
    }

    fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        let (case, tok) = match c.tokenize {
            NistTokenize::Mteval(t) => (if t.case_sensitive { "mixed" } else { "lc" }, t.name()),
            NistTokenize::Split => (if c.lowercase { "lc" } else { "mixed" }, "split"),
        };
        let version = match c.compat {
            NistCompat::Mteval => "mteval:v13a".to_owned(),
            NistCompat::Nltk => format!("nltk:{NLTK_VERSION}"),
        };
        format!(
            "nrefs:{nrefs}|case:{case}|tok:{tok}|order:{}|{version}",
            c.order
        )
    }
}

/// The JSON record of a sentence NIST score (NLTK `sentence_nist`).
#[derive(Serialize)]
pub struct NistRecord {
    pub score: f64,
    pub hyp_len: u64,
}

impl Registered for Nist {
    const NAME: &'static str = "nist";
    const SUMMARY: &'static str = "mteval-v13a.pl NIST (or NLTK corpus_nist)";
    type Args = NistArgs;

    /// `--lowercase` lowercases the text before split tokens (`--nist-tokenize none`); mteval's
    /// tokenization folds case itself, and its own `--case-sensitive` keeps it (as sacreBLEU's
    /// `-lc` leaves TER to `--ter-case-sensitive`): the signature's `case:` says which.
    fn config_from_args(common: &CommonArgs, args: NistArgs) -> Result<NistConfig, String> {
        let split = args.nist_tokenize == "none";
        Ok(NistConfig {
            lowercase: split && common.lowercase,
            tokenize: if split {
                NistTokenize::Split
            } else {
                NistTokenize::Mteval(MtevalTokenizer {
                    international: common.mteval_international,
                    case_sensitive: common.case_sensitive,
                    split_non_ascii: false,
                })
            },
            order: args.nist_order as usize,
            compat: args.nist_compat,
        })
    }

    fn new(config: NistConfig) -> Result<Nist, String> {
        if config.order > 9 {
            return Err("nist: the order is 0 to 9".to_owned());
        }
        // Order 0 exists for NLTK, whose functions raise on it; mteval-v13a.pl has no NIST of
        // order 0 (its report came out with hyp_len 0 and BP 0; found by the docs audit).
        if config.order == 0 && config.compat == NistCompat::Mteval {
            return Err(
                "nist: --nist-order 0 is NLTK's (sentence_nist and corpus_nist raise \
                        on it); mteval-v13a.pl's orders are 1 to 9: add --nist-compat nltk for \
                        NLTK's behaviour"
                    .to_owned(),
            );
        }
        Ok(Nist::new(config))
    }
}

impl Metric for Nist {
    type Stats = NistStats;
    type Totals = NistTotals;
    type Workspace = NistWorkspace;
    type Config = NistConfig;
    type Sentence = NistRecord;

    fn key(&self) -> &'static str {
        "nist"
    }

    fn ngram_orders(&self) -> Option<NgramOrders> {
        let n = self.config.order;
        Some(NgramOrders::words(n, format!("--nist-order {n}")))
    }

    fn config(&self) -> &NistConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut NistWorkspace) -> NistStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &NistStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(self.sentence_nist(stats).map_err(|e| raises(&e))?);
        Ok(())
    }

    fn sentence(&self, stats: &NistStats) -> Result<NistRecord, String> {
        Ok(NistRecord {
            score: self.sentence_nist(stats).map_err(|e| raises(&e))?,
            hyp_len: stats.hyp_len,
        })
    }

    /// A segment's statistics carry its tokenized references, its matches and NLTK's overlap
    /// lists: about 2 KB, against tens of bytes for BLEU. With the default 2048 segments a
    /// batch, the batches waiting between workers and merger held more memory than the
    /// reference table itself (bench corpus: 52 MiB peak against 34 MiB with 256 segments).
    /// 256 segments are still several milliseconds of work, far above a batch's hand-over cost.
    fn max_batch_segments(&self) -> usize {
        BATCH_SEGMENTS
    }

    /// mteval dies on a segment whose references are all empty (its segment NIST divides by
    /// their length); the report says so, and this names the line.
    fn segment_warning(&self, stats: &NistStats) -> Option<String> {
        (self.config.compat == NistCompat::Mteval && stats.refs.iter().all(|r| r.is_empty())).then(
            || {
                "every reference is empty: mteval-v13a.pl dies on such a segment (Illegal \
                 division by zero), so the corpus NIST is an error"
                    .to_owned()
            },
        )
    }

    fn new_totals(&self) -> NistTotals {
        NistTotals {
            table: NgramTable::default(),
            memo: LineMemo::default(),
            matched: Counts::default(),
            matched_ids: Vec::new(),
            zero_unigram: None,
            words: 0,
            hyp_ngrams: vec![0; self.config.order],
            avg_ref_len_sum: 0.0,
            avg_ref_len_exact: true,
            nrefs: RefCounts::default(),
            segments: 0,
            empty_ref_segment: None,
            nltk: (self.config.compat == NistCompat::Nltk).then(|| NltkCorpus {
                ref_starts: vec![0],
                block_starts: vec![0],
                ..NltkCorpus::default()
            }),
            ref_ids: Vec::new(),
            match_ids: Vec::new(),
        }
    }

    fn add(&self, t: &mut NistTotals, stats: &NistStats) {
        let n_max = self.config.order;
        let nrefs = stats.refs.len();
        if t.ref_ids.len() < nrefs {
            t.ref_ids.resize_with(nrefs, Vec::new);
        }
        let mut seg_words = 0u64;
        for (r, tokens) in stats.refs.iter().enumerate() {
            seg_words += tokens.len() as u64;
            // Interning and counting the reference's n-grams cannot fail before 2^32 distinct
            // n-grams; a segment past that point (tens of GiB of table) is left out of the
            // table rather than counted in part.
            let known_tokens = t.table.tokens();
            let hash = stats.ref_hashes[r];
            if t.memo
                .ids(&mut t.table, tokens, hash, n_max, &mut t.ref_ids[r])
                .is_none()
            {
                t.ref_ids[r].clear();
                continue;
            }
            t.matched.grow(t.table.len());
            // Only a reference that brought new tokens can have brought the token `0`.
            if t.zero_unigram.is_none() && t.table.tokens() > known_tokens {
                t.zero_unigram = t
                    .table
                    .token("0", false)
                    .and_then(|z| t.table.ngram(NO_PREFIX, z, 1, false));
            }
        }
        t.words += seg_words;
        for n in 1..=n_max {
            t.hyp_ngrams[n - 1] += (stats.hyp_len + 1).saturating_sub(n as u64);
        }
        t.match_ids.clear();
        for m in &stats.matches {
            let g = t.ref_ids[m.reference as usize]
                .get(m.location(&stats.refs))
                .copied()
                .unwrap_or(u32::MAX);
            if g != u32::MAX {
                t.matched.prefetch(g);
            }
            t.match_ids.push(g);
        }
        for (m, &g) in stats.matches.iter().zip(&t.match_ids) {
            if g == u32::MAX {
                continue;
            }
            if t.matched.get(g) == 0 {
                t.matched_ids.push(g);
            }
            t.matched.add(g, m.count);
        }
        t.nrefs.add(nrefs);
        // Only mteval's brevity penalty reads the average reference length (NLTK's
        // `corpus_nist` sums the best references' lengths): NLTK mode leaves the sum at 0, so
        // that its documents split and merge whatever the numbers of references.
        if nrefs > 0 && self.config.compat == NistCompat::Mteval {
            let x = seg_words as f64 / nrefs as f64;
            let exact = x * nrefs as f64 == seg_words as f64;
            t.add_avg_ref_len(x, exact);
        }
        t.segments += 1;
        if seg_words == 0 && t.empty_ref_segment.is_none() {
            t.empty_ref_segment = Some(t.segments);
        }
        if let Some(c) = &mut t.nltk {
            c.hyp_lens
                .push(u32::try_from(stats.hyp_len).unwrap_or(u32::MAX));
            c.ref_lens.extend(stats.refs.iter().map(|r| r.len() as u32));
            c.ref_starts.push(c.ref_lens.len() as u32);
            // (A term whose n-gram could not be interned — past 2^32 table entries — would
            // have no weight; keep its slot as id 0 with count 0 so the list bounds stay valid.)
            c.term_ends.push(c.terms.len() as u64);
            let term = |k: u32, count: u32| match t.match_ids[k as usize] {
                u32::MAX => (0, 0),
                g => (g, count),
            };
            match &stats.several {
                Some(lists) => {
                    for list in lists.term_ends.windows(2) {
                        for &(k, count) in &lists.terms[list[0] as usize..list[1] as usize] {
                            let (g, count) = term(k, count);
                            c.push_term(g, count);
                        }
                        c.term_ends.push(c.terms.len() as u64);
                    }
                }
                // One reference: order n's list is the matches of order n.
                None => {
                    for range in segment::order_ranges(&stats.matches, n_max) {
                        for k in range {
                            let (g, count) = term(k as u32, stats.matches[k].count);
                            c.push_term(g, count);
                        }
                        c.term_ends.push(c.terms.len() as u64);
                    }
                }
            }
            c.block_starts.push(c.term_ends.len());
        }
    }

    /// The reference words, the hypothesis n-grams per order and the segments (the table's
    /// counts are summed by n-gram, which groups number differently).
    fn sums(&self, t: &NistTotals) -> Vec<u64> {
        [&[t.words][..], &t.hyp_ngrams, &[t.segments]].concat()
    }

    fn save_totals(&self, t: &NistTotals) -> Value {
        t.save()
    }

    fn merge_saved(&self, t: &mut NistTotals, saved: &Value) -> Result<(), String> {
        t.merge_saved(saved)
    }

    /// mteval's average reference length with a varying number of references is a sequential
    /// float sum of words/references per segment; once a term or partial sum has been rounded,
    /// shards would round differently.
    /// NLTK's `corpus_nist` does not read that sum (found by the NLTK audit: its documents were
    /// refused with mteval's reason).
    fn totals_refusal(&self, t: &NistTotals) -> Option<String> {
        let varying = t.nrefs.range().is_some_and(|(lo, hi)| lo != hi);
        let mteval = self.config.compat == NistCompat::Mteval;
        (mteval && varying && !t.avg_ref_len_exact).then(|| {
            "nist: with a varying number of references (not all powers of two), mteval's \
             average reference length is a rounded float sum that depends on how the input is \
             split"
                .to_owned()
        })
    }

    fn score(&self, t: &NistTotals) -> Score {
        let signature = self.signature(&t.nrefs.signature_value());
        let mut fields = Map::new();
        let (name, result) = match self.config.compat {
            NistCompat::Mteval => {
                let result = self.mteval_score(t).map(|m| {
                    fields.insert("info".into(), Value::from(m.info.clone()));
                    fields.insert("bp".into(), Value::from(m.bp));
                    fields.insert("ratio".into(), Value::from(m.ratio));
                    fields.insert("hyp_len".into(), Value::from(m.hyp_len));
                    fields.insert("ref_len".into(), Value::from(m.avg_ref_len));
                    (
                        m.score,
                        Some(format!(
                            " (BP = {:.3} ratio = {:.3} hyp_len = {} ref_len = {:.1})",
                            m.bp, m.ratio, m.hyp_len, m.avg_ref_len
                        )),
                    )
                });
                ("NIST", result)
            }
            NistCompat::Nltk => (
                "NLTK-NIST",
                self.nltk_score(t)
                    .map(|s| (s, None))
                    .map_err(|e| raises(&e)),
            ),
        };
        let mut line = vec![Piece::Text(format!("{name} = "))];
        let score = match result {
            Ok((score, detail)) => {
                line.push(Piece::Score(score));
                line.extend(detail.map(Piece::Text));
                fields.insert("score".into(), Value::from(score));
                score
            }
            Err(message) => {
                line.push(Piece::Text(format!("error: {message}")));
                fields.insert("score".into(), Value::Null);
                fields.insert("error".into(), Value::from(message));
                f64::NAN
            }
        };
        fields.insert("ngrams".into(), Value::from(t.table.len()));
        fields.insert("matched_ngrams".into(), Value::from(t.matched_ids.len()));
        Score::new("nist", name.to_owned(), score, signature, fields, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(config: NistConfig, pairs: &[(&str, &[&str])]) -> Score {
        let nist = Nist::new(config);
        let mut ws = NistWorkspace::default();
        let mut totals = nist.new_totals();
        for (hyp, refs) in pairs {
            let stats = nist.stats(hyp, refs, &mut ws);
            nist.add(&mut totals, &stats);
        }
        Metric::score(&nist, &totals)
    }

    #[test]
    fn brevity_penalty_is_one_half_at_two_thirds() {
        // MTEVAL.md §4.4: 0.5 in exact arithmetic, one ulp below in floating point.
        assert_eq!(mteval_brevity_penalty(2.0 / 3.0), 0.49999999999999983);
        assert_eq!(mteval_brevity_penalty(1.5), 1.0);
        assert_eq!(mteval_brevity_penalty(0.0), 0.0);
        assert_eq!(
            nltk_length_penalty(0, 3).unwrap_err().kind,
            "ZeroDivisionError"
        );
        assert_eq!(nltk_length_penalty(2, 5).unwrap(), 1.0);
    }

    #[test]
    fn bigram_after_zero_is_weighted_against_all_words() {
        // Reference "0 a 0 b": W = 4, C("0") = 2, C("0 a") = 1. mteval weighs "0 a" with
        // log2(W / 1) = 2, not log2(C("0") / 1) = 1; unigrams "0" and "a" weigh 1 and 2.
        let report = corpus(NistConfig::default(), &[("0 a", &["0 a 0 b"])]);
        let info = report.fields["info"].as_array().unwrap();
        assert_eq!(info[0].as_f64(), Some(3.0));
        assert_eq!(info[1].as_f64(), Some(2.0));
        // The same when the `0` first shows up in a later segment (the table already has
        // tokens) and its reference repeats.
        let report = corpus(
            NistConfig::default(),
            &[
                ("x y", &["a b x"]),
                ("0 a", &["0 a 0 b"]),
                ("0 a", &["0 a 0 b"]),
            ],
        );
        let info = report.fields["info"].as_array().unwrap();
        assert_eq!(report.fields["ngrams"].as_u64(), Some(13));
        // W = 11, C("0") = 4, C("0 a") = 2: "0 a" weighs log2(11 / 2) twice.
        let want = 2.0 * (11.0f64 / 2.0).log2();
        assert!((info[1].as_f64().unwrap() - want).abs() < 1e-12, "{info:?}");
        // The control: the same text with "1" has the prefix count as denominator.
        let report = corpus(NistConfig::default(), &[("1 a", &["1 a 1 b"])]);
        assert_eq!(report.fields["info"][1].as_f64(), Some(1.0));
    }

    /// NLTK mode packs its terms (a count of 1 in one word, others escaped): counts of 1 and
    /// above come back from a saved document as they went in, and the halves of a corpus merged
    /// give the report and the document of the whole.
    #[test]
    fn packed_terms_save_and_merge_as_pairs() {
        let config = NistConfig {
            tokenize: NistTokenize::Split,
            order: 3,
            compat: NistCompat::Nltk,
            lowercase: false,
        };
        let nist = Nist::new(config);
        let pairs: &[(&str, &[&str])] = &[
            ("a a a b", &["a a b b"]),
            ("x y x y x", &["x y x y", "y x"]),
            ("the cat the cat", &["the cat sat on the cat"]),
            ("q", &["q r"]),
        ];
        let mut ws = NistWorkspace::default();
        let (mut whole, mut first, mut second) =
            (nist.new_totals(), nist.new_totals(), nist.new_totals());
        for (k, (hyp, refs)) in pairs.iter().enumerate() {
            let stats = nist.stats(hyp, refs, &mut ws);
            nist.add(&mut whole, &stats);
            nist.add(if k < 2 { &mut first } else { &mut second }, &stats);
        }
        let c = whole.nltk.as_ref().unwrap();
        let terms: Vec<(u32, u32)> = totals::PackedTerms(&c.terms).collect();
        assert!(terms.iter().any(|&(_, n)| n == 2), "{terms:?}");
        assert!(terms.iter().any(|&(_, n)| n == 1));
        assert!(c.terms.len() < 2 * terms.len());
        let saved = nist.save_totals(&whole);
        let flat = saved["nltk"]["terms"].as_array().unwrap();
        assert_eq!(flat.len(), 2 * terms.len());
        let mut merged = nist.new_totals();
        for part in [&first, &second] {
            nist.merge_saved(&mut merged, &nist.save_totals(part))
                .unwrap();
        }
        assert_eq!(nist.save_totals(&merged), saved);
        assert_eq!(
            Metric::score(&nist, &merged).value.to_bits(),
            Metric::score(&nist, &whole).value.to_bits()
        );
    }

    #[test]
    fn running_reports_use_the_weights_so_far() {
        // The first segment's score changes once a second segment adds reference counts.
        let one = corpus(NistConfig::default(), &[("a b c", &["a b c d"])]);
        let two = corpus(
            NistConfig::default(),
            &[("a b c", &["a b c d"]), ("x y", &["a x y"])],
        );
        assert!(one.value > 0.0 && two.value > 0.0 && one.value != two.value);
    }

    #[test]
    fn empty_references_kill_mteval_and_short_hypotheses_make_nltk_raise() {
        let report = corpus(NistConfig::default(), &[("a b", &[""])]);
        assert!(report.value.is_nan());
        assert!(report.fields["error"]
            .as_str()
            .unwrap()
            .contains("Illegal division by zero"));
        let nist = Nist::new(NistConfig::default());
        let stats = nist.stats("a b c", &["a b c"], &mut NistWorkspace::default());
        assert_eq!(
            nist.sentence_nist(&stats).unwrap_err().kind,
            "ZeroDivisionError"
        );
        let stats = nist.stats(
            "a b c d e",
            &["a b c d e", "a b c d e f"],
            &mut NistWorkspace::default(),
        );
        assert!(nist.sentence_nist(&stats).unwrap() > 0.0);
    }
}
