//! The "post-tokenizer" shared by sacreBLEU's `13a` and `zh` tokenizers (`SACREBLEU.md` §2.1
//! step 5): four sequential `re.sub` passes.
//!
//! Every pattern character is ASCII and every inserted character is an ASCII space, so the passes
//! run on UTF-8 bytes: a multi-byte character can never start or end a match in a way that differs
//! from Python's code-point scan (its lead byte is a "non-digit", its continuation bytes never
//! match the ASCII-only second classes, and a match never splits it). Keeping the four passes
//! separate and in order mirrors `re.sub`'s non-overlapping, leftmost semantics exactly.

/// The 13a punctuation set surrounded by spaces in pass (a):
/// ASCII 0x20–0x26, 0x28–0x2B, 0x2F, 0x3A–0x40, 0x5B–0x60, 0x7B–0x7E.
const fn build_set() -> [bool; 256] {
    let mut set = [false; 256];
    let mut c = 0x20;
    while c <= 0x7e {
        set[c] =
            matches!(c, 0x20..=0x26 | 0x28..=0x2b | 0x2f | 0x3a..=0x40 | 0x5b..=0x60 | 0x7b..=0x7e);
        c += 1;
    }
    set
}
static SURROUND: [bool; 256] = build_set();

/// Applies passes (a)–(d) to the concatenation of `parts` and returns the result, written to
/// `out`, **up to the amount of white space between tokens**: every caller splits the result on
/// white space (sacreBLEU's final `split()`, mteval's and multi-bleu-detok's Perl `split`), so a
/// run of plain text is copied with its spaces as they are instead of tripled by pass (a), and
/// the tokens are exactly those of the four `re.sub` passes.
///
/// The passes run as a chain of streaming transducers, each holding at most one pending byte:
/// pass (a)'s output is fed byte by byte to pass (b), whose output feeds (c), then (d). This is
/// exactly the composition of the four sequential `re.sub` calls — each stage sees the complete
/// output of the previous one, in order — without materialising the intermediate strings.
pub(super) fn post_tokenize<'o>(parts: &[&str], out: &'o mut Vec<u8>) -> &'o str {
    out.clear();
    out.reserve(parts.iter().map(|p| p.len() + p.len() / 2).sum());
    let mut chain = Chain {
        b: None,
        c: None,
        d: None,
        out,
    };
    for part in parts {
        let bytes = part.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if chain.settled() {
                let run = run_len(&bytes[i..]);
                if run > 0 {
                    chain.inert_run(&bytes[i..i + run]);
                    i += run;
                    continue;
                }
            }
            let byte = bytes[i];
            if SURROUND[byte as usize] {
                chain.pass_b(b' ');
                chain.pass_b(byte);
                chain.pass_b(b' ');
            } else {
                chain.pass_b(byte);
            }
            i += 1;
        }
    }
    chain.finish();
    as_str(out)
}

/// Bytes that can be fed through a settled chain in bulk: bytes that take part in no rule (not
/// surrounded by pass (a), not a digit, `.`, `,` or `-`: letters, `'`, every byte of a
/// multi-byte character) and the space, which pass (a) triples but which, like those, can be
/// neither the first nor the second character of a match in passes (b)–(d) when pending before
/// another such byte.
const fn build_run() -> [bool; 256] {
    let surround = build_set();
    let mut run = [false; 256];
    let mut c = 0;
    while c < 256 {
        run[c] = c == b' ' as usize
            || (!surround[c] && !matches!(c as u8, b'0'..=b'9' | b'.' | b',' | b'-'));
        c += 1;
    }
    run
}
static RUN: [bool; 256] = build_run();

/// The number of [`RUN`] bytes `bytes` starts with.
///
/// Plain text is most of a sentence, so this scan is the tokenizer's inner loop: byte by byte it
/// was a third of 13a's time. On x86-64 it classifies sixteen bytes at a time with SSE2 (part of
/// the baseline, so no detection is needed); elsewhere it goes byte by byte.
#[inline]
fn run_len(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline: every processor this target runs on has
        // it (the same argument as `split.rs`).
        unsafe { sse2::run_len(bytes) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        run_len_bytewise(bytes)
    }
}

