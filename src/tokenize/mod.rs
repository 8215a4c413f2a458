//! sacreBLEU 2.6.0 BLEU tokenizers (`13a`, `intl`, `zh`, `char`, `none`, `ja-mecab`,
//! `ko-mecab`, `flores101`, `flores200`, `spm`).
//!
//! BLEU preprocesses every segment as `lower()` (if asked) → `rstrip` (Python whitespace) →
//! tokenizer → `split()` (reference: `SACREBLEU.md` §2). The tokenizer's output string is only
//! ever used through `split()`, so this module produces the token sequence directly, as spans
//! into one reusable text buffer: no allocation per token or per line once the buffers have grown.

mod char_level;
pub mod dictionary_cache;
mod intl;
pub mod ja_mecab;
pub mod ko_mecab;
pub mod model_file;
pub mod models;
pub mod mteval;
mod regexp;
pub mod split;
pub mod spm;
mod t13a;
mod zh;

pub use models::{prepare, ModelPaths};
pub use split::AsciiSpace;

use crate::unicode::{has_non_ascii_py_whitespace, py_lower_into, py_rstrip, py_split};

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
    /// `ja-mecab`: MeCab 0.996 with IPADIC (see [`ja_mecab`]; needs [`prepare`]).
    JaMecab,
    /// `flores101`: SentencePiece with the FLORES-101 model (see [`spm`]; needs [`prepare`]).
    Flores101,
    /// `flores200`: SentencePiece with the FLORES-200 model.
    Flores200,
    /// `spm`: sacreBLEU's deprecated name of `flores101` (same model and signature).
    Spm,
    /// `spBLEU-1K`: SentencePiece with the spBLEU-1K model (sacreBLEU 2.6.0's `SPM_MODELS`).
    SpBleu1K,
    /// `ko-mecab`: MeCab (mecab-ko) with mecab-ko-dic, see [`ko_mecab`]. Its dictionary must
    /// have been loaded with [`ko_mecab::install`] first (the command line does so while it
    /// reads the options, where a missing dictionary is a usage error).
    KoMecab,
}

impl Tokenizer {
    /// All tokenizers this build implements, by sacreBLEU name.
    pub const NAMES: [&'static str; 11] = [
        "13a",
        "intl",
        "zh",
        "char",
        "none",
        "ja-mecab",
        "ko-mecab",
        "flores101",
        "flores200",
        "spm",
        "spBLEU-1K",
    ];

    /// Looks a tokenizer up by its sacreBLEU name (`-tok` value).
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        Some(match name {
            "13a" => Tokenizer::T13a,
            "intl" => Tokenizer::Intl,
            "zh" => Tokenizer::Zh,
            "char" => Tokenizer::Char,
            "none" => Tokenizer::None,
            "ja-mecab" => Tokenizer::JaMecab,
            "ko-mecab" => Tokenizer::KoMecab,
            "flores101" => Tokenizer::Flores101,
            "flores200" => Tokenizer::Flores200,
            "spm" => Tokenizer::Spm,
            "spBLEU-1K" => Tokenizer::SpBleu1K,
            _ => return None,
        })
    }

    /// The name on the command line and in settings (`-t ja-mecab`).
    pub fn cli_name(self) -> &'static str {
        match self {
            Tokenizer::T13a => "13a",
            Tokenizer::Intl => "intl",
            Tokenizer::Zh => "zh",
            Tokenizer::Char => "char",
            Tokenizer::None => "none",
            Tokenizer::JaMecab => "ja-mecab",
            Tokenizer::KoMecab => "ko-mecab",
            Tokenizer::Flores101 => "flores101",
            Tokenizer::Flores200 => "flores200",
            Tokenizer::Spm => "spm",
            Tokenizer::SpBleu1K => "spBLEU-1K",
        }
    }

    /// The name used in signatures (`tok:13a`): sacreBLEU's tokenizer `signature()`, which for
    /// MeCab adds the MeCab version and dictionary (`ja-mecab-0.996-IPA`,
    /// `ko-mecab-0.996/ko-0.9.2-KO`) and for `spm` is
    /// `flores101`.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::JaMecab => "ja-mecab-0.996-IPA",
            Tokenizer::KoMecab => ko_mecab::SIGNATURE,
            Tokenizer::Spm => "flores101",
            _ => self.cli_name(),
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
            Tokenizer::Intl => {
                out.extend_split(intl::tokenize::<intl::Regex>(line, &mut scratch.rest))
            }
            Tokenizer::JaMecab => scratch
                .ja
                .get_or_insert_with(|| models::ja_mecab().worker())
                .tokenize(line, out),
            Tokenizer::Flores101 | Tokenizer::Flores200 | Tokenizer::Spm | Tokenizer::SpBleu1K => {
                models::spm(self).tokenize(line, &mut scratch.spm, out)
            }
            Tokenizer::KoMecab => {
                let model = match ko_mecab::installed() {
                    Some(m) => m,
                    None => ko_mecab::install(None, true).unwrap_or_else(|e| {
                        panic!("ko-mecab used before its dictionary was loaded: {e}")
                    }),
                };
                model.tokenize_into(line, &mut scratch.rest.mecab);
                out.extend_split(&scratch.rest.mecab.text);
            }
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

