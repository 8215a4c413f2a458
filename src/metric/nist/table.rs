//! The corpus-wide reference n-gram table and its overflow-safe counts.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::tokenize::Tokens;

/// Counts that are `u32` for all but the rarest n-grams: the high part lives in a side map, so a
/// count never wraps and the common case costs four bytes.
#[derive(Clone, Debug, Default)]
pub(super) struct Counts {
    pub(super) low: Vec<u32>,
    pub(super) high: FxHashMap<u32, u64>,
}

impl Counts {
    pub(super) fn grow(&mut self, len: usize) {
        if self.low.len() < len {
            self.low.resize(len, 0);
        }
    }

    pub(super) fn add(&mut self, id: u32, n: u32) {
        let slot = &mut self.low[id as usize];
        let (sum, carry) = slot.overflowing_add(n);
        *slot = sum;
        if carry {
            *self.high.entry(id).or_default() += 1;
        }
    }

    /// Adds a count of any size (merging saved statistics).
    pub(super) fn add_u64(&mut self, id: u32, n: u64) {
        self.add(id, n as u32);
        let high = n >> 32;
        if high > 0 {
            *self.high.entry(id).or_default() += high;
        }
    }

    pub(super) fn get(&self, id: u32) -> u64 {
        let low = u64::from(self.low[id as usize]);
        if self.high.is_empty() {
            return low;
        }
        low + (self.high.get(&id).copied().unwrap_or(0) << 32)
    }

    /// A hint to load the count of `id` (see [`NgramTable`]).
    pub(super) fn prefetch(&self, id: u32) {
        if let Some(slot) = self.low.get(id as usize) {
            prefetch(slot);
        }
    }
}

/// The corpus-wide table of reference n-grams with their reference counts `C(g)`: every
/// distinct token once (its text in one arena), every distinct n-gram as one `u32` id whose key
/// is (id of its (n−1)-gram prefix, id of its last token). This table is what NIST's memory
/// grows with: 16 bytes an entry at most 3/4 full, 4 bytes an id for where its entry is, 1 for
/// its order.
///
/// # Why not `hashbrown`
///
/// The merger counts every reference n-gram of the corpus on one thread (about 13 million on
/// the benchmark corpus), and with ids in the hash table, keys in one vector and counts in
/// another, each count was three cache misses in tables of several MiB: 40 % of NIST's time.
/// Here an entry holds key, id and count together, so counting an n-gram touches one cache
/// line; and as the lookups of one order of one reference are independent, [`NgramTable::ids`]
/// hashes them all first and prefetches their home slots, so the misses overlap instead of
/// following one another. Linear probing over flat slots is what makes the home slot an
/// address to prefetch.
#[derive(Default)]
pub(super) struct NgramTable {
    tokens: Slots,
    arena: String,
    /// Token t is `arena[token_ends[t − 1]..token_ends[t]]` (0 for t = 0).
    pub(super) token_ends: Vec<usize>,
    entries: Entries,
    /// Per n-gram id: the slot of its entry (entries move when the table grows), and its order.
    slot_of: Vec<u32>,
    pub(super) order: Vec<u8>,
    /// The part of a count above `u32::MAX`, by id (never used below 2^32 occurrences).
    high: FxHashMap<u32, u64>,
    /// Scratch of [`NgramTable::ids`]: token ids, keys and hashes of the sequence at hand.
    token_ids: Vec<u32>,
    batch_keys: Vec<u64>,
    hashes: Vec<u64>,
}

/// The prefix of a unigram.
pub(super) const NO_PREFIX: u32 = u32::MAX;

/// Ids stop below this: `id + 1` fits a token slot, no id is [`NO_PREFIX`], and an entry's
/// slot index fits a `u32` (the entries are at most 3/4 full, so at most 2^32 of them).
const MAX_IDS: usize = 3 << 30;

