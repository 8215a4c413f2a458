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
        let v = super::pynum::py_int_big(&text).ok_or_else(|| {
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
    /// `_compute_score_from_stats` of float32 sums (`Err`: what it raises).
    fn score_f32(&self, sums: &[f32]) -> Result<Num, String> {
        Ok(match self {
            SbMetric::Bleu(m) => {
                let c = m.config();
                Num::Py(float32::bleu(
                    sums,
                    c.smooth_method,
                    c.smooth_value,
                    c.corpus_effective_order,
                )?)
            }
            SbMetric::Chrf(m, _) => float32::chrf(sums, Metric::config(m)),
            SbMetric::Ter(_) => float32::ter(sums),
        })
    }

    /// The score of integer (`int64`) sums, as the approximate randomization computes it
    /// (`Err`: what sacreBLEU raises): the Python path, except for add-k ([`add_k_int64`]).
    fn score_int64(&self, sums: &[f64]) -> Result<f64, String> {
        if let SbMetric::Bleu(m) = self {
            if m.config().smooth_method == SmoothMethod::AddK {
                return add_k_int64(m, sums, self.effective_order());
            }
        }
        Ok(self.score(sums)?.score)
    }
}

/// `compute_bleu` with add-k on the randomization's `int64` sums: `correct[n - 1] +=
/// smooth_value` stores the sum back into the `int64` array, so it is truncated toward zero
/// (`3 + 0.5` → 3, `3 − 0.25` → 2, `0 − 0.25` → 0), and an infinite or NaN one raises as
/// NumPy's cast does (found by the significance audit: truncating the value alone was right
/// for positive ones only).
fn add_k_int64(m: &Bleu, sums: &[f64], effective: bool) -> Result<f64, String> {
    let c = m.config();
    let n = c.max_ngram_order;
    let k = c.smooth_value.unwrap_or(1.0);
    let (sys_len, ref_len) = (sums[0], sums[1]);
    let mut correct = sums[2..2 + n].to_vec();
    let mut total = sums[2 + n..2 + 2 * n].to_vec();
    let mut bp = 1.0;
    if sys_len < ref_len {
        bp = if sys_len > 0.0 {
            (1.0 - ref_len / sys_len).exp()
        } else {
            0.0
        };
    }
    if correct.iter().all(|&x| x == 0.0) {
        return Ok(0.0);
    }
    let mut precisions = vec![0.0f64; n];
    let mut eff_order = n;
    for i in 0..n {
        if i > 0 {
            for x in [&mut correct[i], &mut total[i]] {
                let sum = *x + k;
                if sum.is_nan() {
                    return Err("ValueError: cannot convert float NaN to integer".to_owned());
                }
                if sum.is_infinite() {
                    return Err(
                        "OverflowError: cannot convert float infinity to integer".to_owned()
                    );
                }
                *x = sum.trunc();
            }
        }
        if total[i] == 0.0 {
            break;
        }
        if effective {
            eff_order = i + 1;
        }
        if correct[i] != 0.0 {
            precisions[i] = 100.0 * correct[i] / total[i];
        }
    }
    let mut acc = 0.0f64;
    for &p in &precisions[..eff_order] {
        if p < 0.0 {
            return Err(float32::negative_precision());
        }
        acc += if p == 0.0 { -9_999_999_999.0 } else { p.ln() };
    }
    Ok(bp * (acc / eff_order as f64).exp())
}

/// `stats_np = np.array(stats, dtype='float32')`.
fn to_f32(rows: &[Row]) -> Vec<Vec<f32>> {
    rows.iter()
        .map(|r| r.iter().map(|&v| v as f32).collect())
        .collect()
}

/// The resampled scores of `rows` under the index matrix `idxs` (`n_samples` × `n`).
fn resampled(
    metric: &SbMetric,
    rows32: &[Vec<f32>],
    idxs: &[u64],
    n: usize,
) -> Result<Vec<Num>, String> {
    let width = rows32.first().map_or(0, Vec::len);
    idxs.chunks(n.max(1))
        .map(|sample| {
            let sums = float32::sum_rows_f32(rows32, sample.iter().map(|&i| i as usize), width);
            metric.score_f32(&sums)
        })
        .collect()
}

/// The array NumPy draws for a resampling: `rng.choice`'s indices (bootstrap, int64) or
/// `rng.integers(2, dtype=bool)`'s coin flips (randomization).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Draws {
    Indices,
    Flips,
}