/// Settings carry tokenizers by their sacreBLEU name.
impl serde::Serialize for Tokenizer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.cli_name())
    }
}

impl<'de> serde::Deserialize<'de> for Tokenizer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tokenizer, D::Error> {
        let name = String::deserialize(d)?;
        Tokenizer::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown tokenizer '{name}'")))
    }
}

/// Reusable intermediate buffers of the tokenizers (one per worker thread).
#[derive(Default, Debug)]
pub struct Scratch {
    lower: String,
    rest: Buffers,
    /// The thread's ja-mecab lattice, made on first use.
    ja: Option<ja_mecab::Worker>,
    /// The thread's SentencePiece buffers.
    spm: spm::Scratch,
}

/// The buffers a tokenizer works in, apart from the lowercased input.
#[derive(Default, Debug)]
struct Buffers {
    pad: String,
    a: Vec<u8>,
    b: Vec<u8>,
    mecab: ko_mecab::Scratch,
}

/// A token sequence: the tokens' text and the byte span of each token in it.
///
/// Spans rather than tokens stored back to back, so that a whitespace split copies its line once
/// instead of once per token. `bounds[..2 * len]` holds start, end, start, end, …; the buffer is
/// kept longer than that (see [`split::split_bounds`], which writes ahead). Once anything has
/// been appended, `text` starts and ends with 8 NUL bytes (`PAD`) that belong to no token, so
/// that 8 bytes can be loaded at any token's start and before any token's end ([`Tokens::key`]).
#[derive(Default)]
pub struct Tokens {
    text: String,
    bounds: Vec<u32>,
    /// Number of valid entries of `bounds` (twice the number of tokens).
    used: usize,
}

