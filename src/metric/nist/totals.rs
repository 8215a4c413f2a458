//! Running corpus totals: the table, the match counts, NLTK's per-segment data, and their
//! stats-document form (`merge`).

use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::Value;

use crate::input::RefCounts;
use crate::metric::saved;

use super::memo::LineMemo;
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
    /// The terms (table id, count), packed ([`NltkCorpus::push_term`]).
    pub(super) terms: Vec<u32>,
}

/// Starts a packed term whose count is not 1 ([`NltkCorpus::push_term`]): no table id is
/// `u32::MAX` (`NO_PREFIX`).
const ESCAPE: u32 = u32::MAX;

impl NltkCorpus {
    /// Appends the term (table id `g`, `count`) to `terms`: `[g]` for a count of 1, else
    /// `[ESCAPE, g, count]`. Nearly every overlap count is 1 (a hypothesis rarely repeats an
    /// n-gram its reference has), and the terms are most of what `--nist-compat nltk` keeps
    /// per segment: on the bench corpus 3 million terms, 4 bytes each instead of 8.
    pub(super) fn push_term(&mut self, g: u32, count: u32) {
        debug_assert_ne!(g, ESCAPE);
        if count == 1 {
            self.terms.push(g);
        } else {
            self.terms.extend([ESCAPE, g, count]);
        }
    }
}

/// The terms (table id, count) of packed words ([`NltkCorpus::push_term`]).
#[derive(Clone)]
pub(super) struct PackedTerms<'a>(pub(super) &'a [u32]);

impl Iterator for PackedTerms<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        match *self.0 {
            [ESCAPE, g, count, ref rest @ ..] => {
                self.0 = rest;
                Some((g, count))
            }
            [g, ref rest @ ..] => {
                self.0 = rest;
                Some((g, 1))
            }
            [] => None,
        }
    }
}

