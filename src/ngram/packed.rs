//! N-grams as exact packed integers, and their matches counted in capped tables (issue 21:
//! speed; issue 19, point 3: bounded memory). Shared by character n-grams ([`CharNgrams`]) and
//! the word n-grams of huge segments ([`WordNgrams`]).
//!
//! Symbols (characters or words) get small ids, so that `bits` bits hold any of them; an
//! n-gram is the exact integer `id_1 << (bits·(n−1)) | … | id_n` (a `u64`, or a `u128` when
//! `bits·n` exceeds 64): equal integers are equal n-grams, no hash collision can merge two of
//! them. Matches (sacreBLEU's `sum(min(hyp_count, ref_count))`) are counted as the hypothesis
//! consumes the reference's counts:
//! - orders whose keys have at most [`DIRECT_BITS`] bits index a count array directly;
//! - the others go through an open-addressing table of the reference's n-grams (reused, cleared
//!   in O(1) by generations). A reference with more n-grams than a table may hold
//!   ([`TABLE_BYTES`]) is done in several passes, each over the n-grams of one hash partition.
//!
//! [`CharNgrams`]: super::CharNgrams
//! [`WordNgrams`]: super::WordNgrams

use std::hint::black_box;

/// Orders whose keys have at most this many bits count in a directly indexed array (16 KiB).
pub(super) const DIRECT_BITS: u32 = 12;

/// Largest table of reference n-grams, in bytes (more n-grams: several passes). Unit tests use
/// a small one, to reach the passes.
pub(super) const TABLE_BYTES: usize = if cfg!(test) { 1 << 20 } else { 32 << 20 };

/// An n-gram key: an unsigned integer holding `n` ids of `bits` bits each.
pub(super) trait Key: Copy + Eq + Default {
    /// `(self << bits) | id`.
    fn push(self, bits: u32, id: u32) -> Self;
    fn and(self, mask: Self) -> Self;
    /// The lowest `width` bits set.
    fn mask(width: u32) -> Self;
    /// A well-mixed hash (the table index is its top bits).
    fn hash(self) -> u64;
}

const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

impl Key for u64 {
    #[inline]
    fn push(self, bits: u32, id: u32) -> Self {
        (self << bits) | u64::from(id)
    }
    #[inline]
    fn and(self, mask: Self) -> Self {
        self & mask
    }
    fn mask(width: u32) -> Self {
        if width >= 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        }
    }
    #[inline]
    fn hash(self) -> u64 {
        (self ^ (self >> 29)).wrapping_mul(FIB)
    }
}

impl Key for u128 {
    #[inline]
    fn push(self, bits: u32, id: u32) -> Self {
        (self << bits) | u128::from(id)
    }
    #[inline]
    fn and(self, mask: Self) -> Self {
        self & mask
    }
    fn mask(width: u32) -> Self {
        if width >= 128 {
            u128::MAX
        } else {
            (1 << width) - 1
        }
    }
    #[inline]
    fn hash(self) -> u64 {
        let (lo, hi) = (self as u64, (self >> 64) as u64);
        (lo ^ hi.rotate_left(23) ^ (lo >> 29)).wrapping_mul(FIB)
    }
}

/// The count tables of [`direct_matches`] and [`table_matches`], reused across segments; one
/// set serves a worker's character and word n-grams (on a huge line, the capped tables are
/// most of its memory).
#[derive(Default)]
pub struct CountTables {
    pub(super) direct: Vec<u32>,
    pub(super) t64: CountTable<u64>,
    pub(super) t128: CountTable<u128>,
}

/// The key streams of a comparison: the n-grams of order `n` of each side, in order.
pub(super) trait KeyStreams {
    fn ref_keys<K: Key>(&self, n: usize, f: impl FnMut(K));
    fn hyp_keys<K: Key>(&self, n: usize, f: impl FnMut(K));
}

/// A slot of a [`CountTable`]: free unless `generation` is the table's.
#[derive(Clone, Copy, Default)]
struct Slot<K> {
    key: K,
    generation: u32,
    /// Occurrences in the reference not yet matched by the hypothesis.
    avail: u32,
}

/// Open-addressing (linear probing) counts of reference n-grams.
pub(super) struct CountTable<K> {
    slots: Vec<Slot<K>>,
    generation: u32,
    /// Slots in use now (`mask + 1` of `slots`; the rest are spare).
    mask: usize,
    shift: u32,
    live: usize,
}

impl<K: Key> Default for CountTable<K> {
    fn default() -> Self {
        CountTable {
            slots: Vec::new(),
            generation: 0,
            mask: 0,
            shift: 64,
            live: 0,
        }
    }
}

impl<K: Key> CountTable<K> {
    /// Most keys a table holds at a load of 1/2.
    pub(super) const MAX_KEYS: usize = TABLE_BYTES / std::mem::size_of::<Slot<K>>() / 2;

