//! Character n-gram matching for chrF: `[hyp_count, ref_count, matches]` per order of one
//! hypothesis against one reference, with no allocation per n-gram and memory bounded for any
//! line (issue 21: speed; issue 19, point 3: bounded memory).
//!
//! The characters of a segment (hypothesis and references) get small ids, 1, 2, … in order of
//! appearance, so that `bits` bits hold any of them. An n-gram is then the exact integer
//! `id_1 << (bits·(n−1)) | … | id_n` (a `u64`, or a `u128` when `bits·n` exceeds 64): equal
//! integers are equal n-grams, no hash collision can merge two of them. The keys of order n are
//! a sliding window over the id sequence — nothing is stored per n-gram. Matches (sacreBLEU's
//! `sum(min(hyp_count, ref_count))`) are counted as the hypothesis consumes the reference's
//! counts:
//! - orders whose keys have at most [`DIRECT_BITS`] bits index a count array directly;
//! - the others go through an open-addressing table of the reference's n-grams (reused, cleared
//!   in O(1) by generations). A reference with more n-grams than a table may hold
//!   ([`TABLE_BYTES`]) is done in several passes, each over the n-grams of one hash partition.
//!
//! Sides longer than [`STREAM_BYTES`] keep no id array: their ids are decoded from the text
//! again for each pass, so that a huge line costs the table and not a multiple of its length.
//! When `bits × max order` exceeds 128 (over 6 orders and a huge alphabet) [`CharNgrams::count`]
//! declines and the caller uses the general [`NgramIndex`](super::NgramIndex).

use std::hint::black_box;

use rustc_hash::FxHashMap;

use crate::unicode::is_py_whitespace;

/// Orders whose keys have at most this many bits count in a directly indexed array (16 KiB).
const DIRECT_BITS: u32 = 12;

/// Largest table of reference n-grams, in bytes (more n-grams: several passes). Unit tests use
/// a small one, to reach the passes.
const TABLE_BYTES: usize = if cfg!(test) { 1 << 20 } else { 32 << 20 };

/// A side (hypothesis or reference) longer than this, in bytes, is decoded again for every pass
/// instead of being held as an array of ids (4 bytes a character).
pub const STREAM_BYTES: usize = 1 << 20;

/// An n-gram key: an unsigned integer holding `n` ids of `bits` bits each.
trait Key: Copy + Eq + Default {
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

/// The ids of a segment's characters.
struct Alphabet {
    /// Id of each ASCII character, 0 = none yet.
    ascii: [u32; 128],
    other: FxHashMap<char, u32>,
    size: u32,
}

impl Default for Alphabet {
    fn default() -> Self {
        Alphabet {
            ascii: [0; 128],
            other: FxHashMap::default(),
            size: 0,
        }
    }
}

impl Alphabet {
    fn clear(&mut self) {
        self.ascii = [0; 128];
        self.other.clear();
        self.size = 0;
    }

    /// The id of `c`, assigning the next one if it has none. An ASCII character is new or seen
    /// without a branch (a sentence's first occurrences are too many for a predictor); the
    /// others go through the map, out of line.
    #[inline(always)]
    fn id(&mut self, c: char) -> u32 {
        if c.is_ascii() {
            let slot = &mut self.ascii[c as usize];
            let new = u32::from(*slot == 0);
            self.size += new;
            *slot |= self.size & new.wrapping_neg();
            *slot
        } else {
            self.other_id(c)
        }
    }

    #[inline(never)]
    fn other_id(&mut self, c: char) -> u32 {
        let next = self.size + 1;
        let id = *self.other.entry(c).or_insert(next);
        if id == next {
            self.size = next;
        }
        id
    }

    /// The id of a character already seen.
    #[inline]
    fn get(&self, c: char) -> u32 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other[&c]
        }
    }

    /// Bits that hold every id.
    fn bits(&self) -> u32 {
        u32::BITS - self.size.leading_zeros()
    }
}

