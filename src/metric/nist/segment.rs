//! A segment's NIST statistics: its tokenized references, its matched hypothesis n-grams and
//! NLTK `sentence_nist` (computed on the worker).

use crate::metric::pymath::PyError;
use crate::ngram::bitparallel::{self, BitParallel, DistinctMatch};
use crate::ngram::{NgramIds, NgramIndex, ABSENT};
use crate::tokenize::mteval::MtevalScratch;
use crate::tokenize::Tokens;

use smallvec::SmallVec;

use super::memo::line_hash;
use super::nltk::{nltk_corpus_nist, SegView, TermEnds, Terms};
use super::table::order_start;
use super::{Nist, NistTokenize, LN2};

/// A matched hypothesis n-gram of a segment: where it occurs in a reference, its clipped count
/// `min(count in hyp, max count in one reference)`, and the counts behind its NLTK information
/// weight in the segment's own references, `C(prefix)` and `C(g)` (a unigram's numerator is the
/// reference word count instead; `prefix_count` is then 0): what its row, `sentence_nist`,
/// needs besides the overlap lists. The row itself is computed only when asked for
/// ([`Nist::sentence_nist`]): a corpus-only run needs neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Match {
    pub(super) reference: u32,
    pub(super) order: u32,
    pub(super) position: u32,
    pub(super) count: u32,
    pub(super) prefix_count: u32,
    pub(super) ref_count: u32,
}

impl Match {
    /// Index of the n-gram among its reference's ids, orders concatenated ([`order_start`]).
    pub(super) fn location(&self, refs: &[Tokens]) -> usize {
        let len = refs[self.reference as usize].len();
        order_start(len, self.order as usize) + self.position as usize
    }
}

/// Statistics of one segment.
///
/// Workers make one of these per segment and the merger reads it once, on another core: every
/// separate allocation is a malloc and a free on a worker (spent results go back to the workers
/// to be freed) and, for the merger, the critical path of NIST, another stream of cache misses
/// that the hardware prefetcher does not follow from one allocation to the next. With one reference (nearly every segment) the statistics
/// are therefore the references' tokens and the matches, nothing else: NLTK's overlap lists are
/// then the matches themselves ([`NistStats::lists`]), and the row's counts live in each
/// [`Match`].
#[derive(Clone, Debug)]
pub struct NistStats {
    /// The tokenized references, for the merger to intern, and their [`line_hash`]es (the
    /// merger's memo looks lines up by them).
    pub(super) refs: SmallVec<[Tokens; 1]>,
    pub(super) ref_hashes: SmallVec<[u64; 2]>,
    pub(super) hyp_len: u64,
    /// Distinct matched hypothesis n-grams, orders ascending, first occurrence first.
    pub(super) matches: Vec<Match>,
    /// NLTK's overlap lists with several references (`None` with one: [`NistStats::lists`]).
    pub(super) several: Option<OverlapLists>,
}

/// NLTK's per-order, per-reference overlap lists of a segment with several references: entries
/// `k` and `k + 1` of `term_ends` bound the terms of list `k = (i − 1)·R + r` (order i,
/// reference r); a term is (index into `matches`, clipped count against that reference alone),
/// in the hypothesis' first-occurrence order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct OverlapLists {
    pub(super) term_ends: Vec<u32>,
    pub(super) terms: Vec<(u32, u32)>,
}

impl NistStats {
    /// NLTK's overlap lists ([`OverlapLists`]) for `n_max` orders. With one reference, clipping
    /// against the only reference is mteval's clipping, and both follow the hypothesis' first
    /// occurrences, so each order's list is that order's matches (`matches`: orders ascending)
    /// and is built here, when a row asks for it, instead of by every worker for every segment.
    pub(super) fn lists(&self, n_max: usize) -> std::borrow::Cow<'_, OverlapLists> {
        match &self.several {
            Some(lists) => std::borrow::Cow::Borrowed(lists),
            None => std::borrow::Cow::Owned(OverlapLists {
                term_ends: one_reference_ends(&self.matches, n_max),
                terms: self
                    .matches
                    .iter()
                    .enumerate()
                    .map(|(k, m)| (k as u32, m.count))
                    .collect(),
            }),
        }
    }
}

