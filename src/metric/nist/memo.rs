//! A memo of reference lines the table has already interned, so that a line seen again is
//! counted from its stored ids instead of being hashed and probed n-gram by n-gram.
//!
//! # Why
//!
//! The merger interns every reference n-gram of the corpus on one thread (`table.rs`): about
//! 13 million lookups on the benchmark corpus, most of NIST's wall time. References repeat
//! whenever several systems are scored against one reference set in one stream (`cat` of
//! `paste sys_i ref` for all systems, as the benchmark corpus and WMT evaluations do): the
//! benchmark corpus has 126,836 lines but 11,697 distinct reference lines. A line's n-gram ids
//! depend only on its tokens and on the table, and ids never change once handed out (the table
//! only grows), so a repeated line's ids are those it got the first time. Counting it again is
//! then one pass over a short, mostly consecutive id list.
//!
//! # Exactness and memory
//!
//! A line is found by a hash of its tokens and then compared byte for byte with the stored
//! tokens: a hash collision only costs a normal lookup. A line is stored the first time it is
//! interned, so that its first repetition is already counted from the memo. Storing it only at
//! its second sighting (keeping a hash of every line seen once) looked every distinct line up
//! twice: on the bench corpus, storing at the first made NLTK corpus_nist 12 % faster (25
//! alternating runs: 600 → 528 ms median wall, 381 → 338 best) and saved no memory there (its
//! 11,697 distinct references all repeat). Every part is bounded ([`Limits`]: about 25 MiB in all); past a
//! bound, lines are interned as without the memo. A stream whose references never repeat pays
//! for stored lines until then: 4 bytes per reference n-gram and the tokens' text, against the
//! table's own 25 to 30 bytes per new n-gram.

use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHasher};

use crate::tokenize::Tokens;

use super::table::NgramTable;

/// How much the memo stores at most.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// Stored lines: the map stays at 2^18 slots of 13 bytes, plus 8 bytes of bounds per line
    /// (5 MiB).
    lines: usize,
    /// Stored ids (16 MiB).
    ids: usize,
    /// Bytes of stored token text (4 MiB).
    text: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            lines: 7 << 15,
            ids: 1 << 22,
            text: 1 << 22,
        }
    }
}

/// Reference lines seen before and their table ids (module docs).
#[derive(Default)]
pub(super) struct LineMemo {
    /// Hash of a stored line → its entry.
    entries: FxHashMap<u64, u32>,
    /// Entry e: its tokens, each followed by 0xFF (a byte UTF-8 never has), are
    /// `text[text_ends[e − 1]..text_ends[e]]`; its ids `ids[id_ends[e − 1]..id_ends[e]]`.
    text: Vec<u8>,
    text_ends: Vec<u32>,
    ids: Vec<u32>,
    id_ends: Vec<u32>,
    limits: Limits,
}

impl LineMemo {
    /// [`NgramTable::ids`] with `count`: the ids of the n-grams of orders 1..=n of `tokens`,
    /// each counted once more, from the memo when the line was stored before. `hash` is the
    /// line's [`line_hash`] (computed by the worker that tokenized it, off the merger's thread).
    pub(super) fn ids(
        &mut self,
        table: &mut NgramTable,
        tokens: &Tokens,
        hash: u64,
        n: usize,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        if let Some(&e) = self.entries.get(&hash) {
            let e = e as usize;
            if same_line(&self.text[span(&self.text_ends, e)], tokens) {
                out.clear();
                out.extend_from_slice(&self.ids[span(&self.id_ends, e)]);
                table.count(out);
                return Some(());
            }
            // Another line with the same hash: looked up as if never seen.
            return table.ids(tokens, n, true, out);
        }
        table.ids(tokens, n, true, out)?;
        let size: usize = tokens.iter_bytes().map(|t| t.len() + 1).sum();
        if self.text_ends.len() < self.limits.lines
            && self.ids.len() + out.len() <= self.limits.ids
            && self.text.len() + size <= self.limits.text
        {
            self.entries.insert(hash, self.text_ends.len() as u32);
            for token in tokens.iter_bytes() {
                self.text.extend_from_slice(token);
                self.text.push(SEPARATOR);
            }
            self.text_ends.push(self.text.len() as u32);
            self.ids.extend_from_slice(out);
            self.id_ends.push(self.ids.len() as u32);
        }
        Some(())
    }
}

/// Ends every token of a stored line: a byte UTF-8 never has, so that two lines are the same
/// exactly when their stored forms are ("a b" and "ab" differ).
const SEPARATOR: u8 = 0xFF;

/// The memo's hash of a line: FxHash of its tokens, each followed by [`SEPARATOR`].
pub(super) fn line_hash(tokens: &Tokens) -> u64 {
    let mut hasher = FxHasher::default();
    for token in tokens.iter_bytes() {
        hasher.write(token);
        hasher.write_u8(SEPARATOR);
    }
    hasher.finish()
}

/// True when `stored` (tokens each followed by [`SEPARATOR`]) holds exactly `tokens`.
fn same_line(stored: &[u8], tokens: &Tokens) -> bool {
    let mut at = 0;
    for token in tokens.iter_bytes() {
        let end = at + token.len();
        if stored.get(at..end) != Some(token) || stored.get(end) != Some(&SEPARATOR) {
            return false;
        }
        at = end + 1;
    }
    at == stored.len()
}

