//! Splitting at ASCII white space, 64 bytes at a time (AVX-512, where the processor has it),
//! sixteen (SSE2) or eight (SWAR elsewhere).
//!
//! A byte-at-a-time splitter mispredicts a branch at nearly every token boundary, and on
//! whitespace-tokenized text (NLTK BLEU, multi-bleu.perl) that was the largest cost after n-gram
//! counting. Here each 8-byte word yields a mask of its white-space bytes (SWAR: bit 7 of each
//! byte), token boundaries are the bytes where that mask changes from the byte before, and they
//! are written out with `trailing_zeros` — no branch depends on the text except for words holding
//! a control character, which are rare.
//!
//! Only ASCII bytes are classified: a byte of a multi-byte UTF-8 character is never white space
//! here, so every boundary falls on a character boundary. Callers that need Unicode white space
//! (Python's `str.split()` also cuts at U+00A0, U+2000…) check for it separately.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Which ASCII bytes separate tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsciiSpace {
    /// CPython `str.split()`: 0x09–0x0D, 0x1C–0x1F and 0x20.
    Python,
    /// Perl `\s` on a byte string (`multi-bleu.perl`): 0x09–0x0D and 0x20.
    Perl,
}

impl AsciiSpace {
    /// Bit `b` set when byte `b` (< 64) is white space.
    const fn mask(self) -> u64 {
        match self {
            AsciiSpace::Python => 0x1_F000_3E00,
            AsciiSpace::Perl => 0x1_0000_3E00,
        }
    }

    /// True when byte `b` is white space in this set.
    #[inline]
    pub fn is_space(self, b: u8) -> bool {
        b < 64 && (self.mask() >> b) & 1 != 0
    }
}

/// Bit 7 of every byte of `w` that is white space, every other bit clear.
#[inline(always)]
fn space_bytes(w: u64, set: AsciiSpace) -> u64 {
    // Bytes ≤ 0x20: bit 7 clear and (low 7 bits + 0x5F) < 0x80. No carry crosses a byte, since
    // 0x7F + 0x5F < 0x100.
    let le20 = !(((w & !HI) + 0x5F * LO) | w) & HI;
    if le20 == 0 {
        return 0;
    }
    // Bytes equal to 0x20: those of w ^ 0x20… that are zero (same carry-free test).
    let x = w ^ (0x20 * LO);
    let blank = !(((x & !HI) + 0x7F * LO) | x) & HI;
    if blank == le20 {
        return blank;
    }
    // A control character (TAB, CR, U+001C…) in this word: classify byte by byte.
    let mut m = 0;
    for i in 0..8 {
        if set.is_space((w >> (8 * i)) as u8) {
            m |= 0x80 << (8 * i);
        }
    }
    m
}

/// Writes the boundaries of the tokens of `bytes` — the maximal runs of non-white-space bytes —
/// to `out` from index `at` on: start, end (exclusive), start, end, …, each offset by `base`.
/// Returns the index after the last boundary written, and whether `bytes` holds a byte outside
/// ASCII (found on the way, which spares callers that care a pass of their own).
///
/// `out` must have room for `bytes.len() + 16` entries from `at`: up to sixteen boundaries are
/// stored per block unconditionally (the unused ones are overwritten later), which is what keeps
/// the loop free of branches on the data. Every boundary, `base + bytes.len()` at most, must
/// fit in a `u32`.
pub fn split_bounds(
    bytes: &[u8],
    set: AsciiSpace,
    base: u32,
    out: &mut [u32],
    at: usize,
) -> (usize, bool) {
    assert!(
        out.len() >= at + bytes.len() + 16,
        "split_bounds: output too small"
    );
    assert!(
        u32::try_from(u64::from(base) + bytes.len() as u64).is_ok(),
        "split_bounds: offsets past u32::MAX"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if avx512::available() {
            // SAFETY: `available` detected every feature the function enables.
            return unsafe { avx512::split_bounds(bytes, set, base, out, at) };
        }
        // SAFETY: SSE2 is part of the x86-64 baseline: every processor this target runs on has
        // it (and the compiler assumes it everywhere already).
        unsafe { sse2::split_bounds(bytes, set, base, out, at) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        split_bounds_swar(bytes, set, base, out, at)
    }
}

/// [`split_bounds`] eight bytes at a time in general-purpose registers (SWAR).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn split_bounds_swar(
    bytes: &[u8],
    set: AsciiSpace,
    base: u32,
    out: &mut [u32],
    at: usize,
) -> (usize, bool) {
    let mut n = at;
    // Bit 7 of byte 0 set: "the byte before the first one is white space".
    let mut prev = 0x80u64;
    let mut offset = base;
    let mut high = 0u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        high |= w;
        n = emit(space_bytes(w, set), &mut prev, offset, out, n);
        offset += 8;
    }
    // The rest, padded with spaces: a token running to the end of `bytes` ends there. Also when
    // nothing is left, which closes a token that ends at the last full word.
    let rest = chunks.remainder();
    let mut last = [b' '; 8];
    last[..rest.len()].copy_from_slice(rest);
    let w = u64::from_le_bytes(last);
    high |= w;
    n = emit(space_bytes(w, set), &mut prev, offset, out, n);
    debug_assert!((n - at).is_multiple_of(2));
    (n, high & HI != 0)
}

