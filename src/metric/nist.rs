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
//!   hash table holding only ids), with its count `C(g)`, its prefix and its order;
//! * `M(g)` for every n-gram that has matched, and the list of those n-grams;
//! * the hypothesis n-gram counts per order and the reference word count;
//!
//! and each report (periodic or final) computes the weights from the table as it stands: the
//! NIST of the corpus read so far, and at the end mteval's number. The table grows with the
//! number of distinct reference n-grams (measured in the README: "NIST memory").
//!
//! The merger interns on its thread; workers ship each segment's tokenized references and, for
//! every matched hypothesis n-gram, where it occurs in a reference (reference, order, position),
//! so the merger maps it to its table id without hashing the hypothesis.
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

use std::hash::BuildHasher;

use clap::ValueEnum;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::nltk_bleu::NLTK_VERSION;
use super::options::CommonArgs;
use super::pymath::{pow2, PyError};
use super::registry::Registered;
use super::score::{Piece, Score};
use super::{saved, Metric};
use crate::input::{RefCounts, Segment};
use crate::ngram::{NgramIds, NgramIndex, ABSENT};
use crate::tokenize::mteval::{MtevalScratch, MtevalTokenizer};
use crate::tokenize::Tokens;

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
    /// cumulative N-gram columns; 0 makes NLTK raise.
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
}

impl Default for NistConfig {
    fn default() -> Self {
        NistConfig {
            tokenize: NistTokenize::Mteval(MtevalTokenizer::default()),
            order: DEFAULT_ORDER,
            compat: NistCompat::Mteval,
        }
    }
}

/// The `nist` metric.
#[derive(Debug)]
pub struct Nist {
    config: NistConfig,
}

/// A matched hypothesis n-gram of a segment: where it occurs in a reference, and its clipped
/// count `min(count in hyp, max count in one reference)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Match {
    reference: u32,
    order: u32,
    position: u32,
    count: u32,
}

impl Match {
    /// Index of the n-gram among its reference's ids, orders concatenated ([`order_start`]).
    fn location(&self, refs: &[Tokens]) -> usize {
        let len = refs[self.reference as usize].len();
        order_start(len, self.order as usize) + self.position as usize
    }
}

/// Statistics of one segment.
#[derive(Clone, Debug)]
pub struct NistStats {
    /// NLTK `sentence_nist` of the segment, or what NLTK raises.
    pub sentence: Result<f64, PyError>,
    /// The tokenized references, for the merger to intern.
    refs: Vec<Tokens>,
    hyp_len: u64,
    /// Distinct matched hypothesis n-grams, orders ascending, first occurrence first.
    matches: Vec<Match>,
    /// NLTK's per-order, per-reference overlap lists: entries `k` and `k + 1` of `term_ends`
    /// bound the terms of list `k = (i − 1)·R + r` (order i, reference r); a term is (index into
    /// `matches`, clipped count against that reference alone), in the hypothesis'
    /// first-occurrence order.
    term_ends: Vec<u32>,
    terms: Vec<(u32, u32)>,
}

/// Counts that are `u32` for all but the rarest n-grams: the high part lives in a side map, so a
/// count never wraps and the common case costs four bytes.
#[derive(Clone, Debug, Default)]
struct Counts {
    low: Vec<u32>,
    high: FxHashMap<u32, u64>,
}

impl Counts {
    fn grow(&mut self, len: usize) {
        if self.low.len() < len {
            self.low.resize(len, 0);
        }
    }

    fn add(&mut self, id: u32, n: u32) {
        let slot = &mut self.low[id as usize];
        let (sum, carry) = slot.overflowing_add(n);
        *slot = sum;
        if carry {
            *self.high.entry(id).or_default() += 1;
        }
    }

    /// Adds a count of any size (merging saved statistics).
    fn add_u64(&mut self, id: u32, n: u64) {
        self.add(id, n as u32);
        let high = n >> 32;
        if high > 0 {
            *self.high.entry(id).or_default() += high;
        }
    }

    fn get(&self, id: u32) -> u64 {
        let high = self.high.get(&id).copied().unwrap_or(0);
        u64::from(self.low[id as usize]) + (high << 32)
    }
}

/// NLTK `corpus_nist` data of all segments, in input order (kept only with `--nist-compat nltk`).
#[derive(Clone, Debug, Default)]
struct NltkCorpus {
    hyp_lens: Vec<u32>,
    /// Segment s: references `ref_starts[s]..ref_starts[s + 1]` of `ref_lens`.
    ref_starts: Vec<u32>,
    ref_lens: Vec<u32>,
    /// Segment s: its block of list bounds is `term_ends[block_starts[s]..block_starts[s + 1]]`.
    block_starts: Vec<usize>,
    /// List bounds into `terms`, per segment N·R + 1 of them (a segment's block starts with the
    /// offset of its first list).
    term_ends: Vec<u64>,
    /// (table id, count).
    terms: Vec<(u32, u32)>,
}

