//! sacreBLEU `intl` (`tokenizer_intl.py`, mteval-v14 `--international-tokenization`),
//! `SACREBLEU.md` §2.2, and mteval-v13a.pl's `--international-tokenization` (`MTEVAL.md` §3,
//! the same three substitutions). The passes are one; the character classes are not: sacreBLEU
//! runs them with the Python `regex` module 2026.11.15 (Unicode 17.0, taken from generated
//! tables rather than the `regex` crate's older Unicode data), mteval with Perl 5.36's (Unicode
//! 14.0), where a character assigned since (an emoji of Unicode 15, say) is in no class and
//! stays inside its word.

use super::regexp::as_str;
use super::Buffers;
use crate::unicode::{
    is_number, is_perl_number, is_perl_punct, is_perl_symbol, is_punct, is_symbol,
};

/// The classes `\p{P}`, `\p{S}` and `\p{N}` of one regular-expression engine.
pub(super) trait Classes {
    fn punct(c: char) -> bool;
    fn symbol(c: char) -> bool;
    fn number(c: char) -> bool;
}

/// sacreBLEU's: the `regex` module, Unicode 17.0.
pub(super) enum Regex {}

impl Classes for Regex {
    fn punct(c: char) -> bool {
        is_punct(c)
    }
    fn symbol(c: char) -> bool {
        is_symbol(c)
    }
    fn number(c: char) -> bool {
        is_number(c)
    }
}

/// mteval-v13a.pl's: Perl 5.36, Unicode 14.0.
pub(super) enum Perl {}

impl Classes for Perl {
    fn punct(c: char) -> bool {
        is_perl_punct(c)
    }
    fn symbol(c: char) -> bool {
        is_perl_symbol(c)
    }
    fn number(c: char) -> bool {
        is_perl_number(c)
    }
}

pub(super) fn tokenize<'s, C: Classes>(line: &str, scratch: &'s mut Buffers) -> &'s str {
    let (a, b) = (&mut scratch.a, &mut scratch.b);
    // 1. Punctuation preceded by a non-number: "x . " (both consumed, like re.sub).
    scan2_chars(
        line,
        a,
        |x| !C::number(x),
        C::punct,
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
        C::punct,
        |y| !C::number(y),
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
        if C::symbol(c) {
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
