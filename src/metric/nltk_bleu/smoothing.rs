//! NLTK's `SmoothingFunction` methods 0–7 (`NLTK.md` §7), in Python's number tower.

use super::*;

impl NltkBleu {
    /// `SmoothingFunction(epsilon, alpha, k).methodN(p_n, references, hypothesis, hyp_len)`
    /// with the last sentence's references and hypothesis (`NLTK.md` §7).
    pub(super) fn smooth(
        &self,
        nums: &[u64],
        dens: &[u64],
        totals: &NltkStats,
        warnings: &mut Vec<usize>,
    ) -> Result<Vec<Num>, PyError> {
        let mut p: Vec<Num> = nums
            .iter()
            .zip(dens)
            .map(|(&num, &den)| Num::Count { num, den })
            .collect();
        let last = totals.last.unwrap_or_default();
        // Methods 4 and 7 use `hyp_len`, the corpus hypothesis length (never 0 here).
        let t = totals.hyp_len;
        match self.config.smoothing.unwrap_or(0) {
            0 => {
                // Q1: a zero precision becomes float_info.min (log = −708.39…), with a warning:
                // the score is tiny, not 0.
                for (i, v) in p.iter_mut().enumerate() {
                    if nums[i] == 0 {
                        warnings.push(i + 1);
                        *v = Num::Float(FLOAT_MIN);
                    }
                }
            }
            1 => {
                for (i, v) in p.iter_mut().enumerate() {
                    if nums[i] == 0 {
                        *v = Num::int(0)
                            .add(&self.config.epsilon)?
                            .div(&Num::Int(BigInt::from(dens[i])))?;
                    }
                }
            }
            2 => {
                // Q11: +1 on every order but the first, zero or not (at corpus level, once,
                // on the totals).
                for (i, v) in p.iter_mut().enumerate().skip(1) {
                    *v = Num::Count {
                        num: nums[i] + 1,
                        den: dens[i] + 1,
                    };
                }
            }
            3 => {
                let mut kappa = 1u32;
                for (i, v) in p.iter_mut().enumerate() {
                    if nums[i] == 0 {
                        let den = (BigInt::from(1u8) << kappa) * BigInt::from(dens[i]);
                        *v = Num::int(1).div(&Num::Int(den))?;
                        kappa += 1;
                    }
                }
            }
            4 => self.method4(&mut p, nums, dens, t)?,
            5 => method5(&mut p, last)?,
            6 => self.method6(&mut p, nums, last)?,
            _ => {
                self.method4(&mut p, nums, dens, t)?;
                method5(&mut p, last)?;
            }
        }
        Ok(p)
    }

    /// Method 4: `(1 / (2^κ·k / ln T)) / den` for zero orders, only when T > 1 (Q10).
    pub(super) fn method4(
        &self,
        p: &mut [Num],
        nums: &[u64],
        dens: &[u64],
        t: u64,
    ) -> Result<(), PyError> {
        if t <= 1 {
            return Ok(());
        }
        let ln_t = Num::Float((t as f64).ln());
        let mut kappa = 1u32;
        for (i, v) in p.iter_mut().enumerate() {
            if nums[i] == 0 {
                let a = Num::Int(BigInt::from(1u8) << kappa).mul(&self.config.k)?;
                let b = a.div(&ln_t)?;
                let c = Num::int(1).div(&b)?;
                *v = c.div(&Num::Int(BigInt::from(dens[i])))?;
                kappa += 1;
            }
        }
        Ok(())
    }

    /// Method 6 (Gao and He): interpolates each order ≥ 3 with a prior from the two orders
    /// below; `l` comes from the last hypothesis alone (Q7), and the check that claims to be
    /// about bigrams looks at trigrams (Q9).
    pub(super) fn method6(&self, p: &mut [Num], nums: &[u64], last: Last) -> Result<(), PyError> {
        if p.len() < 3 {
            return Err(PyError::new(
                "IndexError",
                "list index out of range (smoothing method 6 needs at least 3 n-gram orders)",
            ));
        }
        if p[2].signum() == 0 {
            return Err(PyError::new(
                "AssertionError",
                "This smoothing method requires non-zero precision for bigrams.",
            ));
        }
        let alpha = &self.config.alpha;
        for i in 2..p.len() {
            let pi0 = if is_zero(&p[i - 2]) {
                Num::int(0)
            } else {
                p[i - 1].square()?.div(&p[i - 2])?
            };
            let m = Num::Int(BigInt::from(nums[i]));
            let l = Num::Int(BigInt::from(last.hyp_len.saturating_sub(i as u64)));
            p[i] = m.add(&alpha.mul(&pi0)?)?.div(&l.add(alpha)?)?;
        }
        Ok(())
    }
}

/// `sys.float_info.min`, what smoothing method 0 puts in place of a zero precision (Q1).
pub(super) const FLOAT_MIN: f64 = 2.2250738585072014e-308;

/// `p == 0` in Python: exact for ints and fractions, IEEE for floats (NaN is not 0).
pub(super) fn is_zero(v: &Num) -> bool {
    match v {
        Num::Float(x) => *x == 0.0,
        other => other.signum() == 0,
    }
}

/// Method 5: each order averages its neighbours, the one above the top order being always the
/// last sentence's order-5 precision (Q7, Q8); exact while its inputs are.
pub(super) fn method5(p: &mut [Num], last: Last) -> Result<(), PyError> {
    let mut ext: Vec<Num> = p.to_vec();
    ext.push(Num::Count {
        num: last.q5.0,
        den: last.q5.1,
    });
    let three = Num::int(3);
    let mut prev = p[0].add(&Num::int(1))?;
    for i in 0..p.len() {
        let new = prev.add(&p[i])?.add(&ext[i + 1])?.div(&three)?;
        p[i] = new.clone();
        prev = new;
    }
    Ok(())
}