/// The corpus-wide table of reference n-grams: every distinct token once (its text in one
/// arena), every distinct n-gram as one `u32` id whose key — (id of its (n−1)-gram prefix, id
/// of its last token) — is stored in two parallel vectors, so the hash table holds only ids
/// (4 bytes a slot). That is about half of what a map from the 8-byte key to the id costs, and
/// this table is what NIST's memory grows with.
#[derive(Default)]
struct NgramTable {
    hasher: FxBuildHasher,
    tokens: HashTable<u32>,
    arena: String,
    /// Token t is `arena[token_ends[t − 1]..token_ends[t]]` (0 for t = 0).
    token_ends: Vec<usize>,
    ngrams: HashTable<u32>,
    /// Per n-gram id: its key `(prefix id << 32) | last token id` (prefix `NO_PREFIX` for a
    /// unigram) — one vector, so a probe touches one place — and its order.
    keys: Vec<u64>,
    order: Vec<u8>,
    /// Scratch: the token ids of the sequence being interned.
    token_ids: Vec<u32>,
}

/// The prefix of a unigram.
const NO_PREFIX: u32 = u32::MAX;

impl NgramTable {
    /// Number of distinct n-grams (all orders).
    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The prefix id of n-gram `g` (`NO_PREFIX` for a unigram).
    fn prefix(&self, g: u32) -> u32 {
        (self.keys[g as usize] >> 32) as u32
    }

    fn token_text(&self, t: u32) -> &str {
        let t = t as usize;
        let start = if t == 0 { 0 } else { self.token_ends[t - 1] };
        &self.arena[start..self.token_ends[t]]
    }

    /// The id of token `text`, interned if `insert`.
    fn token(&mut self, text: &str, insert: bool) -> Option<u32> {
        let hash = self.hasher.hash_one(text);
        let found = {
            let this = &*self;
            this.tokens
                .find(hash, |&t| this.token_text(t) == text)
                .copied()
        };
        if found.is_some() || !insert {
            return found;
        }
        let id = u32::try_from(self.token_ends.len()).ok()?;
        self.arena.push_str(text);
        self.token_ends.push(self.arena.len());
        let (arena, ends, hasher) = (&self.arena, &self.token_ends, &self.hasher);
        self.tokens.insert_unique(hash, id, |&t| {
            let t = t as usize;
            let start = if t == 0 { 0 } else { ends[t - 1] };
            hasher.hash_one(&arena[start..ends[t]])
        });
        Some(id)
    }

    /// The id of the n-gram (prefix, last) of order `order`, interned if `insert`.
    fn ngram(&mut self, prefix: u32, last: u32, order: u8, insert: bool) -> Option<u32> {
        let key = (u64::from(prefix) << 32) | u64::from(last);
        let hash = self.hasher.hash_one(key);
        let keys = &self.keys;
        if let Some(&id) = self.ngrams.find(hash, |&g| keys[g as usize] == key) {
            return Some(id);
        }
        if !insert {
            return None;
        }
        let id = u32::try_from(self.keys.len()).ok()?;
        self.keys.push(key);
        self.order.push(order);
        let (keys, hasher) = (&self.keys, &self.hasher);
        self.ngrams
            .insert_unique(hash, id, |&g| hasher.hash_one(keys[g as usize]));
        Some(id)
    }

    /// The ids of the n-grams of orders 1..=n of `tokens`, order after order (see
    /// [`order_start`]); with `insert == false`, `None` if one is not in the table.
    fn ids(&mut self, tokens: &Tokens, n: usize, insert: bool, out: &mut Vec<u32>) -> Option<()> {
        out.clear();
        let mut token_ids = std::mem::take(&mut self.token_ids);
        let result = (|| {
            token_ids.clear();
            for w in tokens.iter() {
                token_ids.push(self.token(w, insert)?);
            }
            if n == 0 {
                return Some(());
            }
            for &t in &token_ids {
                let id = self.ngram(NO_PREFIX, t, 1, insert)?;
                out.push(id);
            }
            let len = tokens.len();
            for order in 2..=n.min(len) {
                let prev = order_start(len, order - 1);
                for i in 0..=len - order {
                    let prefix = out[prev + i];
                    let id = self.ngram(prefix, token_ids[i + order - 1], order as u8, insert)?;
                    out.push(id);
                }
            }
            Some(())
        })();
        self.token_ids = token_ids;
        result
    }
}

/// Offset of order `n`'s ids in a sequence of `len` tokens' ids, orders 1, 2, … concatenated.
fn order_start(len: usize, n: usize) -> usize {
    (1..n).map(|k| (len + 1).saturating_sub(k)).sum()
}

/// Running corpus totals: the reference n-gram table and the match counts (module docs).
pub struct NistTotals {
    /// The corpus-wide table of reference n-grams (never cleared).
    table: NgramTable,
    /// `C(g)`: occurrences in all references.
    freq: Counts,
    /// `M(g)`: clipped matches summed over segments.
    matched: Counts,
    /// Ids with `M(g) > 0`, in the order they first matched.
    matched_ids: Vec<u32>,
    /// Table id of the unigram `0` (mteval's bigram quirk).
    zero_unigram: Option<u32>,
    /// W: reference words (all references of all segments).
    words: u64,
    /// Hypothesis n-grams per order.
    hyp_ngrams: Vec<u64>,
    /// Σ over segments of (reference words / references), for a varying number of references.
    avg_ref_len_sum: f64,
    /// Every term and partial sum of `avg_ref_len_sum` was exact (power-of-two reference
    /// counts): then any split of the corpus sums to the same value, and statistics merge.
    avg_ref_len_exact: bool,
    nrefs: RefCounts,
    segments: u64,
    /// 1-based number of the first segment whose references are all empty.
    empty_ref_segment: Option<u64>,
    nltk: Option<NltkCorpus>,
    /// Merger scratch: table ids of the current segment's references, and of its matches.
    ref_ids: Vec<Vec<u32>>,
    match_ids: Vec<u32>,
}

