//! Clipped n-gram matches of a hypothesis against one short reference, bit-parallel, and the
//! distinct matched n-grams with their reference counts (for NIST).
//!
//! Sentences are short (the WMT22 outputs average 18 whitespace tokens), and with one reference
//! of at most 64 tokens every question "where in the reference does this hypothesis n-gram
//! occur?" has a 64-bit answer: a mask of reference positions (128-bit masks take sequences of
//! up to 128 tokens, 1.3 % of the WMT22 segments but 5.8 % of their tokens). For order 1 it is
//! the mask of the hypothesis token's occurrences, found by comparing its key with every
//! reference token's ([`super::pairwise`]); for order n at hypothesis position i it is
//!
//! ```text
//! E_n[i] = E_1[i] & (E_1[i+1] >> 1) & … & (E_1[i+n−1] >> (n−1))
//! ```
//!
//! (bit j: the reference n-gram starting at j equals the hypothesis one starting at i). No
//! n-gram is interned or hashed, only tokens.
//!
//! Clipping — each distinct hypothesis n-gram counts at most as often as the reference has it —
//! falls out of the masks too: all occurrences of one n-gram see the same mask, and different
//! n-grams have disjoint masks (a reference position starts one n-gram of each order). So one
//! "used" mask per order, from which each hypothesis occurrence takes the lowest still-free
//! bit of its mask, matches exactly min(hypothesis count, reference count) occurrences of each
//! n-gram, with no count arrays and no branch on whether anything matched.
//!
//! Several references clip by the maximum over references of each n-gram's count, which does
//! not decompose this way; they, and longer sequences, go through [`super::NgramIndex`].

use crate::tokenize::Tokens;

use super::pairwise::{self, RefKeys};

/// The bits of a mask of token positions: `u64` or `u128`.
pub trait Mask:
    Copy
    + Default
    + Eq
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitOrAssign
    + std::ops::BitAndAssign
    + std::ops::Not<Output = Self>
    + std::ops::Shr<usize, Output = Self>
{
    /// Most tokens a sequence may have: the bits of the mask.
    const BITS: usize;
    const ZERO: Self;
    /// Only the lowest bit set in `self` (0 for 0).
    fn lowest(self) -> Self;
    /// Index of the lowest bit set.
    fn trailing_zeros(self) -> u32;
    /// Number of bits set.
    fn count_ones(self) -> u32;
    /// The mask with bits 0..64 from `low` and bits 64.. from `high` (dropped by `u64`).
    fn from_halves(low: u64, high: u64) -> Self;
}

macro_rules! mask {
    ($t:ty) => {
        impl Mask for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            #[inline]
            fn lowest(self) -> Self {
                self & self.wrapping_neg()
            }
            #[inline]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
            #[inline]
            fn from_halves(low: u64, high: u64) -> Self {
                (u128::from(high) << 64 | u128::from(low)) as $t
            }
        }
    };
}
mask!(u64);
mask!(u128);

/// Most tokens a sequence may have for the bit-parallel path (with `u128` masks).
pub const MAX_TOKENS: usize = 128;
// `RefKeys` must hold every reference this path takes.
const _: () = assert!(pairwise::CAPACITY >= MAX_TOKENS);

/// Highest n-gram order [`BitParallel`] handles (the kernel is instantiated for each order up to
/// this; NLTK weight lists longer than 8 are left to the general path).
pub const MAX_ORDER: usize = 8;

/// A distinct hypothesis n-gram that the reference has ([`BitParallel::distinct_matches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistinctMatch {
    pub order: u32,
    /// Where it first occurs in the reference.
    pub position: u32,
    /// Its clipped count: min(count in the hypothesis, count in the reference).
    pub count: u32,
    /// Its count in the reference.
    pub ref_count: u32,
    /// The reference count of its (n−1)-gram prefix (0 for a unigram).
    pub prefix_count: u32,
}

/// Buffers of [`BitParallel::clipped_matches`], reused across segments; masks of type `M`.
pub struct BitParallel<M> {
    /// `E_1` of the hypothesis, then [`MAX_ORDER`] zeros: `E_n` of the last n − 1 positions,
    /// which have no n-gram, reads them and comes out empty.
    unigram: Vec<M>,
    /// The reference's token keys, compared with each hypothesis token's.
    keys: Box<RefKeys>,
    /// Scratch of [`BitParallel::distinct_matches`].
    live: Vec<(u32, M)>,
}

impl<M: Mask> Default for BitParallel<M> {
    fn default() -> Self {
        BitParallel {
            unigram: vec![M::ZERO; M::BITS + MAX_ORDER],
            keys: Box::default(),
            live: Vec::with_capacity(M::BITS),
        }
    }
}

