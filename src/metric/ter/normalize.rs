//! sacreBLEU 2.6.0's `TercomTokenizer` (`tokenizers/tokenizer_ter.py`, after tercom's
//! `Normalizer.java`): case folding, the optional "normalized" punctuation tokenization (with
//! its Asian part), punctuation removal, then Python's `str.split()`.
//!
//! Every `re.sub` of the Python code is a left-to-right scan here, in the same order, so that
//! overlapping rules interact exactly as they do there.

use crate::unicode::{is_py_whitespace, py_lower_into, py_rstrip};

/// The tokenizer's switches (sacreBLEU's `TER(...)` arguments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tercom {
    pub normalized: bool,
    pub no_punct: bool,
    pub asian_support: bool,
    pub case_sensitive: bool,
}

/// Reusable buffers.
#[derive(Default, Debug)]
pub struct Scratch {
    a: String,
    b: String,
}

impl Tercom {
    /// The words sacreBLEU's TER sees of `line`: `tokenizer(line.rstrip()).split()`, each word
    /// passed to `word` in order.
    pub fn words<'s>(&self, line: &str, scratch: &'s mut Scratch) -> impl Iterator<Item = &'s str> {
        let Scratch { a, b } = scratch;
        a.clear();
        let line = py_rstrip(line);
        if !line.is_empty() {
            if self.case_sensitive {
                a.push_str(line);
            } else {
                py_lower_into(line, a);
            }
            if self.normalized {
                western(a, b);
                if self.asian_support {
                    pad_chars(a, b, is_asian_padded);
                }
            }
            if self.no_punct {
                a.retain(|c| !matches!(c, '.' | ',' | '?' | ':' | ';' | '!' | '"' | '(' | ')'));
                if self.asian_support {
                    a.retain(|c| !is_asian_punct(c) && !is_full_width_punct(c));
                }
            }
        }
        a.split(is_py_whitespace).filter(|w| !w.is_empty())
    }
}

/// `_normalize_general_and_western`, rule by rule; the result replaces `s` (`t` is scratch).
fn western(s: &mut String, t: &mut String) {
    // re.sub(r"\n-", "", s); re.sub(r"\n", " ", s)
    if s.contains('\n') {
        *s = s.replace("\n-", "").replace('\n', " ");
    }
    // The XML entities, one after the other: `&amp;lt;` becomes `<`, as in Python.
    if s.contains('&') {
        for (from, to) in [
            ("&quot;", "\""),
            ("&amp;", "&"),
            ("&lt;", "<"),
            ("&gt;", ">"),
        ] {
            if s.contains(from) {
                *s = s.replace(from, to);
            }
        }
    }
    // f" {sent} ", then r"([{-~[-` -&(-+:-@/])" -> r" \1 ".
    t.clear();
    t.push(' ');
    for c in s.chars() {
        if matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/') {
            t.push(' ');
            t.push(c);
            t.push(' ');
        } else {
            t.push(c);
        }
    }
    t.push(' ');
    // r"'s " -> r" 's " (r"'s$" cannot match: the text ends with the space added above).
    std::mem::swap(s, t);
    if s.contains("'s ") {
        *s = s.replace("'s ", " 's ");
    }
    // r"([^0-9])([\.,])" -> r"\1 \2 "
    pairs(
        s,
        t,
        |a, b| !a.is_ascii_digit() && matches!(b, '.' | ','),
        |a, b, out| {
            out.push(a);
            out.push(' ');
            out.push(b);
            out.push(' ');
        },
    );
    // r"([\.,])([^0-9])" -> r" \1 \2"
    pairs(
        s,
        t,
        |a, b| matches!(a, '.' | ',') && !b.is_ascii_digit(),
        |a, b, out| {
            out.push(' ');
            out.push(a);
            out.push(' ');
            out.push(b);
        },
    );
    // r"([0-9])(-)" -> r"\1 \2 "
    pairs(
        s,
        t,
        |a, b| a.is_ascii_digit() && b == '-',
        |a, b, out| {
            out.push(a);
            out.push(' ');
            out.push(b);
            out.push(' ');
        },
    );
}

