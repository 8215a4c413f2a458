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

    #[inline(always)]
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

    #[inline]
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
/// grows with: per n-gram a slot of 5 bytes (at most 7/8 full), its 8-byte key, 4-byte count
/// and 1-byte order.
///
/// # Why not `hashbrown`
///
/// The merger counts every reference n-gram of the corpus on one thread (about 13 million on
/// the benchmark corpus), and each count is a hash probe, a key check and a count update in
/// tables of several MiB: three cache misses, 40 % of NIST's time with `hashbrown`, one after
/// the other. The lookups of one order of one reference are independent, so
/// [`NgramTable::ids`] hashes them all first and prefetches their home slots, then the keys of
/// the candidates found there, then probes; the counts are prefetched before they are added.
/// The misses overlap instead of following one another. `hashbrown` has the same layout (a tag
/// byte and an id per slot) but no way to ask where a hash's slot is.
#[derive(Default)]
pub(super) struct NgramTable {
    tokens: TagTable,
    arena: String,
    /// Token t is `arena[token_ends[t − 1]..token_ends[t]]` (0 for t = 0).
    pub(super) token_ends: Vec<usize>,
    ngrams: TagTable,
    /// Per n-gram id: its key `(prefix id << 32) | last token id` (prefix `NO_PREFIX` for a
    /// unigram), its order and its count.
    keys: Vec<u64>,
    pub(super) order: Vec<u8>,
    freq: Counts,
    /// Scratch of [`NgramTable::ids`]: token ids, keys and hashes of the sequence at hand.
    token_ids: Vec<u32>,
    batch_keys: Vec<u64>,
    hashes: Vec<u64>,
}

/// The prefix of a unigram.
pub(super) const NO_PREFIX: u32 = u32::MAX;

