//! Fuzz target: every tokenizer — sacreBLEU's five built-in ones (with and without
//! lowercasing) and mteval-v13a's (normal and international, case kept or folded, `-e`).
//!
//! Input: one flag byte, then text (invalid UTF-8 replaced, as `--invalid-utf8 lossy` does).
//! Besides "no panic", checks what every caller relies on: tokens are non-empty and contain no
//! white space of the splitting language (Python `str.split()`, Perl `split`); reusing a worker's
//! scratch buffers after another line gives the same tokens as fresh buffers; `char` yields one
//! token per non-space code point; the fast whitespace splitters equal the plain ones.

#![no_main]

use bleu_stream::tokenize::mteval::{is_perl_whitespace, MtevalScratch, MtevalTokenizer};
use bleu_stream::tokenize::{AsciiSpace, Scratch, Tokenizer, Tokens};
use bleu_stream::unicode::{is_py_whitespace, py_rstrip, py_split};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    // A previous line, for the scratch-reuse check: the text's second half.
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    let previous = &text[cut..];
    let lowercase = flags & 1 == 1;

    // The tokenizers that need no dictionary or model file (ja-mecab, ko-mecab and the
    // SentencePiece ones have their own tests against their reference tools).
    for name in ["13a", "intl", "zh", "char", "none"] {
        let tok = Tokenizer::from_name(name).expect("a built-in tokenizer");
        assert_eq!(tok.name(), name);
        let fresh = tok.bleu_tokens(&text, lowercase);
        for t in &fresh {
            assert!(!t.is_empty(), "{name}: empty token");
            assert!(
                !t.chars().any(is_py_whitespace),
                "{name}: white space in token {t:?}"
            );
        }
        let mut scratch = Scratch::default();
        let mut tokens = Tokens::default();
        tok.tokenize(previous, !lowercase, &mut scratch, &mut tokens);
        tok.tokenize(&text, lowercase, &mut scratch, &mut tokens);
        let reused: Vec<&str> = tokens.iter().collect();
        assert_eq!(reused, fresh, "{name}: reused scratch changes tokens");
        if tok == Tokenizer::Char && !lowercase {
            let chars = py_rstrip(&text)
                .chars()
                .filter(|&c| !is_py_whitespace(c))
                .count();
            assert_eq!(fresh.len(), chars, "char: one token per code point");
        }
    }

    let mut scratch = Scratch::default();
    let _ = Tokenizer::mteval_13a(&text, &mut scratch);

    // The eight-bytes-at-a-time splitters against the plain ones: Python `str.split()`, and
    // multi-bleu.perl's byte split at ASCII white space.
    let mut tokens = Tokens::default();
    tokens.extend_split(previous);
    tokens.clear();
    tokens.extend_split(&text);
    assert_eq!(
        tokens.iter().collect::<Vec<_>>(),
        py_split(&text).collect::<Vec<_>>()
    );
    tokens.clear();
    tokens.extend_split_ascii(&text, AsciiSpace::Perl);
    let perl: Vec<&str> = text
        .split(|c| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r'))
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(tokens.iter().collect::<Vec<_>>(), perl, "multi-bleu split");

    for bits in 0..8u8 {
        let m = MtevalTokenizer {
            international: bits & 1 != 0,
            case_sensitive: bits & 2 != 0,
            split_non_ascii: bits & 4 != 0,
        };
        let fresh = m.tokens(&text);
        for t in &fresh {
            assert!(!t.is_empty(), "mteval {m:?}: empty token");
            assert!(
                !t.chars().any(is_perl_whitespace),
                "mteval {m:?}: white space in token {t:?}"
            );
        }
        let mut scratch = MtevalScratch::default();
        let mut tokens = Tokens::default();
        m.tokenize(previous, &mut scratch, &mut tokens);
        m.tokenize(&text, &mut scratch, &mut tokens);
        let reused: Vec<&str> = tokens.iter().collect();
        assert_eq!(reused, fresh, "mteval {m:?}: reused scratch changes tokens");
    }
});
