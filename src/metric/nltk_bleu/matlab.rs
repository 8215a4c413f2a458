//! MATLAB `bleuEvaluationScore` semantics (`--compat matlab`).

use super::*;

impl NltkBleu {
    /// MATLAB `bleuEvaluationScore` on the totals: NaN when candidate and references are all
    /// empty, 0 when the candidate has fewer tokens than weights, else
    /// `BP · exp(Σ w_n log p_n)` with the normalised weights (a zero precision gives 0).
    pub(super) fn matlab_score(&self, totals: &NltkStats) -> Result<NltkScore, PyError> {
        let n = self.max_order;
        let (nums, tots) = totals.counts.split_at(n);
        let (c, r) = (totals.hyp_len, totals.ref_len);
        let mut values = Vec::with_capacity(self.matlab_weights.len());
        for w in &self.matlab_weights {
            let value = if c == 0 && totals.max_ref_len == 0 {
                f64::NAN
            } else if c < w.len() as u64 {
                0.0
            } else {
                let bp = if c > r {
                    1.0
                } else {
                    exp(1.0 - u64_ratio(r, c)?)?
                };
                let mut terms = Vec::with_capacity(w.len());
                let mut zero = false;
                for (j, &wj) in w.iter().enumerate() {
                    if wj == 0.0 {
                        continue;
                    }
                    if nums[j] == 0 || tots[j] == 0 {
                        zero = true;
                        break;
                    }
                    terms.push(wj * u64_ratio(nums[j], tots[j])?.ln());
                }
                if zero {
                    0.0
                } else {
                    bp * exp(fsum(&terms)?)?
                }
            };
            values.push(PyValue::Float(value));
        }
        Ok(NltkScore {
            list: values.len() >= 2,
            values,
            warnings: Vec::new(),
        })
    }
}
