//! NumPy's default generator, bit for bit: `numpy.random.default_rng(seed)` (a `SeedSequence`
//! feeding `PCG64`) and the two draws sacreBLEU 2.6.0 makes with it (`significance.py`):
//! `rng.choice(n, size=…, replace=True)` — which is `rng.integers(0, n, size=…)` — and
//! `rng.integers(2, size=…, dtype=bool)`.
//!
//! Only `bleu-stream sacrebleu` uses this, so that its bootstrap means, intervals and p-values
//! are sacreBLEU's; the main command keeps its own per-resample generator
//! ([`super::sample_rng`]), which is thread-count independent and cheaper to split.
//!
//! Sources reproduced (NumPy 2.x, unchanged since 1.17): `bit_generator.pyx` (`SeedSequence`),
//! `_pcg64.pyx` / `pcg64.h` (`pcg64_set_seed`, `pcg64_next32` with its cached upper half),
//! `distributions.c` (`random_bounded_uint64_fill`: Lemire's multiply-and-reject, 32-bit when
//! the range fits; `random_bounded_bool_fill`: one bit per draw from a 32-bit buffer).

/// `SeedSequence` constants (`bit_generator.pyx`).
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;
const POOL_SIZE: usize = 4;

/// PCG64's LCG multiplier (`PCG_DEFAULT_MULTIPLIER_128`).
const PCG_MULT: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

/// `_coerce_to_uint32_array` of a non-negative integer: its little-endian 32-bit words, at least
/// one.
pub fn seed_words(seed: u128) -> Vec<u32> {
    let mut entropy = Vec::new();
    let mut s = seed;
    loop {
        entropy.push(s as u32);
        s >>= 32;
        if s == 0 {
            break;
        }
    }
    entropy
}

