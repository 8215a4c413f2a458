//! Times the resampling library (issue 7: "bootstrap with 1000 resamples over 100k segments in
//! under a second"): sacreBLEU-style bootstrap of corpus BLEU, a paired bootstrap and an
//! approximate randomization of one system against a baseline, on synthetic BLEU statistics
//! vectors. Run by `bench/bootstrap.sh`, which builds it with `--release`:
//!
//! ```sh
//! cargo run --release --example bootstrap_bench -- [SEGMENTS [SAMPLES [THREADS]]]
//! ```
//!
//! Prints one line per case: the time of the best of three runs and the result, so that a
//! change of the numbers (for the same seed) shows as well as a change of speed.

use std::time::Instant;

use bleu_stream::metric::bleu::{Bleu, BleuConfig};
use bleu_stream::metric::Metric;
use bleu_stream::significance::paired::{approximate_randomization, paired_bootstrap};
use bleu_stream::significance::{
    bootstrap_threads, default_threads, sample_rng, Draws, Stream, Vectors,
};

/// `[hyp_len, ref_len, matches 1..4, totals 1..4]` of a plausible segment: lengths 5–60 tokens,
/// n-gram precisions around `quality`, falling with the order.
fn segment(d: &mut Draws, quality: f64, out: &mut [u64; 10]) {
    let hyp = 5 + u64::from(d.below(56));
    let reference = (hyp as i64 + i64::from(d.below(9)) - 4).max(1) as u64;
    out[0] = hyp;
    out[1] = reference;
    for n in 0..4 {
        let total = (hyp + 1).saturating_sub(n as u64 + 1);
        let p = quality * 0.75f64.powi(n as i32);
        let matches = (0..total)
            .filter(|_| f64::from(d.below(1 << 24)) < p * f64::from(1u32 << 24))
            .count() as u64;
        out[2 + n] = matches;
        out[6 + n] = total;
    }
}

fn system(segments: usize, quality: f64, seed: u64) -> Vectors {
    let mut d = Draws::new(sample_rng(seed, Stream::Bootstrap, u64::MAX));
    let mut v = Vectors::new(10);
    let mut row = [0u64; 10];
    for _ in 0..segments {
        segment(&mut d, quality, &mut row);
        v.push(&row).expect("small counts");
    }
    v
}

/// The best of three runs of `f`, in seconds, and its last result.
fn best_of_3<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..3 {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed().as_secs_f64());
        result = Some(r);
    }
    (best, result.expect("three runs"))
}

fn main() {
    let arg = |i: usize, default: usize| -> usize {
        std::env::args()
            .nth(i)
            .map(|a| a.parse().expect("a number"))
            .unwrap_or(default)
    };
    let segments = arg(1, 100_000);
    let samples = arg(2, 1000);
    let threads = arg(3, default_threads());
    let bleu = Bleu::new(BleuConfig::default());
    let score = |s: &[u64]| bleu.score_vector(s);
    let base = system(segments, 0.60, 1);
    let sys = system(segments, 0.62, 2);
    println!(
        "# {segments} segments, BLEU {:.2} vs {:.2}, {threads} threads",
        score(&base.total()),
        score(&sys.total())
    );

    let (t, i) = best_of_3(|| bootstrap_threads(&base, samples, 12345, threads, &score));
    println!(
        "bootstrap\t{samples} resamples\t{t:.3} s\tmean {:.4} ± {:.4}",
        i.mean, i.ci
    );
    let (t, r) = best_of_3(|| paired_bootstrap(&base, &[&sys], samples, 12345, threads, &score));
    println!(
        "paired-bs\t{samples} resamples\t{t:.3} s\tp = {:.4}",
        r[1].p_value.expect("a system's p")
    );
    let trials = samples * 10;
    let (t, r) =
        best_of_3(|| approximate_randomization(&base, &[&sys], trials, 12345, threads, &score));
    println!(
        "paired-ar\t{trials} trials\t{t:.3} s\tp = {:.4}",
        r[1].p_value.expect("a system's p")
    );
}
