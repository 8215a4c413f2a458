//! SplitMix64 (Steele, Lea & Flood, 2014), the one hash behind every seeded draw: the states of
//! the resampling generators ([`super::sample_rng`]) and the Poisson weights of
//! `--confidence=streaming` ([`super::poisson`]). One copy, so that both keep the same
//! constants.

/// SplitMix64's increment (the golden ratio): added per step, it separates streams, samples
/// and replicates.
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a bijective 64-bit mix whose outputs pass BigCrush when fed a
/// counter.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference outputs of SplitMix64 seeded with 0 (Vigna's `splitmix64.c`: the state is
    /// advanced by GAMMA, then mixed).
    #[test]
    fn matches_the_reference_sequence() {
        let mut state = 0u64;
        let mut next = || {
            state = state.wrapping_add(GAMMA);
            mix(state)
        };
        assert_eq!(next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(next(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(next(), 0x06c4_5d18_8009_454f);
    }
}