/// `SeedSequence(seed).generate_state(n_words, np.uint32)` for a non-negative integer seed
/// given as its [`seed_words`] (no spawn key; Python's ints have no size limit, so neither
/// has `entropy`).
pub fn seed_sequence_state(entropy: &[u32], n_words: usize) -> Vec<u32> {
    let entropy = if entropy.is_empty() {
        &[0][..]
    } else {
        entropy
    };
    let mut hash_const = INIT_A;
    let mut hashmix = |value: u32| -> u32 {
        let mut v = value ^ hash_const;
        hash_const = hash_const.wrapping_mul(MULT_A);
        v = v.wrapping_mul(hash_const);
        v ^ (v >> XSHIFT)
    };
    let mix = |x: u32, y: u32| -> u32 {
        let r = MIX_MULT_L
            .wrapping_mul(x)
            .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
        r ^ (r >> XSHIFT)
    };
    let mut pool = [0u32; POOL_SIZE];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0));
    }
    for src in 0..POOL_SIZE {
        for dst in 0..POOL_SIZE {
            if src != dst {
                let h = hashmix(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    for &e in entropy.iter().skip(POOL_SIZE) {
        for p in pool.iter_mut() {
            let h = hashmix(e);
            *p = mix(*p, h);
        }
    }
    let mut hash_const = INIT_B;
    (0..n_words)
        .map(|i| {
            let mut v = pool[i % POOL_SIZE] ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_B);
            v = v.wrapping_mul(hash_const);
            v ^ (v >> XSHIFT)
        })
        .collect()
}

/// `numpy.random.Generator(PCG64(seed))`: the bit generator's state, including the upper half
/// of a 64-bit output kept for the next 32-bit draw (it survives between `integers` calls).
#[derive(Clone, Debug)]
pub struct NumpyRng {
    state: u128,
    inc: u128,
    cached_u32: Option<u32>,
}

impl NumpyRng {
    /// `np.random.default_rng(seed)`.
    pub fn new(seed: u128) -> NumpyRng {
        NumpyRng::from_words(&seed_words(seed))
    }

    /// `np.random.default_rng(seed)` for a seed of any size, given as its [`seed_words`].
    pub fn from_words(entropy: &[u32]) -> NumpyRng {
        let w = seed_sequence_state(entropy, 8);
        // `generate_state(4, np.uint64)` viewed as uint64 (little-endian word pairs).
        let u = |i: usize| u64::from(w[2 * i]) | (u64::from(w[2 * i + 1]) << 32);
        let initstate = (u128::from(u(0)) << 64) | u128::from(u(1));
        let initseq = (u128::from(u(2)) << 64) | u128::from(u(3));
        // `pcg_setseq_128_srandom_r`.
        let mut rng = NumpyRng {
            state: 0,
            inc: (initseq << 1) | 1,
            cached_u32: None,
        };
        rng.step();
        rng.state = rng.state.wrapping_add(initstate);
        rng.step();
        rng
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }

    /// `pcg64_next64`: step, then XSL-RR output of the new state.
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        let x = ((s >> 64) as u64) ^ (s as u64);
        x.rotate_right((s >> 122) as u32)
    }

    /// `pcg64_next32`: the low half of a fresh 64-bit output, the high half next time.
    pub fn next_u32(&mut self) -> u32 {
        if let Some(v) = self.cached_u32.take() {
            return v;
        }
        let next = self.next_u64();
        self.cached_u32 = Some((next >> 32) as u32);
        next as u32
    }

    /// One draw of `integers(0, n)` (`n` ≥ 1) as `random_bounded_uint64_fill` makes it with
    /// `use_masked = false`.
    pub fn below(&mut self, n: u64) -> u64 {
        let rng = n - 1;
        if rng == 0 {
            return 0;
        }
        if rng <= u64::from(u32::MAX) {
            if rng == u64::from(u32::MAX) {
                return u64::from(self.next_u32());
            }
            // `buffered_bounded_lemire_uint32`.
            let excl = rng as u32 + 1;
            let mut m = u64::from(self.next_u32()) * u64::from(excl);
            if (m as u32) < excl {
                let threshold = (u32::MAX - rng as u32) % excl;
                while (m as u32) < threshold {
                    m = u64::from(self.next_u32()) * u64::from(excl);
                }
            }
            return m >> 32;
        }
        if rng == u64::MAX {
            return self.next_u64();
        }
        // `bounded_lemire_uint64`.
        let excl = rng + 1;
        let mut m = u128::from(self.next_u64()) * u128::from(excl);
        if (m as u64) < excl {
            let threshold = (u64::MAX - rng) % excl;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(excl);
            }
        }
        (m >> 64) as u64
    }

    /// `rng.choice(n, size=count, replace=True)` flattened (row-major), i.e. `count` draws of
    /// [`below`](Self::below) in one fill.
    pub fn choice(&mut self, n: u64, count: usize) -> Vec<u64> {
        let mut out = Vec::with_capacity(count);
        self.choice_into(n, count, &mut out);
        out
    }

    /// [`choice`](Self::choice) appended to `out` (whose room the caller may have reserved
    /// fallibly).
    pub fn choice_into(&mut self, n: u64, count: usize, out: &mut Vec<u64>) {
        out.extend((0..count).map(|_| self.below(n)));
    }

    /// `rng.integers(2, size=count, dtype=bool)` flattened: `random_bounded_bool_fill`, 32
    /// draws per 32-bit output, lowest bit first; the buffer is local to the call.
    pub fn bools(&mut self, count: usize) -> Vec<bool> {
        let mut out = Vec::with_capacity(count);
        self.bools_into(count, &mut out);
        out
    }

    /// [`bools`](Self::bools) appended to `out`.
    pub fn bools_into(&mut self, count: usize, out: &mut Vec<bool>) {
        let (mut buf, mut bcnt) = (0u32, 0u32);
        for _ in 0..count {
            if bcnt == 0 {
                buf = self.next_u32();
                bcnt = 31;
            } else {
                buf >>= 1;
                bcnt -= 1;
            }
            out.push(buf & 1 != 0);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values printed by NumPy 2.4.6 (`python3 -c "import numpy as np; …"`).
    use super::*;

    #[test]
    fn seed_sequence_matches_numpy() {
        // np.random.SeedSequence(12345).generate_state(4, np.uint64)
        let w = seed_sequence_state(&seed_words(12345), 8);
        let u = |i: usize| u64::from(w[2 * i]) | (u64::from(w[2 * i + 1]) << 32);
        assert_eq!(
            [u(0), u(1), u(2), u(3)],
            [
                0xb5ae6482a03d837c,
                0xbbe2996ffa1f7a2f,
                0x64e39a9f37158f94,
                0x3ebb0f96a013fd73
            ]
        );
    }

    /// A seed past 128 bits (Python's ints have no limit; sacreBLEU passes `SACREBLEU_SEED` on):
    /// five 32-bit words, the fifth mixed into the pool.
    #[test]
    fn seeds_of_any_size_match_numpy() {
        // 2**130 + 12345 = 4 · 2^128 + 12345.
        let words = [12345, 0, 0, 0, 4];
        assert_eq!(
            seed_sequence_state(&words, 8),
            [
                1067841243, 1074700622, 4277799263, 207906991, 2646164919, 2269553654, 598561128,
                1970099910
            ]
        );
        // np.random.default_rng(2**130 + 12345).integers(0, 1000, size=5)
        assert_eq!(
            NumpyRng::from_words(&words).choice(1000, 5),
            [225, 818, 196, 102, 25]
        );
        assert_eq!(
            seed_sequence_state(&seed_words(0), 4),
            [2968811710, 3677149159, 745650761, 2884920346]
        );
    }

    #[test]
    fn raw_outputs_match_numpy() {
        // default_rng(s).bit_generator.random_raw(k)
        let mut r = NumpyRng::new(12345);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [0x3a32b18db2ffc19d, 0x51171315c9e4c4de, 0xcc2024823444efd9]
        );
        let mut r = NumpyRng::new((1u128 << 70) + 5);
        assert_eq!(
            [r.next_u64(), r.next_u64()],
            [0x31c9728b708a519d, 0x455c922e71cc56b4]
        );
        let mut r = NumpyRng::new(0);
        assert_eq!(
            [r.next_u64(), r.next_u64()],
            [0xa30febcfd9c2825f, 0x4510bdf882d9d721]
        );
    }

    #[test]
    fn bounded_draws_match_numpy() {
        // default_rng(12345).integers(0, 7, size=10), then .integers(0, 5, size=3)
        let mut r = NumpyRng::new(12345);
        assert_eq!(r.choice(7, 10), [4, 1, 5, 2, 1, 5, 4, 4, 6, 2]);
        assert_eq!(r.choice(5, 3), [4, 1, 2]);
        // default_rng(0).choice(3000000000, size=3): a range past 2^31, still 32-bit draws
        let mut r = NumpyRng::new(0);
        assert_eq!(
            r.choice(3_000_000_000, 3),
            [2551872677, 1910885061, 1533409439]
        );
        // default_rng(7).integers(0, 2**40, size=3): 64-bit draws
        let mut r = NumpyRng::new(7);
        assert_eq!(
            r.choice(1 << 40, 3),
            [687299734001, 986497006767, 852875435924]
        );
    }

    #[test]
    fn bool_draws_and_the_cached_half_match_numpy() {
        // default_rng(12345).integers(2, size=(2, 40), dtype=bool)
        let mut r = NumpyRng::new(12345);
        let bits: Vec<u8> = r.bools(80).into_iter().map(u8::from).collect();
        let expected = "1011100110000011111111110100110110110001\
                        1000110101001100010111000111101100100011";
        let expected: Vec<u8> = expected.bytes().map(|b| b - b'0').collect();
        assert_eq!(bits, expected);
        // integers(2, size=(1, 3), dtype=bool) then choice(5, size=4): the choice starts with
        // the upper half of the 64-bit output whose lower half gave the booleans.
        let mut r = NumpyRng::new(12345);
        assert_eq!(r.bools(3), [true, false, true]);
        assert_eq!(r.choice(5, 4), [1, 3, 1, 1]);
    }
}