/// One side's characters: ids, or (long sides) only their number, the text being decoded again.
#[derive(Default)]
struct Side {
    ids: Vec<u32>,
    len: usize,
    streamed: bool,
}

impl Side {
    /// Registers the characters of `text` (white space dropped unless `keep_ws`, as sacreBLEU's
    /// `''.join(line.split())` does) in `alphabet`.
    fn load(&mut self, text: &str, keep_ws: bool, alphabet: &mut Alphabet) {
        self.ids.clear();
        self.streamed = text.len() > STREAM_BYTES;
        if self.streamed {
            self.ids = Vec::new();
            let mut len = 0;
            each_char(text, keep_ws, |c| {
                alphabet.id(c);
                len += 1;
            });
            self.len = len;
        } else {
            // At most one character a byte: the ids are written into place, not pushed.
            self.ids.resize(text.len(), 0);
            let ids = &mut self.ids[..];
            let mut len = 0;
            each_char(text, keep_ws, |c| {
                ids[len] = alphabet.id(c);
                len += 1;
            });
            self.ids.truncate(len);
            self.len = len;
        }
    }

    /// Calls `f` with the id of every character in order.
    #[inline]
    fn each_id(&self, text: &str, keep_ws: bool, alphabet: &Alphabet, mut f: impl FnMut(u32)) {
        if self.streamed {
            each_char(text, keep_ws, |c| f(alphabet.get(c)));
        } else {
            for &id in &self.ids {
                f(id);
            }
        }
    }

    /// Calls `f` with the key of every n-gram of order `n` in order.
    #[inline]
    fn each_key<K: Key>(
        &self,
        text: &str,
        keep_ws: bool,
        alphabet: &Alphabet,
        n: usize,
        mut f: impl FnMut(K),
    ) {
        let bits = alphabet.bits();
        let mask = K::mask(bits * n as u32);
        let mut key = K::default();
        let mut seen = 0usize;
        self.each_id(text, keep_ws, alphabet, |id| {
            key = key.push(bits, id).and(mask);
            seen += 1;
            if seen >= n {
                f(key);
            }
        });
    }
}

/// The characters of `text`, white space skipped unless `keep_ws` (ASCII decoded byte by byte).
#[inline]
fn each_char(text: &str, keep_ws: bool, mut f: impl FnMut(char)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            let c = char::from(b);
            if keep_ws || !is_py_whitespace(c) {
                f(c);
            }
        } else {
            let c = text[i..].chars().next().expect("a char boundary");
            i += c.len_utf8();
            if keep_ws || !is_py_whitespace(c) {
                f(c);
            }
        }
    }
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
struct CountTable<K> {
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
    const MAX_KEYS: usize = TABLE_BYTES / std::mem::size_of::<Slot<K>>() / 2;

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

/// Per-worker state of [`CharNgrams::count`]; reused across segments.
#[derive(Default)]
pub struct CharNgrams {
    alphabet: Alphabet,
    hyp: Side,
    rf: Side,
    direct: Vec<u32>,
    t64: CountTable<u64>,
    t128: CountTable<u128>,
    prefix: PrefixIds,
}

/// Dense ids of the distinct reference n-grams of one order, found from the id of their
/// (n−1)-gram prefix and their last character through one array access — no hashing, no
/// probing (the usual path for sentences: see [`PrefixIds::step`]).
#[derive(Default)]
struct PrefixIds {
    /// Id of each hypothesis / reference n-gram of the current order by position (hypothesis: 0
    /// when no reference has it).
    hyp: Vec<u32>,
    rf: Vec<u32>,
    /// `map[prefix id × stride + last character id]`: id of that n-gram, 0 = none. All zero
    /// between steps.
    map: Vec<u32>,
    /// `set[id]`: the index of `map` that n-gram id `id` of the current step went to, to zero
    /// it again (index 0 unused, one scratch slot after the last id).
    set: Vec<u32>,
    /// Unmatched reference occurrences by n-gram id (index 0, "none", stays 0).
    avail: Vec<u32>,
    /// Number of distinct reference n-grams of the current order (ids `1..=distinct`).
    distinct: u32,
}

/// Largest `map` of [`PrefixIds`] (entries); a bigger order goes to the tables.
const PREFIX_MAP_MAX: usize = 1 << 16;

impl PrefixIds {
    /// Order 1: the character ids themselves (dense, `1..=size`).
    fn start(&mut self, hyp: &[u32], rf: &[u32], size: u32) {
        self.hyp.clear();
        self.hyp.extend_from_slice(hyp);
        self.rf.clear();
        self.rf.extend_from_slice(rf);
        self.distinct = size;
    }

