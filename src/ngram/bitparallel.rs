//! Clipped n-gram matches of a hypothesis against one short reference, bit-parallel.
//!
//! Sentences are short (the WMT22 outputs average 18 whitespace tokens), and with one reference
//! of at most 64 tokens every question "where in the reference does this hypothesis n-gram
//! occur?" has a 64-bit answer: a mask of reference positions. For order 1 it is the mask of the
//! hypothesis token's occurrences, found with one probe of a small token table; for order n at
//! hypothesis position i it is
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

use crate::tokenize::{TokenKey, Tokens};

use super::{key_diff, token_hash};

/// Most tokens a sequence may have for [`BitParallel`]: the bits of a mask.
pub const MAX_TOKENS: usize = 64;

/// Highest n-gram order [`BitParallel`] handles (the kernel is instantiated for each order up to
/// this; NLTK weight lists longer than 8 are left to the general path).
pub const MAX_ORDER: usize = 8;

/// Slots of the token table: a power of two, at least four times [`MAX_TOKENS`] so that the first
/// probe nearly always decides.
const SLOTS: usize = 256;

/// A distinct reference token: its key, the mask of its reference positions, and the position
/// of its first occurrence (whose bytes tell apart long tokens with equal keys).
#[derive(Clone, Copy)]
struct Slot {
    key: TokenKey,
    mask: u64,
    first: u32,
    /// The slot is live when this is the table's current generation.
    generation: u32,
}

const FREE: Slot = Slot {
    key: TokenKey {
        head: 0,
        tail: 0,
        len: 0,
    },
    mask: 0,
    first: 0,
    generation: 0,
};

/// Buffers of [`BitParallel::clipped_matches`], reused across segments.
pub struct BitParallel {
    slots: Box<[Slot; SLOTS]>,
    /// The current generation (never 0, so that [`FREE`] slots are free).
    generation: u32,
    /// `E_1` of the hypothesis, then [`MAX_ORDER`] zeros: `E_n` of the last n − 1 positions,
    /// which have no n-gram, reads them and comes out empty.
    unigram: [u64; MAX_TOKENS + MAX_ORDER],
}

impl Default for BitParallel {
    fn default() -> Self {
        BitParallel {
            slots: Box::new([FREE; SLOTS]),
            generation: 1,
            unigram: [0; MAX_TOKENS + MAX_ORDER],
        }
    }
}

/// Whether [`BitParallel::clipped_matches`] takes these sequences and orders.
#[inline]
pub fn applies(hyp: &Tokens, refs: &[Tokens], orders: usize) -> bool {
    matches!(refs, [r] if r.len() <= MAX_TOKENS)
        && hyp.len() <= MAX_TOKENS
        && (1..=MAX_ORDER).contains(&orders)
}

impl BitParallel {
    /// Clipped matches of orders `1..=orders` of `hyp` against `reference` into `matches`, for
    /// sequences [`applies`] accepts.
    pub fn clipped_matches(
        &mut self,
        hyp: &Tokens,
        reference: &Tokens,
        orders: usize,
        matches: &mut Vec<u64>,
    ) {
        debug_assert!(hyp.len() <= MAX_TOKENS && reference.len() <= MAX_TOKENS);
        self.new_generation();
        for j in 0..reference.len() {
            self.add_reference_token(reference, j);
        }
        let n = hyp.len();
        for i in 0..n {
            let (key, token) = hyp.key(i);
            self.unigram[i] = self.mask_of(key, token, reference);
        }
        self.unigram[n..n + orders].fill(0);
        matches.clear();
        match orders {
            1 => kernel::<1>(&self.unigram[..n + 1], matches),
            2 => kernel::<2>(&self.unigram[..n + 2], matches),
            3 => kernel::<3>(&self.unigram[..n + 3], matches),
            4 => kernel::<4>(&self.unigram[..n + 4], matches),
            5 => kernel::<5>(&self.unigram[..n + 5], matches),
            6 => kernel::<6>(&self.unigram[..n + 6], matches),
            7 => kernel::<7>(&self.unigram[..n + 7], matches),
            8 => kernel::<8>(&self.unigram[..n + 8], matches),
            _ => unreachable!("orders {orders} outside 1..={MAX_ORDER} (see `applies`)"),
        }
    }

