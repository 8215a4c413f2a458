//! Exact n-gram identities for one segment, without allocating per n-gram.
//!
//! Every distinct token of the segment (hypothesis and references together) gets a small integer
//! id; every distinct n-gram of order n ≥ 2 gets an id interned from the pair
//! (id of its (n−1)-gram prefix, id of its last token). Two n-grams get the same id exactly when
//! they are equal token tuples — no hashing of whole n-grams, hence no collision risk — and
//! counting becomes indexing into dense arrays. All ids of a segment share one space, so one array
//! holds the counts of every order.

use std::hint::black_box;

use crate::tokenize::{TokenKey, Tokens};

pub mod bitparallel;
mod chars;
mod clip;
mod packed;
mod pairwise;
mod sorted;
mod table;
mod vocab;
mod words;

pub use chars::{CharNgrams, Spaces};
pub use clip::{clipped_matches, overlap, ClipWorkspace};
pub use packed::CountTables;
pub use sorted::SortedNgrams;
pub use vocab::Vocab;
pub use words::WordNgrams;

use table::{key_diff, ones_if_nonzero, pair_hash, token_hash, PairSlot, Table, TokenSlot};

/// Interns the tokens and n-grams of one segment. Reused across segments (call [`clear`]).
///
/// Tokens are interned in an open-addressing hash table, keyed by [`TokenKey`] (a token of up to
/// 16 bytes compares as three integers). An n-gram is found from its prefix's id: every id
/// records its first *successor* — the first n-gram one token longer that starts with it, as
/// (last token id, n-gram id) — in an array indexed by id. In a sentence most prefixes have a
/// single successor, so the usual lookup is one array access and one comparison, with no
/// hashing; further successors (frequent for characters, as in chrF) go to a hash table keyed by
/// (prefix id, last token id). Nothing is freed between segments and nothing is wiped either:
/// [`clear`] is O(1) (new hash-table generations, the successor array reused).
///
/// Hypotheses are only looked up, and about half of their tokens and n-grams are in no
/// reference — as good as random for a branch predictor — so the look-up paths decide present
/// or absent arithmetically (see `lookup_pairs`).
///
/// [`clear`]: NgramIndex::clear
#[derive(Default)]
pub struct NgramIndex {
    tokens: Table<TokenSlot>,
    /// Texts of the interned tokens longer than [`TokenKey::EXACT`] bytes.
    arena: Vec<u8>,
    /// By id: its first successor. Longer than `next_id` (entries from `next_id` on are stale),
    /// so that creating an id is one store.
    succ: Vec<Succ>,
    next_id: u32,
    /// The other successors: n-gram id by `(prefix id << 32) | last token id`.
    pairs: Table<PairSlot>,
}

/// The first successor of an id: the n-gram `id` is that id followed by token `last`
/// (`last == NONE`: no successor yet); `more` is 1 when [`NgramIndex::pairs`] holds others.
#[derive(Clone, Copy)]
struct Succ {
    last: u32,
    id: u32,
    more: u32,
}

const NONE: u32 = u32::MAX;
const EMPTY_SUCC: Succ = Succ {
    last: NONE,
    id: NONE,
    more: 0,
};

/// `last` of the sentinel successor of [`NgramIndex::lookup_pairs`]: never a token id, since ids
/// stay below it ([`NgramIndex::reserve_ids`]), and not [`ABSENT`] either.
const SENTINEL_LAST: u32 = ABSENT - 1;

impl NgramIndex {
    /// Forgets every id, keeping the allocations.
    pub fn clear(&mut self) {
        self.tokens.clear();
        self.arena.clear();
        self.next_id = 0;
        self.pairs.clear();
    }

    /// Number of ids handed out so far; every id is below this.
    pub fn num_ids(&self) -> usize {
        self.next_id as usize
    }

    /// Makes `succ` longer than `next_id + extra`.
    fn reserve_ids(&mut self, extra: usize) {
        let need = self.next_id as usize + extra + 1;
        if self.succ.len() < need {
            assert!(
                need < SENTINEL_LAST as usize,
                "fewer than 2^32 - 2 n-grams per segment"
            );
            // Exactly: `index` asks order by order, and doubling would double what a long
            // segment holds. The array is kept between segments, so it grows only while a
            // segment adds more ids than any before (at most once per order).
            self.succ.reserve_exact(need - self.succ.len());
            self.succ.resize(need, EMPTY_SUCC);
        }
    }