/// Per-worker buffers (all dense arrays are all zero / false between segments).
#[derive(Default)]
pub struct NistWorkspace {
    pub(super) scratch: MtevalScratch,
    /// The lowercased line (`--lowercase` with split tokens).
    pub(super) lower: String,
    pub(super) hyp: Tokens,
    pub(super) refs: Vec<Tokens>,
    pub(super) index: NgramIndex,
    pub(super) hyp_ids: NgramIds,
    pub(super) ref_ids: Vec<NgramIds>,
    /// By segment-local id.
    pub(super) freq: Vec<u32>,
    pub(super) hyp_count: Vec<u32>,
    pub(super) ref_count: Vec<u32>,
    pub(super) ref_max: Vec<u32>,
    pub(super) seen: Vec<bool>,
    /// First occurrence (reference, order, position) and match index, valid where set.
    pub(super) location: Vec<(u32, u32, u32)>,
    pub(super) match_index: Vec<u32>,
    /// The path for one reference of up to 64 (128) tokens.
    pub(super) bits: BitParallel<u64>,
    pub(super) wide_bits: BitParallel<u128>,
    pub(super) distinct: Vec<DistinctMatch>,
}

impl Nist {
    pub(super) fn tokenize(
        &self,
        line: &str,
        scratch: &mut MtevalScratch,
        lower: &mut String,
        out: &mut Tokens,
    ) {
        match self.config.tokenize {
            NistTokenize::Mteval(tok) => tok.tokenize(line, scratch, out),
            NistTokenize::Split => {
                out.clear();
                if self.config.lowercase {
                    out.extend_split_lowercased(line, lower);
                } else {
                    out.extend_split(line);
                }
            }
        }
    }