/// [`split_bounds`] sixteen bytes at a time with SSE2, which every x86-64 processor has (so no
/// run-time detection; the intrinsics are safe to call inside these `target_feature` functions,
/// and the one call into them is the only `unsafe` left). The byte classes are computed
/// without a branch, control characters included; a block's boundaries come from its 16-bit
/// white-space mask as in [`emit`].
#[cfg(target_arch = "x86_64")]
pub(super) mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_set_epi64x, _mm_sub_epi8,
    };

    use super::AsciiSpace;

    #[target_feature(enable = "sse2")]
    pub fn split_bounds(
        bytes: &[u8],
        set: AsciiSpace,
        base: u32,
        out: &mut [u32],
        at: usize,
    ) -> (usize, bool) {
        let mut n = at;
        // Bit 0 set: "the byte before the first one is white space".
        let mut prev = 1u32;
        let mut offset = base;
        let mut high = 0u32;
        let mut blocks = bytes.chunks_exact(16);
        for block in &mut blocks {
            let (space, non_ascii) = classify(block.try_into().expect("16 bytes"), set);
            high |= non_ascii;
            n = emit16(space, &mut prev, offset, out, n);
            offset += 16;
        }
        // The rest, padded with spaces, as in the SWAR version.
        let rest = blocks.remainder();
        let mut last = [b' '; 16];
        last[..rest.len()].copy_from_slice(rest);
        let (space, non_ascii) = classify(&last, set);
        high |= non_ascii;
        n = emit16(space, &mut prev, offset, out, n);
        debug_assert!((n - at).is_multiple_of(2));
        (n, high != 0)
    }

    /// The masks of the white-space bytes and of the bytes over 0x7F of a block (bit i: byte i).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn classify(block: &[u8; 16], set: AsciiSpace) -> (u32, u32) {
        let v = load(block);
        // 0x09–0x0D, then 0x1C–0x20 (Python) or 0x20 alone (Perl).
        let upper = match set {
            AsciiSpace::Python => in_range(v, 0x1C, 5),
            AsciiSpace::Perl => _mm_cmpeq_epi8(v, _mm_set1_epi8(0x20)),
        };
        let space = _mm_movemask_epi8(_mm_or_si128(in_range(v, 0x09, 5), upper)) as u32;
        (space, _mm_movemask_epi8(v) as u32)
    }

    /// A block as a vector (two 8-byte loads: no unaligned-pointer load to prove safe).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(in crate::tokenize) fn load(block: &[u8; 16]) -> __m128i {
        let lo = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
        let hi = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
        _mm_set_epi64x(hi as i64, lo as i64)
    }

    /// All ones in the bytes of `v` within `first..first + len` (`len` ≥ 1), as an unsigned
    /// byte compare: `min(x − first, len − 1) == x − first`.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(in crate::tokenize) fn in_range(v: __m128i, first: u8, len: u8) -> __m128i {
        let d = _mm_sub_epi8(v, _mm_set1_epi8(first as i8));
        _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8((len - 1) as i8)), d)
    }

    /// Bits set in a 16-bit value, by byte.
    const POPCOUNT: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u32).count_ones() as u8;
            i += 1;
        }
        t
    };

    /// Writes the positions (offset by `offset`) of the bytes of a block whose white-space-ness
    /// differs from the byte before (`prev`: 1 when the byte before the block is white space)
    /// to `out[n..]`; returns the new `n`. Eight positions are written unconditionally, the
    /// other eight only when the block has more than eight boundaries.
    #[inline(always)]
    fn emit16(space: u32, prev: &mut u32, offset: u32, out: &mut [u32], n: usize) -> usize {
        let mut change = (space ^ ((space << 1) | *prev)) & 0xFFFF;
        *prev = space >> 15;
        let count = usize::from(POPCOUNT[(change & 0xFF) as usize])
            + usize::from(POPCOUNT[(change >> 8) as usize]);
        let slots = &mut out[n..n + 16];
        // The slots past `count` get `offset + 32` (no bit left): wrapping, as that may pass
        // `u32::MAX` where a real boundary does not (`split_bounds` checks the offsets).
        for slot in &mut slots[..8] {
            *slot = offset.wrapping_add(change.trailing_zeros());
            change &= change.wrapping_sub(1);
        }
        if count > 8 {
            for slot in &mut slots[8..] {
                *slot = offset.wrapping_add(change.trailing_zeros());
                change &= change.wrapping_sub(1);
            }
        }
        n + count
    }
}