fn span(ends: &[u32], e: usize) -> std::ops::Range<usize> {
    (if e == 0 { 0 } else { ends[e - 1] as usize })..ends[e] as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    fn tokens(line: &str) -> Tokens {
        let mut t = Tokens::default();
        t.extend_split(line);
        t
    }

    /// Lines drawn from a small pool (so they repeat, and some are empty) give the same ids and
    /// counts through the memo as through the table alone, also when every line has the same
    /// hash.
    #[test]
    fn remembered_lines_get_the_ids_and_counts_of_a_lookup() {
        for colliding in [false, true] {
            let mut rng = Rng(0x5eed_0000 + u64::from(colliding));
            let pool: Vec<String> = (0..60)
                .map(|_| {
                    let len = rng.below(12);
                    // Tokens that join alike ("a b" against "ab") and repeat within lines.
                    let words: Vec<String> = (0..len)
                        .map(|_| ["a", "b", "ab", "0", "é"][rng.below(5)].repeat(1 + rng.below(2)))
                        .collect();
                    words.join(" ")
                })
                .collect();
            let (mut memo, mut with, mut without) = (
                LineMemo::default(),
                NgramTable::default(),
                NgramTable::default(),
            );
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for _ in 0..2000 {
                let line = tokens(&pool[rng.below(pool.len())]);
                let n = 4;
                let hash = if colliding { 7 } else { line_hash(&line) };
                memo.ids(&mut with, &line, hash, n, &mut got).unwrap();
                without.ids(&line, n, true, &mut want).unwrap();
                assert_eq!(got, want, "{line:?}");
            }
            assert_eq!(with.len(), without.len());
            for g in 0..with.len() as u32 {
                assert_eq!(with.freq(g), without.freq(g));
            }
            if colliding {
                // With one hash for all, only the first line stored is ever found.
                assert_eq!(memo.entries.len(), 1);
            } else {
                assert!(memo.entries.len() > 40, "most of the pool was stored");
            }
        }
    }

    /// A stored line is the same line only token for token: not when tokens join alike, nor
    /// when one line is the other's prefix.
    #[test]
    fn stored_lines_compare_token_by_token() {
        let stored = b"a\xFFb\xFF";
        assert!(same_line(stored, &tokens("a b")));
        for other in ["ab", "a b c", "a", "", "a bb", "a\u{FF} b"] {
            assert!(!same_line(stored, &tokens(other)), "{other:?}");
        }
        assert!(same_line(b"", &tokens("")));
        assert_ne!(line_hash(&tokens("a b")), line_hash(&tokens("ab")));
    }

    #[test]
    fn a_line_is_stored_the_first_time() {
        let (mut memo, mut table, mut out) =
            (LineMemo::default(), NgramTable::default(), Vec::new());
        for i in 0..100 {
            let line = tokens(&format!("line {i} x"));
            memo.ids(&mut table, &line, line_hash(&line), 5, &mut out)
                .unwrap();
        }
        assert_eq!((memo.text_ends.len(), memo.ids.len()), (100, 600));
        let size = table.len();
        let line = tokens("line 7 x");
        memo.ids(&mut table, &line, line_hash(&line), 5, &mut out)
            .unwrap();
        assert_eq!(table.len(), size);
        assert_eq!((memo.text_ends.len(), memo.ids.len()), (100, 600));
        assert_eq!(&memo.text[span(&memo.text_ends, 7)], b"line\xFF7\xFFx\xFF");
        assert_eq!(
            table.freq(out[5]),
            2,
            "the trigram was counted at every sighting"
        );
    }

    /// Past any of its bounds the memo stores no more lines, and lines are counted as without
    /// it: those it stored from its ids, the others by looking them up.
    #[test]
    fn lines_past_a_bound_are_counted_without_the_memo() {
        for limits in [
            Limits {
                lines: 3,
                ..Limits::default()
            },
            Limits {
                ids: 20,
                ..Limits::default()
            },
            Limits {
                text: 30,
                ..Limits::default()
            },
        ] {
            let mut memo = LineMemo {
                limits,
                ..LineMemo::default()
            };
            let (mut with, mut without) = (NgramTable::default(), NgramTable::default());
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for round in 0..3 {
                for i in 0..8 {
                    let line = tokens(&format!("w{i} a b c"));
                    memo.ids(&mut with, &line, line_hash(&line), 3, &mut got)
                        .unwrap();
                    without.ids(&line, 3, true, &mut want).unwrap();
                    assert_eq!(got, want, "{limits:?} round {round} line {i}");
                }
            }
            assert!(memo.text_ends.len() <= limits.lines, "{limits:?}");
            assert!(memo.ids.len() <= limits.ids, "{limits:?}");
            assert!(memo.text.len() <= limits.text, "{limits:?}");
            assert!(memo.text_ends.len() < 8, "{limits:?}: a bound was reached");
            assert!(!memo.text_ends.is_empty(), "{limits:?}");
            for g in 0..with.len() as u32 {
                assert_eq!(with.freq(g), without.freq(g), "{limits:?}");
            }
        }
    }
}