    /// Segment statistics of `hyp` against `refs` (at least one reference).
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut NistWorkspace) -> NistStats {
        let n_max = self.config.order;
        let nrefs = refs.len();
        self.tokenize(hyp, &mut ws.scratch, &mut ws.lower, &mut ws.hyp);
        if ws.refs.len() < nrefs {
            ws.refs.resize_with(nrefs, Tokens::default);
            ws.ref_ids.resize_with(nrefs, NgramIds::default);
        }
        for (r, out) in refs.iter().zip(&mut ws.refs) {
            self.tokenize(r, &mut ws.scratch, &mut ws.lower, out);
        }
        let mut stats = match bitparallel::mask_bits(&ws.hyp, &ws.refs[..nrefs], n_max) {
            Some(bits) => self.one_reference_stats(ws, bits),
            None => self.indexed_stats(ws, nrefs),
        };
        stats.ref_hashes = stats.refs.iter().map(line_hash).collect();
        stats
    }

    /// [`Nist::stats`] of one reference and sequences of at most 128 tokens: the matches come
    /// with their reference counts from bit masks of reference positions
    /// ([`BitParallel::distinct_matches`]), no n-gram is hashed. On the bench corpus all but 74
    /// of the 126,836 segments have at most 128 whitespace tokens on both sides.
    fn one_reference_stats(&self, ws: &mut NistWorkspace, bits: usize) -> NistStats {
        let n_max = self.config.order;
        let (hyp, reference) = (&ws.hyp, &ws.refs[0]);
        match bits {
            64 => ws
                .bits
                .distinct_matches(hyp, reference, n_max, &mut ws.distinct),
            _ => ws
                .wide_bits
                .distinct_matches(hyp, reference, n_max, &mut ws.distinct),
        }
        let matches: Vec<Match> = ws
            .distinct
            .iter()
            .map(|d| Match {
                reference: 0,
                order: d.order,
                position: d.position,
                count: d.count,
                prefix_count: d.prefix_count,
                ref_count: d.ref_count,
            })
            .collect();
        NistStats {
            refs: SmallVec::from_buf([ws.refs[0].clone()]),
            ref_hashes: SmallVec::new(),
            hyp_len: ws.hyp.len() as u64,
            matches,
            several: None,
        }
    }

    /// [`Nist::stats`] through an [`NgramIndex`] of the segment's n-grams: any number of
    /// references, any lengths. (One reference up to 128 tokens, nearly every segment, takes
    /// [`Nist::one_reference_stats`]; this path has no shortcut for it, and the tests compare
    /// the two.)
    fn indexed_stats(&self, ws: &mut NistWorkspace, nrefs: usize) -> NistStats {
        let n_max = self.config.order;
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
        }
        let ref_ids = &ws.ref_ids[..nrefs];
        let hyp_ids = &ws.hyp_ids;

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
                let g = g as usize;
                if g == ABSENT as usize || ws.seen[g] {
                    continue;
                }
                ws.seen[g] = true;
                let m = ws.hyp_count[g].min(ws.ref_max[g]);
                if m > 0 {
                    let (reference, order, position) = ws.location[g];
                    // The counts of the row's information weight (sentence_nist: from this
                    // segment's references alone), log(C(prefix) / C(g)) / log(2) with W for
                    // unigrams. Only matched n-grams need one: NLTK computes one per distinct
                    // reference n-gram, the same value at every occurrence (the prefix is part
                    // of the n-gram), so the prefix at g's first location is g's prefix.
                    let prefix_count = match order as usize {
                        1 => 0,
                        n => {
                            let ids = &ref_ids[reference as usize];
                            ws.freq[ids.order(n - 1)[position as usize] as usize]
                        }
                    };
                    ws.match_index[g] = matches.len() as u32;
                    matches.push(Match {
                        reference,
                        order,
                        position,
                        count: m,
                        prefix_count,
                        ref_count: ws.freq[g],
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
        // NLTK's overlap lists: per order, per reference, clipped against that reference only
        // (with one reference, the matches: `NistStats::lists`).
        let several = (nrefs > 1).then(|| {
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
            OverlapLists { term_ends, terms }
        });
        let hyp_len = ws.hyp.len() as u64;

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
            refs: ws.refs[..nrefs].iter().cloned().collect(),
            ref_hashes: SmallVec::new(),
            hyp_len,
            matches,
            several,
        }
    }

    /// NLTK `sentence_nist` of a segment (its row), or what NLTK raises.
    pub fn sentence_nist(&self, stats: &NistStats) -> Result<f64, PyError> {
        let ref_lens: SmallVec<[u32; 2]> = stats.refs.iter().map(|r| r.len() as u32).collect();
        let words: u64 = stats.refs.iter().map(|r| r.len() as u64).sum();
        let lists = stats.lists(self.config.order);
        nltk_corpus_nist(
            self.config.order,
            1,
            |_| SegView {
                hyp_len: stats.hyp_len,
                ref_lens: &ref_lens,
                term_ends: TermEnds::Local(&lists.term_ends),
                terms: Terms::Pairs(&lists.terms),
            },
            |k| {
                let m = &stats.matches[k as usize];
                let numerator = match m.order {
                    1 => words,
                    _ => u64::from(m.prefix_count),
                };
                (numerator as f64 / f64::from(m.ref_count)).ln() / LN2
            },
            |_| {},
        )
    }
}

/// The bounds of the per-order lists of a segment with one reference ([`NistStats::lists`]).
fn one_reference_ends(matches: &[Match], n_max: usize) -> Vec<u32> {
    std::iter::once(0)
        .chain(order_ranges(matches, n_max).map(|range| range.end as u32))
        .collect()
}