impl NistTotals {
    /// Adds to `avg_ref_len_sum` (mteval's sequential float sum), keeping track of whether the
    /// sum is still exact (Knuth's two-sum error term is zero).
    fn add_avg_ref_len(&mut self, x: f64, exact: bool) {
        let a = self.avg_ref_len_sum;
        let sum = a + x;
        let bv = sum - a;
        let error = (a - (sum - bv)) + (x - bv);
        self.avg_ref_len_sum = sum;
        self.avg_ref_len_exact &= exact && error == 0.0;
    }

    /// The statistics of `merge`'s stats documents (`Metric::save_totals`): the table in id
    /// order (tokens, then each n-gram as prefix id + 1 (0: none) and last token id), `C(g)`
    /// per id, `(g, M(g))` in first-match order, and the scalars; with `--nist-compat nltk` the
    /// per-segment overlap lists too.
    fn save(&self) -> Value {
        let table = &self.table;
        let tokens: Vec<&str> = (0..table.token_ends.len() as u32)
            .map(|t| table.token_text(t))
            .collect();
        let mut ngrams = Vec::with_capacity(2 * table.len());
        for &key in &table.keys {
            let prefix = (key >> 32) as u32;
            ngrams.push(if prefix == NO_PREFIX {
                0
            } else {
                u64::from(prefix) + 1
            });
            ngrams.push(key & u64::from(u32::MAX));
        }
        let freq: Vec<u64> = (0..table.len() as u32).map(|g| self.freq.get(g)).collect();
        let matched: Vec<u64> = self
            .matched_ids
            .iter()
            .flat_map(|&g| [u64::from(g), self.matched.get(g)])
            .collect();
        let nltk = self.nltk.as_ref().map(|c| {
            serde_json::json!({
                "hyp_lens": c.hyp_lens,
                "ref_starts": c.ref_starts,
                "ref_lens": c.ref_lens,
                "block_starts": c.block_starts,
                "term_ends": c.term_ends,
                "terms": c.terms.iter().flat_map(|&(g, n)| [g, n]).collect::<Vec<u32>>(),
            })
        });
        serde_json::json!({
            "tokens": tokens,
            "ngrams": ngrams,
            "freq": freq,
            "matched": matched,
            "zero_unigram": self.zero_unigram,
            "words": self.words,
            "hyp_ngrams": self.hyp_ngrams,
            "avg_ref_len_sum": self.avg_ref_len_sum,
            "avg_ref_len_exact": self.avg_ref_len_exact,
            "nrefs": self.nrefs,
            "segments": self.segments,
            "empty_ref_segment": self.empty_ref_segment,
            "nltk": nltk,
        })
    }

    /// Adds saved statistics of segments that follow those in `self` (see [`save`]). The
    /// saved table is interned in its id order, so ids and the first-match order come out as
    /// one run over both parts would make them, and every report is bit-identical.
    fn merge_saved(&mut self, saved: &Value) -> Result<(), String> {
        let bad = |what: &str| format!("NIST statistics: {what}");
        let tokens: Vec<String> = saved::field(saved, "tokens")?;
        let ngrams: Vec<u64> = saved::field(saved, "ngrams")?;
        let freq: Vec<u64> = saved::field(saved, "freq")?;
        let matched: Vec<u64> = saved::field(saved, "matched")?;
        let hyp_ngrams: Vec<u64> = saved::field(saved, "hyp_ngrams")?;
        if !ngrams.len().is_multiple_of(2)
            || freq.len() != ngrams.len() / 2
            || !matched.len().is_multiple_of(2)
        {
            return Err(bad("table arrays of inconsistent lengths"));
        }
        if hyp_ngrams.len() != self.hyp_ngrams.len() {
            return Err(bad("hypothesis n-gram counts of another order"));
        }
        let token_ids = tokens
            .iter()
            .map(|w| self.table.token(w, true))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| bad("more than 2^32 distinct tokens"))?;
        let mut ids: Vec<u32> = Vec::with_capacity(freq.len());
        let mut orders: Vec<u8> = Vec::with_capacity(freq.len());
        for pair in ngrams.chunks_exact(2) {
            let (prefix, last) = (pair[0], pair[1]);
            let token = *usize::try_from(last)
                .ok()
                .and_then(|t| token_ids.get(t))
                .ok_or_else(|| bad("n-gram with an unknown token"))?;
            let (prefix, order) = if prefix == 0 {
                (NO_PREFIX, 1u8)
            } else {
                let p = usize::try_from(prefix - 1)
                    .ok()
                    .filter(|&p| p < ids.len())
                    .ok_or_else(|| bad("n-gram whose prefix comes after it"))?;
                (ids[p], orders[p].saturating_add(1))
            };
            let id = self
                .table
                .ngram(prefix, token, order, true)
                .ok_or_else(|| bad("more than 2^32 distinct n-grams"))?;
            ids.push(id);
            orders.push(order);
        }
        self.freq.grow(self.table.len());
        self.matched.grow(self.table.len());
        for (&g, &count) in ids.iter().zip(&freq) {
            self.freq.add_u64(g, count);
        }
        for pair in matched.chunks_exact(2) {
            let g = *usize::try_from(pair[0])
                .ok()
                .and_then(|j| ids.get(j))
                .ok_or_else(|| bad("match of an unknown n-gram"))?;
            if self.matched.get(g) == 0 && pair[1] > 0 {
                self.matched_ids.push(g);
            }
            self.matched.add_u64(g, pair[1]);
        }
        let zero: Option<usize> = saved::field(saved, "zero_unigram")?;
        if self.zero_unigram.is_none() {
            if let Some(z) = zero {
                self.zero_unigram = Some(*ids.get(z).ok_or_else(|| bad("unknown unigram 0"))?);
            }
        }
        self.words += saved::field::<u64>(saved, "words")?;
        for (t, s) in self.hyp_ngrams.iter_mut().zip(&hyp_ngrams) {
            *t += s;
        }
        let exact: bool = saved::field(saved, "avg_ref_len_exact")?;
        self.add_avg_ref_len(saved::field(saved, "avg_ref_len_sum")?, exact);
        self.nrefs.merge(saved::field(saved, "nrefs")?);
        let empty: Option<u64> = saved::field(saved, "empty_ref_segment")?;
        if self.empty_ref_segment.is_none() {
            self.empty_ref_segment = empty.map(|k| self.segments + k);
        }
        self.segments += saved::field::<u64>(saved, "segments")?;
        let nltk = saved.get("nltk").filter(|v| !v.is_null());
        match (&mut self.nltk, nltk) {
            (None, None) => {}
            (Some(c), Some(n)) => c.merge_saved(n, &ids).map_err(|e| bad(&e))?,
            _ => return Err(bad("NLTK corpus data in one part only")),
        }
        Ok(())
    }
}