impl Clone for Tokens {
    /// A compact copy: only the valid bounds, not the room a split writes ahead into (some
    /// metrics keep their segments' tokens, as NIST does for its corpus-wide table).
    fn clone(&self) -> Tokens {
        Tokens {
            text: self.text.clone(),
            bounds: self.bounds[..self.used].to_vec(),
            used: self.used,
        }
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Bytes of padding at each end of [`Tokens::text`] (none while it is empty).
const PAD: usize = 8;

/// What identifies a token cheaply: its first 8 bytes and, if it is longer than 8 bytes, its
/// last 8 (else 0), as little-endian words of the zero-padded bytes, and its length. Two tokens
/// of at most [`TokenKey::EXACT`] bytes are equal exactly when their keys are; longer ones also
/// need their bytes compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenKey {
    pub head: u64,
    pub tail: u64,
    pub len: u32,
}

impl TokenKey {
    /// Tokens up to this many bytes are identified by their key alone.
    pub const EXACT: u32 = 16;
}

/// `TAIL_MASK[n.min(9)]`: all ones when a token of `n` bytes has a tail word (more than 8
/// bytes), else 0. A load, where `u64::from(n > 8).wrapping_neg()` let the optimizer branch on
/// the length (and `black_box` around it cost a store and a reload per token).
const TAIL_MASK: [u64; 10] = [0, 0, 0, 0, 0, 0, 0, 0, 0, u64::MAX];

/// `HEAD_MASK[n]`: the mask of the low `n` bytes of a word.
const HEAD_MASK: [u64; 9] = [
    0,
    0xFF,
    0xFFFF,
    0xFF_FFFF,
    0xFFFF_FFFF,
    0xFF_FFFF_FFFF,
    0xFFFF_FFFF_FFFF,
    0xFF_FFFF_FFFF_FFFF,
    u64::MAX,
];

impl Tokens {
    /// Removes all tokens, keeping the allocations.
    pub fn clear(&mut self) {
        self.text.clear();
        self.used = 0;
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.used / 2
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Appends `s` to the text (between the paddings); returns its offset. Panics past 4 GiB
    /// (spans are `u32`).
    fn append_text(&mut self, s: &str) -> u32 {
        if self.text.is_empty() {
            self.text.push_str("\0\0\0\0\0\0\0\0");
        } else {
            self.text.truncate(self.text.len() - PAD);
        }
        let base = self.text.len();
        self.text.push_str(s);
        self.text.push_str("\0\0\0\0\0\0\0\0");
        assert!(
            u32::try_from(self.text.len()).is_ok(),
            "segment text over 4 GiB"
        );
        base as u32
    }

    /// Makes room for `extra` more entries of `bounds` (past `used`).
    fn reserve_bounds(&mut self, extra: usize) {
        let need = self.used + extra;
        if self.bounds.len() < need {
            self.bounds.resize(need.max(2 * self.bounds.len()), 0);
        }
    }

    /// Appends one token (must be non-empty and free of whitespace to mean anything).
    pub fn push(&mut self, token: &str) {
        let start = self.append_text(token);
        self.reserve_bounds(2);
        self.bounds[self.used] = start;
        self.bounds[self.used + 1] = start + token.len() as u32;
        self.used += 2;
    }

    /// Splits every token `i` for which `at(token)` is `Some(k)` (`0 < k < len`, on a character
    /// boundary) into `token[..k]` and `token[k..]`, in place: only spans change, no text is
    /// copied (chrF++ splitting punctuation off words after a whitespace split).
    pub fn split_each(&mut self, mut at: impl FnMut(&str) -> Option<usize>) {
        let n = self.used;
        // The spans move to `2n..3n` first, then are written back from 0: the span read at
        // `2n + j` (j even, j < n) becomes at most two, written below `2j + 4`, which stays
        // below the next one read, at `2n + j + 2`.
        self.reserve_bounds(2 * n);
        self.bounds.copy_within(0..n, 2 * n);
        let mut w = 0;
        for j in (0..n).step_by(2) {
            let (start, end) = (self.bounds[2 * n + j], self.bounds[2 * n + j + 1]);
            let token = &self.text[start as usize..end as usize];
            match at(token) {
                Some(k) => {
                    assert!(
                        0 < k && k < token.len() && token.is_char_boundary(k),
                        "split of {token:?} at {k}"
                    );
                    let mid = start + k as u32;
                    self.bounds[w..w + 4].copy_from_slice(&[start, mid, mid, end]);
                    w += 4;
                }
                None => {
                    self.bounds[w..w + 2].copy_from_slice(&[start, end]);
                    w += 2;
                }
            }
        }
        self.used = w;
    }

    /// Appends the tokens of Python's `s.split()`.
    pub fn extend_split(&mut self, s: &str) {
        self.extend_split_unicode(s, AsciiSpace::Python);
    }

    /// Appends the tokens of Python's `s.lower().split()`, lowercasing into `lower` (a buffer
    /// the caller reuses): NLTK's metrics fed `--lowercase`d text.
    pub fn extend_split_lowercased(&mut self, s: &str, lower: &mut String) {
        lower.clear();
        py_lower_into(s, lower);
        self.extend_split(lower);
    }

    /// Appends the tokens of Perl's `split` on `\s` over a character string: Unicode
    /// `White_Space`, which is Python's white space without U+001C–U+001F (mteval-v13a.pl,
    /// multi-bleu-detok.perl).
    pub fn extend_split_perl(&mut self, s: &str) {
        self.extend_split_unicode(s, AsciiSpace::Perl);
    }

    /// Splits at the ASCII white space `set` sixteen bytes at a time, and again with the
    /// character splitter of that language only when `s` holds non-ASCII white space (U+00A0
    /// and friends: the same characters for Python and Perl; the ASCII split told us whether to
    /// look).
    fn extend_split_unicode(&mut self, s: &str, set: AsciiSpace) {
        let before = self.used;
        let non_ascii = self.split_ascii_into(s, set);
        if non_ascii && has_non_ascii_py_whitespace(s) {
            self.used = before;
            match set {
                AsciiSpace::Python => py_split(s).for_each(|token| self.push(token)),
                AsciiSpace::Perl => mteval::perl_split(s).for_each(|token| self.push(token)),
            }
        }
    }

    /// Appends the maximal runs of `s` free of the ASCII white space `set` (non-ASCII
    /// characters never separate tokens here).
    pub fn extend_split_ascii(&mut self, s: &str, set: AsciiSpace) {
        self.split_ascii_into(s, set);
    }

    /// [`extend_split_ascii`](Self::extend_split_ascii); returns whether `s` has a character
    /// outside ASCII.
    fn split_ascii_into(&mut self, s: &str, set: AsciiSpace) -> bool {
        let base = self.append_text(s);
        self.reserve_bounds(s.len() + 16);
        let (used, non_ascii) =
            split::split_bounds(s.as_bytes(), set, base, &mut self.bounds, self.used);
        self.used = used;
        non_ascii
    }

    fn span(&self, i: usize) -> (usize, usize) {
        assert!(2 * i < self.used, "token {i} of {}", self.len());
        (self.bounds[2 * i] as usize, self.bounds[2 * i + 1] as usize)
    }

    /// Token `i`.
    pub fn get(&self, i: usize) -> &str {
        let (start, end) = self.span(i);
        &self.text[start..end]
    }

    /// Token `i` as bytes (no character-boundary checks: for hashing and comparing).
    pub fn get_bytes(&self, i: usize) -> &[u8] {
        let (start, end) = self.span(i);
        &self.text.as_bytes()[start..end]
    }

    /// The tokens in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Token `i` with its [`TokenKey`]: two 8-byte loads thanks to the padding, and masks
    /// instead of branches on the length.
    #[inline(always)]
    pub fn key(&self, i: usize) -> (TokenKey, &[u8]) {
        let text = self.text.as_bytes();
        let (start, end) = (self.bounds[2 * i] as usize, self.bounds[2 * i + 1] as usize);
        let token = &text[start..end];
        let len = token.len();
        let head = u64::from_le_bytes(text[start..start + 8].try_into().expect("8 bytes"));
        let tail = u64::from_le_bytes(text[end - 8..end].try_into().expect("8 bytes"));
        let key = TokenKey {
            head: head & HEAD_MASK[len.min(8)],
            // A mask from a table, not a branch on the length (as good as random).
            tail: tail & TAIL_MASK[len.min(9)],
            len: len as u32,
        };
        (key, token)
    }

    /// The [`TokenKey`]s of the tokens in order (see [`key`](Self::key); the bytes of a long
    /// token are [`get_bytes`](Self::get_bytes) when needed). Cheaper than calling `key` for
    /// each index: no index into the spans to check, and no slice of the token made.
    #[inline(always)]
    pub fn keys(&self) -> impl ExactSizeIterator<Item = TokenKey> + '_ {
        let text = self.text.as_bytes();
        self.bounds[..self.used].chunks_exact(2).map(move |span| {
            let (start, end) = (span[0] as usize, span[1] as usize);
            let len = end.wrapping_sub(start);
            let head = u64::from_le_bytes(text[start..start + 8].try_into().expect("8 bytes"));
            let tail = u64::from_le_bytes(text[end - 8..end].try_into().expect("8 bytes"));
            TokenKey {
                head: head & HEAD_MASK[len.min(8)],
                // A mask from a table, not a branch on the length (as good as random).
                tail: tail & TAIL_MASK[len.min(9)],
                len: len as u32,
            }
        })
    }