    /// A new id (room for it was reserved).
    #[inline]
    fn new_id(&mut self) -> u32 {
        let id = self.next_id;
        self.succ[id as usize] = EMPTY_SUCC;
        self.next_id = id + 1;
        id
    }

    /// The id of a token with key `key` and bytes `token`, interning it if new.
    #[inline]
    fn intern_token(&mut self, key: TokenKey, token: &[u8]) -> u32 {
        let hash = token_hash(key);
        let arena = &self.arena;
        let found = self.tokens.find(hash, |slot| {
            key_diff(slot.key, key) == 0
                && (key.len <= TokenKey::EXACT
                    || &arena[slot.text as usize..slot.text as usize + token.len()] == token)
        });
        match found {
            Ok(id) => id,
            Err(at) => {
                let text = if key.len > TokenKey::EXACT {
                    let text = u32::try_from(self.arena.len()).expect("token text over 4 GiB");
                    self.arena.extend_from_slice(token);
                    text
                } else {
                    0
                };
                let id = self.new_id();
                self.tokens.insert(
                    at,
                    TokenSlot {
                        key,
                        id,
                        text,
                        generation: 0,
                    },
                );
                id
            }
        }
    }

    /// The id of a token, or [`ABSENT`]. The first probe decides without branching on the
    /// answer; only a collision (an occupied slot holding another token) or a token longer than
    /// the key probes further.
    #[inline]
    fn lookup_token(&self, key: TokenKey, token: &[u8]) -> u32 {
        let hash = token_hash(key);
        if let Some(slot) = self.tokens.first(hash) {
            let live = !ones_if_nonzero(slot.generation ^ self.tokens.generation);
            let short = u32::from(key.len <= TokenKey::EXACT).wrapping_neg();
            let same = !ones_if_nonzero(u32::from(key_diff(slot.key, key) != 0)) & short;
            // `black_box` hides that `eq` is 0 or all ones, which the optimizer would otherwise
            // turn back into a branch.
            let eq = black_box(live & same);
            if (eq | !live) == u32::MAX {
                return slot.id | !eq;
            }
        } else {
            return ABSENT;
        }
        let arena = &self.arena;
        self.tokens
            .find(hash, |slot| {
                key_diff(slot.key, key) == 0
                    && (key.len <= TokenKey::EXACT
                        || &arena[slot.text as usize..slot.text as usize + token.len()] == token)
            })
            .unwrap_or(ABSENT)
    }

    /// The id of the n-gram `prefix` + `last`, interning it if new.
    #[inline]
    fn intern_pair(&mut self, prefix: u32, last: u32) -> u32 {
        let head = self.succ[prefix as usize];
        if head.last == last {
            return head.id;
        }
        if head.last == NONE {
            let id = self.new_id();
            self.succ[prefix as usize] = Succ { last, id, more: 0 };
            return id;
        }
        let key = (u64::from(prefix) << 32) | u64::from(last);
        match self.pairs.find(pair_hash(key), |slot| slot.key == key) {
            Ok(id) => id,
            Err(at) => {
                let id = self.new_id();
                self.succ[prefix as usize].more = 1;
                self.pairs.insert(
                    at,
                    PairSlot {
                        key,
                        id,
                        generation: 0,
                    },
                );
                id
            }
        }
    }

    /// Computes the ids of all n-grams of orders `1..=max_order` of `tokens` into `out`,
    /// interning new ones.
    pub fn index(&mut self, tokens: &Tokens, max_order: usize, out: &mut NgramIds) {
        out.layout(tokens.len(), max_order);
        // At most one new id per n-gram, reserved order by order: what the orders before
        // actually added is known then, so a long segment of repetitive text (few distinct
        // n-grams) does not reserve its number of n-gram occurrences (12 bytes each: 190 MB for
        // the 16M n-grams of a 16 MB line of one-letter words) all at once.
        self.reserve_ids(tokens.len());
        for (i, slot) in out.ids[..tokens.len()].iter_mut().enumerate() {
            let (key, token) = tokens.key(i);
            *slot = self.intern_token(key, token);
        }
        for n in 2..=max_order {
            let (prefixes, lasts, current) = out.order_slices(n);
            self.reserve_ids(current.len());
            for ((slot, &prefix), &last) in current.iter_mut().zip(prefixes).zip(lasts) {
                *slot = self.intern_pair(prefix, last);
            }
        }
    }

