//! sacreBLEU 2.6.0 BLEU tokenizers (`13a`, `intl`, `zh`, `char`, `none`).
//!
//! BLEU preprocesses every segment as `lower()` (if asked) → `rstrip` (Python whitespace) →
//! tokenizer → `split()` (reference: `SACREBLEU.md` §2). The tokenizer's output string is only
//! ever used through `split()`, so this module produces the token sequence directly, as spans
//! into one reusable text buffer: no allocation per token or per line once the buffers have grown.

mod char_level;
mod intl;
pub mod mteval;
mod regexp;
mod t13a;
mod zh;

use crate::unicode::{py_lower_into, py_rstrip, py_split};

/// One of sacreBLEU's BLEU tokenizers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tokenizer {
    /// `13a`: mteval-v13a compatible, the sacreBLEU default.
    T13a,
    /// `intl`: mteval-v14 international tokenization (Unicode punctuation/symbol classes).
    Intl,
    /// `zh`: Chinese characters split individually, then the 13a post-rules.
    Zh,
    /// `char`: every non-whitespace code point is a token.
    Char,
    /// `none`: whitespace split only.
    None,
}

impl Tokenizer {
    /// All tokenizers this build implements, by sacreBLEU name.
    pub const NAMES: [&'static str; 5] = ["13a", "intl", "zh", "char", "none"];

    /// Looks a tokenizer up by its sacreBLEU name (`-tok` value).
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        Some(match name {
            "13a" => Tokenizer::T13a,
            "intl" => Tokenizer::Intl,
            "zh" => Tokenizer::Zh,
            "char" => Tokenizer::Char,
            "none" => Tokenizer::None,
            _ => return None,
        })
    }

    /// The name used in signatures (`tok:13a`); equal to the CLI name for these five.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::T13a => "13a",
            Tokenizer::Intl => "intl",
            Tokenizer::Zh => "zh",
            Tokenizer::Char => "char",
            Tokenizer::None => "none",
        }
    }

    /// Tokenizes `line` the way sacreBLEU's BLEU does and replaces the contents of `out` with the
    /// resulting tokens.
    pub fn tokenize(self, line: &str, lowercase: bool, scratch: &mut Scratch, out: &mut Tokens) {
        out.clear();
        let mut lower = std::mem::take(&mut scratch.lower);
        let line = if lowercase {
            lower.clear();
            py_lower_into(line, &mut lower);
            lower.as_str()
        } else {
            line
        };
        let line = py_rstrip(line);
        match self {
            Tokenizer::None => out.extend_split(line),
            Tokenizer::Char => char_level::tokenize(line, out),
            Tokenizer::T13a => out.extend_split(t13a::tokenize(line, &mut scratch.rest)),
            Tokenizer::Zh => out.extend_split(zh::tokenize(line, &mut scratch.rest)),
            Tokenizer::Intl => out.extend_split(intl::tokenize(line, &mut scratch.rest)),
        }
        scratch.lower = lower;
    }

    /// mteval-v13a's normal tokenization of `line` with case preserved, as one string: sacreBLEU's
    /// `13a` without its `rstrip` and final `split()`. multi-bleu-detok.perl splits this on Perl
    /// whitespace, which — unlike Python's `str.split()` — keeps U+001C–U+001F inside tokens.
    pub fn mteval_13a<'s>(line: &str, scratch: &'s mut Scratch) -> &'s str {
        t13a::tokenize(line, &mut scratch.rest)
    }

    /// Convenience form of [`Tokenizer::tokenize`] returning owned tokens (tests, tools).
    pub fn bleu_tokens(self, line: &str, lowercase: bool) -> Vec<String> {
        let mut scratch = Scratch::default();
        let mut tokens = Tokens::default();
        self.tokenize(line, lowercase, &mut scratch, &mut tokens);
        tokens.iter().map(str::to_owned).collect()
    }
}

/// Reusable intermediate buffers of the tokenizers (one per worker thread).
#[derive(Default, Debug)]
pub struct Scratch {
    lower: String,
    rest: Buffers,
}

/// The buffers a tokenizer works in, apart from the lowercased input.
#[derive(Default, Debug)]
struct Buffers {
    pad: String,
    a: Vec<u8>,
    b: Vec<u8>,
}

/// A token sequence: the tokens' text stored back to back, and their spans.
#[derive(Default, Debug, Clone)]
pub struct Tokens {
    text: String,
    ends: Vec<u32>,
}

impl Tokens {
    /// Removes all tokens, keeping the allocations.
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends one token (must be non-empty and free of whitespace to mean anything).
    pub fn push(&mut self, token: &str) {
        self.text.push_str(token);
        self.ends
            .push(u32::try_from(self.text.len()).expect("segment text over 4 GiB"));
    }

    /// Appends the tokens of Python's `s.split()`.
    pub fn extend_split(&mut self, s: &str) {
        for token in py_split(s) {
            self.push(token);
        }
    }

    /// Token `i`.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// The tokens in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.ends.len()).map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(t: Tokenizer, s: &str) -> Vec<String> {
        t.bleu_tokens(s, false)
    }

    #[test]
    fn thirteen_a_documented_consequences() {
        let t = Tokenizer::T13a;
        assert_eq!(toks(t, "1,000.5"), ["1,000.5"]);
        assert_eq!(toks(t, "In 2019."), ["In", "2019", "."]);
        assert_eq!(toks(t, "don't"), ["don't"]);
        assert_eq!(toks(t, "state-of-the-art"), ["state-of-the-art"]);
        assert_eq!(toks(t, "5-6"), ["5", "-", "6"]);
        assert_eq!(toks(t, "a-1"), ["a-1"]);
        assert_eq!(toks(t, "“quoted”"), ["“quoted”"]);
        assert_eq!(toks(t, "a\u{1c}b"), ["a", "b"]);
        assert_eq!(toks(t, "&amp;lt;"), ["<"]);
        assert_eq!(toks(t, "&amp;quot;"), ["&", "quot", ";"]);
        assert_eq!(toks(t, "x<skipped>y"), ["xy"]);
        assert_eq!(toks(t, "Hello, world!"), ["Hello", ",", "world", "!"]);
    }

    #[test]
    fn lowercase_happens_before_entities() {
        assert_eq!(
            Tokenizer::T13a.bleu_tokens("&QUOT;", false),
            ["&", "QUOT", ";"]
        );
        assert_eq!(Tokenizer::T13a.bleu_tokens("&QUOT;", true), ["\""]);
    }

    #[test]
    fn intl_keeps_numbers_and_final_period_quirk() {
        let t = Tokenizer::Intl;
        assert_eq!(toks(t, "In 2019."), ["In", "2019."]);
        assert_eq!(toks(t, "1,5 and 3.14"), ["1,5", "and", "3.14"]);
        assert_eq!(toks(t, "I ❤\u{fe0f} NY"), ["I", "❤", "\u{fe0f}", "NY"]);
        assert_eq!(toks(t, "Hello, world!"), ["Hello", ",", "world", "!"]);
    }

    #[test]
    fn zh_and_char() {
        assert_eq!(toks(Tokenizer::Zh, "我爱你。"), ["我", "爱", "你", "。"]);
        assert_eq!(toks(Tokenizer::Zh, "In 2019."), ["In", "2019."]);
        assert_eq!(toks(Tokenizer::Char, "a b\u{301}"), ["a", "b", "\u{301}"]);
        assert_eq!(toks(Tokenizer::None, " a\u{a0}b "), ["a", "b"]);
    }
}
