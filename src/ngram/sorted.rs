//! Exact n-gram matches of any order by sorting n-gram positions: for orders whose keys do not
//! fit the 128 bits of [`super::CharNgrams`] / [`super::WordNgrams`] (e.g. `--chrf-char-order
//! 20`), on segments too big for the general [`super::NgramIndex`] (about 100 × the line: 443
//! MB for a 4.2 MB line at order 20; issue 19). Each side's positions are sorted by the id
//! slices they start, then both sorted lists are walked together: 4 bytes a position, no
//! hashing, every comparison exact.

use std::cmp::Ordering;

/// Reusable position buffers.
#[derive(Default, Debug)]
pub struct SortedNgrams {
    hyp: Vec<u32>,
    rf: Vec<u32>,
}

impl SortedNgrams {
    /// `Σ min(count in hyp, count in rf)` over the distinct order-`n` n-grams (`n ≥ 1`) of two
    /// id sequences (equal tokens, equal ids): the clipped matches both chrF and NLTK's chrF
    /// count.
    pub fn matches(&mut self, hyp: &[u32], rf: &[u32], n: usize) -> u64 {
        if n == 0 || hyp.len() < n || rf.len() < n {
            return 0;
        }
        sort_positions(hyp, n, &mut self.hyp);
        sort_positions(rf, n, &mut self.rf);
        // The end of the run of equal n-grams that starts at `i`.
        let run_end = |seq: &[u32], sorted: &[u32], i: usize| {
            let first = gram(seq, sorted[i], n);
            i + 1
                + sorted[i + 1..]
                    .iter()
                    .take_while(|&&p| gram(seq, p, n) == first)
                    .count()
        };
        let (mut i, mut j, mut matched) = (0, 0, 0u64);
        while i < self.hyp.len() && j < self.rf.len() {
            match gram(hyp, self.hyp[i], n).cmp(gram(rf, self.rf[j], n)) {
                Ordering::Less => i = run_end(hyp, &self.hyp, i),
                Ordering::Greater => j = run_end(rf, &self.rf, j),
                Ordering::Equal => {
                    let (i2, j2) = (run_end(hyp, &self.hyp, i), run_end(rf, &self.rf, j));
                    matched += (i2 - i).min(j2 - j) as u64;
                    (i, j) = (i2, j2);
                }
            }
        }
        matched
    }
}

/// The order-`n` n-gram of `seq` at `p`.
fn gram(seq: &[u32], p: u32, n: usize) -> &[u32] {
    &seq[p as usize..p as usize + n]
}

/// The start positions of `seq`'s order-`n` n-grams, sorted by the n-grams.
fn sort_positions(seq: &[u32], n: usize, out: &mut Vec<u32>) {
    out.clear();
    let count = u32::try_from(seq.len() + 1 - n).expect("a segment has fewer than 2^32 tokens");
    out.extend(0..count);
    out.sort_unstable_by(|&a, &b| gram(seq, a, n).cmp(gram(seq, b, n)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use std::collections::HashMap;

    fn naive(hyp: &[u32], rf: &[u32], n: usize) -> u64 {
        let count = |s: &[u32]| {
            let mut m: HashMap<Vec<u32>, u64> = HashMap::new();
            for w in s.windows(n) {
                *m.entry(w.to_vec()).or_default() += 1;
            }
            m
        };
        let (h, r) = (count(hyp), count(rf));
        h.iter()
            .map(|(g, c)| (*c).min(*r.get(g).unwrap_or(&0)))
            .sum()
    }

    #[test]
    fn matches_equal_naive_counting() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut sorted = SortedNgrams::default();
        for case in 0..300 {
            let vocab = [2, 3, 30, 70_000][case % 4];
            let seq = |rng: &mut Rng| -> Vec<u32> {
                let len = rng.below(if case % 10 == 0 { 400 } else { 40 });
                (0..len).map(|_| rng.below(vocab) as u32).collect()
            };
            let (hyp, rf) = (seq(&mut rng), seq(&mut rng));
            for n in [1, 2, 3, 7, 20, 45] {
                assert_eq!(
                    sorted.matches(&hyp, &rf, n),
                    naive(&hyp, &rf, n),
                    "case {case}, order {n}"
                );
            }
        }
        assert_eq!(sorted.matches(&[1, 2], &[1, 2], 0), 0);
        assert_eq!(sorted.matches(&[5; 30], &[5; 25], 20), 6);
    }
}
