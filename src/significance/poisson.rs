//! The online bootstrap (`--confidence streaming`): instead of resampling stored segments, each
//! segment enters each of B replicate totals with a Poisson(1) weight — the limit of the
//! multinomial counts of a bootstrap resample (Oza & Russell 2001; Hanley & MacGibbon 2006).
//! Memory is B statistic vectors, whatever the corpus size, so a live run can print a
//! confidence interval in every running report.
//!
//! The weight of segment `line` in replicate `b` is a hash of `(seed, line, b)`, not a draw
//! from a stateful generator: shards that number their lines globally (`--first-line`) produce
//! replicate sums that add up to exactly those of one run, so statistics stay mergeable.
//!
//! The hash and the Poisson thresholds below are part of the stats-document format (a change
//! would silently change saved replicates), which is why they are written out here rather than
//! taken from a crate whose output may change between versions.

use super::splitmix::{mix, GAMMA};

/// `P(X ≤ k)` for X ~ Poisson(1), k = 0, 1, …, scaled to 2^64 and truncated (computed with
/// 60-digit decimal arithmetic): a uniform `u64` below `THRESHOLDS[k]` and at or above
/// `THRESHOLDS[k − 1]` is the weight k.
const THRESHOLDS: [u64; 20] = [
    0x5e2d58d8b3bcdf1a,
    0xbc5ab1b16779be35,
    0xeb715e1dc1582dc2,
    0xfb23979734a252f1,
    0xff1025f59174dc3d,
    0xffd90f3ba4055e19,
    0xfffa8b71fc72c913,
    0xffff540c0914b3c9,
    0xffffed1f4aa8f120,
    0xfffffe216e641462,
    0xffffffd4d85d3183,
    0xfffffffc6da262b4,
    0xffffffffba12d178,
    0xfffffffffb07c64c,
    0xffffffffffab8ea5,
    0xfffffffffffabe22,
    0xffffffffffffb11a,
    0xfffffffffffffba1,
    0xffffffffffffffc5,
    0xfffffffffffffffd,
];

/// The hash state of one segment: every replicate's weight derives from it.
fn segment_key(seed: u64, line: u64) -> u64 {
    mix(seed ^ mix(line))
}

/// The Poisson(1) weight of a uniform 64-bit number.
fn poisson1(u: u64) -> u64 {
    THRESHOLDS.iter().take_while(|&&t| u >= t).count() as u64
}

/// The weight of segment `line` (its input line number) in replicate `b`.
pub fn weight(seed: u64, line: u64, b: usize) -> u64 {
    let key = segment_key(seed, line);
    poisson1(mix(key.wrapping_add((b as u64 + 1).wrapping_mul(GAMMA))))
}

/// B replicate totals of a metric's vector form (see `Metric::vector_len`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replicates {
    width: usize,
    count: usize,
    /// Replicate b is `sums[b * width..(b + 1) * width]`.
    sums: Vec<u64>,
}

impl Replicates {
    /// `count` empty replicates of vectors `width` long.
    pub fn new(width: usize, count: usize) -> Replicates {
        Replicates {
            width,
            count,
            sums: vec![0; width * count],
        }
    }

    /// Number of replicates.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Adds segment `line`'s vector to every replicate with its weight.
    pub fn add(&mut self, seed: u64, line: u64, v: &[u64]) {
        debug_assert_eq!(v.len(), self.width);
        let key = segment_key(seed, line);
        for (b, sums) in self.sums.chunks_exact_mut(self.width).enumerate() {
            let w = poisson1(mix(key.wrapping_add((b as u64 + 1).wrapping_mul(GAMMA))));
            if w == 0 {
                continue;
            }
            for (s, &x) in sums.iter_mut().zip(v) {
                *s = s.wrapping_add(w.wrapping_mul(x));
            }
        }
    }

