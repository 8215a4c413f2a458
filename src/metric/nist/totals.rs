//! Running corpus totals: the table, the match counts, NLTK's per-segment data, and their
//! stats-document form (`merge`).

use serde_json::Value;

use crate::input::RefCounts;
use crate::metric::saved;

use super::table::{Counts, NgramTable, NO_PREFIX};

/// NLTK `corpus_nist` data of all segments, in input order (kept only with `--nist-compat nltk`).
#[derive(Clone, Debug, Default)]
pub(super) struct NltkCorpus {
    pub(super) hyp_lens: Vec<u32>,
    /// Segment s: references `ref_starts[s]..ref_starts[s + 1]` of `ref_lens`.
    pub(super) ref_starts: Vec<u32>,
    pub(super) ref_lens: Vec<u32>,
    /// Segment s: its block of list bounds is `term_ends[block_starts[s]..block_starts[s + 1]]`.
    pub(super) block_starts: Vec<usize>,
    /// List bounds into `terms`, per segment N·R + 1 of them (a segment's block starts with the
    /// offset of its first list).
    pub(super) term_ends: Vec<u64>,
    /// (table id, count).
    pub(super) terms: Vec<(u32, u32)>,
}

/// Running corpus totals: the reference n-gram table and the match counts (module docs).
pub struct NistTotals {
    /// The corpus-wide table of reference n-grams (never cleared).
    pub(super) table: NgramTable,
    /// `C(g)`: occurrences in all references.
    pub(super) freq: Counts,
    /// `M(g)`: clipped matches summed over segments.
    pub(super) matched: Counts,
    /// Ids with `M(g) > 0`, in the order they first matched.
    pub(super) matched_ids: Vec<u32>,
    /// Table id of the unigram `0` (mteval's bigram quirk).
    pub(super) zero_unigram: Option<u32>,
    /// W: reference words (all references of all segments).
    pub(super) words: u64,
    /// Hypothesis n-grams per order.
    pub(super) hyp_ngrams: Vec<u64>,
    /// Σ over segments of (reference words / references), for a varying number of references.
    pub(super) avg_ref_len_sum: f64,
    /// Every term and partial sum of `avg_ref_len_sum` was exact (power-of-two reference
    /// counts): then any split of the corpus sums to the same value, and statistics merge.
    pub(super) avg_ref_len_exact: bool,
    pub(super) nrefs: RefCounts,
    pub(super) segments: u64,
    /// 1-based number of the first segment whose references are all empty.
    pub(super) empty_ref_segment: Option<u64>,
    pub(super) nltk: Option<NltkCorpus>,
    /// Merger scratch: table ids of the current segment's references, and of its matches.
    pub(super) ref_ids: Vec<Vec<u32>>,
    pub(super) match_ids: Vec<u32>,
}

impl NistTotals {
    /// Adds to `avg_ref_len_sum` (mteval's sequential float sum), keeping track of whether the
    /// sum is still exact (Knuth's two-sum error term is zero).
    pub(super) fn add_avg_ref_len(&mut self, x: f64, exact: bool) {
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
    pub(super) fn save(&self) -> Value {
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
    pub(super) fn merge_saved(&mut self, saved: &Value) -> Result<(), String> {
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
    pub(super) fn merge_saved(&mut self, saved: &Value, ids: &[u32]) -> Result<(), String> {
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