/// Running corpus totals: the reference n-gram table and the match counts (module docs).
pub struct NistTotals {
    /// The corpus-wide table of reference n-grams (never cleared).
    pub(super) table: NgramTable,
    /// Reference lines seen before, with their table ids (a cache of `table`).
    pub(super) memo: LineMemo,
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
        for key in (0..table.len() as u32).map(|g| table.key(g)) {
            let prefix = (key >> 32) as u32;
            ngrams.push(if prefix == NO_PREFIX {
                0
            } else {
                u64::from(prefix) + 1
            });
            ngrams.push(key & u64::from(u32::MAX));
        }
        let freq: Vec<u64> = (0..table.len() as u32).map(|g| table.freq(g)).collect();
        let matched: Vec<u64> = self
            .matched_ids
            .iter()
            .flat_map(|&g| [u64::from(g), self.matched.get(g)])
            .collect();
        /// The saved NLTK data (`--nist-compat nltk`).
        #[derive(Serialize)]
        struct SavedNltk<'a> {
            hyp_lens: &'a [u32],
            ref_starts: &'a [u32],
            ref_lens: &'a [u32],
            block_starts: &'a [usize],
            term_ends: Vec<u64>,
            terms: Vec<u32>,
        }
        /// The saved totals (read back by `merge_saved`).
        #[derive(Serialize)]
        struct Saved<'a> {
            tokens: Vec<&'a str>,
            ngrams: Vec<u64>,
            freq: Vec<u64>,
            matched: Vec<u64>,
            zero_unigram: Option<u32>,
            words: u64,
            hyp_ngrams: &'a [u64],
            avg_ref_len_sum: f64,
            avg_ref_len_exact: bool,
            nrefs: &'a RefCounts,
            segments: u64,
            empty_ref_segment: Option<u64>,
            nltk: Option<SavedNltk<'a>>,
        }
        // Saved as (id, count) pairs, the bounds counting pairs: the document's form does not
        // depend on how the terms are packed in memory.
        let nltk = self.nltk.as_ref().map(|c| {
            let (mut terms, mut term_ends) = (Vec::new(), Vec::with_capacity(c.term_ends.len()));
            let mut at = 0usize;
            for &end in &c.term_ends {
                let end = end as usize;
                for (g, n) in PackedTerms(&c.terms[at..end]) {
                    terms.extend([g, n]);
                }
                at = end;
                term_ends.push(terms.len() as u64 / 2);
            }
            SavedNltk {
                hyp_lens: &c.hyp_lens,
                ref_starts: &c.ref_starts,
                ref_lens: &c.ref_lens,
                block_starts: &c.block_starts,
                term_ends,
                terms,
            }
        });
        serde_json::to_value(Saved {
            tokens,
            ngrams,
            freq,
            matched,
            zero_unigram: self.zero_unigram,
            words: self.words,
            hyp_ngrams: &self.hyp_ngrams,
            avg_ref_len_sum: self.avg_ref_len_sum,
            avg_ref_len_exact: self.avg_ref_len_exact,
            nrefs: &self.nrefs,
            segments: self.segments,
            empty_ref_segment: self.empty_ref_segment,
            nltk,
        })
        .expect("NIST totals serialize")
    }

    /// Adds saved statistics of segments that follow those in `self` (see [`save`]). The
    /// saved table is interned in its id order, so ids and the first-match order come out as
    /// one run over both parts would make them, and every report is bit-identical.
    ///
    /// Everything is checked before it is added, against how [`Nist::add`](super::Nist) builds
    /// the totals: the table lists distinct n-grams of orders 1..=N, each after its prefix,
    /// each seen in a reference (`C(g) ≥ 1`, and `C(prefix) ≥ C(g)`: every occurrence has its
    /// prefix at the same place); unigram counts add up to at most the reference words;
    /// matches are listed once each, with `1 ≤ M(g) ≤ C(g)` (clipped by a reference count) and
    /// at most the hypothesis n-grams of their order in all; hypothesis n-gram counts do not
    /// grow with the order; the unigram `0` is a unigram `0`. Sums are checked.
    pub(super) fn merge_saved(&mut self, saved: &Value) -> Result<(), String> {
        let bad = |what: &str| format!("NIST statistics: {what}");
        let tokens: Vec<String> = saved::field(saved, "tokens")?;
        let ngrams: Vec<u64> = saved::field(saved, "ngrams")?;
        let freq: Vec<u64> = saved::field(saved, "freq")?;
        let matched: Vec<u64> = saved::field(saved, "matched")?;
        let hyp_ngrams: Vec<u64> = saved::field(saved, "hyp_ngrams")?;
        let words: u64 = saved::field(saved, "words")?;
        let segments: u64 = saved::field(saved, "segments")?;
        let nrefs = saved::field(saved, "nrefs")?;
        saved::check_nrefs(nrefs, "NIST statistics")?;
        if !ngrams.len().is_multiple_of(2)
            || freq.len() != ngrams.len() / 2
            || !matched.len().is_multiple_of(2)
        {
            return Err(bad("table arrays of inconsistent lengths"));
        }
        if hyp_ngrams.len() != self.hyp_ngrams.len() {
            return Err(bad("hypothesis n-gram counts of another order"));
        }
        for n in 1..hyp_ngrams.len() {
            saved::at_most(
                hyp_ngrams[n],
                hyp_ngrams[n - 1],
                &format!("NIST order-{} hypothesis n-grams above order {n}'s", n + 1),
            )?;
        }
        saved::orders_fit(&hyp_ngrams, segments, "NIST hypothesis n-grams")?;
        if freq.contains(&0) {
            return Err(bad(
                "an n-gram of the table with frequency 0 (no reference has it)",
            ));
        }
        let token_ids = tokens
            .iter()
            .map(|w| self.table.token(w, true))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| bad("more than 2^32 distinct tokens"))?;
        if token_ids.iter().collect::<FxHashSet<_>>().len() != token_ids.len() {
            return Err(bad("a token listed twice"));
        }
        let max_order = self.hyp_ngrams.len();
        let mut ids: Vec<u32> = Vec::with_capacity(freq.len());
        let mut orders: Vec<usize> = Vec::with_capacity(freq.len());
        let mut unigrams = 0u64;
        for (pair, &count) in ngrams.chunks_exact(2).zip(&freq) {
            let (prefix, last) = (pair[0], pair[1]);
            let token = *usize::try_from(last)
                .ok()
                .and_then(|t| token_ids.get(t))
                .ok_or_else(|| bad("n-gram with an unknown token"))?;
            let (prefix, order) = if prefix == 0 {
                unigrams = unigrams.saturating_add(count);
                (NO_PREFIX, 1)
            } else {
                let p = usize::try_from(prefix - 1)
                    .ok()
                    .filter(|&p| p < ids.len())
                    .ok_or_else(|| bad("n-gram whose prefix comes after it"))?;
                saved::at_most(count, freq[p], "NIST n-gram more frequent than its prefix")?;
                (ids[p], orders[p] + 1)
            };
            if order > max_order {
                return Err(bad(&format!(
                    "an n-gram of order {order}, above {max_order}"
                )));
            }
            let id = self
                .table
                .ngram(prefix, token, order as u8, true)
                .ok_or_else(|| bad("more than 2^32 distinct n-grams"))?;
            ids.push(id);
            orders.push(order);
        }
        if ids.iter().collect::<FxHashSet<_>>().len() != ids.len() {
            return Err(bad("an n-gram listed twice"));
        }
        // Every reference word is a unigram of the table: one run counts both from the same
        // tokens (only a segment past 2^32 distinct n-grams, a table of over 100 GiB, is left
        // out of the table and not of the words). A larger `words` lowers every information
        // weight's unigram term: a plausible wrong score, not an error, without this check.
        if unigrams != words {
            return Err(format!(
                "inconsistent statistics: NIST unigram frequencies sum to {unigrams}, the \
                 reference words to {words}"
            ));
        }
        let mut matches = Vec::with_capacity(matched.len() / 2);
        let mut per_order = vec![0u64; max_order];
        for pair in matched.chunks_exact(2) {
            let j = usize::try_from(pair[0])
                .ok()
                .filter(|&j| j < ids.len())
                .ok_or_else(|| bad("match of an unknown n-gram"))?;
            if pair[1] == 0 {
                return Err(bad("a match count of 0"));
            }
            saved::at_most(
                pair[1],
                freq[j],
                "NIST n-gram matched more often than it occurs",
            )?;
            let o = &mut per_order[orders[j] - 1];
            *o = o.saturating_add(pair[1]);
            matches.push((j, pair[1]));
        }
        if matches.iter().map(|m| m.0).collect::<FxHashSet<_>>().len() != matches.len() {
            return Err(bad("an n-gram matched twice"));
        }
        for (n, (&m, &h)) in per_order.iter().zip(&hyp_ngrams).enumerate() {
            saved::at_most(
                m,
                h,
                &format!("NIST order-{} matches above the hypothesis n-grams", n + 1),
            )?;
        }
        let zero: Option<usize> = saved::field(saved, "zero_unigram")?;
        if let Some(z) = zero {
            if z >= ids.len() || orders[z] != 1 || tokens[ngrams[2 * z + 1] as usize] != "0" {
                return Err(bad("\"zero_unigram\" is not the unigram 0"));
            }
        }
        let avg_sum: f64 = saved::field(saved, "avg_ref_len_sum")?;
        if !(avg_sum.is_finite() && avg_sum >= 0.0) {
            return Err(bad("avg_ref_len_sum is not a non-negative number"));
        }
        let empty: Option<u64> = saved::field(saved, "empty_ref_segment")?;
        if empty.is_some_and(|k| k == 0 || k > segments) {
            return Err(bad("empty_ref_segment is not one of its segments"));
        }
        // Every check passed: add (sums checked first, so nothing is half added).
        let what = "NIST statistics";
        let mut new_words = self.words;
        saved::add_to(&mut new_words, words, what)?;
        let new_segments = saved::add_count(self.segments, segments, what)?;
        let mut new_hyp = self.hyp_ngrams.clone();
        for (t, &h) in new_hyp.iter_mut().zip(&hyp_ngrams) {
            saved::add_to(t, h, what)?;
        }
        self.matched.grow(self.table.len());
        for (&g, &count) in ids.iter().zip(&freq) {
            self.table
                .freq(g)
                .checked_add(count)
                .ok_or_else(|| bad("sum overflows 64 bits"))?;
        }
        for &(j, count) in &matches {
            self.matched
                .get(ids[j])
                .checked_add(count)
                .ok_or_else(|| bad("sum overflows 64 bits"))?;
        }
        let nltk = saved.get("nltk").filter(|v| !v.is_null());
        match (&mut self.nltk, nltk) {
            (None, None) => {}
            (Some(c), Some(n)) => c
                .merge_saved(n, &ids, max_order, segments)
                .map_err(|e| bad(&e))?,
            _ => return Err(bad("NLTK corpus data in one part only")),
        }
        for (&g, &count) in ids.iter().zip(&freq) {
            self.table.add_freq(g, count);
        }
        for &(j, count) in &matches {
            let g = ids[j];
            if self.matched.get(g) == 0 {
                self.matched_ids.push(g);
            }
            self.matched.add_u64(g, count);
        }
        if self.zero_unigram.is_none() {
            self.zero_unigram = zero.map(|z| ids[z]);
        }
        self.words = new_words;
        self.hyp_ngrams = new_hyp;
        let exact: bool = saved::field(saved, "avg_ref_len_exact")?;
        self.add_avg_ref_len(avg_sum, exact);
        self.nrefs.merge(nrefs);
        if self.empty_ref_segment.is_none() {
            self.empty_ref_segment = empty.map(|k| self.segments + k);
        }
        self.segments = new_segments;
        Ok(())
    }
}