    /// The tokens in order, as bytes.
    pub fn iter_bytes(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        let text = self.text.as_bytes();
        self.bounds[..self.used]
            .chunks_exact(2)
            .map(move |p| &text[p[0] as usize..p[1] as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(t: Tokenizer, s: &str) -> Vec<String> {
        t.bleu_tokens(s, false)
    }

    #[test]
    fn extend_split_is_python_split_and_extend_split_perl_perl_split() {
        // The eight-byte splitter with its Unicode fallback against the reference splitter, on
        // lines of every length around the word size, with ASCII, control and Unicode spaces.
        let pieces = [
            "a",
            "bb",
            " ",
            "  ",
            "\t",
            "\x0b",
            "\x1c",
            "\x1f",
            "\r",
            "\u{a0}",
            "\u{2003}",
            "\u{3000}",
            "\u{85}",
            "é",
            "“",
            "日本",
            "\0",
            "x\u{200b}y",
            "abcdefgh",
        ];
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        let mut tokens = Tokens::default();
        for len in 0..400 {
            let line: String = (0..len % 40)
                .map(|_| pieces[rng.below(pieces.len())])
                .collect();
            tokens.clear();
            tokens.extend_split(&line);
            let expected: Vec<&str> = py_split(&line).collect();
            assert_eq!(tokens.iter().collect::<Vec<_>>(), expected, "{line:?}");
            // Appending to a non-empty sequence, and the byte view.
            tokens.extend_split(&line);
            assert_eq!(tokens.len(), 2 * expected.len());
            for (i, t) in tokens.iter_bytes().enumerate() {
                assert_eq!(t, expected[i % expected.len().max(1)].as_bytes());
            }
            // Perl's split (mteval, multi-bleu-detok): U+001C–U+001F stay inside tokens.
            tokens.clear();
            tokens.extend_split_perl(&line);
            let perl: Vec<&str> = mteval::perl_split(&line).collect();
            assert_eq!(tokens.iter().collect::<Vec<_>>(), perl, "{line:?}");
        }
    }

    #[test]
    fn clones_are_compact_and_equal() {
        let mut t = Tokens::default();
        t.extend_split(&"word ".repeat(100));
        t.clear();
        t.extend_split("a bb  ccc");
        let c = t.clone();
        assert_eq!(c.bounds.len(), 6, "no write-ahead room is copied");
        assert_eq!(c.iter().collect::<Vec<_>>(), ["a", "bb", "ccc"]);
        assert_eq!(format!("{c:?}"), r#"["a", "bb", "ccc"]"#);
        let mut c = c;
        c.extend_split("dddd e");
        c.push("f");
        assert_eq!(
            c.iter().collect::<Vec<_>>(),
            ["a", "bb", "ccc", "dddd", "e", "f"]
        );
        assert_eq!(c.key(3).1, b"dddd");
    }

    #[test]
    fn token_keys_identify_short_tokens() {
        let mut t = Tokens::default();
        let words = [
            "",
            "a",
            "a\0",
            "\0a",
            "ab",
            "abcdefgh",
            "abcdefgh\0",
            "abcdefghi",
            "bbcdefghi",
            "abcdefghijklmnop",
            "abcdefghijklmnoq",
            "Abcdefghijklmnop",
            "abcdefghijklmnopq",
        ];
        for w in words {
            t.push(w);
        }
        t.extend_split("abcdefghi ab");
        for i in 0..t.len() {
            let (key, bytes) = t.key(i);
            assert_eq!(bytes, t.get_bytes(i));
            assert_eq!(key.len as usize, bytes.len());
            for j in 0..t.len() {
                let (other, other_bytes) = t.key(j);
                if bytes.len() <= TokenKey::EXACT as usize {
                    assert_eq!(key == other, bytes == other_bytes, "{i} {j}");
                } else if bytes == other_bytes {
                    assert_eq!(key, other);
                }
            }
        }
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
