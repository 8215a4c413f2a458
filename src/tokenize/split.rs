//! Splitting at ASCII white space, eight bytes at a time.
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
/// Returns the index after the last boundary written.
///
/// `out` must have room for `bytes.len() + 16` entries from `at`: up to eight boundaries are
/// stored per word unconditionally (the unused ones are overwritten later), which is what keeps
/// the loop free of branches on the data.
pub fn split_bounds(bytes: &[u8], set: AsciiSpace, base: u32, out: &mut [u32], at: usize) -> usize {
    assert!(
        out.len() >= at + bytes.len() + 16 && u32::try_from(bytes.len()).is_ok(),
        "split_bounds: output too small"
    );
    let mut n = at;
    // Bit 7 of byte 0 set: "the byte before the first one is white space".
    let mut prev = 0x80u64;
    let mut offset = base;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        n = emit(space_bytes(w, set), &mut prev, offset, out, n);
        offset += 8;
    }
    // The rest, padded with spaces: a token running to the end of `bytes` ends there. Also when
    // nothing is left, which closes a token that ends at the last full word.
    let rest = chunks.remainder();
    let mut last = [b' '; 8];
    last[..rest.len()].copy_from_slice(rest);
    n = emit(
        space_bytes(u64::from_le_bytes(last), set),
        &mut prev,
        offset,
        out,
        n,
    );
    debug_assert!((n - at) % 2 == 0);
    n
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
    for slot in &mut slots[..4] {
        *slot = offset + change.trailing_zeros() / 8;
        change &= change.wrapping_sub(1);
    }
    if count > 4 {
        for slot in &mut slots[4..] {
            *slot = offset + change.trailing_zeros() / 8;
            change &= change.wrapping_sub(1);
        }
    }
    n + count
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn fast(bytes: &[u8], set: AsciiSpace) -> Vec<(usize, usize)> {
        let mut out = vec![7u32; 3 + bytes.len() + 16];
        let end = split_bounds(bytes, set, 100, &mut out, 3);
        out[3..end]
            .chunks(2)
            .map(|p| (p[0] as usize - 100, p[1] as usize - 100))
            .collect()
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
        // length around the word size.
        for set in [AsciiSpace::Python, AsciiSpace::Perl] {
            for b in 0..=255u8 {
                for len in 0..20 {
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
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in 0..300 {
            let line: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize]
                })
                .collect();
            for set in [AsciiSpace::Python, AsciiSpace::Perl] {
                assert_eq!(fast(&line, set), naive(&line, set), "{line:?}");
            }
        }
    }
}