/// The widest mask [`BitParallel::clipped_matches`] needs for these sequences and orders, in
/// bits (64 or 128), or `None` when it does not take them.
#[inline]
pub fn mask_bits(hyp: &Tokens, refs: &[Tokens], orders: usize) -> Option<usize> {
    let [reference] = refs else { return None };
    let longest = hyp.len().max(reference.len());
    if !(1..=MAX_ORDER).contains(&orders) || longest > MAX_TOKENS {
        return None;
    }
    Some(if longest <= 64 { 64 } else { 128 })
}

impl<M: Mask> BitParallel<M> {
    /// Clipped matches of orders `1..=orders` of `hyp` against `reference` into `matches`, for
    /// sequences of at most `M::BITS` tokens and orders [`mask_bits`] accepts.
    pub fn clipped_matches(
        &mut self,
        hyp: &Tokens,
        reference: &Tokens,
        orders: usize,
        matches: &mut Vec<u64>,
    ) {
        assert!(orders <= MAX_ORDER);
        self.unigram_masks(hyp, reference);
        let n = hyp.len();
        matches.clear();
        match orders {
            1 => kernel::<M, 1>(&self.unigram[..n + 1], matches),
            2 => kernel::<M, 2>(&self.unigram[..n + 2], matches),
            3 => kernel::<M, 3>(&self.unigram[..n + 3], matches),
            4 => kernel::<M, 4>(&self.unigram[..n + 4], matches),
            5 => kernel::<M, 5>(&self.unigram[..n + 5], matches),
            6 => kernel::<M, 6>(&self.unigram[..n + 6], matches),
            7 => kernel::<M, 7>(&self.unigram[..n + 7], matches),
            8 => kernel::<M, 8>(&self.unigram[..n + 8], matches),
            _ => unreachable!("orders {orders} outside 1..={MAX_ORDER} (see `mask_bits`)"),
        }
    }

    /// Fills `unigram` with `E_1` of `hyp` against `reference`, followed by [`MAX_ORDER`] zeros.
    fn unigram_masks(&mut self, hyp: &Tokens, reference: &Tokens) {
        assert!(hyp.len() <= M::BITS && reference.len() <= M::BITS);
        self.keys.load(reference);
        let n = hyp.len();
        let unigram = &mut self.unigram;
        pairwise::masks(&self.keys, hyp, reference, |i, low, high| {
            unigram[i] = M::from_halves(low, high);
        });
        self.unigram[n..n + MAX_ORDER].fill(M::ZERO);
    }

    /// The distinct hypothesis n-grams of orders `1..=orders` that `reference` has, orders
    /// ascending and each order in the hypothesis' first-occurrence order (as a `Counter` of the
    /// hypothesis n-grams lists them), into `out`; for sequences [`mask_bits`] accepts.
    ///
    /// NIST's statistics name each matched n-gram by where it first occurs in the reference and
    /// weigh it by its counts in the reference, which the masks give directly: the n-gram at
    /// hypothesis position i has the mask `E_n[i]`, its first reference occurrence is the
    /// mask's lowest bit, its reference count the mask's population, and its prefix's count the
    /// population of `E_{n−1}[i]`. An occurrence whose mask has no used bit is the n-gram's
    /// first (occurrences of one n-gram share a mask, different n-grams have disjoint ones);
    /// later occurrences take free bits as in [`kernel`], so the counts come out clipped.
    ///
    /// Order n is computed from order n − 1 (`E_n[i] = E_{n−1}[i] & (E_1[i+n−1] >> (n−1))`),
    /// and only at the positions whose `E_{n−1}` was not empty: an n-gram whose prefix is not in
    /// the reference is not either. Most hypothesis bigrams already miss, so orders 3 to 5
    /// visit a few positions each instead of every one, with one AND each instead of n − 1.
    pub fn distinct_matches(
        &mut self,
        hyp: &Tokens,
        reference: &Tokens,
        orders: usize,
        out: &mut Vec<DistinctMatch>,
    ) {
        assert!(orders <= MAX_ORDER);
        self.unigram_masks(hyp, reference);
        out.clear();
        if orders == 0 {
            return;
        }
        let e = &self.unigram;
        // Per order: the index in `out` of the n-gram whose first reference position is j.
        // Only read for n-grams already pushed in this order, so never reset.
        let mut index = [0u32; MAX_TOKENS];
        let mut record = |order: usize, mask: M, prefix_count: u32, used: &mut M| {
            let free = mask & !*used;
            if free == mask {
                let first = mask.trailing_zeros();
                index[first as usize] = out.len() as u32;
                out.push(DistinctMatch {
                    order: order as u32,
                    position: first,
                    count: 1,
                    ref_count: mask.count_ones(),
                    prefix_count,
                });
            } else if free != M::ZERO {
                out[index[mask.trailing_zeros() as usize] as usize].count += 1;
            }
            *used |= free.lowest();
        };
        // The positions whose mask of the order at hand is not empty, ascending, with it.
        let live = &mut self.live;
        live.clear();
        let mut used = M::ZERO;
        for (i, &mask) in e[..hyp.len()].iter().enumerate() {
            if mask != M::ZERO {
                live.push((i as u32, mask));
                record(1, mask, 0, &mut used);
            }
        }
        for order in 2..=orders {
            let mut used = M::ZERO;
            let mut kept = 0;
            for k in 0..live.len() {
                let (i, prefix) = live[k];
                // `e` has MAX_ORDER zeros after the hypothesis: no index runs past it.
                let mask = prefix & (e[i as usize + order - 1] >> (order - 1));
                if mask != M::ZERO {
                    live[kept] = (i, mask);
                    kept += 1;
                    record(order, mask, prefix.count_ones(), &mut used);
                }
            }
            live.truncate(kept);
        }
    }
}