impl NltkCorpus {
    /// Appends saved per-segment data (see [`NistTotals::save`]); `ids` maps the saved table
    /// ids to this table's. Checked first, as [`Nist::add`](super::Nist) lays it out: one
    /// hypothesis length per segment (`segments` of them), reference ranges and blocks that
    /// start at 0, never go back and end at the end of their arrays, N·R + 1 list bounds per
    /// segment of R references, bounds that start at 0, never go back and end at the number of
    /// terms, and terms of known n-grams with positive counts (or the placeholder `(0, 0)`).
    pub(super) fn merge_saved(
        &mut self,
        saved: &Value,
        ids: &[u32],
        order: usize,
        segments: u64,
    ) -> Result<(), String> {
        let hyp_lens: Vec<u32> = saved::field(saved, "hyp_lens")?;
        let ref_starts: Vec<u32> = saved::field(saved, "ref_starts")?;
        let ref_lens: Vec<u32> = saved::field(saved, "ref_lens")?;
        let block_starts: Vec<usize> = saved::field(saved, "block_starts")?;
        let term_ends: Vec<u64> = saved::field(saved, "term_ends")?;
        let terms: Vec<u32> = saved::field(saved, "terms")?;
        let inconsistent = || "NLTK corpus arrays of inconsistent lengths".to_owned();
        if ref_starts.len() != hyp_lens.len() + 1
            || block_starts.len() != hyp_lens.len() + 1
            || !terms.len().is_multiple_of(2)
            || hyp_lens.len() as u64 != segments
        {
            return Err(inconsistent());
        }
        let ranges = |starts: &[usize], end: usize| {
            starts.first() == Some(&0)
                && starts.last() == Some(&end)
                && starts.windows(2).all(|w| w[0] <= w[1])
        };
        let ref_starts_usize: Vec<usize> = ref_starts.iter().map(|&s| s as usize).collect();
        if !ranges(&ref_starts_usize, ref_lens.len())
            || !ranges(&block_starts, term_ends.len())
            || !(term_ends.is_empty() && terms.is_empty()
                || term_ends.first() == Some(&0)
                    && term_ends.last() == Some(&(terms.len() as u64 / 2))
                    && term_ends.windows(2).all(|w| w[0] <= w[1]))
        {
            return Err(inconsistent());
        }
        for s in 0..hyp_lens.len() {
            let refs = ref_starts_usize[s + 1] - ref_starts_usize[s];
            let bounds = block_starts[s + 1] - block_starts[s];
            if Some(bounds) != order.checked_mul(refs).map(|k| k + 1) {
                return Err(inconsistent());
            }
        }
        let mut mapped = Vec::with_capacity(terms.len() / 2);
        for pair in terms.chunks_exact(2) {
            // A placeholder term (count 0, see `Metric::add`) keeps its slot whatever its id.
            let g = match ids.get(pair[0] as usize) {
                Some(&g) if pair[1] > 0 => g,
                _ if pair == [0, 0] && !ids.is_empty() => ids[0],
                _ => return Err("a term of an unknown n-gram or with count 0".to_owned()),
            };
            mapped.push((g, pair[1]));
        }
        let (ref_base, block_base) = (self.ref_lens.len() as u32, self.term_ends.len());
        // Pair j of the saved terms starts at `packed_at[j]` once packed.
        let mut packed_at = Vec::with_capacity(mapped.len() + 1);
        packed_at.push(self.terms.len() as u64);
        for &(g, count) in &mapped {
            self.push_term(g, count);
            packed_at.push(self.terms.len() as u64);
        }
        self.hyp_lens.extend(&hyp_lens);
        self.ref_lens.extend(&ref_lens);
        self.ref_starts
            .extend(ref_starts[1..].iter().map(|&s| ref_base + s));
        self.block_starts
            .extend(block_starts[1..].iter().map(|&s| block_base + s));
        self.term_ends
            .extend(term_ends.iter().map(|&e| packed_at[e as usize]));
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