    /// Whether order `n + 1` fits the map, for an alphabet of `size` ids.
    fn fits(&self, size: u32) -> bool {
        (self.distinct as usize + 1) * (size as usize + 1) <= PREFIX_MAP_MAX
    }

    /// From the ids of order n − 1 to those of order n (`n ≥ 2`, both sides at least n long),
    /// returning the matches of order n.
    ///
    /// One pass over the reference assigns ids and counts occurrences, one over the hypothesis
    /// consumes them; then only the entries set are zeroed. Every buffer is sized before the
    /// loops, so that they index slices (no `push`, no reload of a `Vec` through `self` after
    /// each store into `map`).
    fn step(&mut self, hyp_chars: &[u32], ref_chars: &[u32], n: usize, size: u32) -> u64 {
        let stride = size as usize + 1;
        let map_len = (self.distinct as usize + 1) * stride;
        if self.map.len() < map_len {
            self.map.resize(map_len, 0);
        }
        let (r, h) = (ref_chars.len() + 1 - n, hyp_chars.len() + 1 - n);
        // At most `r` distinct n-grams: ids `1..=r`, and `set` has one scratch slot after.
        if self.set.len() < r + 2 {
            self.set.resize(r + 2, 0);
        }
        if self.avail.len() < r + 2 {
            self.avail.resize(r + 2, 0);
        }
        let PrefixIds {
            hyp,
            rf,
            map,
            set,
            avail,
            distinct: prev,
        } = self;
        let map = &mut map[..map_len];
        let set = &mut set[..r + 2];
        let avail = &mut avail[..r + 2];
        let mut distinct = 0u32;
        for (id_at, &last) in rf[..r].iter_mut().zip(&ref_chars[n - 1..]) {
            let k = *id_at as usize * stride + last as usize;
            let old = map[k];
            // A new n-gram gets the next id, without a branch on new or seen; `set[id]` keeps
            // where it went (a seen one writes the scratch slot after the last id).
            let new = u32::from(old == 0);
            distinct += new;
            let id = old | (distinct & new.wrapping_neg());
            map[k] = id;
            *id_at = id;
            set[(distinct + 1 - new) as usize] = k as u32;
            avail[id as usize] += 1;
        }
        rf.truncate(r);
        let mut matches = 0u64;
        for (id_at, &last) in hyp[..h].iter_mut().zip(&hyp_chars[n - 1..]) {
            // A prefix no reference has (id 0) reads row 0 of `map`, which stays all zero.
            let id = map[*id_at as usize * stride + last as usize];
            *id_at = id;
            let a = &mut avail[id as usize];
            let t = u32::from(*a > 0);
            *a -= t;
            matches += u64::from(t);
        }
        hyp.truncate(h);
        let distinct_ids = 1..distinct as usize + 1;
        for &k in &set[distinct_ids.clone()] {
            map[k as usize] = 0;
        }
        avail[distinct_ids].fill(0);
        *prev = distinct;
        matches
    }
}

/// The two sides of a comparison and how to read them.
struct Pair<'a> {
    hyp: &'a Side,
    rf: &'a Side,
    hyp_text: &'a str,
    ref_text: &'a str,
    keep_ws: bool,
    alphabet: &'a Alphabet,
}

