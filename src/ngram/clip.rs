//! Clipped n-gram matches of a hypothesis against its references, and the multiset overlap of
//! two id sequences.

use crate::tokenize::Tokens;

use super::bitparallel::{self, BitParallel};
use super::{NgramIds, NgramIndex, ABSENT};

/// Buffers of [`clipped_matches`]: nothing is allocated per segment once they have grown.
#[derive(Default)]
pub struct ClipWorkspace {
    /// The path for one reference and sequences of up to 64 tokens (most segments)…
    bits: BitParallel<u64>,
    /// …and of up to 128.
    wide_bits: BitParallel<u128>,
    index: NgramIndex,
    hyp_ids: NgramIds,
    ref_ids: Vec<NgramIds>,
    /// Dense arrays indexed by n-gram id, all zero between segments: reference counts (several
    /// references), and the clipping budgets.
    count: Vec<u32>,
    ref_max: Vec<u32>,
    /// The result: clipped matches of orders 1, 2, …
    pub matches: Vec<u64>,
}

/// Slots that [`ABSENT`] n-grams use in [`clipped_matches`].
pub(super) const ABSENT_SLOTS: usize = 8;

/// Clipped matches of orders `1..=orders` (into `ws.matches`): each distinct hypothesis n-gram
/// counts at most as often as it occurs in the reference where it occurs most (the maximum over
/// references, not the sum: sacreBLEU, NLTK `modified_precision`, mteval and multi-bleu.perl
/// alike).
/// References are interned in an [`NgramIndex`]; the hypothesis is only looked up, since an
/// n-gram no reference has cannot match — except that one reference and sequences of at most 128
/// tokens take the faster [`bitparallel`](super::bitparallel) path, which interns nothing.
pub fn clipped_matches(hyp: &Tokens, refs: &[Tokens], orders: usize, ws: &mut ClipWorkspace) {
    match bitparallel::mask_bits(hyp, refs, orders) {
        Some(64) => ws
            .bits
            .clipped_matches(hyp, &refs[0], orders, &mut ws.matches),
        Some(_) => ws
            .wide_bits
            .clipped_matches(hyp, &refs[0], orders, &mut ws.matches),
        None => clipped_matches_indexed(hyp, refs, orders, ws),
    }
}

/// [`clipped_matches`] through an [`NgramIndex`]: any number of references, any lengths.
pub(super) fn clipped_matches_indexed(
    hyp: &Tokens,
    refs: &[Tokens],
    orders: usize,
    ws: &mut ClipWorkspace,
) {
    if ws.ref_ids.len() < refs.len() {
        ws.ref_ids.resize_with(refs.len(), NgramIds::default);
    }
    ws.index.clear();
    for (r, ids) in refs.iter().zip(&mut ws.ref_ids) {
        ws.index.index(r, orders, ids);
    }
    ws.index.lookup(hyp, orders, &mut ws.hyp_ids);
    // `budget[g]`: how many more occurrences of n-gram g the hypothesis may match — the most
    // any one reference has. Each hypothesis occurrence takes one while any is left, which
    // counts min(hypothesis count, budget) per distinct n-gram without a second count array.
    // Eight slots more than there are ids: `ABSENT` hypothesis n-grams look there, where the
    // budget is always 0, so that no loop branches on whether an n-gram is in a reference
    // (which is unpredictable). Eight, taken in turn, rather than one: consecutive absent
    // n-grams would otherwise chain every load to the store before it through one address.
    let absent = ws.index.num_ids();
    if ws.count.len() < absent + ABSENT_SLOTS {
        ws.count.resize(absent + ABSENT_SLOTS, 0);
        ws.ref_max.resize(absent + ABSENT_SLOTS, 0);
    }
    let (count, budget) = (&mut ws.count, &mut ws.ref_max[..absent + ABSENT_SLOTS]);
    let ref_ids = &ws.ref_ids[..refs.len()];
    if let [single] = ref_ids {
        for &g in single.all() {
            budget[g as usize] += 1;
        }
    } else {
        for r in ref_ids {
            for &g in r.all() {
                count[g as usize] += 1;
            }
            for &g in r.all() {
                let c = std::mem::take(&mut count[g as usize]);
                budget[g as usize] = budget[g as usize].max(c);
            }
        }
    }
    ws.matches.clear();
    for order in 1..=orders {
        let mut matched = 0u64;
        for (i, &g) in ws.hyp_ids.order(order).iter().enumerate() {
            let slot = if (g as usize) < absent {
                g as usize
            } else {
                absent + i % ABSENT_SLOTS
            };
            let b = &mut budget[slot];
            let take = u32::from(*b != 0);
            *b -= take;
            matched += u64::from(take);
        }
        ws.matches.push(matched);
    }
    for r in ref_ids {
        for &g in r.all() {
            budget[g as usize] = 0;
        }
    }
}

/// Size of the multiset intersection of two id sequences: Σ_g min(count in `hyp`, count in
/// `reference`). [`ABSENT`] hypothesis ids (never interned, so in no reference) are skipped.
/// `count` is scratch indexed by id, all zero before and after.
pub fn overlap(hyp: &[u32], reference: &[u32], count: &mut [u32]) -> u64 {
    for &g in hyp {
        if g != ABSENT {
            count[g as usize] += 1;
        }
    }
    // Each reference occurrence takes one hypothesis occurrence while any is left.
    let mut matched = 0u64;
    for &g in reference {
        let c = &mut count[g as usize];
        if *c > 0 {
            *c -= 1;
            matched += 1;
        }
    }
    for &g in hyp {
        if g != ABSENT {
            count[g as usize] = 0;
        }
    }
    matched
}
