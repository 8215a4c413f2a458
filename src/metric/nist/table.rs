//! The corpus-wide reference n-gram table and its overflow-safe counts.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::tokenize::Tokens;

/// Counts that are `u32` for all but the rarest n-grams: the high part lives in a side map, so a
/// count never wraps and the common case costs four bytes.
#[derive(Clone, Debug, Default)]
pub(super) struct Counts {
    pub(super) low: Vec<u32>,
    pub(super) high: FxHashMap<u32, u64>,
}

impl Counts {
    pub(super) fn grow(&mut self, len: usize) {
        if self.low.len() < len {
            self.low.resize(len, 0);
        }
    }

    pub(super) fn add(&mut self, id: u32, n: u32) {
        let slot = &mut self.low[id as usize];
        let (sum, carry) = slot.overflowing_add(n);
        *slot = sum;
        if carry {
            *self.high.entry(id).or_default() += 1;
        }
    }

    /// Adds a count of any size (merging saved statistics).
    pub(super) fn add_u64(&mut self, id: u32, n: u64) {
        self.add(id, n as u32);
        let high = n >> 32;
        if high > 0 {
            *self.high.entry(id).or_default() += high;
        }
    }

    pub(super) fn get(&self, id: u32) -> u64 {
        let high = self.high.get(&id).copied().unwrap_or(0);
        u64::from(self.low[id as usize]) + (high << 32)
    }
}

/// The corpus-wide table of reference n-grams: every distinct token once (its text in one
/// arena), every distinct n-gram as one `u32` id whose key — (id of its (n−1)-gram prefix, id
/// of its last token) — is stored in two parallel vectors, so the hash table holds only ids
/// (4 bytes a slot). That is about half of what a map from the 8-byte key to the id costs, and
/// this table is what NIST's memory grows with.
#[derive(Default)]
pub(super) struct NgramTable {
    pub(super) hasher: FxBuildHasher,
    pub(super) tokens: HashTable<u32>,
    pub(super) arena: String,
    /// Token t is `arena[token_ends[t − 1]..token_ends[t]]` (0 for t = 0).
    pub(super) token_ends: Vec<usize>,
    pub(super) ngrams: HashTable<u32>,
    /// Per n-gram id: its key `(prefix id << 32) | last token id` (prefix `NO_PREFIX` for a
    /// unigram) — one vector, so a probe touches one place — and its order.
    pub(super) keys: Vec<u64>,
    pub(super) order: Vec<u8>,
    /// Scratch: the token ids of the sequence being interned.
    pub(super) token_ids: Vec<u32>,
}

/// The prefix of a unigram.
pub(super) const NO_PREFIX: u32 = u32::MAX;

impl NgramTable {
    /// Number of distinct n-grams (all orders).
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The prefix id of n-gram `g` (`NO_PREFIX` for a unigram).
    pub(super) fn prefix(&self, g: u32) -> u32 {
        (self.keys[g as usize] >> 32) as u32
    }

    pub(super) fn token_text(&self, t: u32) -> &str {
        let t = t as usize;
        let start = if t == 0 { 0 } else { self.token_ends[t - 1] };
        &self.arena[start..self.token_ends[t]]
    }

    /// The id of token `text`, interned if `insert`.
    pub(super) fn token(&mut self, text: &str, insert: bool) -> Option<u32> {
        let hash = self.hasher.hash_one(text);
        let found = {
            let this = &*self;
            this.tokens
                .find(hash, |&t| this.token_text(t) == text)
                .copied()
        };
        if found.is_some() || !insert {
            return found;
        }
        let id = u32::try_from(self.token_ends.len()).ok()?;
        self.arena.push_str(text);
        self.token_ends.push(self.arena.len());
        let (arena, ends, hasher) = (&self.arena, &self.token_ends, &self.hasher);
        self.tokens.insert_unique(hash, id, |&t| {
            let t = t as usize;
            let start = if t == 0 { 0 } else { ends[t - 1] };
            hasher.hash_one(&arena[start..ends[t]])
        });
        Some(id)
    }

    /// The id of the n-gram (prefix, last) of order `order`, interned if `insert`.
    pub(super) fn ngram(&mut self, prefix: u32, last: u32, order: u8, insert: bool) -> Option<u32> {
        let key = (u64::from(prefix) << 32) | u64::from(last);
        let hash = self.hasher.hash_one(key);
        let keys = &self.keys;
        if let Some(&id) = self.ngrams.find(hash, |&g| keys[g as usize] == key) {
            return Some(id);
        }
        if !insert {
            return None;
        }
        let id = u32::try_from(self.keys.len()).ok()?;
        self.keys.push(key);
        self.order.push(order);
        let (keys, hasher) = (&self.keys, &self.hasher);
        self.ngrams
            .insert_unique(hash, id, |&g| hasher.hash_one(keys[g as usize]));
        Some(id)
    }

    /// The ids of the n-grams of orders 1..=n of `tokens`, order after order (see
    /// [`order_start`]); with `insert == false`, `None` if one is not in the table.
    pub(super) fn ids(
        &mut self,
        tokens: &Tokens,
        n: usize,
        insert: bool,
        out: &mut Vec<u32>,
    ) -> Option<()> {
        out.clear();
        let mut token_ids = std::mem::take(&mut self.token_ids);
        let result = (|| {
            token_ids.clear();
            for w in tokens.iter() {
                token_ids.push(self.token(w, insert)?);
            }
            if n == 0 {
                return Some(());
            }
            for &t in &token_ids {
                let id = self.ngram(NO_PREFIX, t, 1, insert)?;
                out.push(id);
            }
            let len = tokens.len();
            for order in 2..=n.min(len) {
                let prev = order_start(len, order - 1);
                for i in 0..=len - order {
                    let prefix = out[prev + i];
                    let id = self.ngram(prefix, token_ids[i + order - 1], order as u8, insert)?;
                    out.push(id);
                }
            }
            Some(())
        })();
        self.token_ids = token_ids;
        result
    }
}

/// Offset of order `n`'s ids in a sequence of `len` tokens' ids, orders 1, 2, … concatenated.
pub(super) fn order_start(len: usize, n: usize) -> usize {
    (1..n).map(|k| (len + 1).saturating_sub(k)).sum()
}
