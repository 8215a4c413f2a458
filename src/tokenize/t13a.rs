//! sacreBLEU `13a` (`tokenizer_13a.py`, mteval-v13a compatible), `SACREBLEU.md` §2.1.

use super::regexp::post_tokenize;
use super::Buffers;

/// Returns the tokenized string (to be whitespace-split by the caller).
pub(super) fn tokenize<'s>(line: &str, scratch: &'s mut Buffers) -> &'s str {
    // Steps 1–3 rarely apply: only pay for them when a trigger character is present.
    let cleaned;
    let line = if memchr::memchr3(b'<', b'\n', b'&', line.as_bytes()).is_some() {
        cleaned = cleanup(line);
        cleaned.as_str()
    } else {
        line
    };
    // Step 4 pads with one space on each side (this is why a final "2019." splits in 13a).
    post_tokenize(&[" ", line, " "], &mut scratch.a)
}

/// Steps 1–3: drop `<skipped>`, join `-\n`, turn `\n` into spaces, and unescape four entities in
/// sacreBLEU's sequential order (so `&amp;lt;` becomes `<`, but `&amp;quot;` stays `&quot;`).
fn cleanup(line: &str) -> String {
    let mut s = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if s.contains('&') {
        s = s
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    s
}