/// [`run_len`] byte by byte (the reference form, and the tail shorter than a block).
fn run_len_bytewise(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|&&b| RUN[b as usize]).count()
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        _mm_andnot_si128, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };

    use super::super::split::sse2::{in_range, load};

    /// [`run_len`](super::run_len) sixteen bytes at a time.
    #[target_feature(enable = "sse2")]
    pub(super) fn run_len(bytes: &[u8]) -> usize {
        let mut blocks = bytes.chunks_exact(16);
        let mut len = 0;
        for block in &mut blocks {
            let stops = non_run(block.try_into().expect("16 bytes"));
            if stops != 0 {
                return len + stops.trailing_zeros() as usize;
            }
            len += 16;
        }
        len + super::run_len_bytewise(blocks.remainder())
    }

    /// Bit i set when byte i of the block is not a [`RUN`](super::RUN) byte: 0x21–0x40 except
    /// `'` (0x27), 0x5B–0x60 and 0x7B–0x7E (`build_run`: the punctuation of pass (a) other than
    /// the space, the digits, `.`, `,` and `-`).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn non_run(block: &[u8; 16]) -> u32 {
        let v = load(block);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\'' as i8));
        let stops = _mm_or_si128(
            _mm_andnot_si128(quote, in_range(v, 0x21, 0x20)),
            _mm_or_si128(in_range(v, 0x5B, 6), in_range(v, 0x7B, 4)),
        );
        _mm_movemask_epi8(stops) as u32
    }
}

/// The pending byte of each stage: the candidate first character of its two-character pattern.
struct Chain<'o> {
    b: Option<u8>,
    c: Option<u8>,
    d: Option<u8>,
    out: &'o mut Vec<u8>,
}

impl Chain<'_> {
    /// True when no pending byte can take part in a match with a [`RUN`] byte that follows.
    /// (A run byte pending in (b) can still meet a later `.`, which is why
    /// [`inert_run`](Self::inert_run) keeps the last one pending there.)
    #[inline(always)]
    fn settled(&self) -> bool {
        let quiet = |p: Option<u8>| p.is_none_or(|b| RUN[b as usize]);
        quiet(self.b) && quiet(self.c) && quiet(self.d)
    }

    /// Feeds a run of [`RUN`] bytes through a settled chain. No stage can match (b needs a `.`
    /// or `,` second, c a `.` or `,` first, d a digit first), so everything flows through in
    /// order; bytes pending in (c) and (d) could only ever be passed on unchanged, so they are
    /// written now, and only the last byte stays pending in (b).
    ///
    /// The run is copied as it is: pass (a) would write each of its spaces as three, which only
    /// changes how much white space separates the same tokens (see [`post_tokenize`]). Copying
    /// in bulk is what makes plain text cheap: it is most of a sentence's bytes.
    #[inline]
    fn inert_run(&mut self, run: &[u8]) {
        let (&last, init) = run.split_last().expect("non-empty run");
        for pending in [self.d.take(), self.c.take(), self.b.take()]
            .into_iter()
            .flatten()
        {
            self.out.push(pending);
        }
        self.out.extend_from_slice(init);
        self.b = Some(last);
    }

    /// Pass (b): a period or comma preceded by a non-digit → "x . " (both consumed).
    #[inline(always)]
    fn pass_b(&mut self, y: u8) {
        match self.b.take() {
            None => self.b = Some(y),
            Some(x) if !x.is_ascii_digit() && matches!(y, b'.' | b',') => {
                self.pass_c(x);
                self.pass_c(b' ');
                self.pass_c(y);
                self.pass_c(b' ');
            }
            Some(x) => {
                self.pass_c(x);
                self.b = Some(y);
            }
        }
    }

    /// Pass (c): a period or comma followed by a non-digit → " . x".
    #[inline(always)]
    fn pass_c(&mut self, y: u8) {
        match self.c.take() {
            None => self.c = Some(y),
            Some(x) if matches!(x, b'.' | b',') && !y.is_ascii_digit() => {
                self.pass_d(b' ');
                self.pass_d(x);
                self.pass_d(b' ');
                self.pass_d(y);
            }
            Some(x) => {
                self.pass_d(x);
                self.c = Some(y);
            }
        }
    }

    /// Pass (d): a dash preceded by a digit → "5 - ".
    #[inline(always)]
    fn pass_d(&mut self, y: u8) {
        match self.d.take() {
            None => self.d = Some(y),
            Some(x) if x.is_ascii_digit() && y == b'-' => {
                self.out.extend_from_slice(&[x, b' ', y, b' ']);
            }
            Some(x) => {
                self.out.push(x);
                self.d = Some(y);
            }
        }
    }

    /// End of input: each stage releases its pending byte, in pipeline order.
    fn finish(&mut self) {
        if let Some(x) = self.b.take() {
            self.pass_c(x);
        }
        if let Some(x) = self.c.take() {
            self.pass_d(x);
        }
        if let Some(x) = self.d.take() {
            self.out.push(x);
        }
    }
}