    /// Empties the table, sized for about `keys` distinct keys: at a load of at most 1/8 while
    /// that fits in a few KiB (a sentence), so that a probe rarely collides (the collision test
    /// is the one branch a predictor cannot learn), and of at most 1/2 beyond.
    fn reset(&mut self, keys: usize) {
        let spread = if keys <= 2048 { 8 } else { 2 };
        let cap = (spread * keys).next_power_of_two().max(16);
        if self.slots.len() < cap {
            self.slots.resize(cap, Slot::default());
        }
        self.mask = cap - 1;
        self.shift = 64 - cap.trailing_zeros();
        self.live = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    #[inline]
    fn home(&self, key: K) -> usize {
        (key.hash() >> self.shift) as usize
    }

    /// One more occurrence of `key` in the reference. New or seen before is not branched on
    /// (at low orders it is as good as random).
    #[inline]
    fn insert(&mut self, key: K) {
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            let live = slot.generation == self.generation;
            // `black_box` keeps the two tests one branch (taken only on a collision).
            if black_box(live & (slot.key != key)) {
                i = (i + 1) & self.mask;
                continue;
            }
            let seen = u32::from(live);
            self.slots[i] = Slot {
                key,
                generation: self.generation,
                avail: (slot.avail & seen.wrapping_neg()) + 1,
            };
            self.live += (1 - seen) as usize;
            if 4 * self.live > 3 * (self.mask + 1) {
                self.grow();
            }
            return;
        }
    }

    /// Doubles the table (only when a hash partition came out far larger than its share).
    #[cold]
    fn grow(&mut self) {
        let generation = self.generation;
        let old: Vec<Slot<K>> = self.slots[..=self.mask]
            .iter()
            .filter(|s| s.generation == generation)
            .copied()
            .collect();
        let cap = 2 * (self.mask + 1);
        self.slots.clear();
        self.slots.resize(cap, Slot::default());
        self.mask = cap - 1;
        self.shift = 64 - cap.trailing_zeros();
        for s in old {
            let mut i = self.home(s.key);
            while self.slots[i].generation == generation {
                i = (i + 1) & self.mask;
            }
            self.slots[i] = s;
        }
    }

    /// 1 if the reference has an occurrence of `key` not matched yet (now matched), else 0.
    /// Present or absent is decided without a branch on the answer (about half of a
    /// hypothesis's n-grams are in no reference: a branch would be mispredicted).
    #[inline]
    fn take(&mut self, key: K) -> u32 {
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            let live = slot.generation == self.generation;
            if black_box(live & (slot.key != key)) {
                i = (i + 1) & self.mask;
                continue;
            }
            let t = u32::from(live & (slot.avail > 0));
            self.slots[i].avail = slot.avail - t;
            return t;
        }
    }
}

/// Matches of order `n` counted in an array indexed by the key (`size` = 2^width entries).
pub(super) fn direct_matches(
    pair: &impl KeyStreams,
    n: usize,
    size: usize,
    counts: &mut Vec<u32>,
) -> u64 {
    if counts.len() < size {
        counts.resize(size, 0);
    }
    let counts = &mut counts[..size];
    pair.ref_keys(n, |k: u64| counts[k as usize] += 1);
    let mut matches = 0u64;
    pair.hyp_keys(n, |k: u64| {
        let c = &mut counts[k as usize];
        let t = u32::from(*c > 0);
        *c -= t;
        matches += u64::from(t);
    });
    pair.ref_keys(n, |k: u64| counts[k as usize] = 0);
    matches
}

/// Matches of order `n` (`r` reference n-grams) counted through a table, in as many passes over
/// hash partitions as the table's size limit needs.
pub(super) fn table_matches<K: Key>(
    pair: &impl KeyStreams,
    n: usize,
    r: usize,
    table: &mut CountTable<K>,
) -> u64 {
    let parts = r.div_ceil(CountTable::<K>::MAX_KEYS).max(1);
    let mut matches = 0u64;
    if parts == 1 {
        table.reset(r);
        pair.ref_keys(n, |k: K| table.insert(k));
        pair.hyp_keys(n, |k: K| matches += u64::from(table.take(k)));
        return matches;
    }
    // A partition is the top bits of a second hash, independent of the slot index.
    let part = |k: K| {
        let h = k.hash().wrapping_mul(0xD6E8_FEB8_6659_FD93);
        ((u128::from(h) * parts as u128) >> 64) as usize
    };
    for p in 0..parts {
        table.reset(r.div_ceil(parts));
        pair.ref_keys(n, |k: K| {
            if part(k) == p {
                table.insert(k);
            }
        });
        pair.hyp_keys(n, |k: K| {
            if part(k) == p {
                matches += u64::from(table.take(k));
            }
        });
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_grows_when_a_partition_is_over_its_share() {
        let mut t = CountTable::<u64>::default();
        t.reset(4);
        for k in 0..1000u64 {
            t.insert(k);
            t.insert(k);
        }
        assert!(t.live == 1000);
        let taken: u32 = (0..1000u64)
            .chain(0..1000)
            .chain(0..10)
            .map(|k| t.take(k))
            .sum();
        assert_eq!(taken, 2000);
        assert_eq!(t.take(5000), 0);
    }
}
