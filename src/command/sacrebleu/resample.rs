//! `--confidence`, `--paired-bs` and `--paired-ar` as `significance.py` computes them, with
//! NumPy's generator ([`NumpyRng`]) and NumPy's float32 arithmetic ([`super::float32`]), so the
//! means, intervals and p-values are sacreBLEU's.

use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::ToPrimitive;

use super::float32::{self, Num, Scores};
use super::metric::{Row, SbMetric};
use super::table::PairedResult;
use crate::metric::bleu::{Bleu, SmoothMethod};
use crate::metric::Metric;
use crate::significance::numpy_rng::NumpyRng;

/// `SACREBLEU_SEED`: `None` for `none` (OS entropy), else the integer.
#[derive(Clone, Debug)]
pub struct Seed {
    /// The environment string (signature of `--confidence`: `str(seed).lower()`).
    pub text: String,
    /// `int(seed)`: any size, as Python's ints (and NumPy's `SeedSequence`) take.
    pub value: Option<BigUint>,
}

impl Seed {
    /// Reads `SACREBLEU_SEED` (default `12345`); `Err` where Python's `int()` or NumPy would
    /// raise.
    pub fn from_env() -> Result<Seed, String> {
        let text = std::env::var("SACREBLEU_SEED").unwrap_or_else(|_| "12345".into());
        if text.to_lowercase() == "none" {
            return Ok(Seed { text, value: None });
        }
        let v = super::args::py_int_big(&text).ok_or_else(|| {
            format!("ValueError: invalid literal for int() with base 10: '{text}'")
        })?;
        let v = BigUint::try_from(v)
            .map_err(|_| "ValueError: expected non-negative integer".to_owned())?;
        Ok(Seed {
            text,
            value: Some(v),
        })
    }

    /// `str(int(seed)).lower()` (paired tests) or `none`.
    pub fn int_text(&self) -> String {
        self.value
            .as_ref()
            .map_or("none".into(), BigUint::to_string)
    }

    /// `np.random.default_rng(seed)`.
    pub fn rng(&self) -> NumpyRng {
        match &self.value {
            Some(v) => NumpyRng::from_words(&v.to_u32_digits()),
            None => NumpyRng::new(entropy()),
        }
    }
}

/// Fresh entropy for `SACREBLEU_SEED=none` (NumPy asks the OS; so does std's hasher seed).
fn entropy() -> u128 {
    use std::hash::{BuildHasher, Hasher};
    let mut v = 0u128;
    for _ in 0..2 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(v);
        v = (v << 64) | u128::from(h.finish());
    }
    v
}

impl SbMetric {
    /// `_compute_score_from_stats` of float32 sums.
    fn score_f32(&self, sums: &[f32]) -> Num {
        match self {
            SbMetric::Bleu(m) => {
                let c = m.config();
                Num::Py(float32::bleu(
                    sums,
                    c.smooth_method,
                    c.smooth_value,
                    c.corpus_effective_order,
                ))
            }
            SbMetric::Chrf(m, _) => float32::chrf(sums, Metric::config(m)),
            SbMetric::Ter(_) => float32::ter(sums),
        }
    }

    /// The score of integer (`int64`) sums, as the approximate randomization computes it: the
    /// Python path, except that add-k's value added to an `int64` array is truncated.
    fn score_int64(&self, sums: &[f64]) -> f64 {
        if let SbMetric::Bleu(m) = self {
            let c = m.config();
            if c.smooth_method == SmoothMethod::AddK {
                let v = c.smooth_value.unwrap_or(1.0);
                if v.fract() != 0.0 {
                    let mut c = c.clone();
                    c.smooth_value = Some(v.trunc());
                    let b = SbMetric::Bleu(Bleu::new(c));
                    return b.score(sums).map_or(f64::NAN, |s| s.score);
                }
            }
        }
        // A trial whose precision is negative (negative add-k only) would raise in sacreBLEU;
        // the trials are not checked, its score is NaN.
        self.score(sums).map_or(f64::NAN, |s| s.score)
    }
}

/// `stats_np = np.array(stats, dtype='float32')`.
fn to_f32(rows: &[Row]) -> Vec<Vec<f32>> {
    rows.iter()
        .map(|r| r.iter().map(|&v| v as f32).collect())
        .collect()
}

/// The resampled scores of `rows` under the index matrix `idxs` (`n_samples` × `n`).
fn resampled(metric: &SbMetric, rows32: &[Vec<f32>], idxs: &[u64], n: usize) -> Vec<Num> {
    let width = rows32.first().map_or(0, Vec::len);
    idxs.chunks(n.max(1))
        .map(|sample| {
            let sums = float32::sum_rows_f32(rows32, sample.iter().map(|&i| i as usize), width);
            metric.score_f32(&sums)
        })
        .collect()
}