/// A 64-bit mix (a folded multiply): home slots come from the top bits, tags from the low ones,
/// so both depend on every bit of the key.
fn mix(x: u64) -> u64 {
    let p = u128::from(x ^ 0x243f_6a88_85a3_08d3) * 0x9e37_79b9_7f4a_7c15;
    (p as u64) ^ ((p >> 64) as u64)
}

fn token_hash(text: &str) -> u64 {
    mix(FxBuildHasher.hash_one(text))
}

/// A hint to load `value`'s cache line; no effect where there is no prefetch instruction.
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing into the program and never faults
    // (and `value` is a valid reference anyway).
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The table size for one more entry than `len` at most 3/4 full, from `size` slots now.
fn size_for(len: usize, size: usize) -> Option<usize> {
    ((len + 1) * 4 > size * 3).then(|| (size * 2).max(16))
}

/// Tokens: open addressing with linear probing, a slot `(tag << 32) | (id + 1)`, 0 when empty;
/// the tag is the low half of the hash, the home slot its top bits. The text is compared in the
/// arena.
#[derive(Default)]
struct Slots {
    slots: Vec<u64>,
    /// `64 − log2(slots.len())`.
    shift: u32,
    len: usize,
}

impl Slots {
    fn home(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    fn prefetch(&self, hash: u64) {
        if let Some(slot) = self.slots.get(self.home(hash)) {
            prefetch(slot);
        }
    }

    /// The id stored under `hash` that `eq` accepts, or the empty slot where it would go.
    fn find(&self, hash: u64, mut eq: impl FnMut(u32) -> bool) -> Result<u32, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let tag = hash as u32;
        let mut i = self.home(hash);
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if (s >> 32) as u32 == tag && eq(s as u32 - 1) {
                return Ok(s as u32 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `id` under `hash` in the empty slot `at` that [`Slots::find`] returned, growing
    /// first (and then finding a new slot) when the table would be more than 3/4 full;
    /// `hash_of` gives the hash of a stored id.
    fn insert(&mut self, at: usize, hash: u64, id: u32, hash_of: impl Fn(u32) -> u64) {
        let mut at = at;
        if let Some(size) = size_for(self.len, self.slots.len()) {
            let old = std::mem::replace(&mut self.slots, vec![0; size]);
            self.shift = 64 - size.trailing_zeros();
            for s in old.into_iter().filter(|&s| s != 0) {
                let slot = self.empty_slot(hash_of(s as u32 - 1));
                self.slots[slot] = s;
            }
            at = self.empty_slot(hash);
        }
        self.slots[at] = (u64::from(hash as u32) << 32) | (u64::from(id) + 1);
        self.len += 1;
    }

    fn empty_slot(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        i
    }
}

/// An n-gram's entry: its key, id and the low 32 bits of its count.
#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    id: u32,
    count: u32,
}

/// The key of no n-gram (its last token would be id `u32::MAX`): an empty slot.
const EMPTY: u64 = u64::MAX;

const EMPTY_ENTRY: Entry = Entry {
    key: EMPTY,
    id: 0,
    count: 0,
};

/// N-grams: open addressing with linear probing over [`Entry`]s, the home slot from the top
/// bits of the key's mix.
#[derive(Default)]
struct Entries {
    slots: Vec<Entry>,
    /// `64 − log2(slots.len())`.
    shift: u32,
}

impl Entries {
    fn home(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    fn prefetch(&self, hash: u64) {
        if let Some(slot) = self.slots.get(self.home(hash)) {
            prefetch(slot);
        }
    }

    /// The slot of `key`, or the empty slot where it would go.
    fn find(&self, key: u64, hash: u64) -> Result<usize, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            match self.slots[i].key {
                k if k == key => return Ok(i),
                EMPTY => return Err(i),
                _ => i = (i + 1) & mask,
            }
        }
    }
}

impl NgramTable {
    /// Number of distinct n-grams (all orders).
    pub(super) fn len(&self) -> usize {
        self.slot_of.len()
    }

