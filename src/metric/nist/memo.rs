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
//! tokens: a hash collision only costs a normal lookup. The memo stores a line only when it
//! shows up a second time (the first time only its hash is kept), so a corpus whose references
//! never repeat pays 10 to 20 bytes per line (a hash in a set) and stores no ids. Every part
//! is bounded, at about 34 MiB in all ([`MAX_SEEN`], [`MAX_LINES`], [`MAX_IDS`], [`MAX_TEXT`]):
//! past a bound, lines are interned as without the memo.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::tokenize::Tokens;

use super::table::NgramTable;

/// At most this many hashes of lines seen once: 7/8 of 2^20, so that the set stays at 2^20
/// slots of 9 bytes (9 MiB).
const MAX_SEEN: usize = 7 << 17;

/// At most this many stored lines: the map stays at 2^18 slots of 13 bytes, plus 8 bytes of
/// bounds per line (5 MiB).
const MAX_LINES: usize = 7 << 15;

/// At most this many stored ids (16 MiB).
const MAX_IDS: usize = 1 << 22;

/// At most this many bytes of stored token text (4 MiB).
const MAX_TEXT: usize = 1 << 22;

/// Reference lines seen before and their table ids (module docs).
#[derive(Default)]
pub(super) struct LineMemo {
    /// Hash of a stored line → its entry.
    entries: FxHashMap<u64, u32>,
    /// Hashes of lines seen once, not stored.
    seen: FxHashSet<u64>,
    /// Entry e: its tokens, each followed by 0xFF (a byte UTF-8 never has), are
    /// `text[text_ends[e − 1]..text_ends[e]]`; its ids `ids[id_ends[e − 1]..id_ends[e]]`.
    text: Vec<u8>,
    text_ends: Vec<u32>,
    ids: Vec<u32>,
    id_ends: Vec<u32>,
    /// Scratch: the line at hand in the form of `text`.
    key: Vec<u8>,
}

impl LineMemo {
    /// [`NgramTable::ids`] with `count`: the ids of the n-grams of orders 1..=n of `tokens`,
    /// each counted once more, from the memo when the line was stored before.
    pub(super) fn ids(
        &mut self,
        table: &mut NgramTable,
        tokens: &Tokens,
        n: usize,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        let hash = self.line_key(tokens);
        self.ids_hashed(table, tokens, n, hash, out)
    }

    /// Puts the line in `key` (its tokens, each followed by 0xFF) and returns its hash.
    fn line_key(&mut self, tokens: &Tokens) -> u64 {
        self.key.clear();
        for token in tokens.iter_bytes() {
            self.key.extend_from_slice(token);
            self.key.push(0xFF);
        }
        FxBuildHasher.hash_one(&self.key[..])
    }

    /// [`LineMemo::ids`] once the line is in `key` and hashed (tests pass colliding hashes).
    fn ids_hashed(
        &mut self,
        table: &mut NgramTable,
        tokens: &Tokens,
        n: usize,
        hash: u64,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        if let Some(&e) = self.entries.get(&hash) {
            let e = e as usize;
            if self.text[span(&self.text_ends, e)] == self.key[..] {
                out.clear();
                out.extend_from_slice(&self.ids[span(&self.id_ends, e)]);
                table.count(out);
                return Some(());
            }
            // Another line with the same hash: looked up as if never seen.
            return table.ids(tokens, n, true, out);
        }
        table.ids(tokens, n, true, out)?;
        if self.seen.remove(&hash) {
            if self.text_ends.len() < MAX_LINES
                && self.ids.len() + out.len() <= MAX_IDS
                && self.text.len() + self.key.len() <= MAX_TEXT
            {
                self.entries.insert(hash, self.text_ends.len() as u32);
                self.text.extend_from_slice(&self.key);
                self.text_ends.push(self.text.len() as u32);
                self.ids.extend_from_slice(out);
                self.id_ends.push(self.ids.len() as u32);
            }
        } else if self.seen.len() < MAX_SEEN {
            self.seen.insert(hash);
        }
        Some(())
    }
}

fn span(ends: &[u32], e: usize) -> std::ops::Range<usize> {
    (if e == 0 { 0 } else { ends[e - 1] as usize })..ends[e] as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ngram::test_rng::Rng;

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
                if colliding {
                    memo.line_key(&line);
                    memo.ids_hashed(&mut with, &line, n, 7, &mut got).unwrap();
                } else {
                    memo.ids(&mut with, &line, n, &mut got).unwrap();
                }
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

    #[test]
    fn a_line_is_stored_when_it_comes_again() {
        let (mut memo, mut table, mut out) =
            (LineMemo::default(), NgramTable::default(), Vec::new());
        for i in 0..100 {
            memo.ids(&mut table, &tokens(&format!("line {i} x")), 5, &mut out)
                .unwrap();
        }
        assert_eq!(
            (memo.seen.len(), memo.text_ends.len(), memo.ids.len()),
            (100, 0, 0)
        );
        memo.ids(&mut table, &tokens("line 7 x"), 5, &mut out)
            .unwrap();
        assert_eq!(
            (memo.seen.len(), memo.text_ends.len(), memo.ids.len()),
            (99, 1, 6)
        );
        assert_eq!(memo.text, b"line\xFF7\xFFx\xFF");
        let size = table.len();
        memo.ids(&mut table, &tokens("line 7 x"), 5, &mut out)
            .unwrap();
        assert_eq!(table.len(), size);
        assert_eq!(
            table.freq(out[5]),
            3,
            "the trigram was counted at every sighting"
        );
    }
}
