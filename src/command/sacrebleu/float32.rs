//! sacreBLEU's resampled scores under NumPy 2 arithmetic.
//!
//! `significance.py` stacks the segment statistics into a `float32` array and hands each
//! resample's `_s.sum(0)` (float32) to the metric's `_compute_score_from_stats`. Under NumPy 2's
//! promotion rules (NEP 50) a Python number meeting a `np.float32` is converted to float32, so
//! the precisions of BLEU and everything in chrF and TER are computed in single precision;
//! BLEU's `math.log`/`math.exp` then return to double. This module redoes those computations
//! with the same types, operation by operation, plus NumPy's pairwise summation (`np.mean`).

use crate::metric::bleu::SmoothMethod;
use crate::metric::chrf::ChrfConfig;

/// A number in sacreBLEU's float32 code paths: a Python float, or a NumPy float32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Py(f64),
    F32(f32),
}

impl Num {
    pub fn value(self) -> f64 {
        match self {
            Num::Py(v) => v,
            Num::F32(v) => f64::from(v),
        }
    }

    fn op(self, other: Num, f64op: fn(f64, f64) -> f64, f32op: fn(f32, f32) -> f32) -> Num {
        match (self, other) {
            (Num::Py(a), Num::Py(b)) => Num::Py(f64op(a, b)),
            (Num::F32(a), Num::F32(b)) => Num::F32(f32op(a, b)),
            (Num::F32(a), Num::Py(b)) => Num::F32(f32op(a, b as f32)),
            (Num::Py(a), Num::F32(b)) => Num::F32(f32op(a as f32, b)),
        }
    }
    fn add(self, o: Num) -> Num {
        self.op(o, |a, b| a + b, |a, b| a + b)
    }
    fn mul(self, o: Num) -> Num {
        self.op(o, |a, b| a * b, |a, b| a * b)
    }
    fn div(self, o: Num) -> Num {
        self.op(o, |a, b| a / b, |a, b| a / b)
    }
}

/// `_s.sum(0)` of the selected float32 rows: row after row, in float32.
pub fn sum_rows_f32(
    rows: &[Vec<f32>],
    indices: impl Iterator<Item = usize>,
    width: usize,
) -> Vec<f32> {
    let mut total = vec![0f32; width];
    for i in indices {
        for (t, v) in total.iter_mut().zip(&rows[i]) {
            *t += v;
        }
    }
    total
}

/// `BLEU.compute_bleu` on float32 sums (`max_ngram_order` = `(len − 2) / 2`).
pub fn bleu(
    stats: &[f32],
    method: SmoothMethod,
    smooth_value: Option<f64>,
    effective: bool,
) -> Result<f64, String> {
    let n = (stats.len() - 2) / 2;
    let sys_len = stats[0] as i64;
    let ref_len = stats[1] as i64;
    let mut correct: Vec<f32> = stats[2..2 + n].to_vec();
    let mut total: Vec<f32> = stats[2 + n..].to_vec();
    let value = smooth_value.unwrap_or(match method {
        SmoothMethod::Floor => 0.1,
        SmoothMethod::AddK => 1.0,
        _ => 0.0,
    });
    let mut bp = 1.0f64;
    if sys_len < ref_len {
        bp = if sys_len > 0 {
            (1.0 - ref_len as f64 / sys_len as f64).exp()
        } else {
            0.0
        };
    }
    if correct.iter().all(|&c| c == 0.0) {
        return Ok(0.0);
    }
    let mut precisions = vec![0.0f64; n];
    let mut smooth_mteval = 1.0f64;
    let mut eff_order = n;
    for i in 0..n {
        if method == SmoothMethod::AddK && i > 0 {
            correct[i] += value as f32;
            total[i] += value as f32;
        }
        if total[i] == 0.0 {
            break;
        }
        if effective {
            eff_order = i + 1;
        }
        if correct[i] == 0.0 {
            match method {
                SmoothMethod::Exp => {
                    smooth_mteval *= 2.0;
                    let d = smooth_mteval as f32 * total[i];
                    precisions[i] = f64::from(100f32 / d);
                }
                SmoothMethod::Floor => {
                    precisions[i] = f64::from((100.0 * value) as f32 / total[i]);
                }
                _ => {}
            }
        } else {
            precisions[i] = f64::from(100f32 * correct[i] / total[i]);
        }
    }
    let mut acc = 0.0f64;
    for &p in &precisions[..eff_order] {
        if p < 0.0 {
            return Err(negative_precision());
        }
        acc += if p == 0.0 { -9_999_999_999.0 } else { p.ln() };
    }
    Ok(bp * (acc / eff_order as f64).exp())
}

/// What `math.log` raises on the negative precision a negative `-sv` makes in a resample.
pub fn negative_precision() -> String {
    "ValueError: math domain error (sacreBLEU takes the log of each n-gram precision, and a \
     negative -sv made one negative in a resample)"
        .to_owned()
}