impl Pair<'_> {
    fn ref_keys<K: Key>(&self, n: usize, f: impl FnMut(K)) {
        self.rf
            .each_key(self.ref_text, self.keep_ws, self.alphabet, n, f);
    }
    fn hyp_keys<K: Key>(&self, n: usize, f: impl FnMut(K)) {
        self.hyp
            .each_key(self.hyp_text, self.keep_ws, self.alphabet, n, f);
    }
}

impl CharNgrams {
    /// Starts a segment: its hypothesis, after `rstrip` and lowercasing as the metric wants.
    pub fn set_hyp(&mut self, hyp: &str, keep_ws: bool) {
        self.alphabet.clear();
        self.hyp.load(hyp, keep_ws, &mut self.alphabet);
    }

    /// Appends `[hyp_count, ref_count, matches]` for the character orders `1..=max_order` of the
    /// hypothesis given to [`set_hyp`](Self::set_hyp) (text `hyp`, the same) against `rf`, as
    /// sacreBLEU's `CHRF._get_match_statistics` counts them: the hypothesis count of an order is
    /// 0 when the reference has no n-gram of that order. Returns false, appending nothing, when
    /// the keys would not fit 128 bits (the caller then counts another way).
    pub fn count(
        &mut self,
        hyp: &str,
        rf: &str,
        keep_ws: bool,
        max_order: usize,
        out: &mut Vec<u64>,
    ) -> bool {
        self.rf.load(rf, keep_ws, &mut self.alphabet);
        let bits = self.alphabet.bits();
        if bits as usize * max_order > 128 {
            return false;
        }
        let CharNgrams {
            alphabet,
            hyp: hyp_side,
            rf: ref_side,
            direct,
            t64,
            t128,
            prefix,
        } = self;
        // Ids by prefix while both sides are arrays and the map stays small.
        let mut by_prefix = !hyp_side.streamed && !ref_side.streamed;
        if by_prefix {
            prefix.start(&hyp_side.ids, &ref_side.ids, alphabet.size);
        }
        let pair = Pair {
            hyp: hyp_side,
            rf: ref_side,
            hyp_text: hyp,
            ref_text: rf,
            keep_ws,
            alphabet,
        };
        for n in 1..=max_order {
            let r = (pair.rf.len + 1).saturating_sub(n);
            let h = (pair.hyp.len + 1).saturating_sub(n);
            if r == 0 {
                out.extend_from_slice(&[0, 0, 0]);
                continue;
            }
            let width = bits * n as u32;
            if h == 0 {
                by_prefix = false;
            }
            let matches = if h == 0 {
                0
            } else if n >= 2 && by_prefix && prefix.fits(alphabet.size) {
                prefix.step(&hyp_side.ids, &ref_side.ids, n, alphabet.size)
            } else if width <= DIRECT_BITS {
                direct_matches(&pair, n, 1 << width, direct)
            } else if width <= 64 {
                table_matches(&pair, n, r, t64)
            } else {
                table_matches(&pair, n, r, t128)
            };
            if n >= 2 && by_prefix && !prefix.fits(alphabet.size) {
                by_prefix = false;
            }
            out.extend_from_slice(&[h as u64, r as u64, matches]);
        }
        true
    }
}