impl NltkCorpus {
    /// Appends saved per-segment data (see [`NistTotals::save`]); `ids` maps the saved table
    /// ids to this table's.
    fn merge_saved(&mut self, saved: &Value, ids: &[u32]) -> Result<(), String> {
        let hyp_lens: Vec<u32> = saved::field(saved, "hyp_lens")?;
        let ref_starts: Vec<u32> = saved::field(saved, "ref_starts")?;
        let ref_lens: Vec<u32> = saved::field(saved, "ref_lens")?;
        let block_starts: Vec<usize> = saved::field(saved, "block_starts")?;
        let term_ends: Vec<u64> = saved::field(saved, "term_ends")?;
        let terms: Vec<u32> = saved::field(saved, "terms")?;
        if ref_starts.len() != hyp_lens.len() + 1
            || block_starts.len() != hyp_lens.len() + 1
            || !terms.len().is_multiple_of(2)
        {
            return Err("NLTK corpus arrays of inconsistent lengths".to_owned());
        }
        let (ref_base, block_base) = (self.ref_lens.len() as u32, self.term_ends.len());
        let term_base = self.terms.len() as u64;
        self.hyp_lens.extend(&hyp_lens);
        self.ref_lens.extend(&ref_lens);
        self.ref_starts
            .extend(ref_starts[1..].iter().map(|&s| ref_base + s));
        self.block_starts
            .extend(block_starts[1..].iter().map(|&s| block_base + s));
        self.term_ends
            .extend(term_ends.iter().map(|&e| term_base + e));
        for pair in terms.chunks_exact(2) {
            // A placeholder term (count 0, see `Metric::add`) keeps its slot whatever its id.
            let g = match ids.get(pair[0] as usize) {
                Some(&g) => g,
                None if pair[1] == 0 => 0,
                None => return Err("a term of an unknown n-gram".to_owned()),
            };
            self.terms.push((g, pair[1]));
        }
        Ok(())
    }
}

impl std::fmt::Debug for NistTotals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NistTotals")
            .field("ngrams", &self.table.len())
            .field("matched", &self.matched_ids.len())
            .field("words", &self.words)
            .field("segments", &self.segments)
            .finish_non_exhaustive()
    }
}

