//! sacreBLEU `intl` (`tokenizer_intl.py`, mteval-v14 `--international-tokenization`),
//! `SACREBLEU.md` §2.2. Character classes are those of the Python `regex` module 2026.11.15
//! (Unicode 17.0), taken from generated tables rather than the `regex` crate's older Unicode data.

use super::regexp::as_str;
use super::Buffers;
use crate::unicode::{is_number, is_punct, is_symbol};

pub(super) fn tokenize<'s>(line: &str, scratch: &'s mut Buffers) -> &'s str {
    let (a, b) = (&mut scratch.a, &mut scratch.b);
    // 1. Punctuation preceded by a non-number: "x . " (both consumed, like re.sub).
    scan2_chars(
        line,
        a,
        |x| !is_number(x),
        is_punct,
        |o, x, y| {
            push(o, x);
            o.push(b' ');
            push(o, y);
            o.push(b' ');
        },
    );
    // 2. Punctuation followed by a non-number: " . x".
    scan2_chars(
        as_str(a),
        b,
        is_punct,
        |y| !is_number(y),
        |o, x, y| {
            o.push(b' ');
            push(o, x);
            o.push(b' ');
            push(o, y);
        },
    );
    // 3. Surround every symbol with spaces.
    a.clear();
    for c in as_str(b).chars() {
        if is_symbol(c) {
            a.push(b' ');
            push(a, c);
            a.push(b' ');
        } else {
            push(a, c);
        }
    }
    as_str(a)
}

#[inline]
fn push(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `re.sub` with a pattern of two single-character classes, on code points.
fn scan2_chars(
    input: &str,
    out: &mut Vec<u8>,
    first: impl Fn(char) -> bool,
    second: impl Fn(char) -> bool,
    emit: impl Fn(&mut Vec<u8>, char, char),
) {
    out.clear();
    out.reserve(input.len() + input.len() / 4);
    let mut chars = input.chars().peekable();
    while let Some(x) = chars.next() {
        if first(x) {
            if let Some(&y) = chars.peek() {
                if second(y) {
                    emit(out, x, y);
                    chars.next();
                    continue;
                }
            }
        }
        push(out, x);
    }
}