/// `CHRF._compute_f_score` on float32 sums.
pub fn chrf(stats: &[f32], config: &ChrfConfig) -> Num {
    let eps = Num::Py(1e-16);
    let mut score = Num::Py(0.0);
    let mut effective = 0i64;
    let (factor, one_plus) = config.factors();
    let (factor, one_plus) = (Num::Py(factor), Num::Py(one_plus));
    let (mut avg_p, mut avg_r) = (Num::Py(0.0), Num::Py(0.0));
    let order = config.char_order + config.word_order;
    for t in stats.chunks_exact(3).take(order) {
        let (h, r, m) = (t[0], t[1], t[2]);
        let p = if h > 0.0 { Num::F32(m / h) } else { eps };
        let rc = if r > 0.0 { Num::F32(m / r) } else { eps };
        let denom = factor.mul(p).add(rc);
        score = score.add(if denom.value() > 0.0 {
            one_plus.mul(p).mul(rc).div(denom)
        } else {
            eps
        });
        if h > 0.0 && r > 0.0 {
            avg_p = avg_p.add(p);
            avg_r = avg_r.add(rc);
            effective += 1;
        }
    }
    if config.eps_smoothing {
        return Num::Py(100.0).mul(score).div(Num::Py(order as f64));
    }
    if effective == 0 {
        avg_p = Num::Py(0.0);
        avg_r = Num::Py(0.0);
    } else {
        avg_p = avg_p.div(Num::Py(effective as f64));
        avg_r = avg_r.div(Num::Py(effective as f64));
    }
    if avg_p.add(avg_r).value() != 0.0 {
        let s = one_plus.mul(avg_p).mul(avg_r);
        let s = s.div(factor.mul(avg_p).add(avg_r));
        Num::Py(100.0).mul(s)
    } else {
        Num::Py(0.0)
    }
}

/// `TER._compute_score_from_stats` on float32 sums.
pub fn ter(stats: &[f32]) -> Num {
    let (edits, len) = (stats[0], stats[1]);
    let score = if len > 0.0 {
        Num::F32(edits / len)
    } else if edits > 0.0 {
        Num::Py(1.0)
    } else {
        Num::Py(0.0)
    };
    Num::Py(100.0).mul(score)
}

/// NumPy's pairwise summation (`pairwise_sum_DOUBLE`/`_FLOAT`), generic over the two types.
pub fn pairwise_sum<T>(a: &[T]) -> T
where
    T: Copy + std::ops::Add<Output = T> + Default,
{
    let n = a.len();
    if n < 8 {
        let mut r = T::default();
        for &x in a {
            r = r + x;
        }
        r
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - n % 8 {
            for j in 0..8 {
                r[j] = r[j] + a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res = res + a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Resampled scores as NumPy holds them: `np.array(scores)` is float32 when every score is a
/// float32, float64 otherwise.
#[derive(Clone, Debug)]
pub enum Scores {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

impl Scores {
    pub fn from_nums(nums: &[Num]) -> Scores {
        if nums.iter().all(|n| matches!(n, Num::F32(_))) && !nums.is_empty() {
            Scores::F32(nums.iter().map(|n| n.value() as f32).collect())
        } else {
            Scores::F64(nums.iter().map(|n| n.value()).collect())
        }
    }

    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        match self {
            Scores::F64(v) => v.len(),
            Scores::F32(v) => v.len(),
        }
    }

    /// Element `i` as a double.
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Scores::F64(v) => v[i],
            Scores::F32(v) => f64::from(v[i]),
        }
    }

    /// `significance.estimate_ci`: `(scores.mean(), 0.5 * (upper − lower))` over the sorted
    /// array, in the array's precision.
    pub fn estimate_ci(&self) -> (f64, f64) {
        match self {
            Scores::F64(v) => {
                let mut s = v.clone();
                s.sort_by(f64::total_cmp);
                let n = s.len();
                let lo = n / 40;
                let mean = pairwise_sum(&s) / n as f64;
                (mean, 0.5 * (s[n - lo - 1] - s[lo]))
            }
            Scores::F32(v) => {
                let mut s = v.clone();
                s.sort_by(f32::total_cmp);
                let n = s.len();
                let lo = n / 40;
                let mean = pairwise_sum(&s) / n as f32;
                (f64::from(mean), f64::from(0.5f32 * (s[n - lo - 1] - s[lo])))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_sum_is_numpy_s() {
        // np.arange(1, 301) / 7: sum() = 6450.0 exactly as NumPy prints it.
        let v: Vec<f64> = (1..=300).map(|i| f64::from(i) / 7.0).collect();
        assert_eq!(pairwise_sum(&v), 6450.0);
        // float32 arithmetic stays float32.
        assert_eq!(Num::Py(0.1).add(Num::F32(0.2)), Num::F32(0.1f32 + 0.2f32));
    }
}