/// Matches of order `n` counted in an array indexed by the key (`size` = 2^width entries).
fn direct_matches(pair: &Pair<'_>, n: usize, size: usize, counts: &mut Vec<u32>) -> u64 {
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
fn table_matches<K: Key>(pair: &Pair<'_>, n: usize, r: usize, table: &mut CountTable<K>) -> u64 {
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
    use std::collections::HashMap;

    /// The triples counted the obvious way (sacreBLEU's Counter arithmetic).
    fn naive(hyp: &str, rf: &str, keep_ws: bool, max_order: usize) -> Vec<u64> {
        let chars = |s: &str| -> Vec<char> {
            s.chars()
                .filter(|&c| keep_ws || !is_py_whitespace(c))
                .collect()
        };
        let (h, r) = (chars(hyp), chars(rf));
        let count = |t: &[char], n: usize| {
            let mut m: HashMap<Vec<char>, u64> = HashMap::new();
            for w in t.windows(n) {
                *m.entry(w.to_vec()).or_default() += 1;
            }
            m
        };
        let mut out = Vec::new();
        for n in 1..=max_order {
            let (hc, rc) = (count(&h, n), count(&r, n));
            let rn: u64 = rc.values().sum();
            let hn: u64 = if rn == 0 { 0 } else { hc.values().sum() };
            let m: u64 = hc
                .iter()
                .map(|(g, &c)| c.min(rc.get(g).copied().unwrap_or(0)))
                .sum();
            out.extend([hn, rn, m]);
        }
        out
    }

    fn counted(ws: &mut CharNgrams, hyp: &str, rf: &str, keep_ws: bool, n: usize) -> Vec<u64> {
        ws.set_hyp(hyp, keep_ws);
        let mut out = Vec::new();
        assert!(ws.count(hyp, rf, keep_ws, n, &mut out));
        out
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn counts_equal_naive_counting_for_every_key_width() {
        // Small alphabets (direct arrays), ASCII plus a few others (u64 tables), and alphabets
        // of thousands of characters (u128 keys from order 5 on).
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut ws = CharNgrams::default();
        for case in 0..600 {
            let alphabet: Vec<char> = match case % 3 {
                0 => "ab c".chars().collect(),
                1 => "abcdefghij klmnop\u{e9}\u{201c}\u{3000}".chars().collect(),
                _ => (0..3000)
                    .map(|i| char::from_u32(0x4e00 + i).unwrap())
                    .collect(),
            };
            let text = |rng: &mut Rng| -> String {
                let len = if case % 40 == 0 { 3000 } else { rng.below(40) };
                let k = 1 + rng.below(alphabet.len());
                (0..len).map(|_| alphabet[rng.below(k)]).collect()
            };
            let (hyp, rf) = (text(&mut rng), text(&mut rng));
            let keep_ws = case % 5 == 0;
            let n = 1 + rng.below(8);
            assert_eq!(
                counted(&mut ws, &hyp, &rf, keep_ws, n),
                naive(&hyp, &rf, keep_ws, n),
                "case {case}: {hyp:?} vs {rf:?}, order {n}"
            );
        }
    }

    #[test]
    fn streamed_sides_and_partitioned_tables_count_the_same() {
        // Over STREAM_BYTES, with more distinct 6-grams than one u128 table holds: several
        // passes over hash partitions.
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let chars: Vec<char> = (0..2000)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let rf: String = (0..STREAM_BYTES / 3 + 1000)
            .map(|_| chars[rng.below(chars.len())])
            .collect();
        let hyp: String = rf.chars().rev().take(200_000).collect::<String>() + &rf[..300_000];
        assert!(rf.len() > STREAM_BYTES && hyp.len() < STREAM_BYTES);
        assert!(rf.chars().count() > 4 * CountTable::<u64>::MAX_KEYS);
        let mut ws = CharNgrams::default();
        assert_eq!(
            counted(&mut ws, &hyp, &rf, false, 6),
            naive(&hyp, &rf, false, 6)
        );
        assert_eq!(
            counted(&mut ws, &rf, &hyp, false, 6),
            naive(&rf, &hyp, false, 6)
        );
    }

    #[test]
    fn declines_keys_over_128_bits() {
        let mut ws = CharNgrams::default();
        let many: String = (0..5000)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        ws.set_hyp(&many, false);
        let mut out = Vec::new();
        // 13 bits an id: 9 orders take 117 bits, 10 take 130.
        assert!(ws.count(&many, "x", false, 9, &mut out));
        assert!(!ws.count(&many, "x", false, 10, &mut Vec::new()));
    }

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
