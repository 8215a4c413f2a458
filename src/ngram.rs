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

mod bitparallel;

use bitparallel::BitParallel;

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
            self.succ.resize(need.max(2 * self.succ.len()), EMPTY_SUCC);
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
        // At most one new id per n-gram.
        self.reserve_ids(out.ids.len());
        for (i, slot) in out.ids[..tokens.len()].iter_mut().enumerate() {
            let (key, token) = tokens.key(i);
            *slot = self.intern_token(key, token);
        }
        for n in 2..=max_order {
            let (prefixes, lasts, current) = out.order_slices(n);
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

/// Fibonacci hashing: the multiplier is 2^64 / φ, odd; the table index is the product's top bits.
const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

/// Hash of a token key.
#[inline]
fn token_hash(key: TokenKey) -> u64 {
    (key.head ^ key.tail.rotate_left(29) ^ u64::from(key.len).rotate_right(8)).wrapping_mul(FIB)
}

/// Hash of a pair key.
#[inline]
fn pair_hash(key: u64) -> u64 {
    key.wrapping_mul(FIB)
}

/// All ones when `x` is not 0, else 0.
#[inline]
fn ones_if_nonzero(x: u32) -> u32 {
    // x | −x has its top bit set exactly when x ≠ 0.
    ((x | x.wrapping_neg()) >> 31).wrapping_neg()
}

/// Zero exactly when the keys are equal (one test instead of three short-circuited ones).
#[inline]
fn key_diff(a: TokenKey, b: TokenKey) -> u64 {
    (a.head ^ b.head) | (a.tail ^ b.tail) | u64::from(a.len ^ b.len)
}

/// A slot of a [`Table`]: free unless its generation is the table's current one.
trait Slot: Copy + Default {
    fn generation(&self) -> u32;
    fn set_generation(&mut self, generation: u32);
    /// The hash the slot is found by (to move it when the table grows).
    fn hash(&self) -> u64;
    fn id(&self) -> u32;
}

#[derive(Clone, Copy)]
struct TokenSlot {
    key: TokenKey,
    id: u32,
    /// Offset of the text in the arena (tokens over [`TokenKey::EXACT`] bytes).
    text: u32,
    generation: u32,
}

impl Default for TokenSlot {
    fn default() -> Self {
        TokenSlot {
            key: TokenKey {
                head: 0,
                tail: 0,
                len: 0,
            },
            id: 0,
            text: 0,
            generation: 0,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct PairSlot {
    key: u64,
    id: u32,
    generation: u32,
}

impl Slot for TokenSlot {
    fn generation(&self) -> u32 {
        self.generation
    }
    fn set_generation(&mut self, generation: u32) {
        self.generation = generation;
    }
    fn hash(&self) -> u64 {
        token_hash(self.key)
    }
    fn id(&self) -> u32 {
        self.id
    }
}

impl Slot for PairSlot {
    fn generation(&self) -> u32 {
        self.generation
    }
    fn set_generation(&mut self, generation: u32) {
        self.generation = generation;
    }
    fn hash(&self) -> u64 {
        pair_hash(self.key)
    }
    fn id(&self) -> u32 {
        self.id
    }
}

/// Open addressing with linear probing, a power-of-two number of slots, at most half full. The
/// caller supplies a well-mixed 64-bit hash; its top bits pick the first slot.
struct Table<S> {
    slots: Vec<S>,
    /// `64 - log2(slots.len())`.
    shift: u32,
    /// Live slots (those of the current generation).
    len: usize,
    /// The current generation; 0 is never current, so default (zeroed) slots are free.
    generation: u32,
    /// Consecutive [`clear`](Table::clear)s that found the table far too big.
    oversized: u32,
}

impl<S: Slot> Default for Table<S> {
    fn default() -> Self {
        Table {
            slots: Vec::new(),
            shift: 64,
            len: 0,
            generation: 1,
            oversized: 0,
        }
    }
}

/// Slots of a table when it is first used, and the least it shrinks back to.
const MIN_SLOTS: usize = 64;

impl<S: Slot> Table<S> {
    /// Frees every slot: a new generation (O(1)). The slots are wiped only when the counter
    /// wraps, or dropped when the table has been far too big for many uses in a row (one long
    /// segment must not leave every later one probing a sparse, cache-missing table; but a
    /// caller alternating between large and small uses, as chrF's character and word passes do,
    /// must not reallocate every time).
    fn clear(&mut self) {
        let wanted = (4 * self.len).next_power_of_two().max(MIN_SLOTS);
        if self.slots.len() > 16 * wanted {
            self.oversized += 1;
            if self.oversized >= 64 {
                self.slots = Vec::new();
                self.shift = 64;
                self.oversized = 0;
            }
        } else {
            self.oversized = 0;
        }
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(S::default());
            self.generation = 1;
        }
    }

    /// The slot a probe for `hash` starts at (`None` before the first insertion).
    #[inline]
    fn first(&self, hash: u64) -> Option<&S> {
        // Without slots `shift` is 64, which `>>` does not take (a panic in debug builds).
        self.slots.get(hash.checked_shr(self.shift)? as usize)
    }

    /// The id of the live slot for which `eq` holds, or the index of the free slot where it
    /// would go.
    #[inline]
    fn find(&self, hash: u64, eq: impl Fn(&S) -> bool) -> Result<u32, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let mut i = (hash >> self.shift) as usize;
        loop {
            let slot = &self.slots[i];
            if slot.generation() != self.generation {
                return Err(i);
            }
            if eq(slot) {
                return Ok(slot.id());
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts `slot` at index `at` (from [`find`](Self::find)), growing the table as needed.
    fn insert(&mut self, at: usize, mut slot: S) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
            slot.set_generation(self.generation);
            self.place(slot);
        } else {
            slot.set_generation(self.generation);
            self.slots[at] = slot;
        }
        self.len += 1;
    }

    /// Puts a live slot into the first free slot of its probe sequence.
    fn place(&mut self, slot: S) {
        let mask = self.slots.len() - 1;
        let mut i = (slot.hash() >> self.shift) as usize;
        while self.slots[i].generation() == self.generation {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Doubles the slots (or allocates the first ones), moving the live ones.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![S::default(); size]);
        let live = std::mem::replace(&mut self.generation, 1);
        self.shift = 64 - size.trailing_zeros();
        for mut slot in old.into_iter().filter(|s| s.generation() == live) {
            slot.set_generation(1);
            self.place(slot);
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
const ABSENT_SLOTS: usize = 8;

/// Clipped matches of orders `1..=orders` (into `ws.matches`): each distinct hypothesis n-gram
/// counts at most as often as it occurs in the reference where it occurs most (the maximum over
/// references, not the sum: sacreBLEU, NLTK `modified_precision`, mteval and multi-bleu.perl
/// alike).
/// References are interned in an [`NgramIndex`]; the hypothesis is only looked up, since an
/// n-gram no reference has cannot match — except that one reference and sequences of at most 128
/// tokens take the faster [`bitparallel`] path, which interns nothing.
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
fn clipped_matches_indexed(hyp: &Tokens, refs: &[Tokens], orders: usize, ws: &mut ClipWorkspace) {
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

    /// A deterministic pseudo-random generator (xorshift), so that failures replay (also used
    /// by `bitparallel`'s tests).
    pub(super) struct Rng(pub(super) u64);
    impl Rng {
        pub(super) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
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
