//! Word n-gram matching for chrF++ on huge segments: `[hyp_count, ref_count, matches]` per word
//! order of one hypothesis against one reference, in memory bounded by a small multiple of the
//! line (issue 19, point 3).
//!
//! The general [`NgramIndex`](super::NgramIndex) costs some 90 bytes a word on a huge line (its
//! token table of 40-byte slots kept half empty, successor arrays, n-gram ids of every order);
//! a 16 MB line of 2 million words took 239 MB. Here each distinct word is stored once (its
//! bytes in an arena, a 4-byte offset, an 8-byte slot of a half-empty table), each word of a
//! side is a 4-byte id, and the n-grams are the exact packed integers of their word ids, counted
//! in the capped tables of [`packed`](super::packed) — as characters are. Words are compared by
//! their bytes, never by a hash alone: the counts, hence the scores, are exact.
//!
//! When `bits × order` exceeds 128 (over five word orders and millions of distinct words)
//! [`WordNgrams::count`] declines and the caller uses the general index.

use super::packed::{direct_matches, table_matches, CountTables, Key, KeyStreams, DIRECT_BITS};

/// Exact interning of the words of a segment: ids 1, 2, … in order of first appearance.
#[derive(Default)]
struct Interner {
    /// The bytes of every distinct word, in id order.
    arena: Vec<u8>,
    /// Word `id` is `arena[ends[id - 1]..ends[id]]`; `ends[0]` is 0.
    ends: Vec<u32>,
    /// Open addressing, at most half full: 0 = free, else `(hash tag << 32) | id`.
    slots: Vec<u64>,
    shift: u32,
}

