//! chrF++ word orders: sacreBLEU's `extract_all_word_ngrams` split of a line into words, and the
//! word orders' match statistics.

use crate::ngram::{clipped_matches, ClipWorkspace};
use crate::tokenize::Tokens;
use crate::unicode::py_split;

use super::{ngrams, triple};

/// ASCII punctuation, `string.punctuation`: the characters chrF++ splits off words.
fn is_ascii_punct(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// chrF++ words of a prepared line ([`each_word`]'s, from one whitespace split of the
/// line's copy and spans split in place rather than a copy per word).
pub(super) fn split_words(word_order: usize, line: &str, words: &mut Tokens) {
    words.clear();
    if word_order > 0 {
        words.extend_split(line);
        words.split_each(punctuation_split);
    }
}

/// Calls `f` with every chrF++ word of a prepared line: `extract_all_word_ngrams` splits one
/// ASCII punctuation character off the end of a word, or else off its start (the end wins:
/// `(hi)` → `(hi`, `)`).
pub(super) fn each_word<'a>(line: &'a str, mut f: impl FnMut(&'a str)) {
    for w in py_split(line) {
        match punctuation_split(w) {
            Some(k) => {
                f(&w[..k]);
                f(&w[k..]);
            }
            None => f(w),
        }
    }
}

/// Where [`each_word`] splits a whitespace-separated word, if it does: before a final ASCII
/// punctuation character, or else after an initial one; never a one-character word. Bytes
/// suffice: an ASCII byte is a whole character in UTF-8, and a one-character word of two or
/// more bytes has no ASCII byte.
fn punctuation_split(w: &str) -> Option<usize> {
    match w.as_bytes() {
        [.., last] if w.len() >= 2 && is_ascii_punct(char::from(*last)) => Some(w.len() - 1),
        [first, ..] if w.len() >= 2 && is_ascii_punct(char::from(*first)) => Some(1),
        _ => None,
    }
}

/// [`order_triple`](super::order_triple) of word orders `1..=max_order`. The match count of an order is
/// `Σ_g min(hyp count, ref count)` over its n-grams (sacreBLEU's `_get_match_statistics`; a
/// word n-gram is its words joined by a space, and words hold no space, so equal n-grams are
/// equal word sequences): BLEU's clipped matches against one reference, whose bit-parallel path
/// takes segments of up to 128 words without interning an n-gram.
pub(super) fn word_triples(
    hyp: &Tokens,
    rf: &Tokens,
    max_order: usize,
    clip: &mut ClipWorkspace,
    out: &mut Vec<u64>,
) {
    clipped_matches(hyp, std::slice::from_ref(rf), max_order, clip);
    for n in 1..=max_order {
        let (h, r) = (ngrams(hyp.len(), n), ngrams(rf.len(), n));
        out.extend_from_slice(&triple(h, r, clip.matches[n - 1]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ngram::{NgramIds, NgramIndex};
    use crate::test_rng::Rng;

    #[test]
    fn word_triples_agree_with_the_index_at_any_length_and_order() {
        // The bit-parallel path (one reference, up to 128 words, orders up to 8) and the
        // indexed one (longer, or higher orders) against the n-gram index chrF++ used before.
        let mut rng = Rng(0x9fb2_1c65_1e98_df25);
        let mut clip = ClipWorkspace::default();
        let mut index = NgramIndex::default();
        let (mut hyp_ids, mut ref_ids) = (NgramIds::default(), NgramIds::default());
        let (mut hyp_count, mut ref_count) = (Vec::new(), Vec::new());
        let (mut hyp, mut rf) = (Tokens::default(), Tokens::default());
        for case in 0..600 {
            let longest = if case % 5 == 0 { 300 } else { 30 };
            let line = |rng: &mut Rng, n: usize| {
                (0..n)
                    .map(|_| format!("w{}", rng.below(6)))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (hn, rn) = (rng.below(longest), rng.below(longest));
            let (h, r) = (line(&mut rng, hn), line(&mut rng, rn));
            hyp.clear();
            hyp.extend_split(&h);
            rf.clear();
            rf.extend_split(&r);
            let order = 1 + rng.below(10);
            let mut got = Vec::new();
            word_triples(&hyp, &rf, order, &mut clip, &mut got);
            index.clear();
            index.index(&rf, order, &mut ref_ids);
            index.lookup(&hyp, order, &mut hyp_ids);
            hyp_count.resize(index.num_ids(), 0);
            ref_count.resize(index.num_ids(), 0);
            let mut want = Vec::new();
            for n in 1..=order {
                super::super::order_triple(
                    hyp_ids.order(n),
                    ref_ids.order(n),
                    &mut hyp_count,
                    &mut ref_count,
                    &mut want,
                );
            }
            assert_eq!(got, want, "{h:?} / {r:?}, order {order}");
        }
    }

    #[test]
    fn words_split_one_ascii_punctuation_character() {
        let mut words = Tokens::default();
        split_words(2, "(hi) \"hello,\" a ,x «b»", &mut words);
        let w: Vec<&str> = words.iter().collect();
        assert_eq!(w, ["(hi", ")", "\"hello,", "\"", "a", ",", "x", "«b»"]);
    }

    #[test]
    fn words_from_spans_agree_with_each_word() {
        // `split_words` (a whitespace split, then spans split in place) against `each_word`
        // (a split per word) on random lines of words, punctuation, non-ASCII letters and
        // white space, ASCII and not.
        let alphabet = [
            "a", "bc", ".", ",", "(", ")", "\"", "é", "«", " ", "  ", "\t", "\u{3000}", "\u{85}",
            "\u{1c}",
        ];
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        let mut words = Tokens::default();
        for _ in 0..5000 {
            let line: String = (0..rng.below(14))
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let mut want = Vec::new();
            each_word(&line, |w| want.push(w.to_owned()));
            split_words(2, &line, &mut words);
            assert_eq!(words.iter().collect::<Vec<_>>(), want, "{line:?}");
            // The spans stay valid for n-gram keys (the padding is untouched).
            assert_eq!(words.keys().count(), want.len());
        }
    }
}