    /// Like [`index`](Self::index), but only looks n-grams up: one never interned gets
    /// [`ABSENT`]. Used for hypotheses, whose n-grams can only match if a reference has them.
    pub fn lookup(&mut self, tokens: &Tokens, max_order: usize, out: &mut NgramIds) {
        out.layout(tokens.len(), max_order);
        for (i, slot) in out.ids[..tokens.len()].iter_mut().enumerate() {
            let (key, token) = tokens.key(i);
            *slot = self.lookup_token(key, token);
        }
        self.lookup_pairs(out);
    }

    /// The n-gram ids of orders 2 and up of a looked-up sequence whose token ids are in `out`.
    ///
    /// The usual case has no branch on whether an n-gram exists: an [`ABSENT`] prefix reads a
    /// sentinel successor that never matches, an [`ABSENT`] last token matches only an empty
    /// successor (whose id is [`ABSENT`] too), and the result is selected arithmetically; only
    /// a prefix with several successors takes the hash table.
    fn lookup_pairs(&mut self, out: &mut NgramIds) {
        self.reserve_ids(0);
        let sentinel = self.next_id as usize;
        self.succ[sentinel] = Succ {
            last: SENTINEL_LAST,
            id: ABSENT,
            more: 0,
        };
        for n in 2..=out.max_order() {
            let (prefixes, lasts, current) = out.order_slices(n);
            for ((slot, &prefix), &last) in current.iter_mut().zip(prefixes).zip(lasts) {
                let head = self.succ[(prefix as usize).min(sentinel)];
                // All ones unless head.last == last; `black_box` as in `lookup_token`.
                let miss = black_box(ones_if_nonzero(head.last ^ last));
                let mut id = head.id | miss;
                // The hash table only for a prefix with several successors whose first one did
                // not match, and a last token that exists: one test of an integer that is
                // almost always 0 (a chain of `&&` gets compiled into unpredictable branches).
                if head.more & miss & u32::from(last != ABSENT) != 0 {
                    let key = (u64::from(prefix) << 32) | u64::from(last);
                    id = self
                        .pairs
                        .find(pair_hash(key), |slot| slot.key == key)
                        .unwrap_or(ABSENT);
                }
                *slot = id;
            }
        }
    }
}

/// The id [`NgramIndex::lookup`] gives an n-gram that was never interned.
pub const ABSENT: u32 = u32::MAX;

/// The n-gram ids of one token sequence, grouped by order.
#[derive(Default, Clone, Debug)]
pub struct NgramIds {
    ids: Vec<u32>,
    /// `ends[n - 1]` is the end of order `n` in `ids`.
    ends: Vec<usize>,
}

impl NgramIds {
    /// Sizes `ids` for a sequence of `len` tokens and orders `1..=max_order` (order 1 always:
    /// order n has len + 1 − n n-grams, none when that is not positive).
    #[inline]
    fn layout(&mut self, len: usize, max_order: usize) {
        self.ends.clear();
        let mut total = 0;
        for n in 1..=max_order.max(1) {
            total += (len + 1).saturating_sub(n);
            self.ends.push(total);
        }
        self.ids.clear();
        self.ids.resize(total, ABSENT);
    }

    /// For order `n` ≥ 2: the ids of order n − 1 (the prefixes, as many as order n has n-grams,
    /// in the same positions), the token ids from position n − 1 on (the last tokens), and the
    /// ids of order n, to be written.
    #[inline]
    fn order_slices(&mut self, n: usize) -> (&[u32], &[u32], &mut [u32]) {
        let start = self.ends[n - 2];
        let (before, current) = self.ids.split_at_mut(start);
        let current = &mut current[..self.ends[n - 1] - start];
        let prev_start = if n == 2 { 0 } else { self.ends[n - 3] };
        let count = current.len();
        if count == 0 {
            // Too short for this order (and maybe for the lower ones).
            return (&[], &[], current);
        }
        let prefixes = &before[prev_start..prev_start + count];
        let lasts = &before[n - 1..n - 1 + count];
        (prefixes, lasts, current)
    }

