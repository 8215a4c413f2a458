//! The unigram masks of [`super::bitparallel`]: for hypothesis token i, bit j is set when
//! reference token j equals it, found by comparing the token's key with every reference
//! token's.
//!
//! Why not a hash table of the reference's tokens, probed with each hypothesis token (what
//! `bitparallel` did before)? A probe is a chain of dependent steps — load the token's bytes,
//! hash them, load the slot, compare — and it took a third of GLEU's CPU time on the bench
//! corpus (about 13 ns per token). Comparing all pairs is quadratic, but sentences are short
//! (18 whitespace tokens on average in WMT22) and the comparisons have no dependent chain: with
//! AVX2, four reference keys per step (three 64-bit compares and a `movemask`), unrolled for
//! the reference's length so that no loop exit is mispredicted per token. Single-thread GLEU
//! CPU fell by 16 %, corpus BLEU's by 10 %.
//!
//! Keys are [`TokenKey`]s: tokens of up to [`TokenKey::EXACT`] bytes are equal exactly when
//! their keys are; for a longer hypothesis token each candidate bit is confirmed by comparing
//! the bytes. Without AVX2 (checked at run time; other architectures) the same comparisons
//! run one pair at a time.

use crate::tokenize::{TokenKey, Tokens};

/// Most reference tokens [`RefKeys`] holds (the bit-parallel path's longest sequence).
pub const CAPACITY: usize = 128;

/// The keys of a reference's tokens, one array per key word. Past the last token, up to the
/// next multiple of four, the length word is [`NO_LEN`], which no token has.
pub struct RefKeys {
    head: [u64; CAPACITY],
    tail: [u64; CAPACITY],
    len: [u64; CAPACITY],
    /// Number of tokens.
    count: usize,
    /// AVX2 is available (checked once, when the buffers are made).
    avx2: bool,
}

/// A length word no token has: lengths are below 2^32.
const NO_LEN: u64 = u64::MAX;