    fn entry(&self, g: u32) -> &Entry {
        &self.entries.slots[self.slot_of[g as usize] as usize]
    }

    /// The key of n-gram `g`: `(prefix id << 32) | last token id`.
    pub(super) fn key(&self, g: u32) -> u64 {
        self.entry(g).key
    }

    /// The prefix id of n-gram `g` (`NO_PREFIX` for a unigram).
    pub(super) fn prefix(&self, g: u32) -> u32 {
        (self.key(g) >> 32) as u32
    }

    /// `C(g)`: how often n-gram `g` was counted.
    pub(super) fn freq(&self, g: u32) -> u64 {
        let low = u64::from(self.entry(g).count);
        if self.high.is_empty() {
            return low;
        }
        low + (self.high.get(&g).copied().unwrap_or(0) << 32)
    }

    /// Adds `n` to `C(g)` (merging saved statistics; the caller checked the sum).
    pub(super) fn add_freq(&mut self, g: u32, n: u64) {
        let slot = self.slot_of[g as usize] as usize;
        self.count(slot, n);
    }

    fn count(&mut self, slot: usize, n: u64) {
        let count = &mut self.entries.slots[slot].count;
        let (sum, carry) = count.overflowing_add(n as u32);
        *count = sum;
        let high = (n >> 32) + u64::from(carry);
        if high > 0 {
            *self.high.entry(self.entries.slots[slot].id).or_default() += high;
        }
    }

    pub(super) fn token_text(&self, t: u32) -> &str {
        token_span(&self.arena, &self.token_ends, t)
    }

    /// The id of token `text`, interned if `insert`.
    pub(super) fn token(&mut self, text: &str, insert: bool) -> Option<u32> {
        self.token_hashed(text, token_hash(text), insert)
    }

    fn token_hashed(&mut self, text: &str, hash: u64, insert: bool) -> Option<u32> {
        let (arena, ends) = (&self.arena, &self.token_ends);
        let at = match self
            .tokens
            .find(hash, |t| token_span(arena, ends, t) == text)
        {
            Ok(id) => return Some(id),
            Err(at) => at,
        };
        if !insert || self.token_ends.len() >= MAX_IDS {
            return None;
        }
        let id = self.token_ends.len() as u32;
        self.arena.push_str(text);
        self.token_ends.push(self.arena.len());
        let (arena, ends) = (&self.arena, &self.token_ends);
        self.tokens
            .insert(at, hash, id, |t| token_hash(token_span(arena, ends, t)));
        Some(id)
    }

    /// The id of the n-gram (prefix, last) of order `order`, interned (with count 0) if
    /// `insert`.
    pub(super) fn ngram(&mut self, prefix: u32, last: u32, order: u8, insert: bool) -> Option<u32> {
        let key = (u64::from(prefix) << 32) | u64::from(last);
        self.ngram_hashed(key, mix(key), order, insert, 0)
    }

    /// The id of n-gram `key`, interned if `insert`, its count raised by `add`.
    fn ngram_hashed(
        &mut self,
        key: u64,
        hash: u64,
        order: u8,
        insert: bool,
        add: u64,
    ) -> Option<u32> {
        let at = match self.entries.find(key, hash) {
            Ok(slot) => {
                self.count(slot, add);
                return Some(self.entries.slots[slot].id);
            }
            Err(at) => at,
        };
        if !insert || self.len() >= MAX_IDS {
            return None;
        }
        let id = self.len() as u32;
        let mut at = at;
        if let Some(size) = size_for(self.len(), self.entries.slots.len()) {
            self.grow(size);
            at = self.entries.find(key, hash).unwrap_err();
        }
        self.entries.slots[at] = Entry { key, id, count: 0 };
        self.slot_of.push(at as u32);
        self.order.push(order);
        self.count(at, add);
        Some(id)
    }