impl Draws {
    /// Bytes per draw and NumPy's name of the array's type.
    fn dtype(self) -> (u128, &'static str) {
        match self {
            Draws::Indices => (8, "int64"),
            Draws::Flips => (1, "bool"),
        }
    }
}

/// `n` resamples of `segments` segments as NumPy allocates them: the count, or the exception
/// NumPy raises (the last line of sacreBLEU's traceback, status 1) where the array cannot exist
/// — where bleu-stream would otherwise abort on a failed allocation (found by the significance
/// audit: `--paired-ar-n 1000000000000`). The cut-off for a `MemoryError` is the machine's
/// physical memory (NumPy's is whatever `malloc` refuses, much the same).
pub fn array_size(n: i128, segments: usize, draws: Draws) -> Result<usize, String> {
    let (item, dtype) = draws.dtype();
    if n > i128::from(i64::MAX) {
        // `size=(n, m)` as C longs: past 2^64 `choice` cannot even convert it.
        return Err(if draws == Draws::Indices && n > i128::from(u64::MAX) {
            "OverflowError: Python int too large to convert to C long".to_owned()
        } else {
            "ValueError: Maximum allowed dimension exceeded".to_owned()
        });
    }
    let bytes = n.unsigned_abs() * segments as u128 * item;
    if bytes > i64::MAX as u128 {
        return Err(
            "ValueError: array is too big; `arr.size * arr.dtype.itemsize` is larger \
                    than the maximum possible size."
                .to_owned(),
        );
    }
    // SAFETY: `sysconf` only reads system constants.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let memory = u128::try_from(pages).unwrap_or(0) * u128::try_from(page).unwrap_or(0);
    if memory > 0 && bytes > memory {
        return Err(memory_error(bytes, n, segments, dtype));
    }
    usize::try_from(n.max(0)).map_err(|_| "MemoryError".to_owned())
}

/// NumPy's `MemoryError` for an array of `bytes` with shape `(n, segments)`.
fn memory_error(bytes: u128, n: i128, segments: usize, dtype: &str) -> String {
    format!(
        "numpy._core._exceptions._ArrayMemoryError: Unable to allocate {} for an array with \
         shape ({n}, {segments}) and data type {dtype}",
        numpy_size(bytes)
    )
}

/// Room for the `(n_samples, segments)` array of draws, asked of the allocator as NumPy asks
/// `malloc`: a refusal is NumPy's `MemoryError`, not an abort. [`array_size`] already refuses
/// what passes physical memory; this is for a smaller limit (`ulimit -v`, a cgroup), under
/// which the audit expected an abort.
fn draws_buffer<T>(n_samples: usize, segments: usize, draws: Draws) -> Result<Vec<T>, String> {
    let (item, dtype) = draws.dtype();
    let mut buffer = Vec::new();
    buffer
        .try_reserve_exact(n_samples.saturating_mul(segments))
        .map_err(|_| {
            let bytes = n_samples as u128 * segments as u128 * item;
            memory_error(bytes, n_samples as i128, segments, dtype)
        })?;
    Ok(buffer)
}

/// NumPy's `_ArrayMemoryError._size_to_string`: binary units, three significant digits.
fn numpy_size(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let bits = 128 - bytes.leading_zeros() as usize;
    let mut unit = (bits.saturating_sub(1)).max(1) / 10;
    let mut value = bytes as f64 / (1u128 << (unit * 10)) as f64;
    if value.round() == 1024.0 {
        unit += 1;
        value /= 1024.0;
    }
    if unit == 0 {
        return format!("{value:.0} bytes");
    }
    if value.round() >= 1000.0 {
        return format!("{value:.0}. {}", UNITS[unit]);
    }
    // `'{:#.3g}'`: three significant digits, the point and trailing zeros kept (`931.`,
    // `7.28`, `8.00`); the value is in [1, 1000) here, so never in exponent form.
    let exponent: usize = format!("{value:.2e}")
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let decimals = 2usize.saturating_sub(exponent);
    let point = if decimals == 0 { "." } else { "" };
    format!("{value:.decimals$}{point} {}", UNITS[unit])
}