/// Clipped matches of orders 1..=N from the hypothesis' unigram masks (followed by N zeros),
/// pushed onto `matches`.
///
/// One pass over the hypothesis computes every order's mask at each position, so the orders'
/// "used" chains (mask → free bits → lowest one → used) run side by side.
#[inline]
fn kernel<M: Mask, const N: usize>(unigram: &[M], matches: &mut Vec<u64>) {
    let mut used = [M::ZERO; N];
    let mut matched = [0u64; N];
    for i in 0..unigram.len() - N {
        let window = &unigram[i..i + N];
        let mut mask = window[0];
        for n in 0..N {
            if n > 0 {
                mask &= window[n] >> n;
            }
            let free = mask & !used[n];
            used[n] |= free.lowest();
            matched[n] += u64::from(free != M::ZERO);
        }
    }
    matches.extend_from_slice(&matched);
}

#[cfg(test)]
mod tests {
    use super::super::clip::{clipped_matches_indexed, ClipWorkspace};
    use super::*;
    use crate::test_rng::Rng;

    fn tokens(words: &[&str]) -> Tokens {
        let mut t = Tokens::default();
        for w in words {
            t.push(w);
        }
        t
    }

    /// The bit-parallel path agrees with the interning one at every length up to the mask width
    /// (63 and 64 included), every order it takes, on small vocabularies (n-grams repeat, so
    /// clipping matters) with tokens around the key boundaries: long tokens with equal keys,
    /// NUL bytes, tokens equal in their first and last 8 bytes.
    #[test]
    fn agrees_with_the_indexed_path() {
        agrees_with_the_indexed_path_at::<u64>(0x2545_F491_4F6C_DD1D);
        agrees_with_the_indexed_path_at::<u128>(0x9E37_79B9_7F4A_7C15);
    }

    /// One mask width: lengths up to its bits, a quarter of the cases within 3 of the maximum.
    fn agrees_with_the_indexed_path_at<M: Mask>(seed: u64) {
        let vocab = [
            "a",
            "b",
            "a\0",
            "\0",
            "abcdefgh",
            "abcdefghi",
            "abcdefgh12345678",
            "abcdefgh_X_12345678",
            "abcdefgh_Y_12345678",
            "ünï",
        ];
        let mut rng = Rng(seed);
        let mut bits = BitParallel::<M>::default();
        let mut ws = ClipWorkspace::default();
        let mut fast = Vec::new();
        for case in 0..4000 {
            let len = |rng: &mut Rng| match case % 4 {
                0 => M::BITS - rng.below(3),
                _ => rng.below(M::BITS + 1),
            };
            let k = 1 + rng.below(vocab.len());
            let hyp: Vec<&str> = (0..len(&mut rng)).map(|_| vocab[rng.below(k)]).collect();
            let reference: Vec<&str> = (0..len(&mut rng)).map(|_| vocab[rng.below(k)]).collect();
            let (hyp, refs) = (tokens(&hyp), [tokens(&reference)]);
            let orders = 1 + case % MAX_ORDER;
            assert!(mask_bits(&hyp, &refs, orders).is_some_and(|b| b <= M::BITS));
            bits.clipped_matches(&hyp, &refs[0], orders, &mut fast);
            clipped_matches_indexed(&hyp, &refs, orders, &mut ws);
            assert_eq!(fast, ws.matches, "case {case}: {hyp:?} vs {refs:?}");
        }
    }