/// Per-worker buffers (all dense arrays are all zero / false between segments).
#[derive(Default)]
pub struct NistWorkspace {
    scratch: MtevalScratch,
    hyp: Tokens,
    refs: Vec<Tokens>,
    index: NgramIndex,
    hyp_ids: NgramIds,
    ref_ids: Vec<NgramIds>,
    /// By segment-local id.
    freq: Vec<u32>,
    hyp_count: Vec<u32>,
    ref_count: Vec<u32>,
    ref_max: Vec<u32>,
    seen: Vec<bool>,
    /// First occurrence (reference, order, position) and match index, valid where set.
    location: Vec<(u32, u32, u32)>,
    match_index: Vec<u32>,
    info: Vec<f64>,
    match_info: Vec<f64>,
}

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

    fn tokenize(&self, line: &str, scratch: &mut MtevalScratch, out: &mut Tokens) {
        match self.config.tokenize {
            NistTokenize::Mteval(tok) => tok.tokenize(line, scratch, out),
            NistTokenize::Split => {
                out.clear();
                out.extend_split(line);
            }
        }
    }

    /// Segment statistics of `hyp` against `refs` (at least one reference).
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut NistWorkspace) -> NistStats {
        let n_max = self.config.order;
        let nrefs = refs.len();
        self.tokenize(hyp, &mut ws.scratch, &mut ws.hyp);
        if ws.refs.len() < nrefs {
            ws.refs.resize_with(nrefs, Tokens::default);
            ws.ref_ids.resize_with(nrefs, NgramIds::default);
        }
        for (r, out) in refs.iter().zip(&mut ws.refs) {
            self.tokenize(r, &mut ws.scratch, out);
        }
        // Order 1 is always indexed (the index needs it to build higher orders).
        let top = n_max.max(1);
        ws.index.clear();
        for r in 0..nrefs {
            ws.index.index(&ws.refs[r], top, &mut ws.ref_ids[r]);
        }
        ws.index.lookup(&ws.hyp, top, &mut ws.hyp_ids);
        let ids = ws.index.num_ids();
        if ws.freq.len() < ids {
            ws.freq.resize(ids, 0);
            ws.hyp_count.resize(ids, 0);
            ws.ref_count.resize(ids, 0);
            ws.ref_max.resize(ids, 0);
            ws.seen.resize(ids, false);
            ws.location.resize(ids, (0, 0, 0));
            ws.match_index.resize(ids, 0);
            ws.info.resize(ids, 0.0);
        }
        let ref_ids = &ws.ref_ids[..nrefs];
        let hyp_ids = &ws.hyp_ids;
        let words: u64 = ws.refs[..nrefs].iter().map(|r| r.len() as u64).sum();

        // Reference counts: summed (NLTK's weights), maximum per reference (clipping), and the
        // first location of every n-gram.
        for (r, ids) in ref_ids.iter().enumerate() {
            for n in 1..=n_max {
                for (i, &g) in ids.order(n).iter().enumerate() {
                    let g = g as usize;
                    if ws.freq[g] == 0 {
                        ws.location[g] = (r as u32, n as u32, i as u32);
                    }
                    ws.freq[g] += 1;
                    ws.ref_count[g] += 1;
                }
            }
            for n in 1..=n_max {
                for &g in ids.order(n) {
                    let c = std::mem::take(&mut ws.ref_count[g as usize]);
                    ws.ref_max[g as usize] = ws.ref_max[g as usize].max(c);
                }
            }
        }
        // NLTK's information weights from this segment's references alone:
        // log(C(prefix) / C(g)) / log(2), W for unigrams.
        for ids in ref_ids {
            for n in 1..=n_max {
                let grams = ids.order(n);
                for (i, &g) in grams.iter().enumerate() {
                    let numerator = if n == 1 {
                        words
                    } else {
                        u64::from(ws.freq[ids.order(n - 1)[i] as usize])
                    };
                    ws.info[g as usize] =
                        (numerator as f64 / f64::from(ws.freq[g as usize])).ln() / LN2;
                }
            }
        }

        // Distinct matched hypothesis n-grams (mteval's clipping), first occurrence first.
        for n in 1..=n_max {
            for &g in hyp_ids.order(n) {
                if g != ABSENT {
                    ws.hyp_count[g as usize] += 1;
                }
            }
        }
        let mut matches = Vec::new();
        for n in 1..=n_max {
            for &g in hyp_ids.order(n) {
                if g == ABSENT || ws.seen[g as usize] {
                    continue;
                }
                ws.seen[g as usize] = true;
                let m = ws.hyp_count[g as usize].min(ws.ref_max[g as usize]);
                if m > 0 {
                    let (reference, order, position) = ws.location[g as usize];
                    ws.match_index[g as usize] = matches.len() as u32;
                    matches.push(Match {
                        reference,
                        order,
                        position,
                        count: m,
                    });
                }
            }
        }
        for n in 1..=n_max {
            for &g in hyp_ids.order(n) {
                if g != ABSENT {
                    ws.seen[g as usize] = false;
                }
            }
        }
        // NLTK's overlap lists: per order, per reference, clipped against that reference only.
        let mut term_ends = Vec::with_capacity(n_max * nrefs + 1);
        term_ends.push(0u32);
        let mut terms = Vec::new();
        for n in 1..=n_max {
            for ids in ref_ids {
                for &g in ids.order(n) {
                    ws.ref_count[g as usize] += 1;
                }
                for &g in hyp_ids.order(n) {
                    if g == ABSENT || ws.seen[g as usize] {
                        continue;
                    }
                    ws.seen[g as usize] = true;
                    let c = ws.hyp_count[g as usize].min(ws.ref_count[g as usize]);
                    if c > 0 {
                        terms.push((ws.match_index[g as usize], c));
                    }
                }
                for &g in hyp_ids.order(n) {
                    if g != ABSENT {
                        ws.seen[g as usize] = false;
                    }
                }
                for &g in ids.order(n) {
                    ws.ref_count[g as usize] = 0;
                }
                term_ends.push(terms.len() as u32);
            }
        }
        // The row: sentence_nist, weights of the segment's own references.
        ws.match_info.clear();
        for m in &matches {
            let g = ref_ids[m.reference as usize].order(m.order as usize)[m.position as usize];
            ws.match_info.push(ws.info[g as usize]);
        }
        let ref_lens: Vec<u32> = ws.refs[..nrefs].iter().map(|r| r.len() as u32).collect();
        let hyp_len = ws.hyp.len() as u64;
        let sentence = nltk_corpus_nist(
            n_max,
            1,
            |_| SegView {
                hyp_len,
                ref_lens: &ref_lens,
                term_ends: TermEnds::Local(&term_ends),
                terms: &terms,
            },
            |k| ws.match_info[k as usize],
        );

        // Leave the dense arrays all zero for the next segment.
        for ids in ref_ids {
            for n in 1..=n_max {
                for &g in ids.order(n) {
                    ws.freq[g as usize] = 0;
                    ws.ref_max[g as usize] = 0;
                }
            }
        }
        for &g in hyp_ids.all() {
            if g != ABSENT {
                ws.hyp_count[g as usize] = 0;
            }
        }
        NistStats {
            sentence,
            refs: ws.refs[..nrefs].to_vec(),
            hyp_len,
            matches,
            term_ends,
            terms,
        }
    }

    /// mteval's information weight of table id `g`: `−ln(C(g) / C(prefix)) / ln 2`, with the
    /// total word count W for unigrams and for bigrams whose first token is `0` (the quirk).
    fn mteval_info(&self, t: &NistTotals, g: u32) -> f64 {
        let order = t.table.order[g as usize];
        let prefix = t.table.prefix(g);
        let denominator = if order == 1 || (order == 2 && Some(prefix) == t.zero_unigram) {
            t.words
        } else {
            t.freq.get(prefix)
        };
        -(t.freq.get(g) as f64 / denominator as f64).ln() / LN2
    }

    /// NLTK's information weight of table id `g`: `log(C(prefix) / C(g)) / log(2)`, W for
    /// unigrams (no quirk).
    fn nltk_info(&self, t: &NistTotals, g: u32) -> f64 {
        let numerator = if t.table.order[g as usize] == 1 {
            t.words
        } else {
            t.freq.get(t.table.prefix(g))
        };
        (numerator as f64 / t.freq.get(g) as f64).ln() / LN2
    }

    /// mteval's system NIST of the totals, with its parts, or why mteval gives no score.
    fn mteval_score(&self, t: &NistTotals) -> Result<MtevalNist, String> {
        if let Some(s) = t.empty_ref_segment {
            return Err(format!(
                "mteval-v13a.pl dies: Illegal division by zero (segment {s} has only empty \
                 references)"
            ));
        }
        if t.words == 0 {
            return Err(
                "mteval-v13a.pl dies: Illegal division by zero (no reference words)".to_owned(),
            );
        }
        let n_max = self.config.order;
        let mut info = vec![0.0f64; n_max];
        for &g in &t.matched_ids {
            let n = t.table.order[g as usize] as usize;
            info[n - 1] += self.mteval_info(t, g) * t.matched.get(g) as f64;
        }
        let mut sum = 0.0f64;
        for (i, &count) in info.iter().zip(&t.hyp_ngrams) {
            sum += i / count.max(1) as f64;
        }
        let (lo, hi) = t.nrefs.range().unwrap_or((1, 1));
        let avg_ref_len = if lo == hi {
            t.words as f64 / lo as f64
        } else {
            t.avg_ref_len_sum
        };
        let hyp_len = t.hyp_ngrams.first().copied().unwrap_or(0);
        let ratio = hyp_len as f64 / avg_ref_len;
        let bp = mteval_brevity_penalty(ratio);
        Ok(MtevalNist {
            score: sum * bp,
            info,
            bp,
            ratio,
            hyp_len,
            avg_ref_len,
        })
    }

    /// mteval's NIST of a group of segments already added to `totals` — one segment, or a
    /// document — with the information weights of everything in `totals`: what mteval prints at
    /// segment and document level (`-d 2`, `--metricsMATR-output`). The weights are only final
    /// once the whole corpus has been added, which is why rows use NLTK's `sentence_nist`.
    pub fn mteval_group_score(
        &self,
        t: &mut NistTotals,
        group: &[&NistStats],
    ) -> Result<f64, String> {
        let n_max = self.config.order;
        let mut info = vec![0.0f64; n_max];
        let mut hyp_ngrams = vec![0u64; n_max];
        let (mut words, mut nrefs) = (0u64, 0usize);
        for stats in group {
            let count = stats.refs.len();
            if t.ref_ids.len() < count {
                t.ref_ids.resize_with(count, Vec::new);
            }
            // Every n-gram of a segment that was added is in the table: look the ids up.
            for (r, tokens) in stats.refs.iter().enumerate() {
                t.table
                    .ids(tokens, n_max, false, &mut t.ref_ids[r])
                    .ok_or("segment not added to these totals")?;
                words += tokens.len() as u64;
            }
            nrefs = nrefs.max(count);
            for m in &stats.matches {
                let g = t.ref_ids[m.reference as usize][m.location(&stats.refs)];
                info[m.order as usize - 1] += self.mteval_info(t, g) * f64::from(m.count);
            }
            for n in 1..=n_max {
                hyp_ngrams[n - 1] += (stats.hyp_len + 1).saturating_sub(n as u64);
            }
        }
        if words == 0 {
            return Err("mteval-v13a.pl dies: Illegal division by zero".to_owned());
        }
        let mut sum = 0.0f64;
        for (i, &count) in info.iter().zip(&hyp_ngrams) {
            sum += i / count.max(1) as f64;
        }
        let ratio = hyp_ngrams.first().copied().unwrap_or(0) as f64 / (words as f64 / nrefs as f64);
        Ok(sum * mteval_brevity_penalty(ratio))
    }

    /// NLTK `corpus_nist` of everything added so far (`--nist-compat nltk`).
    fn nltk_score(&self, t: &NistTotals) -> Result<f64, PyError> {
        let Some(c) = &t.nltk else {
            return Err(PyError::new("RuntimeError", "no NLTK data kept"));
        };
        nltk_corpus_nist(
            self.config.order,
            c.hyp_lens.len(),
            |s| {
                let refs = c.ref_starts[s] as usize..c.ref_starts[s + 1] as usize;
                let block = c.block_starts[s]..c.block_starts[s + 1];
                SegView {
                    hyp_len: u64::from(c.hyp_lens[s]),
                    ref_lens: &c.ref_lens[refs],
                    term_ends: TermEnds::Corpus(&c.term_ends[block]),
                    terms: &c.terms,
                }
            },
            |g| self.nltk_info(t, g),
        )
    }

    fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        let (case, tok) = match c.tokenize {
            NistTokenize::Mteval(t) => (if t.case_sensitive { "mixed" } else { "lc" }, t.name()),
            NistTokenize::Split => ("mixed", "split"),
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

/// mteval's system NIST and its parts.
struct MtevalNist {
    score: f64,
    info: Vec<f64>,
    bp: f64,
    ratio: f64,
    hyp_len: u64,
    avg_ref_len: f64,
}

/// mteval's NIST brevity penalty: `exp(−β·ln²(ratio))` for 0 < ratio < 1, with
/// `β = −ln 0.5 / ln 1.5 / ln 1.5` (0.5 at ratio 2/3), in the script's operation order.
pub fn mteval_brevity_penalty(ratio: f64) -> f64 {
    if ratio >= 1.0 {
        return 1.0;
    }
    if ratio <= 0.0 || ratio.is_nan() {
        return 0.0;
    }
    let beta = -(0.5f64).ln() / (1.5f64).ln() / (1.5f64).ln();
    (-beta * ratio.ln() * ratio.ln()).exp()
}

/// NLTK's `nist_length_penalty(ref_len, hyp_len)`: `exp(β·pow(log(ratio), 2))` with
/// `β = log(0.5) / pow(log(1.5), 2)` for 0 < ratio < 1, C `pow` (not `x·x`, `NLTK.md` §1.5),
/// else the ratio clamped to [0, 1]. `ref_len = 0` raises `ZeroDivisionError`.
pub fn nltk_length_penalty(ref_len: u64, hyp_len: u64) -> Result<f64, PyError> {
    let ratio = super::pymath::u64_ratio(hyp_len, ref_len)?;
    if 0.0 < ratio && ratio < 1.0 {
        let beta = (0.5f64).ln() / pow2((1.5f64).ln())?;
        Ok((beta * pow2(ratio.ln())?).exp())
    } else {
        Ok(ratio.clamp(0.0, 1.0))
    }
}

/// Bounds of a segment's per-(order, reference) term lists: entry k starts list k, entry k + 1
/// ends it (so a block of N·R lists has N·R + 1 entries).
#[derive(Clone, Copy)]
enum TermEnds<'a> {
    /// Offsets into the segment's own `terms` (one segment's statistics).
    Local(&'a [u32]),
    /// Offsets into the corpus-wide `terms`.
    Corpus(&'a [u64]),
}

impl TermEnds<'_> {
    fn get(&self, k: usize) -> usize {
        match *self {
            TermEnds::Local(ends) => ends[k] as usize,
            TermEnds::Corpus(ends) => ends[k] as usize,
        }
    }
}

/// One segment as NLTK's `corpus_nist` loop sees it.
struct SegView<'a> {
    hyp_len: u64,
    ref_lens: &'a [u32],
    term_ends: TermEnds<'a>,
    terms: &'a [(u32, u32)],
}