/// [`split_bounds`] 64 bytes at a time with AVX-512: the block's white-space and non-ASCII
/// masks come from byte compares into mask registers, and each 16 bytes' boundaries are written
/// by `vpcompressd` (the lanes "offset + byte index" compressed to the boundaries') and one
/// 64-byte store, instead of a `tzcnt` per boundary and a branch on whether 16 bytes hold more
/// than eight (mispredicted on runs of short tokens). The last block is a masked load, its
/// bytes past the end counted as white space (no copy into a padded buffer).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask,
        _mm512_loadu_si512, _mm512_maskz_compress_epi32, _mm512_maskz_loadu_epi8,
        _mm512_movepi8_mask, _mm512_set1_epi32, _mm512_set1_epi8, _mm512_setr_epi32,
        _mm512_storeu_si512, _mm512_sub_epi8,
    };

    use super::AsciiSpace;

    /// Whether this processor has every feature [`split_bounds`] enables. (`avx512bw` is
    /// detected from its own CPUID bit, not as implying `avx512f`: a hypervisor may report
    /// one without the other.)
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub fn split_bounds(
        bytes: &[u8],
        set: AsciiSpace,
        base: u32,
        out: &mut [u32],
        at: usize,
    ) -> (usize, bool) {
        let mut n = at;
        // Bit 0 set: "the byte before the first one is white space".
        let mut prev = 1u64;
        let mut high = 0u64;
        // Lane i: the offset of byte i of the current 16 bytes. Lanes past the end may wrap
        // (as the other versions' unused slots do); the boundaries kept do not, as
        // `base + bytes.len()` fits in a `u32`.
        let mut offsets = _mm512_add_epi32(
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm512_set1_epi32(base as i32),
        );
        let mut blocks = bytes.chunks_exact(64);
        for block in &mut blocks {
            let block: &[u8; 64] = block.try_into().expect("64 bytes");
            // SAFETY: `block` is 64 readable bytes; `loadu` takes any alignment.
            let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
            let (space, non_ascii) = classify(v, set);
            high |= non_ascii;
            let change = space ^ ((space << 1) | prev);
            prev = space >> 63;
            for k in 0..4 {
                n = emit16((change >> (16 * k)) as u16, offsets, out, n);
                offsets = _mm512_add_epi32(offsets, _mm512_set1_epi32(16));
            }
        }
        // The rest: a masked load (zeros past the end), those bytes then taken as white space,
        // which closes a token running to the end — also when nothing is left.
        let rest = blocks.remainder();
        let valid = (1u64 << rest.len()) - 1;
        // SAFETY: the mask covers only `rest`'s bytes; masked-off bytes are not accessed.
        let v = unsafe { _mm512_maskz_loadu_epi8(valid, rest.as_ptr().cast()) };
        let (space, non_ascii) = classify(v, set);
        high |= non_ascii & valid;
        let space = space | !valid;
        let change = space ^ ((space << 1) | prev);
        // Only up to the 16 bytes holding the end: each store needs 16 free slots, and the
        // slots are `bytes.len() + 16` past `at`, with at most one boundary per byte before.
        for k in 0..=rest.len() / 16 {
            n = emit16((change >> (16 * k)) as u16, offsets, out, n);
            offsets = _mm512_add_epi32(offsets, _mm512_set1_epi32(16));
        }
        debug_assert!((n - at).is_multiple_of(2));
        (n, high != 0)
    }

    /// The white-space bytes (0x09–0x0D, then 0x1C–0x20 for Python or 0x20 for Perl) and the
    /// bytes over 0x7F of a 64-byte vector, bit i for byte i.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn classify(v: __m512i, set: AsciiSpace) -> (u64, u64) {
        let controls = _mm512_cmple_epu8_mask(
            _mm512_sub_epi8(v, _mm512_set1_epi8(0x09)),
            _mm512_set1_epi8(4),
        );
        let upper = match set {
            AsciiSpace::Python => _mm512_cmple_epu8_mask(
                _mm512_sub_epi8(v, _mm512_set1_epi8(0x1C)),
                _mm512_set1_epi8(4),
            ),
            AsciiSpace::Perl => _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x20)),
        };
        (controls | upper, _mm512_movepi8_mask(v))
    }

    /// Writes the boundaries among 16 bytes (`change`, bit i for byte i; lane i of `offsets`
    /// is its offset) to `out[n..]` with one compress and one store; returns the new `n`.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn emit16(change: u16, offsets: __m512i, out: &mut [u32], n: usize) -> usize {
        let packed = _mm512_maskz_compress_epi32(change, offsets);
        let slots: &mut [u32; 16] = (&mut out[n..n + 16]).try_into().expect("16 slots");
        // SAFETY: `slots` is 64 writable bytes; `storeu` takes any alignment.
        unsafe { _mm512_storeu_si512(slots.as_mut_ptr().cast(), packed) };
        n + change.count_ones() as usize
    }
}

