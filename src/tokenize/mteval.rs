//! mteval-v13a.pl's own tokenization, as its scorer sees a plain-text line wrapped verbatim in
//! one `<seg>` (`MTEVAL.md` §1.1–§3): the tokens `nist` and `mteval-bleu` count.
//!
//! Three things separate it from sacreBLEU's `13a`/`intl` (which share the regex passes, reused
//! here):
//!
//! * **The SGML reader collapses white space first.** Every run of Perl white space inside a
//!   `<doc>` becomes one space before the tokenizer runs, so the "hyphen + newline" joining rules
//!   (`-\n` in the normal tokenizer, `-` + U+2028 in the international one) can never fire.
//!   A JSONL string may carry `\n` or U+2028; collapsing only then keeps the fast path for the
//!   usual line.
//! * **Case folding is mteval's:** without `-c` the normal tokenizer lowercases ASCII `A–Z` only,
//!   *after* entity decoding (so `&QUOT;` is never decoded), and the international tokenizer uses
//!   Perl's `lc`: the full Unicode 14.0 lowercase mapping per code point, without the Greek
//!   final-sigma rule that CPython's `str.lower()` applies.
//! * **Tokens are split on Perl white space** (Unicode `White_Space`), which — unlike Python's
//!   `str.split()` — keeps U+001C–U+001F inside tokens.

use super::{intl, regexp::post_tokenize, Buffers, Tokens};
use crate::unicode::{is_py_whitespace, py_lower_into};

/// Perl's `\s` on character strings: Unicode `White_Space` (CPython's whitespace minus
/// U+001C–U+001F). mteval collapses and splits on it.
#[must_use]
#[inline]
pub fn is_perl_whitespace(c: char) -> bool {
    is_py_whitespace(c) && !('\u{1c}'..='\u{1f}').contains(&c)
}

/// Which of mteval-v13a's tokenizations, with which options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MtevalTokenizer {
    /// `--international-tokenization` (Unicode punctuation and symbol classes).
    pub international: bool,
    /// `-c`: keep case (no lowercasing).
    pub case_sensitive: bool,
    /// `-e` (international tokenizer only): a space around every non-ASCII character.
    pub split_non_ascii: bool,
}

/// Reusable buffers of [`MtevalTokenizer::tokenize`] (one per worker thread).
#[derive(Default, Debug)]
pub struct MtevalScratch {
    collapsed: String,
    cleaned: String,
    lowered: String,
    passes: Buffers,
}

impl MtevalTokenizer {
    /// The tokenizer's name in signatures: `13a` (mteval's normal tokenization, which sacreBLEU
    /// calls 13a) or `intl`.
    pub fn name(&self) -> &'static str {
        if self.international {
            "intl"
        } else {
            "13a"
        }
    }

    /// Replaces the contents of `out` with the tokens mteval-v13a.pl scores for `line`.
    pub fn tokenize(&self, line: &str, scratch: &mut MtevalScratch, out: &mut Tokens) {
        out.clear();
        let MtevalScratch {
            collapsed,
            cleaned,
            lowered,
            passes,
        } = scratch;
        let mut text = line;
        // The SGML reader's white-space collapse: only `\n` and U+2028 could change the tokens
        // (they are what the joining rules look for); every other white space character is
        // a non-digit, non-punctuation separator either way.
        if text.contains(['\n', '\u{2028}']) {
            collapse_perl_whitespace(text, collapsed);
            text = collapsed;
        }
        if text.contains(['<', '&']) {
            cleanup(text, self.international, cleaned);
            text = cleaned;
        }
        let tokenized = if self.international {
            if !self.case_sensitive
                && (!text.is_ascii() || text.bytes().any(|b| b.is_ascii_uppercase()))
            {
                lowered.clear();
                perl_lc_into(text, lowered);
                text = lowered;
            }
            if self.split_non_ascii && !text.is_ascii() {
                let mut spaced = String::with_capacity(text.len() * 2);
                for c in text.chars() {
                    if c.is_ascii() {
                        spaced.push(c);
                    } else {
                        spaced.push(' ');
                        spaced.push(c);
                        spaced.push(' ');
                    }
                }
                *lowered = spaced;
                text = lowered;
            }
            intl::tokenize::<intl::Perl>(text, passes)
        } else {
            if !self.case_sensitive && text.bytes().any(|b| b.is_ascii_uppercase()) {
                lowered.clear();
                lowered.push_str(text);
                lowered.make_ascii_lowercase();
                text = lowered;
            }
            // Step 5 pads the line with one space on each side; steps 7–10 are sacreBLEU's 13a
            // passes, byte for byte.
            post_tokenize(&[" ", text, " "], &mut passes.a)
        };
        out.extend_split_perl(tokenized);
    }

    /// Convenience form of [`tokenize`](Self::tokenize) returning owned tokens (tests, tools).
    pub fn tokens(&self, line: &str) -> Vec<String> {
        let mut scratch = MtevalScratch::default();
        let mut tokens = Tokens::default();
        self.tokenize(line, &mut scratch, &mut tokens);
        tokens.iter().map(str::to_owned).collect()
    }
}