/// `_bootstrap_resample` followed by `Score.estimate_ci` (single system, `--confidence`):
/// the mean is `statistics.mean` (exact, then rounded once).
pub fn confidence(metric: &SbMetric, rows: &[Row], n_samples: usize, seed: &Seed) -> (f64, f64) {
    let n = rows.len();
    let idxs = seed.rng().choice(n as u64, n_samples * n);
    let scores = resampled(metric, &to_f32(rows), &idxs, n);
    let mut raw: Vec<Num> = scores;
    raw.sort_by(|a, b| a.value().total_cmp(&b.value()));
    let k = raw.len();
    let lo = k / 40;
    let (lower, upper) = (raw[lo], raw[k - lo - 1]);
    let ci = match (lower, upper) {
        (Num::F32(l), Num::F32(u)) => f64::from(0.5f32 * (u - l)),
        _ => 0.5 * (upper.value() - lower.value()),
    };
    let mut total = BigRational::from_integer(BigInt::from(0));
    for s in &raw {
        total += BigRational::from_float(s.value()).unwrap_or_default();
    }
    let mean = (total / BigRational::from_integer(BigInt::from(k)))
        .to_f64()
        .unwrap_or(f64::NAN);
    // `np.float32(Fraction)`: the mean of float32 scores is a float32 again.
    let mean = if raw.iter().all(|s| matches!(s, Num::F32(_))) {
        f64::from(mean as f32)
    } else {
        mean
    };
    (mean, ci)
}

/// `(mean, ci)` of the baseline's bootstrap (`PairedTest.__init__`), the `Scores` dtype
/// telling whether sacreBLEU could write them as JSON.
pub fn baseline_estimate(
    metric: &SbMetric,
    rows: &[Row],
    n_samples: usize,
    seed: &Seed,
) -> (f64, f64, bool) {
    let n = rows.len();
    let idxs = seed.rng().choice(n as u64, n_samples * n);
    let scores = Scores::from_nums(&resampled(metric, &to_f32(rows), &idxs, n));
    let (m, ci) = scores.estimate_ci();
    (m, ci, matches!(scores, Scores::F32(_)))
}

/// `_paired_bs_test` for one system against the baseline. The flag: the result holds float32
/// numbers (sacreBLEU cannot write them as JSON).
pub fn paired_bs(
    metric: &SbMetric,
    base_rows: &[Row],
    base_score: f64,
    sys_rows: &[Row],
    n_samples: usize,
    seed: &Seed,
) -> Result<(PairedResult, bool), String> {
    let n = sys_rows.len();
    let idxs = seed.rng().choice(n as u64, n_samples * n);
    let sys_score = metric.score(&SbMetric::sum_rows(sys_rows))?.score;
    let diff = (base_score - sys_score).abs();
    let bl = Scores::from_nums(&resampled(metric, &to_f32(base_rows), &idxs, n));
    let sy = Scores::from_nums(&resampled(metric, &to_f32(sys_rows), &idxs, n));
    let (mean, ci) = sy.estimate_ci();
    let count = match (&sy, &bl) {
        (Scores::F32(s), Scores::F32(b)) => {
            let d: Vec<f32> = s.iter().zip(b).map(|(x, y)| (x - y).abs()).collect();
            let m = float32::pairwise_sum(&d) / d.len() as f32;
            d.iter().filter(|&&x| x - m > diff as f32).count()
        }
        _ => {
            let d: Vec<f64> = (0..sy.len())
                .map(|i| (sy.get(i) - bl.get(i)).abs())
                .collect();
            let m = float32::pairwise_sum(&d) / d.len() as f64;
            d.iter().filter(|&&x| x - m > diff).count()
        }
    };
    let p = (count + 1) as f64 / (sy.len() + 1) as f64;
    let f32s = matches!(sy, Scores::F32(_));
    Ok((
        PairedResult {
            score: sys_score,
            p_value: Some(p),
            mean: Some(mean),
            ci: Some(ci),
        },
        f32s,
    ))
}

/// `_paired_ar_test` for one system against the baseline (no confidence estimate: the CLI
/// passes `n_ar_confidence = -1`).
pub fn paired_ar(
    metric: &SbMetric,
    base_rows: &[Row],
    base_score: f64,
    sys_rows: &[Row],
    n_trials: usize,
    seed: &Seed,
) -> Result<PairedResult, String> {
    let n = sys_rows.len();
    let sel = seed.rng().bools(n_trials * n);
    let sys_score = metric.score(&SbMetric::sum_rows(sys_rows))?.score;
    let diff = (base_score - sys_score).abs();
    let width = sys_rows.first().map_or(0, Vec::len);
    let mut count = 0usize;
    for trial in sel.chunks(n.max(1)) {
        let (mut a, mut b) = (vec![0.0f64; width], vec![0.0f64; width]);
        for (i, &pos) in trial.iter().enumerate() {
            let (x, y) = if pos {
                (&base_rows[i], &sys_rows[i])
            } else {
                (&sys_rows[i], &base_rows[i])
            };
            for k in 0..width {
                a[k] += x[k];
                b[k] += y[k];
            }
        }
        if (metric.score_int64(&a) - metric.score_int64(&b)).abs() > diff {
            count += 1;
        }
    }
    let trials = sel.len().checked_div(n).unwrap_or(n_trials);
    Ok(PairedResult {
        score: sys_score,
        p_value: Some((count + 1) as f64 / (trials + 1) as f64),
        mean: None,
        ci: None,
    })
}