impl SegView<'_> {
    /// The terms of list `k` (order-major: `(i − 1)·R + r`).
    fn list(&self, k: usize) -> &[(u32, u32)] {
        &self.terms[self.term_ends.get(k)..self.term_ends.get(k + 1)]
    }
}

/// NLTK `corpus_nist(list_of_references, hypotheses, n)` (`NLTK.md` §8 steps 4–6) over
/// `segments` segments given by `segment(s)`, with information weights `info(term id)`.
fn nltk_corpus_nist<'a>(
    n: usize,
    segments: usize,
    segment: impl Fn(usize) -> SegView<'a>,
    info: impl Fn(u32) -> f64,
) -> Result<f64, PyError> {
    let mut nums = vec![0.0f64; n];
    let mut dens = vec![0u64; n];
    let (mut l_ref, mut l_sys) = (0u64, 0u64);
    for i in 1..=n {
        for s in 0..segments {
            let seg = segment(s);
            let den = (seg.hyp_len + 1).saturating_sub(i as u64);
            let nrefs = seg.ref_lens.len();
            // The best reference is the lexicographic max of (precision, numerator,
            // denominator, reference length); identical tuples keep the first.
            let mut best: Option<(f64, f64, u32)> = None;
            for r in 0..nrefs {
                // Built-in sum() in the hypothesis' first-occurrence order (CPython 3.11:
                // plain addition; the int 0 start is absorbed exactly).
                let mut num = 0.0f64;
                for &(id, count) in seg.list((i - 1) * nrefs + r) {
                    num += info(id) * f64::from(count);
                }
                let prec = if den == 0 { 0.0 } else { num / den as f64 };
                let len = seg.ref_lens[r];
                let better = match best {
                    None => true,
                    Some((bp, bn, bl)) => {
                        prec > bp || (prec == bp && (num > bn || (num == bn && len > bl)))
                    }
                };
                if better {
                    best = Some((prec, num, len));
                }
            }
            let Some((_, num, len)) = best else {
                return Err(PyError::new("ValueError", "max() arg is an empty sequence"));
            };
            nums[i - 1] += num;
            dens[i - 1] += den;
            l_ref += u64::from(len);
            l_sys += seg.hyp_len;
        }
    }
    let mut total = 0.0f64;
    if segments > 0 {
        for (&num, &den) in nums.iter().zip(&dens) {
            if den == 0 {
                return Err(PyError::new("ZeroDivisionError", "division by zero"));
            }
            total += num / den as f64;
        }
    }
    Ok(total * nltk_length_penalty(l_ref, l_sys)?)
}

