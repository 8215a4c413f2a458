//! The words of one segment as ids: equal words, equal ids (TER's alignment and chrF++'s sorted
//! word n-grams compare words only for equality, so any one-to-one numbering does).
//!
//! The words are kept once each, end to end in one string, and the hash table holds only ids
//! (as NIST's n-gram table does): a few bytes a distinct word plus its text, instead of a
//! heap-allocated key per word (about 60 bytes a word, 480 MB for a 16 MB line of distinct
//! words; issue 19).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// The distinct words seen since the last [`Vocab::clear`].
#[derive(Default)]
pub struct Vocab {
    text: String,
    /// Word `id` is `text[ends[id - 1]..ends[id]]` (from 0 for id 0).
    ends: Vec<u32>,
    table: HashTable<u32>,
    hasher: FxBuildHasher,
}

impl Vocab {
    /// Forgets every word, keeping the buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.table.clear();
    }

    /// The id of `word`, a new one for a word not seen yet.
    pub fn id(&mut self, word: &str) -> u32 {
        let hash = self.hasher.hash_one(word);
        let Vocab {
            text,
            ends,
            table,
            hasher,
        } = self;
        let span = |id: u32| {
            let id = id as usize;
            let start = if id == 0 { 0 } else { ends[id - 1] as usize };
            &text[start..ends[id] as usize]
        };
        if let Some(&id) = table.find(hash, |&id| span(id) == word) {
            return id;
        }
        let id = u32::try_from(ends.len()).expect("fewer than 2^32 words in a segment");
        let rehash = |&id: &u32| hasher.hash_one(span(id));
        table.reserve(1, rehash);
        text.push_str(word);
        ends.push(u32::try_from(text.len()).expect("a segment is under 4 GiB"));
        // The table has room: no rehash (and no borrow of `text`) happens here.
        table.insert_unique(hash, id, |_| unreachable!("reserved"));
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_words_equal_ids_and_clear_starts_over() {
        let mut v = Vocab::default();
        let ids: Vec<u32> = "a bb a ccc bb a é".split(' ').map(|w| v.id(w)).collect();
        assert_eq!(ids, [0, 1, 0, 2, 1, 0, 3]);
        let many: Vec<u32> = (0..10_000).map(|i| v.id(&format!("w{i}"))).collect();
        assert_eq!(many[9_999], 4 + 9_999);
        assert_eq!(v.id("w5000"), 4 + 5_000);
        v.clear();
        assert_eq!(v.id("ccc"), 0);
    }
}