    /// Rehashes the entries into `size` slots.
    fn grow(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.entries.slots, vec![EMPTY_ENTRY; size]);
        self.entries.shift = 64 - size.trailing_zeros();
        for e in old.into_iter().filter(|e| e.key != EMPTY) {
            let slot = self.entries.find(e.key, mix(e.key)).unwrap_err();
            self.entries.slots[slot] = e;
            self.slot_of[e.id as usize] = slot as u32;
        }
    }

    /// The ids of the n-grams of orders 1..=n of `tokens`, order after order (see
    /// [`order_start`]). With `count`, every n-gram is interned and counted once more (`None`,
    /// with nothing changed, if the table has no room for all of them); without, nothing is
    /// interned and `None` means one is not in the table.
    ///
    /// The tokens, then the n-grams of each order, are looked up in two passes: hash and
    /// prefetch the home slots, then probe.
    pub(super) fn ids(
        &mut self,
        tokens: &Tokens,
        n: usize,
        count: bool,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        out.clear();
        let len = tokens.len();
        if count && (self.token_ends.len() + len > MAX_IDS || self.len() + n * len > MAX_IDS) {
            return None;
        }
        let mut token_ids = std::mem::take(&mut self.token_ids);
        let mut keys = std::mem::take(&mut self.batch_keys);
        let mut hashes = std::mem::take(&mut self.hashes);
        let result = (|| {
            hashes.clear();
            hashes.extend(tokens.iter().map(token_hash));
            for &h in &hashes {
                self.tokens.prefetch(h);
            }
            token_ids.clear();
            for (w, &h) in tokens.iter().zip(&hashes) {
                token_ids.push(self.token_hashed(w, h, count)?);
            }
            for order in 1..=n.min(len) {
                keys.clear();
                if order == 1 {
                    keys.extend(
                        token_ids
                            .iter()
                            .map(|&t| (u64::from(NO_PREFIX) << 32) | u64::from(t)),
                    );
                } else {
                    let prev = &out[order_start(len, order - 1)..];
                    keys.extend(
                        token_ids[order - 1..]
                            .iter()
                            .zip(prev)
                            .map(|(&t, &p)| (u64::from(p) << 32) | u64::from(t)),
                    );
                }
                hashes.clear();
                hashes.extend(keys.iter().map(|&k| mix(k)));
                for &h in &hashes {
                    self.entries.prefetch(h);
                }
                for (&k, &h) in keys.iter().zip(&hashes) {
                    let id = self.ngram_hashed(k, h, order as u8, count, u64::from(count))?;
                    out.push(id);
                }
            }
            Some(())
        })();
        self.token_ids = token_ids;
        self.batch_keys = keys;
        self.hashes = hashes;
        result
    }
}

fn token_span<'a>(arena: &'a str, ends: &[usize], t: u32) -> &'a str {
    let t = t as usize;
    let start = if t == 0 { 0 } else { ends[t - 1] };
    &arena[start..ends[t]]
}