/// "NLTK raises …": what a row or report says instead of a score.
fn raises(e: &PyError) -> String {
    format!("NLTK raises {e}")
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

    fn config_from_args(common: &CommonArgs, args: NistArgs) -> Result<NistConfig, String> {
        Ok(NistConfig {
            tokenize: if args.nist_tokenize == "none" {
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

    fn config(&self) -> &NistConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut NistWorkspace) -> NistStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &NistStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(*stats.sentence.as_ref().map_err(raises)?);
        Ok(())
    }

    fn sentence(&self, stats: &NistStats) -> Result<NistRecord, String> {
        Ok(NistRecord {
            score: *stats.sentence.as_ref().map_err(raises)?,
            hyp_len: stats.hyp_len,
        })
    }

    fn new_totals(&self) -> NistTotals {
        NistTotals {
            table: NgramTable::default(),
            freq: Counts::default(),
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
            // Interning cannot fail before 2^32 distinct n-grams; a segment past that point
            // (hundreds of GiB of table) is left out of the table rather than corrupting it.
            if t.table
                .ids(tokens, n_max, true, &mut t.ref_ids[r])
                .is_none()
            {
                t.ref_ids[r].clear();
                continue;
            }
            t.freq.grow(t.table.len());
            t.matched.grow(t.table.len());
            for &g in &t.ref_ids[r] {
                t.freq.add(g, 1);
            }
            if t.zero_unigram.is_none() {
                if let Some(i) = tokens.iter().position(|w| w == "0") {
                    t.zero_unigram = t.ref_ids[r].get(i).copied();
                }
            }
        }
        t.words += seg_words;
        for n in 1..=n_max {
            t.hyp_ngrams[n - 1] += (stats.hyp_len + 1).saturating_sub(n as u64);
        }
        t.match_ids.clear();
        for m in &stats.matches {
            let Some(&g) = t.ref_ids[m.reference as usize].get(m.location(&stats.refs)) else {
                t.match_ids.push(u32::MAX);
                continue;
            };
            if t.matched.get(g) == 0 {
                t.matched_ids.push(g);
            }
            t.matched.add(g, m.count);
            t.match_ids.push(g);
        }
        t.nrefs.add(nrefs);
        if nrefs > 0 {
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
            let base = c.terms.len() as u64;
            c.term_ends
                .extend(stats.term_ends.iter().map(|&e| base + u64::from(e)));
            c.block_starts.push(c.term_ends.len());
            // (A term whose n-gram could not be interned — past 2^32 table entries — would
            // have no weight; keep its slot with count 0 so the list bounds stay valid.)
            c.terms.extend(
                stats
                    .terms
                    .iter()
                    .map(|&(k, count)| match t.match_ids[k as usize] {
                        u32::MAX => (0, 0),
                        g => (g, count),
                    }),
            );
        }
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
    fn totals_refusal(&self, t: &NistTotals) -> Option<String> {
        let varying = t.nrefs.range().is_some_and(|(lo, hi)| lo != hi);
        (varying && !t.avg_ref_len_exact).then(|| {
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
        // The control: the same text with "1" has the prefix count as denominator.
        let report = corpus(NistConfig::default(), &[("1 a", &["1 a 1 b"])]);
        assert_eq!(report.fields["info"][1].as_f64(), Some(1.0));
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
        assert_eq!(stats.sentence.unwrap_err().kind, "ZeroDivisionError");
        let stats = nist.stats(
            "a b c d e",
            &["a b c d e", "a b c d e f"],
            &mut NistWorkspace::default(),
        );
        assert!(stats.sentence.unwrap() > 0.0);
    }
}
