//! Exact n-gram identities for one segment, without allocating per n-gram.
//!
//! Every distinct token of the segment (hypothesis and references together) gets a small integer
//! id; every distinct n-gram of order n ≥ 2 gets an id interned from the pair
//! (id of its (n−1)-gram prefix, id of its last token). Two n-grams get the same id exactly when
//! they are equal token tuples — no hashing of whole n-grams, hence no collision risk — and
//! counting becomes indexing into dense arrays. All ids of a segment share one space, so one array
//! holds the counts of every order.

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

use crate::tokenize::Tokens;

/// Interns the tokens and n-grams of one segment. Reused across segments (call [`clear`]).
///
/// [`clear`]: NgramIndex::clear
#[derive(Default)]
pub struct NgramIndex {
    hasher: FxBuildHasher,
    /// `(token id, slot)` by token text; the text of a slot is `arena[starts[slot]..starts[slot + 1]]`.
    /// (Token ids are not contiguous: n-grams take ids from the same counter.)
    tokens: HashTable<(u32, u32)>,
    arena: String,
    starts: Vec<usize>,
    /// N-gram id by `(prefix id << 32) | last token id`.
    pairs: FxHashMap<u64, u32>,
    next_id: u32,
}

impl NgramIndex {
    /// Forgets every id, keeping the allocations.
    pub fn clear(&mut self) {
        self.tokens.clear();
        self.arena.clear();
        self.starts.clear();
        self.starts.push(0);
        self.pairs.clear();
        self.next_id = 0;
    }

    /// Number of ids handed out so far; every id is below this.
    pub fn num_ids(&self) -> usize {
        self.next_id as usize
    }