/// Hash of a word's bytes (FxHash-style over 8-byte chunks, then mixed so that the top bits,
/// the slot index, depend on every byte). Only a shortcut: equal words are told by their bytes.
#[inline]
fn word_hash(w: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = w.len() as u64;
    let mut chunks = w.chunks_exact(8);
    for c in &mut chunks {
        let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    (h ^ (h >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Interner {
    fn clear(&mut self) {
        self.arena.clear();
        self.ends.clear();
        self.ends.push(0);
        self.slots.clear();
    }

    /// Number of distinct words.
    fn size(&self) -> u32 {
        (self.ends.len() - 1) as u32
    }

    fn word(&self, id: u32) -> &[u8] {
        &self.arena[self.ends[id as usize - 1] as usize..self.ends[id as usize] as usize]
    }

    /// The id of `w`, assigning the next one if it has none.
    fn id(&mut self, w: &[u8]) -> u32 {
        if 2 * (self.size() as usize + 1) > self.slots.len() {
            self.grow();
        }
        let h = word_hash(w);
        let tag = h & 0xFFFF_FFFF_0000_0000;
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let s = self.slots[i];
            if s == 0 {
                break;
            }
            if s & 0xFFFF_FFFF_0000_0000 == tag && self.word(s as u32) == w {
                return s as u32;
            }
            i = (i + 1) & mask;
        }
        let id = self.size() + 1;
        self.arena.extend_from_slice(w);
        self.ends
            .push(u32::try_from(self.arena.len()).expect("a segment's words over 4 GiB"));
        self.slots[i] = tag | u64::from(id);
        id
    }

    /// Doubles the table (or makes the first one), placing every word again.
    #[cold]
    fn grow(&mut self) {
        let cap = (2 * self.slots.len()).max(1024);
        self.slots = Vec::new();
        self.slots.resize(cap, 0);
        self.shift = 64 - cap.trailing_zeros();
        let mask = cap - 1;
        for id in 1..=self.size() {
            let h = word_hash(self.word(id));
            let mut i = (h >> self.shift) as usize;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (h & 0xFFFF_FFFF_0000_0000) | u64::from(id);
        }
    }

    /// Bits that hold every id.
    fn bits(&self) -> u32 {
        u32::BITS - self.size().leading_zeros()
    }
}

/// Per-worker state of [`WordNgrams::count`].
#[derive(Default)]
pub struct WordNgrams {
    words: Interner,
    hyp: Vec<u32>,
    rf: Vec<u32>,
}

/// The word ids of both sides, read as packed keys.
struct Ids<'a> {
    hyp: &'a [u32],
    rf: &'a [u32],
    bits: u32,
}

/// Calls `f` with the key of every n-gram of order `n` of `ids`, in order.
#[inline]
fn each_key<K: Key>(ids: &[u32], bits: u32, n: usize, mut f: impl FnMut(K)) {
    let mask = K::mask(bits * n as u32);
    let mut key = K::default();
    for (i, &id) in ids.iter().enumerate() {
        key = key.push(bits, id).and(mask);
        if i + 1 >= n {
            f(key);
        }
    }
}

impl KeyStreams for Ids<'_> {
    #[inline]
    fn ref_keys<K: Key>(&self, n: usize, f: impl FnMut(K)) {
        each_key(self.rf, self.bits, n, f);
    }
    #[inline]
    fn hyp_keys<K: Key>(&self, n: usize, f: impl FnMut(K)) {
        each_key(self.hyp, self.bits, n, f);
    }
}

impl WordNgrams {
    /// Starts a segment (no hypothesis words yet).
    pub fn start(&mut self) {
        self.words.clear();
        self.hyp.clear();
        self.rf.clear();
    }

    /// The next word of the hypothesis.
    pub fn hyp_word(&mut self, w: &str) {
        let id = self.words.id(w.as_bytes());
        self.hyp.push(id);
    }

    /// Starts a reference (after the hypothesis's words).
    pub fn start_ref(&mut self) {
        self.rf.clear();
    }

    /// The next word of the reference.
    pub fn ref_word(&mut self, w: &str) {
        let id = self.words.id(w.as_bytes());
        self.rf.push(id);
    }

    /// Appends `[hyp_count, ref_count, matches]` for the word orders `1..=max_order` of the
    /// hypothesis against the reference given, as sacreBLEU's `CHRF._get_match_statistics`
    /// counts them (the hypothesis count of an order is 0 when the reference has no n-gram of
    /// that order). Returns false, appending nothing, when the keys of an order both sides have
    /// would not fit 128 bits.
    pub fn count(
        &mut self,
        max_order: usize,
        tables: &mut CountTables,
        out: &mut Vec<u64>,
    ) -> bool {
        let bits = self.words.bits();
        let keyed = max_order.min(self.hyp.len()).min(self.rf.len());
        if bits as usize * keyed > 128 {
            return false;
        }
        let ids = Ids {
            hyp: &self.hyp,
            rf: &self.rf,
            bits,
        };
        for n in 1..=max_order {
            let r = (ids.rf.len() + 1).saturating_sub(n);
            let h = (ids.hyp.len() + 1).saturating_sub(n);
            if r == 0 {
                out.extend_from_slice(&[0, 0, 0]);
                continue;
            }
            let width = bits * n as u32;
            let matches = if h == 0 {
                0
            } else if width <= DIRECT_BITS {
                direct_matches(&ids, n, 1 << width, &mut tables.direct)
            } else if width <= 64 {
                table_matches(&ids, n, r, &mut tables.t64)
            } else {
                table_matches(&ids, n, r, &mut tables.t128)
            };
            out.extend_from_slice(&[h as u64, r as u64, matches]);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The triples counted the obvious way (sacreBLEU's Counter arithmetic on word tuples).
    fn naive(hyp: &[String], rf: &[String], max_order: usize) -> Vec<u64> {
        let count = |t: &[String], n: usize| {
            let mut m: HashMap<Vec<String>, u64> = HashMap::new();
            for w in t.windows(n) {
                *m.entry(w.to_vec()).or_default() += 1;
            }
            m
        };
        let mut out = Vec::new();
        for n in 1..=max_order {
            let (hc, rc) = (count(hyp, n), count(rf, n));
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

    fn counted(ws: &mut WordNgrams, hyp: &[String], refs: &[Vec<String>], n: usize) -> Vec<u64> {
        ws.start();
        for w in hyp {
            ws.hyp_word(w);
        }
        let mut out = Vec::new();
        for rf in refs {
            ws.start_ref();
            for w in rf {
                ws.ref_word(w);
            }
            assert!(ws.count(n, &mut CountTables::default(), &mut out));
        }
        out
    }

    use crate::test_rng::Rng;

    #[test]
    fn counts_equal_naive_counting() {
        // Vocabularies of 3 words (direct arrays), hundreds (u64 tables) and tens of thousands
        // (u128 keys from order 4 on; with 100,000 reference words, tables in several passes).
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut ws = WordNgrams::default();
        for case in 0..200 {
            let vocab = match case % 4 {
                0 => 3,
                1 => 300,
                _ => 40_000,
            };
            let word = |rng: &mut Rng| -> String {
                let i = rng.below(vocab);
                // Words of every length around the 8-byte chunks, and a NUL byte.
                match i % 5 {
                    0 => format!("w{i}"),
                    1 => format!("word-{i}-12345"),
                    2 => format!("\u{4e00}{i}\0"),
                    3 => format!("{i:>9}"),
                    _ => format!("x{i}xxxxxxxxxxxxxxxxxxxx"),
                }
            };
            let len = |rng: &mut Rng| match case {
                7 => 100_000,
                _ if case % 10 == 3 => 3000,
                _ => rng.below(40),
            };
            let seq = |rng: &mut Rng| {
                let n = len(rng);
                (0..n).map(|_| word(rng)).collect::<Vec<_>>()
            };
            let hyp = seq(&mut rng);
            let refs: Vec<Vec<String>> = (0..1 + rng.below(3)).map(|_| seq(&mut rng)).collect();
            let n = 1 + rng.below(6);
            let want: Vec<u64> = refs.iter().flat_map(|r| naive(&hyp, r, n)).collect();
            assert_eq!(
                counted(&mut ws, &hyp, &refs, n),
                want,
                "case {case}, order {n}"
            );
        }
    }

    #[test]
    fn declines_keys_over_128_bits() {
        let mut ws = WordNgrams::default();
        let words: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
        ws.start();
        for w in &words {
            ws.hyp_word(w);
        }
        ws.start_ref();
        for w in &words {
            ws.ref_word(w);
        }
        // 13 bits an id: 9 orders take 117 bits, 10 take 130.
        assert!(ws.count(9, &mut CountTables::default(), &mut Vec::new()));
        assert!(!ws.count(10, &mut CountTables::default(), &mut Vec::new()));
    }
}