    /// Frees every slot in O(1); wipes them only when the counter wraps.
    fn new_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(FREE);
            self.generation = 1;
        }
    }

    /// Sets bit `j` in the mask of reference token `j`, adding the token if new.
    #[inline]
    fn add_reference_token(&mut self, reference: &Tokens, j: usize) {
        let (key, token) = reference.key(j);
        let mut at = slot_index(key);
        loop {
            let slot = &mut self.slots[at];
            if slot.generation != self.generation {
                *slot = Slot {
                    key,
                    mask: 1 << j,
                    first: j as u32,
                    generation: self.generation,
                };
                return;
            }
            if key_diff(slot.key, key) == 0
                && (key.len <= TokenKey::EXACT || reference.get_bytes(slot.first as usize) == token)
            {
                slot.mask |= 1 << j;
                return;
            }
            at = (at + 1) % SLOTS;
        }
    }

    /// The mask of reference positions holding the token with key `key` and bytes `token` (0
    /// when the reference lacks it).
    ///
    /// About half of a hypothesis' tokens are in its reference, as good as random for a branch
    /// predictor, so the first probe selects the answer arithmetically; only an occupied slot
    /// holding another key, or a token longer than its key, probes on (rare: the table is at
    /// most a quarter full).
    #[inline]
    fn mask_of(&self, key: TokenKey, token: &[u8], reference: &Tokens) -> u64 {
        let mut at = slot_index(key);
        let slot = &self.slots[at];
        let live = slot.generation == self.generation;
        if !live || (key_diff(slot.key, key) == 0 && key.len <= TokenKey::EXACT) {
            return slot.mask & u64::from(live).wrapping_neg();
        }
        loop {
            let slot = &self.slots[at];
            if slot.generation != self.generation {
                return 0;
            }
            if key_diff(slot.key, key) == 0
                && (key.len <= TokenKey::EXACT || reference.get_bytes(slot.first as usize) == token)
            {
                return slot.mask;
            }
            at = (at + 1) % SLOTS;
        }
    }
}

/// The first slot a token's probe looks at.
#[inline]
fn slot_index(key: TokenKey) -> usize {
    (token_hash(key) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// Clipped matches of orders 1..=N from the hypothesis' unigram masks (followed by N zeros),
/// pushed onto `matches`.
///
/// One pass over the hypothesis computes every order's mask at each position, so the orders'
/// "used" chains (mask → free bits → lowest one → used) run side by side.
#[inline]
fn kernel<const N: usize>(unigram: &[u64], matches: &mut Vec<u64>) {
    let mut used = [0u64; N];
    let mut matched = [0u64; N];
    for i in 0..unigram.len() - N {
        let window = &unigram[i..i + N];
        let mut mask = window[0];
        for n in 0..N {
            if n > 0 {
                mask &= window[n] >> n;
            }
            let free = mask & !used[n];
            used[n] |= free & free.wrapping_neg();
            matched[n] += u64::from(free != 0);
        }
    }
    matches.extend_from_slice(&matched);
}

#[cfg(test)]
mod tests {
    use super::super::{clipped_matches_indexed, ClipWorkspace};
    use super::*;

    /// A deterministic pseudo-random generator (xorshift), so that failures replay.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

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
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut bits = BitParallel::default();
        let mut ws = ClipWorkspace::default();
        let mut fast = Vec::new();
        for case in 0..4000 {
            let len = |rng: &mut Rng| match case % 4 {
                0 => MAX_TOKENS - rng.below(3),
                _ => rng.below(MAX_TOKENS + 1),
            };
            let k = 1 + rng.below(vocab.len());
            let hyp: Vec<&str> = (0..len(&mut rng)).map(|_| vocab[rng.below(k)]).collect();
            let reference: Vec<&str> = (0..len(&mut rng)).map(|_| vocab[rng.below(k)]).collect();
            let (hyp, refs) = (tokens(&hyp), [tokens(&reference)]);
            let orders = 1 + case % MAX_ORDER;
            assert!(applies(&hyp, &refs, orders));
            bits.clipped_matches(&hyp, &refs[0], orders, &mut fast);
            clipped_matches_indexed(&hyp, &refs, orders, &mut ws);
            assert_eq!(fast, ws.matches, "case {case}: {hyp:?} vs {refs:?}");
        }
    }

    #[test]
    fn takes_one_short_reference_and_orders_up_to_the_maximum() {
        let short = tokens(&["a"; MAX_TOKENS]);
        let long = tokens(&["a"; MAX_TOKENS + 1]);
        assert!(applies(&short, std::slice::from_ref(&short), MAX_ORDER));
        assert!(!applies(
            &short,
            std::slice::from_ref(&short),
            MAX_ORDER + 1
        ));
        assert!(!applies(&short, std::slice::from_ref(&short), 0));
        assert!(!applies(&long, std::slice::from_ref(&short), 4));
        assert!(!applies(&short, std::slice::from_ref(&long), 4));
        assert!(!applies(&short, &[short.clone(), short.clone()], 4));
        assert!(!applies(&short, &[], 4));
    }

    #[test]
    fn clips_repeated_ngrams_and_handles_empty_sides() {
        let mut bits = BitParallel::default();
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

    /// The table's generation counter wraps: the wipe must leave no stale slot behind.
    #[test]
    fn generation_wrap_wipes_the_table() {
        let mut bits = BitParallel::default();
        let mut m = Vec::new();
        // Generation 1 (only ever current after a wrap): "x" is a reference token.
        bits.generation = 0;
        bits.clipped_matches(&tokens(&["x"]), &tokens(&["x"]), 1, &mut m);
        assert_eq!(m, [1]);
        // Wraps to 0, which is skipped: generation 1 again, after a wipe, so "x" is gone.
        bits.generation = u32::MAX;
        bits.clipped_matches(&tokens(&["x"]), &tokens(&["z"]), 1, &mut m);
        assert_eq!(bits.generation, 1);
        assert_eq!(m, [0]);
    }
}