    fn token_id(&mut self, token: &str) -> u32 {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let hash = self.hasher.hash_one(token);
        let (arena, starts) = (&self.arena, &self.starts);
        let text = |slot: u32| &arena[starts[slot as usize]..starts[slot as usize + 1]];
        if let Some(&(id, _)) = self.tokens.find(hash, |&(_, slot)| text(slot) == token) {
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        let slot = u32::try_from(self.starts.len() - 1).expect("fewer than 2^32 tokens");
        self.arena.push_str(token);
        self.starts.push(self.arena.len());
        let (arena, starts, hasher) = (&self.arena, &self.starts, &self.hasher);
        self.tokens.insert_unique(hash, (id, slot), |&(_, slot)| {
            hasher.hash_one(&arena[starts[slot as usize]..starts[slot as usize + 1]])
        });
        id
    }

    /// Computes the ids of all n-grams of orders `1..=max_order` of `tokens` into `out`,
    /// interning new ones.
    pub fn index(&mut self, tokens: &Tokens, max_order: usize, out: &mut NgramIds) {
        self.ids(tokens, max_order, out, true);
    }

    /// Like [`index`](Self::index), but only looks n-grams up: one never interned gets
    /// [`ABSENT`]. Used for hypotheses, whose n-grams can only match if a reference has them.
    pub fn lookup(&mut self, tokens: &Tokens, max_order: usize, out: &mut NgramIds) {
        self.ids(tokens, max_order, out, false);
    }

    fn ids(&mut self, tokens: &Tokens, max_order: usize, out: &mut NgramIds, intern: bool) {
        out.clear();
        for token in tokens.iter() {
            let id = if intern {
                self.token_id(token)
            } else {
                self.find_token(token)
            };
            out.ids.push(id);
        }
        out.ends.push(out.ids.len());
        let len = tokens.len();
        for n in 2..=max_order {
            // Order n − 1 starts where order n − 2 ends.
            let prev_start = if n == 2 { 0 } else { out.ends[n - 3] };
            for i in 0..(len + 1).saturating_sub(n) {
                let prefix = out.ids[prev_start + i];
                let last = out.ids[i + n - 1];
                let id = if prefix == ABSENT || last == ABSENT {
                    ABSENT
                } else {
                    let key = (u64::from(prefix) << 32) | u64::from(last);
                    if intern {
                        let next_id = &mut self.next_id;
                        *self.pairs.entry(key).or_insert_with(|| {
                            let id = *next_id;
                            *next_id += 1;
                            id
                        })
                    } else {
                        self.pairs.get(&key).copied().unwrap_or(ABSENT)
                    }
                };
                out.ids.push(id);
            }
            out.ends.push(out.ids.len());
        }
    }

    fn find_token(&self, token: &str) -> u32 {
        if self.starts.is_empty() {
            return ABSENT;
        }
        let hash = self.hasher.hash_one(token);
        let (arena, starts) = (&self.arena, &self.starts);
        let text = |slot: u32| &arena[starts[slot as usize]..starts[slot as usize + 1]];
        self.tokens
            .find(hash, |&(_, slot)| text(slot) == token)
            .map_or(ABSENT, |&(id, _)| id)
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
    fn clear(&mut self) {
        self.ids.clear();
        self.ends.clear();
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

/// Buffers of [`clipped_matches`]: nothing is allocated per segment once they have grown.
#[derive(Default)]
pub struct ClipWorkspace {
    index: NgramIndex,
    hyp_ids: NgramIds,
    ref_ids: Vec<NgramIds>,
    /// Dense count arrays indexed by n-gram id; all zero between segments.
    count: Vec<u32>,
    ref_max: Vec<u32>,
    /// The result: clipped matches of orders 1, 2, …
    pub matches: Vec<u64>,
}

/// Clipped matches of orders `1..=orders` (into `ws.matches`): each distinct hypothesis n-gram
/// counts at most as often as it occurs in the reference where it occurs most (the maximum over
/// references, not the sum: sacreBLEU, NLTK `modified_precision`, mteval and multi-bleu.perl
/// alike).
/// References are interned in an [`NgramIndex`]; the hypothesis is only looked up, since an
/// n-gram no reference has cannot match.
pub fn clipped_matches(hyp: &Tokens, refs: &[Tokens], orders: usize, ws: &mut ClipWorkspace) {
    if ws.ref_ids.len() < refs.len() {
        ws.ref_ids.resize_with(refs.len(), NgramIds::default);
    }
    ws.index.clear();
    for (r, ids) in refs.iter().zip(&mut ws.ref_ids) {
        ws.index.index(r, orders, ids);
    }
    ws.index.lookup(hyp, orders, &mut ws.hyp_ids);
    let ids = ws.index.num_ids();
    if ws.count.len() < ids {
        ws.count.resize(ids, 0);
        ws.ref_max.resize(ids, 0);
    }
    let (count, ref_max) = (&mut ws.count, &mut ws.ref_max);
    let ref_ids = &ws.ref_ids[..refs.len()];
    if let [single] = ref_ids {
        for &g in single.all() {
            ref_max[g as usize] += 1;
        }
    } else {
        for r in ref_ids {
            for &g in r.all() {
                count[g as usize] += 1;
            }
            for &g in r.all() {
                let c = std::mem::take(&mut count[g as usize]);
                if c > ref_max[g as usize] {
                    ref_max[g as usize] = c;
                }
            }
        }
    }
    for &g in ws.hyp_ids.all() {
        if g != ABSENT {
            count[g as usize] += 1;
        }
    }
    ws.matches.clear();
    for order in 1..=orders {
        let mut matched = 0u64;
        for &g in ws.hyp_ids.order(order) {
            if g != ABSENT {
                // A distinct n-gram is clipped once: its count is taken (zeroed) on first sight.
                let c = std::mem::take(&mut count[g as usize]);
                matched += u64::from(c.min(ref_max[g as usize]));
            }
        }
        ws.matches.push(matched);
    }
    for r in ref_ids {
        for &g in r.all() {
            ref_max[g as usize] = 0;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(s: &str) -> Tokens {
        let mut t = Tokens::default();
        t.extend_split(s);
        t
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