impl Default for RefKeys {
    fn default() -> Self {
        RefKeys {
            head: [0; CAPACITY],
            tail: [0; CAPACITY],
            len: [NO_LEN; CAPACITY],
            count: 0,
            avx2: avx2_available(),
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2_available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_available() -> bool {
    false
}

impl RefKeys {
    /// Loads the keys of `reference` (at most [`CAPACITY`] tokens).
    #[inline]
    pub fn load(&mut self, reference: &Tokens) {
        let m = reference.len();
        assert!(m <= CAPACITY, "reference of {m} tokens");
        for (j, key) in reference.keys().enumerate() {
            self.head[j] = key.head;
            self.tail[j] = key.tail;
            self.len[j] = u64::from(key.len);
        }
        // Stale keys of a longer reference beyond the padding are never read.
        self.len[m..m.next_multiple_of(4)].fill(NO_LEN);
        self.count = m;
    }

    /// Bits `from..to` (at most 64 of them, `to` at most the reference length) of the mask of
    /// hypothesis token `key`, one pair at a time.
    fn row_scalar(&self, key: TokenKey, from: usize, to: usize) -> u64 {
        let len = u64::from(key.len);
        let mut bits = 0;
        for j in from..to {
            let diff = (self.head[j] ^ key.head) | (self.tail[j] ^ key.tail) | (self.len[j] ^ len);
            bits |= u64::from(diff == 0) << (j - from);
        }
        bits
    }
}

/// The unigram mask of every token of `hyp` against `reference`, whose keys `keys` holds, as
/// `put(i, bits 0..64, bits 64..128)`.
#[inline]
pub fn masks(
    keys: &RefKeys,
    hyp: &Tokens,
    reference: &Tokens,
    mut put: impl FnMut(usize, u64, u64),
) {
    debug_assert_eq!(keys.count, reference.len());
    #[cfg(target_arch = "x86_64")]
    if keys.avx2 {
        // SAFETY: AVX2 is available (checked when `keys` was made).
        return unsafe { avx2::masks(keys, hyp, reference, put) };
    }
    let (m, wide) = (keys.count, keys.count > 64);
    for (i, key) in hyp.keys().enumerate() {
        let low = keys.row_scalar(key, 0, m.min(64));
        let high = if wide { keys.row_scalar(key, 64, m) } else { 0 };
        let (low, high) = confirm_long(key, low, high, hyp, i, reference);
        put(i, low, high);
    }
}

/// `(low, high)` with [`confirm`] applied when hypothesis token `i` (key `key`) is longer than
/// [`TokenKey::EXACT`] bytes.
#[inline]
fn confirm_long(
    key: TokenKey,
    low: u64,
    high: u64,
    hyp: &Tokens,
    i: usize,
    reference: &Tokens,
) -> (u64, u64) {
    if key.len <= TokenKey::EXACT || (low | high) == 0 {
        return (low, high);
    }
    let token = hyp.get_bytes(i);
    (
        confirm(low, 0, reference, token),
        confirm(high, 64, reference, token),
    )
}

/// `bits` (reference positions `from..from + 64`, each a token with the key of `token`)
/// without those whose bytes differ from `token`'s. Out of line: only tokens over
/// [`TokenKey::EXACT`] bytes that match come here.
#[inline(never)]
fn confirm(mut bits: u64, from: usize, reference: &Tokens, token: &[u8]) -> u64 {
    let mut rest = bits;
    while rest != 0 {
        let j = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if reference.get_bytes(from + j) != token {
            bits &= !(1 << j);
        }
    }
    bits
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_castsi256_pd, _mm256_cmpeq_epi64, _mm256_loadu_si256,
        _mm256_movemask_pd, _mm256_set1_epi64x,
    };

    use super::{RefKeys, TokenKey, Tokens};

    /// [`super::masks`] four reference keys at a time. For up to 64 reference tokens the loop
    /// over them is unrolled for their number of 4-key chunks: one branch per segment instead
    /// of a loop exit per hypothesis token, mispredicted as often as the lengths vary.
    #[target_feature(enable = "avx2")]
    pub(super) fn masks(
        keys: &RefKeys,
        hyp: &Tokens,
        reference: &Tokens,
        put: impl FnMut(usize, u64, u64),
    ) {
        match keys.count.div_ceil(4) {
            0 => fixed::<0>(keys, hyp, reference, put),
            1 => fixed::<1>(keys, hyp, reference, put),
            2 => fixed::<2>(keys, hyp, reference, put),
            3 => fixed::<3>(keys, hyp, reference, put),
            4 => fixed::<4>(keys, hyp, reference, put),
            5 => fixed::<5>(keys, hyp, reference, put),
            6 => fixed::<6>(keys, hyp, reference, put),
            7 => fixed::<7>(keys, hyp, reference, put),
            8 => fixed::<8>(keys, hyp, reference, put),
            9 => fixed::<9>(keys, hyp, reference, put),
            10 => fixed::<10>(keys, hyp, reference, put),
            11 => fixed::<11>(keys, hyp, reference, put),
            12 => fixed::<12>(keys, hyp, reference, put),
            13 => fixed::<13>(keys, hyp, reference, put),
            14 => fixed::<14>(keys, hyp, reference, put),
            15 => fixed::<15>(keys, hyp, reference, put),
            16 => fixed::<16>(keys, hyp, reference, put),
            _ => wide(keys, hyp, reference, put),
        }
    }

    /// [`masks`] for a reference of `4 × C − 3 ..= 4 × C` tokens (at most 64; the padding's
    /// keys match nothing).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn fixed<const C: usize>(
        keys: &RefKeys,
        hyp: &Tokens,
        reference: &Tokens,
        mut put: impl FnMut(usize, u64, u64),
    ) {
        for (i, key) in hyp.keys().enumerate() {
            let mut bits = chunks(keys, key, 0, C);
            if key.len > TokenKey::EXACT && bits != 0 {
                bits = super::confirm(bits, 0, reference, hyp.get_bytes(i));
            }
            put(i, bits, 0);
        }
    }

    /// [`masks`] for a reference of 65 to 128 tokens (rare: 1.3 % of WMT22 segments).
    #[target_feature(enable = "avx2")]
    fn wide(
        keys: &RefKeys,
        hyp: &Tokens,
        reference: &Tokens,
        mut put: impl FnMut(usize, u64, u64),
    ) {
        let high_chunks = keys.count.div_ceil(4) - 16;
        for (i, key) in hyp.keys().enumerate() {
            let low = chunks(keys, key, 0, 16);
            let high = chunks(keys, key, 64, high_chunks);
            let (low, high) = super::confirm_long(key, low, high, hyp, i, reference);
            put(i, low, high);
        }
    }

    /// Bits `from..from + 4 × count` of the mask of `key` (`count` ≤ 16).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn chunks(keys: &RefKeys, key: TokenKey, from: usize, count: usize) -> u64 {
        let head = _mm256_set1_epi64x(key.head as i64);
        let tail = _mm256_set1_epi64x(key.tail as i64);
        let len = _mm256_set1_epi64x(i64::from(key.len));
        let mut bits = 0u64;
        for c in 0..count {
            let j = from + 4 * c;
            let eq = _mm256_and_si256(
                _mm256_and_si256(
                    _mm256_cmpeq_epi64(load(&keys.head[j..j + 4]), head),
                    _mm256_cmpeq_epi64(load(&keys.tail[j..j + 4]), tail),
                ),
                _mm256_cmpeq_epi64(load(&keys.len[j..j + 4]), len),
            );
            bits |= (_mm256_movemask_pd(_mm256_castsi256_pd(eq)) as u64) << (4 * c);
        }
        bits
    }