/// Offset of order `n`'s ids in a sequence of `len` tokens' ids, orders 1, 2, … concatenated.
pub(super) fn order_start(len: usize, n: usize) -> usize {
    (1..n).map(|k| (len + 1).saturating_sub(k)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ngram::test_rng::Rng;
    use rustc_hash::FxHashMap;

    /// Ids are handed out in first-seen order: all unigrams of a sequence, then its bigrams…
    fn naive_ids(
        seen: &mut FxHashMap<Vec<String>, u32>,
        counts: &mut Vec<u64>,
        tokens: &[String],
        n: usize,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        for order in 1..=n.min(tokens.len()) {
            for gram in tokens.windows(order) {
                let next = seen.len() as u32;
                let g = *seen.entry(gram.to_vec()).or_insert(next);
                if g == next {
                    counts.push(0);
                }
                counts[g as usize] += 1;
                out.push(g);
            }
        }
    }

    fn tokens(words: &[String]) -> Tokens {
        let mut t = Tokens::default();
        t.extend_split(&words.join(" "));
        t
    }

    #[test]
    fn ids_match_a_map_of_token_sequences_through_growth() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut table = NgramTable::default();
        let mut seen = FxHashMap::default();
        let mut counts = Vec::new();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for _ in 0..3000 {
            let len = rng.below(30);
            // A small vocabulary, so that n-grams repeat within and across sequences.
            let words: Vec<String> = (0..len).map(|_| format!("w{}", rng.below(40))).collect();
            let tokens = tokens(&words);
            let n = 1 + rng.below(6);
            table.ids(&tokens, n, true, &mut got).unwrap();
            naive_ids(&mut seen, &mut counts, &words, n, &mut want);
            assert_eq!(got, want, "{words:?} n={n}");
        }
        assert_eq!(table.len(), seen.len());
        assert!(table.entries.slots.len() >= 1 << 14, "the entries grew");
        // Every n-gram knows its count, prefix, order and last token.
        for (gram, &g) in &seen {
            assert_eq!(table.freq(g), counts[g as usize], "{gram:?}");
            assert_eq!(table.order[g as usize] as usize, gram.len());
            let last = (table.key(g) & u64::from(u32::MAX)) as u32;
            assert_eq!(table.token_text(last), gram.last().unwrap());
            let prefix = table.prefix(g);
            if gram.len() == 1 {
                assert_eq!(prefix, NO_PREFIX);
            } else {
                assert_eq!(seen[&gram[..gram.len() - 1]], prefix);
            }
        }
        // Looking up without inserting: known sequences give their ids, a new token none.
        let words: Vec<String> = ["w1", "w2", "w3"].map(String::from).to_vec();
        let mut known = Vec::new();
        table.ids(&tokens(&words), 3, true, &mut known).unwrap();
        let size = table.len();
        assert_eq!(table.ids(&tokens(&words), 3, false, &mut got), Some(()));
        assert_eq!(got, known);
        assert_eq!(table.freq(known[0]), counts[known[0] as usize] + 1);
        let unknown: Vec<String> = ["w1", "never_seen"].map(String::from).to_vec();
        assert_eq!(table.ids(&tokens(&unknown), 2, false, &mut got), None);
        assert_eq!(table.len(), size);
    }

    #[test]
    fn slots_tell_equal_tags_apart_and_keep_every_id_through_growth() {
        // One home slot and one tag for every key: the probe sequence and the key check alone
        // tell them apart.
        let mut slots = Slots::default();
        let keys: Vec<u64> = (0..100).map(|k| k * 7919).collect();
        let collide = |_: u64| 0x8000_0000_0000_0005u64;
        for (id, &key) in keys.iter().enumerate() {
            let at = slots
                .find(collide(key), |g| keys[g as usize] == key)
                .unwrap_err();
            slots.insert(at, collide(key), id as u32, |g| collide(keys[g as usize]));
        }
        for (id, &key) in keys.iter().enumerate() {
            assert_eq!(
                slots.find(collide(key), |g| keys[g as usize] == key),
                Ok(id as u32)
            );
        }
        assert!(slots.find(collide(1), |g| keys[g as usize] == 1).is_err());
        assert!(slots.len * 4 <= slots.slots.len() * 3);
    }

    #[test]
    fn counts_carry_past_32_bits() {
        let mut table = NgramTable::default();
        let a = table.token("a", true).unwrap();
        let g = table.ngram(NO_PREFIX, a, 1, true).unwrap();
        table.add_freq(g, u64::from(u32::MAX));
        assert_eq!(table.freq(g), u64::from(u32::MAX));
        let mut tokens = Tokens::default();
        tokens.extend_split("a a");
        let mut ids = Vec::new();
        table.ids(&tokens, 1, true, &mut ids).unwrap();
        assert_eq!(ids, [g, g]);
        assert_eq!(table.freq(g), u64::from(u32::MAX) + 2);
        table.add_freq(g, 3 << 32);
        assert_eq!(table.freq(g), (4 << 32) + 1);
    }
}