    /// Highest order indexed.
    pub fn max_order(&self) -> usize {
        self.ends.len()
    }

    /// Ids of the n-grams of order `n` (1-based), in sequence order.
    pub fn order(&self, n: usize) -> &[u32] {
        let start = if n == 1 { 0 } else { self.ends[n - 2] };
        &self.ids[start..self.ends[n - 1]]
    }

    /// Ids of all orders.
    pub fn all(&self) -> &[u32] {
        &self.ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(s: &str) -> Tokens {
        let mut t = Tokens::default();
        t.extend_split(s);
        t
    }

    /// Clipped matches counted the obvious way, on token strings.
    fn naive_clipped(hyp: &[String], refs: &[Vec<String>], n: usize) -> u64 {
        use std::collections::HashMap;
        fn count(t: &[String], n: usize) -> HashMap<&[String], u64> {
            let mut m: HashMap<&[String], u64> = HashMap::new();
            for w in t.windows(n) {
                *m.entry(w).or_default() += 1;
            }
            m
        }
        let refs: Vec<_> = refs.iter().map(|r| count(r, n)).collect();
        count(hyp, n)
            .iter()
            .map(|(g, &c)| {
                let max = refs.iter().map(|r| r.get(g).copied().unwrap_or(0)).max();
                c.min(max.unwrap_or(0))
            })
            .sum()
    }

    use crate::test_rng::Rng;

    /// The id space is reserved order by order, so a long repetitive segment holds about one
    /// slot per token, not one per n-gram occurrence (all orders): 12 bytes per occurrence was
    /// 190 MB of a 16 MB line of one-letter words. Regression test.
    #[test]
    fn a_repetitive_segment_reserves_ids_for_what_it_adds() {
        let text: Vec<&str> = (0..10_000).map(|i| ["a", "b", "c"][i * 7 % 3]).collect();
        let t = tokens(&text.join(" "));
        let mut index = NgramIndex::default();
        let mut ids = NgramIds::default();
        index.index(&t, 4, &mut ids);
        assert!(index.num_ids() < 200, "{} ids", index.num_ids());
        assert!(
            index.succ.len() <= t.len() + 200,
            "{} successor slots for {} tokens",
            index.succ.len(),
            t.len()
        );
    }

    #[test]
    fn clipped_matches_equal_naive_counting() {
        // Few distinct tokens (so that n-grams repeat and prefixes get several successors),
        // tokens of every length around the 8- and 16-byte key boundaries, some differing only
        // in the middle or in a NUL byte; sequences long enough to grow the tables, and short
        // ones after them (the tables' generations and shrinking).
        let vocab: Vec<String> = [
            "a",
            "b",
            "the",
            "cat",
            "a\0",
            "\0",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "abcdefghij",
            "abcdefgh12345678",
            "abcdefgh12345679",
            "abcdefgh123456789",
            "abcdefgh0123456789",
            "abcdefgh9123456789",
            "ünïcödé",
            "日本語",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut ws = ClipWorkspace::default();
        for case in 0..3000 {
            let len = |rng: &mut Rng| match case % 50 {
                0 => 300 + rng.below(2000),
                _ => rng.below(30),
            };
            let seq = |rng: &mut Rng| {
                let n = len(rng);
                let k = 1 + rng.below(vocab.len());
                (0..n)
                    .map(|_| vocab[rng.below(k)].clone())
                    .collect::<Vec<_>>()
            };
            let hyp = seq(&mut rng);
            let nrefs = 1 + rng.below(3);
            let refs: Vec<Vec<String>> = (0..nrefs).map(|_| seq(&mut rng)).collect();
            let as_tokens = |words: &[String]| {
                let mut t = Tokens::default();
                for w in words {
                    t.push(w);
                }
                t
            };
            let ref_tokens: Vec<Tokens> = refs.iter().map(|r| as_tokens(r)).collect();
            let orders = 1 + rng.below(6);
            clipped_matches(&as_tokens(&hyp), &ref_tokens, orders, &mut ws);
            for n in 1..=orders {
                assert_eq!(
                    ws.matches[n - 1],
                    naive_clipped(&hyp, &refs, n),
                    "case {case}, order {n}: {hyp:?} vs {refs:?}"
                );
            }
        }
    }

    #[test]
    fn lookup_of_long_and_colliding_tokens() {
        // Tokens equal in their first and last 8 bytes and in length, differing in the middle:
        // the same key, told apart by their bytes.
        let mut index = NgramIndex::default();
        let (mut r, mut h) = (NgramIds::default(), NgramIds::default());
        index.clear();
        index.index(
            &tokens("abcdefgh_X_12345678 abcdefgh_Y_12345678"),
            2,
            &mut r,
        );
        assert_ne!(r.order(1)[0], r.order(1)[1]);
        index.lookup(
            &tokens("abcdefgh_Y_12345678 abcdefgh_Z_12345678 abcdefgh_X_12345678"),
            2,
            &mut h,
        );
        assert_eq!(h.order(1), [r.order(1)[1], ABSENT, r.order(1)[0]]);
        assert_eq!(h.order(2), [ABSENT, ABSENT]);
    }

    #[test]
    fn equal_ngrams_get_equal_ids_across_sequences() {
        let mut index = NgramIndex::default();
        index.clear();
        let (mut a, mut b) = (NgramIds::default(), NgramIds::default());
        index.index(&tokens("the cat the cat sat"), 3, &mut a);
        index.index(&tokens("a the cat sat"), 3, &mut b);
        assert_eq!(a.order(1).len(), 5);
        assert_eq!(a.order(2).len(), 4);
        assert_eq!(a.order(3).len(), 3);
        // "the cat" occurs twice in a and once in b.
        assert_eq!(a.order(2)[0], a.order(2)[2]);
        assert_eq!(a.order(2)[0], b.order(2)[1]);
        // "the cat sat" is shared, "cat the cat" is not.
        assert_eq!(a.order(3)[2], b.order(3)[1]);
        assert_ne!(a.order(3)[1], b.order(3)[0]);
        // Orders never share ids.
        assert!(!a.order(1).contains(&a.order(2)[0]));
    }

    #[test]
    fn short_sequences_have_empty_high_orders() {
        let mut index = NgramIndex::default();
        let mut ids = NgramIds::default();
        index.clear();
        index.index(&tokens("one"), 4, &mut ids);
        assert_eq!(ids.max_order(), 4);
        assert_eq!(ids.order(1).len(), 1);
        assert!(ids.order(2).is_empty() && ids.order(4).is_empty());
        index.index(&tokens(""), 4, &mut ids);
        assert!(ids.all().is_empty());
    }

    #[test]
    fn overlap_is_the_multiset_intersection() {
        let mut count = vec![0u32; 4];
        assert_eq!(overlap(&[0, 0, 1, ABSENT], &[0, 1, 1, 2], &mut count), 2);
        assert_eq!(overlap(&[0, 0], &[0, 0, 0], &mut count), 2);
        assert_eq!(count, [0, 0, 0, 0]);
    }

    /// Regression: a look-up in an index without references (no slots, shift 64) overflowed
    /// the shift in debug builds.
    #[test]
    fn lookup_in_an_empty_index() {
        let mut index = NgramIndex::default();
        let mut h = NgramIds::default();
        index.clear();
        index.index(&tokens(""), 4, &mut NgramIds::default());
        index.lookup(&tokens("x y"), 2, &mut h);
        assert_eq!(h.order(1), [ABSENT, ABSENT]);
    }

    #[test]
    fn lookup_finds_interned_ngrams_only() {
        let mut index = NgramIndex::default();
        let (mut r, mut h) = (NgramIds::default(), NgramIds::default());
        index.clear();
        index.index(&tokens("a b c"), 3, &mut r);
        let before = index.num_ids();
        index.lookup(&tokens("x a b c b"), 3, &mut h);
        assert_eq!(index.num_ids(), before, "lookup interns nothing");
        assert_eq!(
            h.order(1),
            [
                ABSENT,
                r.order(1)[0],
                r.order(1)[1],
                r.order(1)[2],
                r.order(1)[1]
            ]
        );
        assert_eq!(h.order(2), [ABSENT, r.order(2)[0], r.order(2)[1], ABSENT]);
        assert_eq!(h.order(3), [ABSENT, r.order(3)[0], ABSENT]);
    }
}
