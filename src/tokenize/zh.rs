//! sacreBLEU `zh` (`tokenizer_zh.py`), `SACREBLEU.md` §2.3.

use super::regexp::post_tokenize;
use super::Buffers;
use crate::unicode::{is_zh_char, py_strip};

/// Strips the line, surrounds every "Chinese" code point (sacreBLEU's *effective* ranges, which
/// include General Punctuation etc. because of the 5-hex-digit escape bug, mjpost/sacrebleu#298)
/// with spaces, then applies the 13a post-rules — without 13a's padding and entity handling.
pub(super) fn tokenize<'s>(line: &str, scratch: &'s mut Buffers) -> &'s str {
    let pad = &mut scratch.pad;
    pad.clear();
    for c in py_strip(line).chars() {
        if is_zh_char(c) {
            pad.push(' ');
            pad.push(c);
            pad.push(' ');
        } else {
            pad.push(c);
        }
    }
    post_tokenize(&[&scratch.pad], &mut scratch.a)
}
