//! sacreBLEU `char` (`tokenizer_char.py`), `SACREBLEU.md` §2.4: the code points joined by spaces,
//! so after `split()` every non-whitespace code point is a token of its own (combining marks,
//! ZWJ and variation selectors included). This is what reproduces the official WMT22 en-ja BLEU.

use super::Tokens;
use crate::unicode::is_py_whitespace;

pub(super) fn tokenize(line: &str, out: &mut Tokens) {
    let mut buf = [0u8; 4];
    for c in line.chars() {
        if !is_py_whitespace(c) {
            out.push(c.encode_utf8(&mut buf));
        }
    }
}