/// Writes the positions (offset by `offset`) of the bytes of one word whose white-space-ness
/// differs from the byte before (`prev`: bit 7 set when the byte before the word is white
/// space), to `out[n..]`; returns the new `n`.
#[inline(always)]
fn emit(space: u64, prev: &mut u64, offset: u32, out: &mut [u32], n: usize) -> usize {
    let mut change = (space ^ ((space << 8) | *prev)) & HI;
    *prev = space >> 56;
    // Bits are only at bit 7 of bytes: shifted to bit 0 they are 0/1 bytes, and a multiply
    // sums them into the top byte (no popcnt in baseline x86-64).
    let count = ((change >> 7).wrapping_mul(LO) >> 56) as usize;
    let slots = &mut out[n..n + 8];
    // The slots past `count` get `offset + 8`: wrapping, as in `sse2::emit16`.
    for slot in &mut slots[..4] {
        *slot = offset.wrapping_add(change.trailing_zeros() / 8);
        change &= change.wrapping_sub(1);
    }
    if count > 4 {
        for slot in &mut slots[4..] {
            *slot = offset.wrapping_add(change.trailing_zeros() / 8);
            change &= change.wrapping_sub(1);
        }
    }
    n + count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// The reference: a byte loop.
    fn naive(bytes: &[u8], set: AsciiSpace) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, &b) in bytes.iter().enumerate() {
            match (set.is_space(b), start) {
                (true, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, bytes.len()));
        }
        out
    }

    type Split = fn(&[u8], AsciiSpace, u32, &mut [u32], usize) -> (usize, bool);

    /// Every version this machine runs — `split_bounds` as dispatched, SSE2 and AVX-512 on
    /// x86-64 (the latter where the processor has it), SWAR — which must agree, boundaries and
    /// non-ASCII flag alike, each given exactly the `bytes.len() + 16` slots it may fill.
    fn fast(bytes: &[u8], set: AsciiSpace) -> Vec<(usize, usize)> {
        let mut first: Option<Vec<u32>> = None;
        for split in versions() {
            let mut out = vec![7u32; 3 + bytes.len() + 16];
            let (end, non_ascii) = split(bytes, set, 100, &mut out, 3);
            assert_eq!(non_ascii, !bytes.is_ascii(), "{bytes:?}");
            let got = out[3..end].to_vec();
            match &first {
                Some(want) => assert_eq!(&got, want, "{bytes:?}"),
                None => first = Some(got),
            }
        }
        first
            .expect("a version")
            .chunks(2)
            .map(|p| (p[0] as usize - 100, p[1] as usize - 100))
            .collect()
    }

    /// Every version of [`split_bounds`] this machine runs.
    fn versions() -> Vec<Split> {
        let mut versions: Vec<Split> = vec![split_bounds, split_bounds_swar];
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is baseline on x86-64.
            versions.push(|b, s, base, out, at| unsafe { sse2::split_bounds(b, s, base, out, at) });
            if avx512::available() {
                // SAFETY: `available` detected every feature the function enables.
                versions.push(|b, s, base, out, at| unsafe {
                    avx512::split_bounds(b, s, base, out, at)
                });
            }
        }
        versions
    }

    /// Every version on every length up to 300, with the line and the `len + 16` output slots
    /// each ending where an unmapped page begins: a load past the line or a store past the
    /// slots faults. Several lines per length (the exhaustive test above covers some lengths
    /// only), and offsets up to the largest `base + len` allowed, where the unused slots wrap.
    #[test]
    fn no_version_reads_or_writes_past_its_slices() {
        let mut line_page = crate::guard_page::GuardedTail::new(512);
        let mut out_page = crate::guard_page::GuardedTail::new(4 * 512);
        let alphabet = b"ab \t\x1c\x0b\x80\xc3\xa9\xff\x00";
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for len in 0..=300usize {
            for sample in 0..16 {
                let content: Vec<u8> = (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect();
                let line = line_page.bytes(&content);
                let at = [0, 3][sample % 2];
                let base = [0, 100, u32::MAX - len as u32][sample % 3];
                for set in [AsciiSpace::Python, AsciiSpace::Perl] {
                    let want: Vec<(u32, u32)> = naive(line, set)
                        .into_iter()
                        .map(|(a, b)| (base + a as u32, base + b as u32))
                        .collect();
                    for split in versions() {
                        let out = out_page.words(at + len + 16, 7);
                        let (end, non_ascii) = split(line, set, base, out, at);
                        assert_eq!(non_ascii, !line.is_ascii(), "{line:?}");
                        let got: Vec<(u32, u32)> =
                            out[at..end].chunks(2).map(|p| (p[0], p[1])).collect();
                        assert_eq!(got, want, "{set:?} base {base} {line:?}");
                        assert!(out[..at].iter().all(|&w| w == 7), "wrote before `at`");
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "offsets past u32::MAX")]
    fn offsets_past_u32_are_refused() {
        let mut out = vec![0; 32];
        split_bounds(b"ab", AsciiSpace::Python, u32::MAX - 1, &mut out, 0);
    }

    #[test]
    fn ascii_sets() {
        for b in 0..=255u8 {
            let py = matches!(b, 0x09..=0x0D | 0x1C..=0x20);
            let perl = matches!(b, 0x09..=0x0D | 0x20);
            assert_eq!(AsciiSpace::Python.is_space(b), py, "{b:#x}");
            assert_eq!(AsciiSpace::Perl.is_space(b), perl, "{b:#x}");
        }
    }

    #[test]
    fn every_byte_in_every_position() {
        // Each byte value at each offset of a word, between and inside tokens, in lines of every
        // length around the word sizes (8, 16 and 64 bytes).
        let lengths = (0..36).chain(60..70).chain(126..131);
        for set in [AsciiSpace::Python, AsciiSpace::Perl] {
            for b in 0..=255u8 {
                for len in lengths.clone() {
                    for at in 0..len {
                        let mut line = vec![b'x'; len];
                        line[at] = b;
                        assert_eq!(fast(&line, set), naive(&line, set), "{b:#x} {len} {at}");
                        let mut line = vec![b' '; len];
                        line[at] = b;
                        assert_eq!(fast(&line, set), naive(&line, set), "{b:#x} {len} {at}");
                    }
                }
            }
        }
    }

    #[test]
    fn many_short_tokens_and_text() {
        let lines: [&[u8]; 8] = [
            b"",
            b" ",
            b"a b c d e f g h i j k l m n o p",
            b"abcdefgh ijklmnop",
            b"  lead and trail  ",
            "caf\u{e9} \u{a0}na\u{ef}ve \u{2014} \u{201c}x\u{201d}".as_bytes(),
            b"tab\there\x0bvt\x0cff\rcr\x1cfs\x1fus\x00nul\x7fdel",
            b"12345678",
        ];
        for set in [AsciiSpace::Python, AsciiSpace::Perl] {
            for line in lines {
                assert_eq!(fast(line, set), naive(line, set), "{line:?}");
            }
        }
        // Pseudo-random bytes drawn from a small alphabet, so that runs of every length occur.
        let alphabet = b"ab \t\x1c\x80\xc3\xa9";
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for len in 0..300 {
            let line: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            for set in [AsciiSpace::Python, AsciiSpace::Perl] {
                assert_eq!(fast(&line, set), naive(&line, set), "{line:?}");
            }
        }
    }
}