/// `_bootstrap_resample` followed by `Score.estimate_ci` (single system, `--confidence`):
/// the mean is `statistics.mean` (exact, then rounded once).
pub fn confidence(
    metric: &SbMetric,
    rows: &[Row],
    n_samples: usize,
    seed: &Seed,
) -> Result<(f64, f64), String> {
    let n = rows.len();
    let mut idxs = draws_buffer(n_samples, n, Draws::Indices)?;
    seed.rng().choice_into(n as u64, n_samples * n, &mut idxs);
    let mut raw: Vec<Num> = resampled(metric, &to_f32(rows), &idxs, n)?;
    // `sorted(...)`: stable, as Rust's sort.
    raw.sort_by(|a, b| a.value().total_cmp(&b.value()));
    // `statistics.mean` coerces the scores' types in order of appearance and knows no common
    // type of Python's float and NumPy's float32: chrF returns a Python `0.0` for a resample
    // without any match (its `avg_prec + avg_rec` is 0) and float32 otherwise (found by the
    // significance audit).
    let is_py = |s: &Num| matches!(s, Num::Py(_));
    if raw.iter().any(is_py) && !raw.iter().all(is_py) {
        let (t, s) = if is_py(&raw[0]) {
            ("float", "float32")
        } else {
            ("float32", "float")
        };
        return Err(format!(
            "TypeError: don't know how to coerce {t} and {s} — sacreBLEU 2.6.0 fails here too: \
             a resample without any match scores a Python float among NumPy float32 scores, \
             which statistics.mean cannot add"
        ));
    }
    let k = raw.len();
    let lo = k / 40;
    let (lower, upper) = (raw[lo], raw[k - lo - 1]);
    let ci = match (lower, upper) {
        (Num::F32(l), Num::F32(u)) => f64::from(0.5f32 * (u - l)),
        _ => 0.5 * (upper.value() - lower.value()),
    };
    // `statistics._sum`: the finite scores add up exactly; a non-finite one cannot be a
    // fraction, and then the sum is the float sum of the non-finite ones alone (an `inf`
    // resample, from `-s floor -sv inf`, makes the mean `inf`: it was counted as 0).
    let special: Vec<f64> = raw
        .iter()
        .map(|s| s.value())
        .filter(|v| !v.is_finite())
        .collect();
    let mean = if special.is_empty() {
        let mut total = BigRational::from_integer(BigInt::from(0));
        for s in &raw {
            total += BigRational::from_float(s.value()).unwrap_or_default();
        }
        (total / BigRational::from_integer(BigInt::from(k)))
            .to_f64()
            .unwrap_or(f64::NAN)
    } else {
        special.iter().sum::<f64>() / k as f64
    };
    // `np.float32(Fraction)`: the mean of float32 scores is a float32 again.
    let mean = if raw.iter().all(|s| matches!(s, Num::F32(_))) {
        f64::from(mean as f32)
    } else {
        mean
    };
    Ok((mean, ci))
}