/// With one reference, the range of `matches` (orders ascending) that is each order's overlap
/// list, orders 1..=`n_max`: order n's list is the matches of order n ([`NistStats::lists`]).
pub(super) fn order_ranges(
    matches: &[Match],
    n_max: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut k = 0;
    (1..=n_max as u32).map(move |n| {
        let start = k;
        while matches.get(k).is_some_and(|m| m.order == n) {
            k += 1;
        }
        start..k
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::nist::{NistCompat, NistConfig};
    use crate::test_rng::Rng;

    /// NLTK's overlap list of order `n` against one reference: `Counter(hyp n-grams) &
    /// Counter(ref n-grams)`, in the hypothesis' first-occurrence order.
    fn overlaps<'a>(hyp: &[&'a str], reference: &[&str], n: usize) -> Vec<(Vec<&'a str>, u32)> {
        let count = |side: &[&str], g: &[&str]| side.windows(n).filter(|w| *w == g).count() as u32;
        let mut out: Vec<(Vec<&str>, u32)> = Vec::new();
        for g in hyp.windows(n) {
            if out.iter().any(|(seen, _)| seen == g) {
                continue;
            }
            let c = count(hyp, g).min(count(reference, g));
            if c > 0 {
                out.push((g.to_vec(), c));
            }
        }
        out
    }

    /// One reference of up to 128 tokens takes the bit-parallel path; it gives what the indexed
    /// path gives (matches, their locations and counts, the row's counts and the overlap lists)
    /// at every length up to both mask widths and every order it takes, on small vocabularies
    /// (n-grams repeat, so clipping and first occurrences matter).
    #[test]
    fn one_reference_path_agrees_with_the_indexed_one() {
        let mut rng = Rng(0xb17_5eed);
        let mut ws = NistWorkspace::default();
        for case in 0..3000 {
            let max = [20, 64, 128][case % 3];
            let line = |rng: &mut Rng| {
                let len = match rng.below(4) {
                    0 => max - rng.below(3),
                    _ => rng.below(max + 1),
                };
                let k = 1 + rng.below(6);
                (0..len)
                    .map(|_| ["a", "b", "c", "d", "0", "ü"][rng.below(k)])
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (hyp, reference) = (line(&mut rng), line(&mut rng));
            let order = 1 + rng.below(bitparallel::MAX_ORDER);
            let nist = Nist::new(NistConfig {
                tokenize: NistTokenize::Split,
                order,
                compat: NistCompat::Nltk,
                lowercase: false,
            });
            let fast = nist.stats(&hyp, &[&reference], &mut ws);
            assert!(
                bitparallel::mask_bits(&ws.hyp, &ws.refs[..1], order).is_some(),
                "case {case} took the bit-parallel path"
            );
            let slow = nist.indexed_stats(&mut ws, 1);
            assert_eq!(
                fast.matches, slow.matches,
                "case {case}: {hyp:?} / {reference:?}"
            );
            assert_eq!(fast.lists(order), slow.lists(order), "case {case}");
            assert_eq!(fast.hyp_len, slow.hyp_len, "case {case}");
            assert_eq!(
                nist.sentence_nist(&fast).map_err(|e| e.kind),
                nist.sentence_nist(&slow).map_err(|e| e.kind)
            );
        }
    }

    /// The overlap lists of every order and reference are NLTK's, with one reference (where they
    /// are built from the matches) and with several.
    #[test]
    fn overlap_lists_are_nltks_with_one_reference_and_with_several() {
        let mut rng = Rng(0x0dd_ba11);
        let mut ws = NistWorkspace::default();
        for _ in 0..3000 {
            let line = |rng: &mut Rng| {
                let len = rng.below(14);
                (0..len)
                    .map(|_| ["a", "b", "c", "d"][rng.below(4)])
                    .collect::<Vec<_>>()
            };
            let hyp = line(&mut rng);
            let refs: Vec<Vec<&str>> = (0..1 + rng.below(3)).map(|_| line(&mut rng)).collect();
            let order = 1 + rng.below(5);
            let nist = Nist::new(NistConfig {
                tokenize: NistTokenize::Split,
                order,
                compat: NistCompat::Nltk,
                lowercase: false,
            });
            let ref_lines: Vec<String> = refs.iter().map(|r| r.join(" ")).collect();
            let ref_strs: Vec<&str> = ref_lines.iter().map(String::as_str).collect();
            let stats = nist.stats(&hyp.join(" "), &ref_strs, &mut ws);
            assert_eq!(stats.several.is_some(), refs.len() > 1);
            let lists = stats.lists(order);
            assert_eq!(lists.term_ends.len(), order * refs.len() + 1);
            for n in 1..=order {
                for (r, reference) in refs.iter().enumerate() {
                    let k = (n - 1) * refs.len() + r;
                    let list =
                        &lists.terms[lists.term_ends[k] as usize..lists.term_ends[k + 1] as usize];
                    let got: Vec<(Vec<&str>, u32)> = list
                        .iter()
                        .map(|&(m, count)| {
                            let m = stats.matches[m as usize];
                            assert_eq!(m.order as usize, n);
                            let tokens = &stats.refs[m.reference as usize];
                            let at = m.position as usize;
                            ((at..at + n).map(|i| tokens.get(i)).collect(), count)
                        })
                        .collect();
                    assert_eq!(got, overlaps(&hyp, reference, n), "{hyp:?} {refs:?} n={n}");
                }
            }
        }
    }
}
