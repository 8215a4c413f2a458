//! NLTK 3.10.4's NIST: information weights, `corpus_nist` and `nist_length_penalty`.

use crate::metric::pymath::{pow2, PyError};

use super::table::prefetch;
use super::totals::{NistTotals, PackedTerms};
use super::{Nist, LN2};

impl Nist {
    /// NLTK's information weight of table id `g`: `log(C(prefix) / C(g)) / log(2)`, W for
    /// unigrams (no quirk).
    pub(super) fn nltk_info(&self, t: &NistTotals, g: u32) -> f64 {
        let numerator = if t.table.order[g as usize] == 1 {
            t.words
        } else {
            t.table.freq(t.table.prefix(g))
        };
        (numerator as f64 / t.table.freq(g) as f64).ln() / LN2
    }

    /// NLTK `corpus_nist` of everything added so far (`--nist-compat nltk`).
    pub(super) fn nltk_score(&self, t: &NistTotals) -> Result<f64, PyError> {
        let Some(c) = &t.nltk else {
            return Err(PyError::new("RuntimeError", "no NLTK data kept"));
        };
        // A term is a matched n-gram: their weights once each, by id, rather than four table
        // lookups for each of the millions of terms (10 % of the run on the bench corpus). The
        // vector costs 8 bytes per table n-gram for the length of a report; a map of the
        // matched ones costs more where most n-grams match. NaN: not computed (terms of merged
        // statistics might name an n-gram that did not match).
        let mut info = vec![f64::NAN; t.table.len()];
        for &g in &t.matched_ids {
            info[g as usize] = self.nltk_info(t, g);
        }
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
                    terms: Terms::Packed(&c.terms),
                }
            },
            |g| match info[g as usize] {
                x if x.is_nan() => self.nltk_info(t, g),
                x => x,
            },
            |g| {
                if let Some(x) = info.get(g as usize) {
                    prefetch(x);
                }
            },
        )
    }
}

/// NLTK's `nist_length_penalty(ref_len, hyp_len)`: `exp(β·pow(log(ratio), 2))` with
/// `β = log(0.5) / pow(log(1.5), 2)` for 0 < ratio < 1, C `pow` (not `x·x`, `NLTK.md` §1.5),
/// else the ratio clamped to [0, 1]. `ref_len = 0` raises `ZeroDivisionError`.
pub fn nltk_length_penalty(ref_len: u64, hyp_len: u64) -> Result<f64, PyError> {
    let ratio = crate::metric::pymath::u64_ratio(hyp_len, ref_len)?;
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
pub(super) enum TermEnds<'a> {
    /// Offsets into the segment's own `terms` (one segment's statistics).
    Local(&'a [u32]),
    /// Offsets into the corpus-wide `terms`.
    Corpus(&'a [u64]),
}

impl TermEnds<'_> {
    pub(super) fn get(&self, k: usize) -> usize {
        match *self {
            TermEnds::Local(ends) => ends[k] as usize,
            TermEnds::Corpus(ends) => ends[k] as usize,
        }
    }
}

/// The (table id, count) terms that [`TermEnds`] bound.
#[derive(Clone, Copy)]
pub(super) enum Terms<'a> {
    /// A segment's statistics.
    Pairs(&'a [(u32, u32)]),
    /// The corpus's, packed ([`NltkCorpus::push_term`](super::totals::NltkCorpus::push_term)).
    Packed(&'a [u32]),
}

/// One segment as NLTK's `corpus_nist` loop sees it.
pub(super) struct SegView<'a> {
    pub(super) hyp_len: u64,
    pub(super) ref_lens: &'a [u32],
    pub(super) term_ends: TermEnds<'a>,
    pub(super) terms: Terms<'a>,
}

impl SegView<'_> {
    /// The terms of lists `k..end` (order-major: list `(i − 1)·R + r`).
    pub(super) fn lists(&self, k: usize, end: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.term_ends.get(k)..self.term_ends.get(end);
        let (pairs, packed) = match self.terms {
            Terms::Pairs(pairs) => (&pairs[range], PackedTerms(&[])),
            Terms::Packed(words) => (&[][..], PackedTerms(&words[range])),
        };
        pairs.iter().copied().chain(packed)
    }
}

/// Segments ahead whose weights [`nltk_corpus_nist`] asks to be loaded.
const AHEAD: usize = 8;

/// NLTK `corpus_nist(list_of_references, hypotheses, n)` (`NLTK.md` §8 steps 4–6) over
/// `segments` segments given by `segment(s)`, with information weights `info(term id)`.
///
/// `prefetch(term id)` is a hint that `info` of that id will be needed soon. The weights of a
/// corpus are a table of several MiB read in no order, so that every term would wait for a
/// cache miss; the terms of the segment [`AHEAD`] places on are announced while this one is
/// summed.
pub(super) fn nltk_corpus_nist<'a>(
    n: usize,
    segments: usize,
    segment: impl Fn(usize) -> SegView<'a>,
    info: impl Fn(u32) -> f64,
    prefetch: impl Fn(u32),
) -> Result<f64, PyError> {
    let mut nums = vec![0.0f64; n];
    let mut dens = vec![0u64; n];
    let (mut l_ref, mut l_sys) = (0u64, 0u64);
    // NLTK loops over orders, then segments. Each order's sums only depend on that order's
    // terms, in segment order, so one pass over the segments, all orders at each, adds the
    // same numbers in the same order, and reads each segment's terms once, in memory order.
    // (A segment without references raises at order 1 either way: it is the first one.)
    for s in 0..segments {
        if s + AHEAD < segments {
            let ahead = segment(s + AHEAD);
            for (id, _) in ahead.lists(0, n * ahead.ref_lens.len()) {
                prefetch(id);
            }
        }
        let seg = segment(s);
        let nrefs = seg.ref_lens.len();
        for i in 1..=n {
            let den = (seg.hyp_len + 1).saturating_sub(i as u64);
            // The best reference is the lexicographic max of (precision, numerator,
            // denominator, reference length); identical tuples keep the first.
            let mut best: Option<(f64, f64, u32)> = None;
            for r in 0..nrefs {
                // Built-in sum() in the hypothesis' first-occurrence order (CPython 3.11:
                // plain addition; the int 0 start is absorbed exactly).
                let mut num = 0.0f64;
                let k = (i - 1) * nrefs + r;
                for (id, count) in seg.lists(k, k + 1) {
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
pub(super) fn raises(e: &PyError) -> String {
    format!("NLTK raises {e}")
}