/// `(mean, ci)` of the baseline's bootstrap (`PairedTest.__init__`), the `Scores` dtype
/// telling whether sacreBLEU could write them as JSON.
pub fn baseline_estimate(
    metric: &SbMetric,
    rows: &[Row],
    n_samples: usize,
    seed: &Seed,
) -> Result<(f64, f64, bool), String> {
    let n = rows.len();
    let mut idxs = draws_buffer(n_samples, n, Draws::Indices)?;
    seed.rng().choice_into(n as u64, n_samples * n, &mut idxs);
    let scores = Scores::from_nums(&resampled(metric, &to_f32(rows), &idxs, n)?);
    let (m, ci) = scores.estimate_ci();
    Ok((m, ci, matches!(scores, Scores::F32(_))))
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
    let mut idxs = draws_buffer(n_samples, n, Draws::Indices)?;
    seed.rng().choice_into(n as u64, n_samples * n, &mut idxs);
    let sys_score = metric.score(&SbMetric::sum_rows(sys_rows))?.score;
    let diff = (base_score - sys_score).abs();
    let bl = Scores::from_nums(&resampled(metric, &to_f32(base_rows), &idxs, n)?);
    let sy = Scores::from_nums(&resampled(metric, &to_f32(sys_rows), &idxs, n)?);
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
    let mut sel = draws_buffer(n_trials, n, Draws::Flips)?;
    seed.rng().bools_into(n_trials * n, &mut sel);
    let sys_score = metric.score(&SbMetric::sum_rows(sys_rows))?.score;
    let diff = (base_score - sys_score).abs();
    let width = sys_rows.first().map_or(0, Vec::len);
    let mut count = 0usize;
    // `pos_sel @ bl_stats + neg_sel @ sys_stats`: each product summed on its own, then the two
    // added. With integer statistics any order is exact; with TER's averages over 3 references
    // (x/3) the rounding follows the order, and two sums added differ from one interleaved sum
    // (found by the significance audit). NumPy's BLAS may still group a product's terms its
    // own way (by vector lanes, for some matrix sizes and CPUs): README, "Differences".
    let (mut base_pos, mut base_neg) = (vec![0.0f64; width], vec![0.0f64; width]);
    let (mut sys_pos, mut sys_neg) = (vec![0.0f64; width], vec![0.0f64; width]);
    for trial in sel.chunks(n.max(1)) {
        for v in [&mut base_pos, &mut base_neg, &mut sys_pos, &mut sys_neg] {
            v.fill(0.0);
        }
        for (i, &pos) in trial.iter().enumerate() {
            let (base, sys) = if pos {
                (&mut base_pos, &mut sys_pos)
            } else {
                (&mut base_neg, &mut sys_neg)
            };
            for k in 0..width {
                base[k] += base_rows[i][k];
                sys[k] += sys_rows[i][k];
            }
        }
        let a: Vec<f64> = (0..width).map(|k| base_pos[k] + sys_neg[k]).collect();
        let b: Vec<f64> = (0..width).map(|k| base_neg[k] + sys_pos[k]).collect();
        if (metric.score_int64(&a)? - metric.score_int64(&b)?).abs() > diff {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// NumPy's sizes in its `MemoryError`s, and the errors themselves where the resamples could
    /// never be allocated (the significance audit's cases; numbers from NumPy 2 through
    /// sacreBLEU 2.6.0).
    #[test]
    fn resample_arrays_numpy_cannot_allocate_fail_as_numpy_does() {
        assert_eq!(numpy_size(1_000_000_000_000), "931. GiB");
        assert_eq!(numpy_size(8_000_000_000_000), "7.28 TiB");
        assert_eq!(numpy_size(i64::MAX as u128), "8.00 EiB");
        assert_eq!(numpy_size(1536), "1.50 KiB");
        assert_eq!(numpy_size(1023 * 1024 + 1000), "1.00 MiB");
        assert_eq!(numpy_size(100), "100 bytes");
        let e = array_size(1_000_000_000_000, 1, Draws::Flips).unwrap_err();
        assert!(e.ends_with("Unable to allocate 931. GiB for an array with shape (1000000000000, 1) and data type bool"), "{e}");
        let e = array_size(1_000_000_000_000, 1, Draws::Indices).unwrap_err();
        assert!(
            e.ends_with("7.28 TiB for an array with shape (1000000000000, 1) and data type int64"),
            "{e}"
        );
        let max = i128::from(i64::MAX);
        assert!(array_size(max, 1, Draws::Indices)
            .unwrap_err()
            .starts_with("ValueError: array is too big"));
        assert!(array_size(max, 1, Draws::Flips)
            .unwrap_err()
            .contains("8.00 EiB"));
        for draws in [Draws::Indices, Draws::Flips] {
            assert_eq!(
                array_size(max + 1, 1, draws).unwrap_err(),
                "ValueError: Maximum allowed dimension exceeded"
            );
        }
        assert_eq!(
            array_size(i128::from(u64::MAX) + 1, 1, Draws::Flips).unwrap_err(),
            "ValueError: Maximum allowed dimension exceeded"
        );
        assert_eq!(
            array_size(i128::MAX, 1, Draws::Indices).unwrap_err(),
            "OverflowError: Python int too large to convert to C long"
        );
        assert_eq!(array_size(1000, 3, Draws::Indices), Ok(1000));
    }
}