/// One `re.sub` of a two-character pattern: matches are found left to right and do not
/// overlap (after a match the scan goes on after its second character).
fn pairs(
    s: &mut String,
    t: &mut String,
    matches: impl Fn(char, char) -> bool,
    replace: impl Fn(char, char, &mut String),
) {
    t.clear();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(a) = chars.next() {
        match chars.peek() {
            Some(&b) if matches(a, b) => {
                chars.next();
                replace(a, b, t);
                any = true;
            }
            _ => t.push(a),
        }
    }
    if any {
        std::mem::swap(s, t);
    }
}

/// Surrounds every character for which `pad` holds with spaces. `_normalize_asian` does this
/// with several single-character rules in a row; since the text is split on white space
/// afterwards, padding once is the same. (Its three kana rules cannot match a normalized text:
/// they need the text to start with kana, and normalization puts a space first.)
fn pad_chars(s: &mut String, t: &mut String, pad: fn(char) -> bool) {
    if !s.chars().any(pad) {
        return;
    }
    t.clear();
    for c in s.chars() {
        if pad(c) {
            t.push(' ');
            t.push(c);
            t.push(' ');
        } else {
            t.push(c);
        }
    }
    std::mem::swap(s, t);
}

/// The characters `_normalize_asian` splits off: CJK ideographs, strokes, radicals,
/// compatibility characters and forms, enclosed letters (its `\u3200-\u3f22` range), and the
/// Asian and full-width punctuation.
fn is_asian_padded(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{31c0}'..='\u{31ef}'
        | '\u{2e80}'..='\u{2eff}'
        | '\u{3300}'..='\u{33ff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{fe30}'..='\u{fe4f}'
        | '\u{3200}'..='\u{3f22}')
        || is_asian_punct(c)
        || is_full_width_punct(c)
}

/// `TercomTokenizer.ASIAN_PUNCT`.
fn is_asian_punct(c: char) -> bool {
    matches!(c,
        '\u{3001}' | '\u{3002}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301f}'
        | '\u{ff61}'..='\u{ff65}' | '\u{30fb}')
}

/// `TercomTokenizer.FULL_WIDTH_PUNCT`.
fn is_full_width_punct(c: char) -> bool {
    matches!(
        c,
        '\u{ff0e}'
            | '\u{ff0c}'
            | '\u{ff1f}'
            | '\u{ff1a}'
            | '\u{ff1b}'
            | '\u{ff01}'
            | '\u{ff02}'
            | '\u{ff08}'
            | '\u{ff09}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(t: Tercom, s: &str) -> Vec<String> {
        t.words(s, &mut Scratch::default())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn default_lowercases_and_splits_only() {
        let t = Tercom::default();
        assert_eq!(words(t, "Hello, World.  "), ["hello,", "world."]);
        assert!(words(t, "   ").is_empty());
        let cs = Tercom {
            case_sensitive: true,
            ..t
        };
        assert_eq!(words(cs, "Hello"), ["Hello"]);
    }

    #[test]
    fn normalized_tokenizes_punctuation_like_tercom() {
        let t = Tercom {
            normalized: true,
            ..Tercom::default()
        };
        assert_eq!(
            words(t, "It's 3.5, a-b &amp;lt; x.y"),
            ["it", "'s", "3.5", ",", "a-b", "<", "x", ".", "y"]
        );
        assert_eq!(words(t, "10-20"), ["10", "-", "20"]);
        assert_eq!(words(t, "a..,"), ["a", ".", ".", ","]);
    }

    #[test]
    fn no_punct_and_asian_support() {
        let t = Tercom {
            no_punct: true,
            asian_support: true,
            ..Tercom::default()
        };
        assert_eq!(words(t, "a, (b)! 你好。"), ["a", "b", "你好"]);
        let t = Tercom {
            normalized: true,
            asian_support: true,
            ..Tercom::default()
        };
        assert_eq!(words(t, "你好ab"), ["你", "好", "ab"]);
    }
}