    /// Adds another shard's replicates (same width, count and seed).
    pub fn merge(&mut self, other: &Replicates) -> Result<(), String> {
        if (other.width, other.count) != (self.width, self.count) {
            return Err(format!(
                "{} replicates of {} numbers where {} of {} were expected",
                other.count, other.width, self.count, self.width
            ));
        }
        // Checked: a wrapped sum would be a plausible wrong interval (a merged stats document
        // can hold any numbers).
        let mut sums = self.sums.clone();
        for (s, &o) in sums.iter_mut().zip(&other.sums) {
            *s = s.checked_add(o).ok_or("replicate sums overflow 64 bits")?;
        }
        self.sums = sums;
        Ok(())
    }

    /// Every replicate's score.
    pub fn scores(&self, score: &dyn Fn(&[u64]) -> f64) -> Vec<f64> {
        self.sums.chunks_exact(self.width).map(score).collect()
    }

    /// The replicate sums, replicate after replicate (stats documents).
    pub fn as_flat(&self) -> &[u64] {
        &self.sums
    }

    /// Replicates read back from [`as_flat`](Replicates::as_flat).
    pub fn from_flat(width: usize, count: usize, sums: Vec<u64>) -> Result<Replicates, String> {
        if width == 0 || sums.len() != width * count {
            return Err(format!(
                "{} replicate sums where {count} replicates of {width} were expected",
                sums.len()
            ));
        }
        Ok(Replicates { width, count, sums })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_poisson_one() {
        // Mean 1 and variance 1 over many (line, replicate) pairs; P(0) = e^-1.
        let n = 200_000u64;
        let (mut sum, mut sq, mut zeros) = (0u64, 0u64, 0u64);
        for i in 0..n {
            let w = weight(12345, i / 100 + 1, (i % 100) as usize);
            sum += w;
            sq += w * w;
            zeros += u64::from(w == 0);
        }
        let mean = sum as f64 / n as f64;
        let var = sq as f64 / n as f64 - mean * mean;
        assert!((mean - 1.0).abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
        let p0 = zeros as f64 / n as f64;
        assert!((p0 - (-1.0f64).exp()).abs() < 0.005, "P(0) {p0}");
    }

    #[test]
    fn thresholds_are_increasing_cumulative_probabilities() {
        assert!(THRESHOLDS.windows(2).all(|w| w[0] < w[1]));
        // e^-1 · 2^64 and 2·e^-1 · 2^64.
        assert!((THRESHOLDS[0] as f64 / 2f64.powi(64) - (-1.0f64).exp()).abs() < 1e-15);
        assert!((THRESHOLDS[1] as f64 / 2f64.powi(64) - 2.0 * (-1.0f64).exp()).abs() < 1e-15);
        assert_eq!(poisson1(0), 0);
        assert_eq!(poisson1(THRESHOLDS[0]), 1);
        assert_eq!(poisson1(u64::MAX), 20);
    }

    #[test]
    fn shards_add_up_to_one_run() {
        let segments: Vec<[u64; 3]> = (0..50).map(|i| [i, i * 2 + 1, 7]).collect();
        let mut one = Replicates::new(3, 64);
        for (i, v) in segments.iter().enumerate() {
            one.add(7, i as u64 + 1, v);
        }
        let (mut a, mut b) = (Replicates::new(3, 64), Replicates::new(3, 64));
        for (i, v) in segments.iter().enumerate() {
            let shard = if i < 20 { &mut a } else { &mut b };
            shard.add(7, i as u64 + 1, v);
        }
        a.merge(&b).unwrap();
        assert_eq!(a, one);
        // The weights are fixed by (seed, line, replicate): a different seed differs.
        let mut other = Replicates::new(3, 64);
        for (i, v) in segments.iter().enumerate() {
            other.add(8, i as u64 + 1, v);
        }
        assert_ne!(other, one);
        assert!(Replicates::new(3, 64)
            .merge(&Replicates::new(2, 64))
            .is_err());
    }

    #[test]
    fn the_hash_is_pinned() {
        // Part of the stats-document format: these values must never change.
        assert_eq!(mix(0), 0);
        assert_eq!(mix(1), 0x5692_161d_100b_05e5);
        let first: Vec<u64> = (0..8).map(|b| weight(12345, 1, b)).collect();
        assert_eq!(first, PINNED);
    }

    // Computed independently with Python integers.
    const PINNED: [u64; 8] = [1, 0, 2, 1, 1, 0, 0, 1];
}
