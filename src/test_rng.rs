//! Test support: the xorshift the tests draw their random text from (deterministic, so that a
//! failure replays).

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A number in `0..n` (slightly biased: test data only).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
