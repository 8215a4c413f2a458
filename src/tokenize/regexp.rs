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
        set[c] = matches!(c, 0x20..=0x26 | 0x28..=0x2b | 0x2f | 0x3a..=0x40 | 0x5b..=0x60 | 0x7b..=0x7e);
        c += 1;
    }
    set
}
static SURROUND: [bool; 256] = build_set();

/// Applies passes (a)–(d) to `s` and returns the result, which lives in `b` (`a` is scratch).
/// The final `normalize` (whitespace split) is left to the caller, which splits into tokens.
pub(super) fn post_tokenize<'b>(s: &str, a: &mut Vec<u8>, b: &'b mut Vec<u8>) -> &'b str {
    // Pass (a): surround every character of the set with spaces.
    a.clear();
    a.reserve(s.len() + s.len() / 2);
    for &c in s.as_bytes() {
        if SURROUND[c as usize] {
            a.extend_from_slice(&[b' ', c, b' ']);
        } else {
            a.push(c);
        }
    }
    // Pass (b): a period or comma preceded by a non-digit: "x . " (the period/comma is consumed).
    scan2(a, b, |x| !x.is_ascii_digit(), |y| matches!(y, b'.' | b','), |o, x, y| {
        o.extend_from_slice(&[x, b' ', y, b' ']);
    });
    // Pass (c): a period or comma followed by a non-digit: " . x".
    scan2(b, a, |x| matches!(x, b'.' | b','), |y| !y.is_ascii_digit(), |o, x, y| {
        o.extend_from_slice(&[b' ', x, b' ', y]);
    });
    // Pass (d): a dash preceded by a digit: "5 - ".
    scan2(a, b, |x| x.is_ascii_digit(), |y| y == b'-', |o, x, y| {
        o.extend_from_slice(&[x, b' ', y, b' ']);
    });
    as_str(b)
}

/// `re.sub` with a two-character pattern `[first][second]`: scan left to right; on a match emit
/// the replacement and continue after the second character, otherwise copy one byte.
#[inline]
pub(super) fn scan2(
    input: &[u8],
    out: &mut Vec<u8>,
    first: impl Fn(u8) -> bool,
    second: impl Fn(u8) -> bool,
    emit: impl Fn(&mut Vec<u8>, u8, u8),
) {
    out.clear();
    out.reserve(input.len() + input.len() / 4);
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

/// The passes only insert ASCII spaces at character boundaries, so valid UTF-8 stays valid.
pub(super) fn as_str(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("tokenizer passes keep UTF-8 valid")
}