/// Replaces every run of Perl white space by one space (mteval's SGML reader, per `<doc>`).
fn collapse_perl_whitespace(s: &str, out: &mut String) {
    out.clear();
    let mut in_space = false;
    for c in s.chars() {
        if is_perl_whitespace(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
}

/// Tokenizer steps 1–4: delete `<skipped>` (case-sensitive), then decode the entities in
/// mteval's order, one whole-string pass each (so `&amp;lt;` becomes `<` but `&amp;quot;` stays
/// `&quot;`). The international tokenizer also decodes `&apos;`. The joining rules of steps 2–3
/// are left out: after the white-space collapse there is no `\n` or U+2028 left for them.
fn cleanup(s: &str, international: bool, out: &mut String) {
    let mut t = s.replace("<skipped>", "");
    if t.contains('&') {
        t = t
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
        if international {
            t = t.replace("&apos;", "'");
        }
    }
    *out = t;
}

/// Perl's `lc`: the full lowercase mapping of every code point on its own. This is CPython's
/// `str.lower()` (same Unicode 14.0 data, `İ` → `i̇` included) except for the context-dependent
/// final sigma: Perl always maps `Σ` to `σ`, Python gives `ς` at the end of a word.
pub fn perl_lc_into(s: &str, out: &mut String) {
    let mut pieces = s.split('Σ');
    if let Some(first) = pieces.next() {
        py_lower_into(first, out);
    }
    for piece in pieces {
        out.push('σ');
        py_lower_into(piece, out);
    }
}

/// Perl `split ' '`-style: the maximal runs of non-[`is_perl_whitespace`] characters.
pub fn perl_split(s: &str) -> impl Iterator<Item = &str> + '_ {
    s.split(is_perl_whitespace).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(international: bool, case_sensitive: bool, s: &str) -> Vec<String> {
        MtevalTokenizer {
            international,
            case_sensitive,
            split_non_ascii: false,
        }
        .tokens(s)
    }

    #[test]
    fn normal_tokenizer_documented_examples() {
        // MTEVAL.md §2 (with -c).
        let t = |s| tok(false, true, s);
        assert_eq!(t("1,000.50"), ["1,000.50"]);
        assert_eq!(t("a.b"), ["a", ".", "b"]);
        assert_eq!(t("b.1"), ["b", ".", "1"]);
        assert_eq!(t("5."), ["5", "."]);
        assert_eq!(t("1--2"), ["1", "-", "-2"]);
        assert_eq!(t("$100"), ["$", "100"]);
        assert_eq!(t("€50"), ["€50"]);
        assert_eq!(t("&amp;quot;"), ["&", "quot", ";"]);
        assert_eq!(t("&amp;lt;"), ["<"]);
        assert_eq!(t("x<skipped>y"), ["xy"]);
    }

    #[test]
    fn normal_tokenizer_folds_ascii_only_after_entities() {
        assert_eq!(tok(false, false, "ÜBER Straße"), ["Über", "straße"]);
        assert_eq!(tok(false, false, "&QUOT;"), ["&", "quot", ";"]);
        assert_eq!(tok(false, true, "&quot;"), ["\""]);
    }

    #[test]
    fn white_space_is_perls() {
        // U+001C is not Perl white space: it stays inside the token.
        assert_eq!(tok(false, true, "a\u{1c}b c"), ["a\u{1c}b", "c"]);
        // The SGML reader's collapse: a hyphen before a newline is not joined.
        assert_eq!(tok(false, true, "a-\nb"), ["a-", "b"]);
        assert_eq!(tok(true, true, "a-\u{2028}b"), ["a", "-", "b"]);
        assert_eq!(tok(false, true, " \t "), Vec::<String>::new());
    }

    #[test]
    fn international_tokenizer() {
        assert_eq!(
            tok(true, true, "It happened in 2020."),
            ["It", "happened", "in", "2020."]
        );
        assert_eq!(tok(true, true, "a-b 3-4"), ["a", "-", "b", "3-4"]);
        assert_eq!(tok(true, true, "COVID-19"), ["COVID", "-", "19"]);
        assert_eq!(tok(true, false, "ΣΟΣ ΟΔΟΣ"), ["σοσ", "οδοσ"]);
        assert_eq!(tok(true, true, "it&apos;s"), ["it", "'", "s"]);
    }

    /// Regression: the international passes took the `regex` module's Unicode 17.0 classes, so
    /// characters Perl 5.36 (Unicode 14.0) has not assigned were split off as symbols or
    /// punctuation where mteval-v13a.pl keeps them in the word (`a🩵b` scored as `a 🩵 b`).
    #[test]
    fn international_classes_are_perls_unicode_14() {
        // Symbols and punctuation assigned in Unicode 15–17, then one of 14.0 of each.
        for c in [
            '\u{1FA75}',
            '\u{1F6DC}',
            '\u{2FFC}',
            '\u{31E4}',
            '\u{11F43}',
            '\u{1E5FF}',
            '\u{1F7D9}',
            '\u{1FAE8}',
            '\u{2E60}',
        ] {
            let word = format!("a{c}b");
            assert_eq!(tok(true, true, &word), [word.as_str()], "U+{:X}", c as u32);
            assert_ne!(
                crate::tokenize::Tokenizer::Intl.bleu_tokens(&word, false),
                [word.as_str()],
                "sacreBLEU's intl (Unicode 17.0) splits U+{:X}",
                c as u32
            );
        }
        assert_eq!(tok(true, true, "a\u{1F600}b"), ["a", "\u{1F600}", "b"]);
        assert_eq!(tok(true, true, "a\u{2E52}b"), ["a", "\u{2E52}", "b"]);
        // U+0DE6 (Sinhala digit zero, 7.0) is a number: no split before the period.
        assert_eq!(tok(true, true, "\u{DE6}."), ["\u{DE6}."]);
        // U+10D40 (Garay digit zero, 16.0) is not: the period is split off, as from a letter.
        assert_eq!(tok(true, true, "\u{10D40}."), ["\u{10D40}", "."]);
        assert_eq!(
            crate::tokenize::Tokenizer::Intl.bleu_tokens("\u{10D40}.", false),
            ["\u{10D40}."]
        );
    }
}