    /// Four key words as a vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(words: &[u64]) -> __m256i {
        let words: &[u64; 4] = words.try_into().expect("4 words");
        // SAFETY: `words` is 32 readable bytes; `loadu` takes any alignment.
        unsafe { _mm256_loadu_si256(words.as_ptr().cast()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Every mask is the set of reference positions holding the same bytes, with AVX2 (where
    /// the machine has it) and without, at every reference length up to 128 (the unrolled
    /// widths and the wide path), on small vocabularies of tokens around the key's limits:
    /// long tokens with equal keys (same first and last 8 bytes, same length), NUL bytes, and
    /// periodic tokens of lengths 9 and 10 whose head and tail words agree.
    #[test]
    fn masks_are_the_positions_of_equal_tokens() {
        let vocabulary: Vec<Vec<u8>> = [
            &b"a"[..],
            b"a\0",
            b"ab",
            b"abcdefgh",
            b"abcdefghi",
            b"aaaaaaaaa",
            b"aaaaaaaaaa",
            b"0123456789abcdef",
            b"0123456789abcdefg",
            b"01234567XY89abcdef",
            b"01234567ZW89abcdef",
            b"\0\0\0\0\0\0\0\0\0",
            b"\xc3\xa9t\xc3\xa9",
        ]
        .iter()
        .map(|t| t.to_vec())
        .collect();
        let mut rng = Rng(0x7061_6972_7769_7365);
        let mut scalar = RefKeys {
            avx2: false,
            ..RefKeys::default()
        };
        let mut native = RefKeys::default();
        for case in 0..2000 {
            let m = if case < 129 { case } else { rng.below(129) };
            let n = rng.below(40);
            let words = 1 + rng.below(vocabulary.len());
            let pick = |rng: &mut Rng| {
                let token = &vocabulary[rng.below(words)];
                std::str::from_utf8(token).unwrap().to_owned()
            };
            let mut reference = Tokens::default();
            for _ in 0..m {
                reference.push(&pick(&mut rng));
            }
            let mut hyp = Tokens::default();
            for _ in 0..n {
                hyp.push(&pick(&mut rng));
            }
            for keys in [&mut scalar, &mut native] {
                keys.load(&reference);
                let mut got = vec![None; n];
                masks(keys, &hyp, &reference, |i, low, high| {
                    got[i] = Some((low, high))
                });
                for (i, got) in got.into_iter().enumerate() {
                    let want = (0..m)
                        .filter(|&j| reference.get_bytes(j) == hyp.get_bytes(i))
                        .fold(0u128, |bits, j| bits | 1 << j);
                    let got = got.map(|(low, high)| u128::from(high) << 64 | u128::from(low));
                    assert_eq!(
                        got,
                        Some(want),
                        "case {case}, avx2 {}, token {i} of {n}, reference of {m}",
                        keys.avx2
                    );
                }
            }
        }
    }
}