/// `re.sub` with a two-character pattern `[first][second]`, as a separate pass over a buffer:
/// the reference form of one stage of [`post_tokenize`] (used to test the fused chain).
#[cfg(test)]
fn scan2(
    input: &[u8],
    out: &mut Vec<u8>,
    first: impl Fn(u8) -> bool,
    second: impl Fn(u8) -> bool,
    emit: impl Fn(&mut Vec<u8>, u8, u8),
) {
    out.clear();
    let mut i = 0;
    while i < input.len() {
        let x = input[i];
        if i + 1 < input.len() && first(x) && second(input[i + 1]) {
            emit(out, x, input[i + 1]);
            i += 2;
        } else {
            out.push(x);
            i += 1;
        }
    }
}

/// The passes only insert ASCII spaces at character boundaries, so valid UTF-8 stays valid
/// (checked all the same, with the SIMD validator the input reader uses).
pub(super) fn as_str(bytes: &[u8]) -> &str {
    simdutf8::basic::from_utf8(bytes).expect("tokenizer passes keep UTF-8 valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four passes literally, one buffer each (the shape of sacreBLEU's code).
    fn sequential(s: &str) -> String {
        let mut a = Vec::new();
        for &c in s.as_bytes() {
            if SURROUND[c as usize] {
                a.extend_from_slice(&[b' ', c, b' ']);
            } else {
                a.push(c);
            }
        }
        let mut b = Vec::new();
        scan2(
            &a,
            &mut b,
            |x| !x.is_ascii_digit(),
            |y| matches!(y, b'.' | b','),
            |o, x, y| o.extend_from_slice(&[x, b' ', y, b' ']),
        );
        scan2(
            &b,
            &mut a,
            |x| matches!(x, b'.' | b','),
            |y| !y.is_ascii_digit(),
            |o, x, y| o.extend_from_slice(&[b' ', x, b' ', y]),
        );
        scan2(
            &a,
            &mut b,
            |x| x.is_ascii_digit(),
            |y| y == b'-',
            |o, x, y| o.extend_from_slice(&[x, b' ', y, b' ']),
        );
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn run_len_agrees_with_the_table_at_every_offset() {
        // Every byte value, alone and inside runs of letters, at every alignment.
        let mut text = Vec::new();
        for b in 0..=255u8 {
            text.extend_from_slice(b"abcdefghijklmnopqrstu");
            text.push(b);
        }
        for start in 0..text.len() {
            let rest = &text[start..];
            assert_eq!(run_len(rest), run_len_bytewise(rest), "at {start}");
        }
        for b in 0..=255u8 {
            let block = [b; 40];
            assert_eq!(run_len(&block), run_len_bytewise(&block), "byte {b:#x}");
        }
    }

    /// The tokens of a pass output (every caller splits it on white space).
    fn split(s: &str) -> Vec<&str> {
        s.split(' ').filter(|t| !t.is_empty()).collect()
    }

    #[test]
    fn fused_chain_equals_sequential_passes_exhaustively() {
        // Every string of length ≤ 6 over the characters that take part in any rule.
        let alphabet = ['1', '.', ',', '-', 'a', 'b', ' ', '$', 'é'];
        let mut out = Vec::new();
        let mut strings = vec![String::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for s in &strings {
                for c in alphabet {
                    let mut t = s.clone();
                    t.push(c);
                    assert_eq!(
                        split(post_tokenize(&[&t], &mut out)),
                        split(&sequential(&t)),
                        "input {t:?}"
                    );
                    next.push(t);
                }
            }
            strings = next;
        }
    }

    #[test]
    fn documented_cases() {
        let mut out = Vec::new();
        let mut tokens = |s: &str| -> Vec<String> {
            post_tokenize(&[s], &mut out)
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(tokens(" 1,000.5 "), ["1,000.5"]);
        assert_eq!(tokens("x..y"), ["x", ".", ".", "y"]);
        assert_eq!(tokens("5-6"), ["5", "-", "6"]);
        assert_eq!(tokens("a-1"), ["a-1"]);
    }
}