    /// `distinct_matches` by brute force: each distinct hypothesis n-gram in first-occurrence
    /// order, compared token by token with every reference position.
    fn distinct_naive(hyp: &[&str], reference: &[&str], orders: usize) -> Vec<DistinctMatch> {
        fn at<'a>(seq: &[&'a str], j: usize, n: usize) -> Option<Vec<&'a str>> {
            seq.get(j..j + n).map(<[&str]>::to_vec)
        }
        let mut out = Vec::new();
        for n in 1..=orders {
            let mut seen: Vec<Vec<&str>> = Vec::new();
            for i in 0..hyp.len() {
                let Some(gram) = at(hyp, i, n) else { break };
                if seen.contains(&gram) {
                    continue;
                }
                seen.push(gram.clone());
                let in_ref: Vec<usize> = (0..reference.len())
                    .filter(|&j| at(reference, j, n).as_ref() == Some(&gram))
                    .collect();
                let Some(&first) = in_ref.first() else {
                    continue;
                };
                let in_hyp = (0..hyp.len()).filter(|&j| at(hyp, j, n).as_ref() == Some(&gram));
                let prefix_count = match n {
                    1 => 0,
                    _ => (0..reference.len())
                        .filter(|&j| at(reference, j, n - 1).as_deref() == Some(&gram[..n - 1]))
                        .count() as u32,
                };
                out.push(DistinctMatch {
                    order: n as u32,
                    position: first as u32,
                    count: in_hyp.count().min(in_ref.len()) as u32,
                    ref_count: in_ref.len() as u32,
                    prefix_count,
                });
            }
        }
        out
    }

    /// The distinct matches (NIST) agree with brute force at both mask widths, every order up
    /// to the maximum, on small vocabularies where n-grams repeat on both sides.
    #[test]
    fn distinct_matches_agree_with_brute_force() {
        fn at<M: Mask>(seed: u64) {
            let vocab = [
                "a",
                "b",
                "c",
                "a\0",
                "abcdefgh_X_12345678",
                "abcdefgh_Y_12345678",
            ];
            let mut rng = Rng(seed);
            let mut bits = BitParallel::<M>::default();
            let mut got = Vec::new();
            for case in 0..3000 {
                let len = |rng: &mut Rng| match case % 3 {
                    0 => M::BITS - rng.below(3),
                    _ => rng.below(40),
                };
                let k = 1 + rng.below(vocab.len());
                let hyp: Vec<&str> = (0..len(&mut rng)).map(|_| vocab[rng.below(k)]).collect();
                let reference: Vec<&str> =
                    (0..len(&mut rng)).map(|_| vocab[rng.below(k)]).collect();
                let orders = rng.below(MAX_ORDER + 1);
                bits.distinct_matches(&tokens(&hyp), &tokens(&reference), orders, &mut got);
                let want = distinct_naive(&hyp, &reference, orders);
                assert_eq!(got, want, "case {case}: {hyp:?} vs {reference:?}, {orders}");
            }
        }
        at::<u64>(0x5DEE_CE66_D1CE_4E5B);
        at::<u128>(0xD1B5_4A32_D192_ED03);
    }

    #[test]
    fn takes_one_reference_of_up_to_128_tokens_and_orders_up_to_the_maximum() {
        let of = |n: usize| tokens(&vec!["a"; n]);
        let one = |t: &Tokens| [t.clone()];
        let (t64, t65, t128, t129) = (of(64), of(65), of(128), of(129));
        assert_eq!(mask_bits(&t64, &one(&t64), MAX_ORDER), Some(64));
        assert_eq!(mask_bits(&of(0), &one(&of(0)), 1), Some(64));
        assert_eq!(mask_bits(&t65, &one(&t64), 4), Some(128));
        assert_eq!(mask_bits(&t64, &one(&t65), 4), Some(128));
        assert_eq!(mask_bits(&t128, &one(&t128), 4), Some(128));
        assert_eq!(mask_bits(&t129, &one(&t64), 4), None);
        assert_eq!(mask_bits(&t64, &one(&t129), 4), None);
        assert_eq!(mask_bits(&t64, &one(&t64), MAX_ORDER + 1), None);
        assert_eq!(mask_bits(&t64, &one(&t64), 0), None);
        assert_eq!(mask_bits(&t64, &[t64.clone(), t64.clone()], 4), None);
        assert_eq!(mask_bits(&t64, &[], 4), None);
    }

    #[test]
    fn clips_repeated_ngrams_and_handles_empty_sides() {
        let mut bits = BitParallel::<u64>::default();
        let mut m = Vec::new();
        let the = tokens(&["the"; 7]);
        bits.clipped_matches(&the, &tokens(&["the", "cat", "the"]), 2, &mut m);
        assert_eq!(m, [2, 0]);
        bits.clipped_matches(&tokens(&[]), &the, 3, &mut m);
        assert_eq!(m, [0, 0, 0]);
        bits.clipped_matches(&the, &tokens(&[]), 3, &mut m);
        assert_eq!(m, [0, 0, 0]);
        // The seed blog's example: "the the the the the the the" against "the cat is on the
        // mat" has modified unigram precision 2/7.
        let r = tokens(&["the", "cat", "is", "on", "the", "mat"]);
        bits.clipped_matches(&the, &r, 1, &mut m);
        assert_eq!(m, [2]);
    }
}