/// Ids stop below this: no id is [`NO_PREFIX`].
const MAX_IDS: usize = u32::MAX as usize;

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
pub(super) fn prefetch<T>(value: &T) {
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

/// Open addressing with linear probing: per slot a tag byte (0: empty; else the low byte of the
/// hash, 1 for 0) and an id; the home slot is the hash's top bits. At most 7/8 full: an
/// unsuccessful probe reads 32 tags on average, half a cache line.
#[derive(Default)]
struct TagTable {
    tags: Vec<u8>,
    ids: Vec<u32>,
    /// `64 − log2(tags.len())`.
    shift: u32,
    len: usize,
}

fn tag(hash: u64) -> u8 {
    (hash as u8).max(1)
}

impl TagTable {
    fn home(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    fn prefetch(&self, hash: u64) {
        let home = self.home(hash);
        if home < self.tags.len() {
            prefetch(&self.tags[home]);
            prefetch(&self.ids[home]);
        }
    }

    /// The id in the home slot of `hash` if its tag matches (a candidate, to prefetch its key).
    fn candidate(&self, hash: u64) -> Option<u32> {
        let home = self.home(hash);
        (*self.tags.get(home)? == tag(hash)).then(|| self.ids[home])
    }

    /// The id stored under `hash` that `eq` accepts, or the empty slot where it would go.
    fn find(&self, hash: u64, mut eq: impl FnMut(u32) -> bool) -> Result<u32, usize> {
        if self.tags.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.tags.len() - 1;
        let t = tag(hash);
        let mut i = self.home(hash);
        loop {
            match self.tags[i] {
                0 => return Err(i),
                x if x == t && eq(self.ids[i]) => return Ok(self.ids[i]),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Stores `id` under `hash` in the empty slot `at` that [`TagTable::find`] returned,
    /// growing first (and then finding a new slot) when the table would be more than 7/8 full;
    /// `hash_of` gives the hash of a stored id.
    fn insert(&mut self, at: usize, hash: u64, id: u32, hash_of: impl Fn(u32) -> u64) {
        let mut at = at;
        if (self.len + 1) * 8 > self.tags.len() * 7 {
            let size = (self.tags.len() * 2).max(16);
            let tags = std::mem::replace(&mut self.tags, vec![0; size]);
            let ids = std::mem::replace(&mut self.ids, vec![0; size]);
            self.shift = 64 - size.trailing_zeros();
            for (_, id) in tags.into_iter().zip(ids).filter(|&(t, _)| t != 0) {
                let h = hash_of(id);
                let slot = self.empty_slot(h);
                self.tags[slot] = tag(h);
                self.ids[slot] = id;
            }
            at = self.empty_slot(hash);
        }
        self.tags[at] = tag(hash);
        self.ids[at] = id;
        self.len += 1;
    }

    fn empty_slot(&self, hash: u64) -> usize {
        let mask = self.tags.len() - 1;
        let mut i = self.home(hash);
        while self.tags[i] != 0 {
            i = (i + 1) & mask;
        }
        i
    }
}

impl NgramTable {
    /// Number of distinct n-grams (all orders).
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Number of distinct tokens.
    pub(super) fn tokens(&self) -> usize {
        self.token_ends.len()
    }

    /// The key of n-gram `g`: `(prefix id << 32) | last token id`.
    pub(super) fn key(&self, g: u32) -> u64 {
        self.keys[g as usize]
    }

    /// The prefix id of n-gram `g` (`NO_PREFIX` for a unigram).
    pub(super) fn prefix(&self, g: u32) -> u32 {
        (self.key(g) >> 32) as u32
    }

    /// `C(g)`: how often n-gram `g` was counted.
    pub(super) fn freq(&self, g: u32) -> u64 {
        self.freq.get(g)
    }

    /// Adds `n` to `C(g)` (merging saved statistics; the caller checked the sum).
    pub(super) fn add_freq(&mut self, g: u32, n: u64) {
        self.freq.add_u64(g, n);
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
        self.ngram_hashed(key, mix(key), order, insert)
    }

    fn ngram_hashed(&mut self, key: u64, hash: u64, order: u8, insert: bool) -> Option<u32> {
        let keys = &self.keys;
        let at = match self.ngrams.find(hash, |g| keys[g as usize] == key) {
            Ok(id) => return Some(id),
            Err(at) => at,
        };
        if !insert || self.keys.len() >= MAX_IDS {
            return None;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key);
        self.order.push(order);
        self.freq.grow(self.keys.len());
        let keys = &self.keys;
        self.ngrams.insert(at, hash, id, |g| mix(keys[g as usize]));
        Some(id)
    }

    /// The ids of the n-grams of orders 1..=n of `tokens`, order after order (see
    /// [`order_start`]). With `count`, every n-gram is interned and counted once more (`None`,
    /// with nothing counted, if the table has no room for all of them); without, nothing is
    /// interned and `None` means one is not in the table.
    ///
    /// The tokens, then the n-grams of each order, are looked up in three passes: hash and
    /// prefetch the home slots, prefetch the key of each home slot's candidate, then probe.
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
            for &h in &hashes {
                if let Some(t) = self.tokens.candidate(h) {
                    prefetch(&self.token_ends[t as usize]);
                }
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
                    self.ngrams.prefetch(h);
                }
                for &h in &hashes {
                    if let Some(g) = self.ngrams.candidate(h) {
                        prefetch(&self.keys[g as usize]);
                    }
                }
                for (&k, &h) in keys.iter().zip(&hashes) {
                    out.push(self.ngram_hashed(k, h, order as u8, count)?);
                }
            }
            Some(())
        })();
        self.token_ids = token_ids;
        self.batch_keys = keys;
        self.hashes = hashes;
        if count && result.is_some() {
            self.count(out);
        }
        result
    }

    /// Counts each of `ids` (ids of this table) once more: the n-grams [`NgramTable::ids`]
    /// found, or a line's n-grams counted again without looking them up
    /// ([`super::memo::LineMemo`]).
    ///
    /// A line's unigrams and bigrams are shared with other lines, so their counts are spread over
    /// the table (several MiB): all are prefetched first, so that the misses overlap.
    pub(super) fn count(&mut self, ids: &[u32]) {
        for &g in ids {
            self.freq.prefetch(g);
        }
        for &g in ids {
            self.freq.add(g, 1);
        }
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
    use crate::test_rng::Rng;
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
        assert!(table.ngrams.tags.len() >= 1 << 14, "the slots grew");
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
        // One home slot and one tag for every key (a hash whose low byte is 0 too, which has
        // tag 1 as 0 marks an empty slot): the probe sequence and the key check alone tell
        // them apart.
        for collision in [0x8000_0000_0000_0005u64, 0x8000_0000_0000_0100] {
            let mut slots = TagTable::default();
            let keys: Vec<u64> = (0..100).map(|k| k * 7919).collect();
            let collide = |_: u64| collision;
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
            assert!(slots.len * 8 <= slots.tags.len() * 7);
        }
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
