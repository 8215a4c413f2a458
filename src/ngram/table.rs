//! The open-addressing hash tables behind [`NgramIndex`](super::NgramIndex): Fibonacci hashing,
//! token and pair slots, generations for O(1) clearing.

use crate::tokenize::TokenKey;

/// Fibonacci hashing: the multiplier is 2^64 / φ, odd; the table index is the product's top bits.
pub(super) const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

/// Hash of a token key.
#[inline]
pub(super) fn token_hash(key: TokenKey) -> u64 {
    (key.head ^ key.tail.rotate_left(29) ^ u64::from(key.len).rotate_right(8)).wrapping_mul(FIB)
}

/// Hash of a pair key.
#[inline]
pub(super) fn pair_hash(key: u64) -> u64 {
    key.wrapping_mul(FIB)
}

/// All ones when `x` is not 0, else 0.
#[inline]
pub(super) fn ones_if_nonzero(x: u32) -> u32 {
    // x | −x has its top bit set exactly when x ≠ 0.
    ((x | x.wrapping_neg()) >> 31).wrapping_neg()
}

/// Zero exactly when the keys are equal (one test instead of three short-circuited ones).
#[inline]
pub(super) fn key_diff(a: TokenKey, b: TokenKey) -> u64 {
    (a.head ^ b.head) | (a.tail ^ b.tail) | u64::from(a.len ^ b.len)
}

/// A slot of a [`Table`]: free unless its generation is the table's current one.
pub(super) trait Slot: Copy + Default {
    fn generation(&self) -> u32;
    fn set_generation(&mut self, generation: u32);
    /// The hash the slot is found by (to move it when the table grows).
    fn hash(&self) -> u64;
    fn id(&self) -> u32;
}

#[derive(Clone, Copy)]
pub(super) struct TokenSlot {
    pub(super) key: TokenKey,
    pub(super) id: u32,
    /// Offset of the text in the arena (tokens over [`TokenKey::EXACT`] bytes).
    pub(super) text: u32,
    pub(super) generation: u32,
}

impl Default for TokenSlot {
    fn default() -> Self {
        TokenSlot {
            key: TokenKey {
                head: 0,
                tail: 0,
                len: 0,
            },
            id: 0,
            text: 0,
            generation: 0,
        }
    }
}

#[derive(Clone, Copy, Default)]
pub(super) struct PairSlot {
    pub(super) key: u64,
    pub(super) id: u32,
    pub(super) generation: u32,
}

impl Slot for TokenSlot {
    fn generation(&self) -> u32 {
        self.generation
    }
    fn set_generation(&mut self, generation: u32) {
        self.generation = generation;
    }
    fn hash(&self) -> u64 {
        token_hash(self.key)
    }
    fn id(&self) -> u32 {
        self.id
    }
}

impl Slot for PairSlot {
    fn generation(&self) -> u32 {
        self.generation
    }
    fn set_generation(&mut self, generation: u32) {
        self.generation = generation;
    }
    fn hash(&self) -> u64 {
        pair_hash(self.key)
    }
    fn id(&self) -> u32 {
        self.id
    }
}

/// Open addressing with linear probing, a power-of-two number of slots, at most half full. The
/// caller supplies a well-mixed 64-bit hash; its top bits pick the first slot.
pub(super) struct Table<S> {
    pub(super) slots: Vec<S>,
    /// `64 - log2(slots.len())`.
    pub(super) shift: u32,
    /// Live slots (those of the current generation).
    pub(super) len: usize,
    /// The current generation; 0 is never current, so default (zeroed) slots are free.
    pub(super) generation: u32,
    /// Consecutive [`clear`](Table::clear)s that found the table far too big.
    pub(super) oversized: u32,
}

impl<S: Slot> Default for Table<S> {
    fn default() -> Self {
        Table {
            slots: Vec::new(),
            shift: 64,
            len: 0,
            generation: 1,
            oversized: 0,
        }
    }
}

/// Slots of a table when it is first used, and the least it shrinks back to.
pub(super) const MIN_SLOTS: usize = 64;

impl<S: Slot> Table<S> {
    /// Frees every slot: a new generation (O(1)). The slots are wiped only when the counter
    /// wraps, or dropped when the table has been far too big for many uses in a row (one long
    /// segment must not leave every later one probing a sparse, cache-missing table; but a
    /// caller alternating between large and small uses, as chrF's character and word passes do,
    /// must not reallocate every time).
    pub(super) fn clear(&mut self) {
        let wanted = (4 * self.len).next_power_of_two().max(MIN_SLOTS);
        if self.slots.len() > 16 * wanted {
            self.oversized += 1;
            if self.oversized >= 64 {
                self.slots = Vec::new();
                self.shift = 64;
                self.oversized = 0;
            }
        } else {
            self.oversized = 0;
        }
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(S::default());
            self.generation = 1;
        }
    }

    /// The slot a probe for `hash` starts at (`None` before the first insertion).
    #[inline]
    pub(super) fn first(&self, hash: u64) -> Option<&S> {
        // Without slots `shift` is 64, which `>>` does not take (a panic in debug builds).
        self.slots.get(hash.checked_shr(self.shift)? as usize)
    }

    /// The id of the live slot for which `eq` holds, or the index of the free slot where it
    /// would go.
    #[inline]
    pub(super) fn find(&self, hash: u64, eq: impl Fn(&S) -> bool) -> Result<u32, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let mut i = (hash >> self.shift) as usize;
        loop {
            let slot = &self.slots[i];
            if slot.generation() != self.generation {
                return Err(i);
            }
            if eq(slot) {
                return Ok(slot.id());
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts `slot` at index `at` (from [`find`](Self::find)), growing the table as needed.
    pub(super) fn insert(&mut self, at: usize, mut slot: S) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
            slot.set_generation(self.generation);
            self.place(slot);
        } else {
            slot.set_generation(self.generation);
            self.slots[at] = slot;
        }
        self.len += 1;
    }

    /// Puts a live slot into the first free slot of its probe sequence.
    pub(super) fn place(&mut self, slot: S) {
        let mask = self.slots.len() - 1;
        let mut i = (slot.hash() >> self.shift) as usize;
        while self.slots[i].generation() == self.generation {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Doubles the slots (or allocates the first ones), moving the live ones.
    pub(super) fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![S::default(); size]);
        let live = std::mem::replace(&mut self.generation, 1);
        self.shift = 64 - size.trailing_zeros();
        for mut slot in old.into_iter().filter(|s| s.generation() == live) {
            slot.set_generation(1);
            self.place(slot);
        }
    }
}
