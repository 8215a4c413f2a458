//! NLTK `corpus_bleu` on summed statistics (`NLTK.md` §6), and NLTK's helper functions
//! `modified_precision`, `closest_ref_length` and `brevity_penalty`.

use super::*;

impl NltkBleu {
    /// `corpus_bleu` on totals (a segment's statistics give `sentence_bleu`).
    pub fn compute(&self, totals: &NltkStats) -> Result<NltkScore, PyError> {
        if self.config.compat == Compat::Matlab {
            return self.matlab_score(totals);
        }
        if let Some(e) = &totals.raised {
            return Err(PyError::clone(e));
        }
        let n = self.max_order;
        let (nums, dens) = totals.counts.split_at(n);
        let (hyp_len, ref_len) = (totals.hyp_len, totals.ref_len);
        // Step 4: brevity_penalty is int 1 when the hypothesis is longer, int 0 for an empty
        // one, else the float exp(1 − r/h).
        let bp = brevity_penalty(ref_len, hyp_len)?.as_f64();
        // Step 5: `Fraction(num, 0)` raises for an order without any denominator, which only an
        // empty corpus has (Q14).
        if let Some(i) = dens.iter().position(|&d| d == 0) {
            return Err(PyError::new(
                "ZeroDivisionError",
                format!("Fraction({}, 0) (an empty corpus)", nums[i]),
            ));
        }
        let columns = self.columns();
        // Step 6: no order at all, or no unigram match: int 0 before any smoothing, whatever
        // the method, without a warning (Q2, Q3).
        if n == 0 || nums[0] == 0 {
            return Ok(NltkScore {
                values: vec![PyValue::Int(0); columns],
                list: columns >= 2,
                warnings: Vec::new(),
            });
        }
        let mut warnings = Vec::new();
        let p = self.smooth(nums, dens, totals, &mut warnings)?;
        let mut values = Vec::with_capacity(columns);
        match &self.weights {
            Weights::Wrapped(_) => {
                // Each "weight" is a tuple: `tuple * float` raises for the first positive
                // precision (p_1 is always positive here).
                if p.iter().any(|v| v.signum() > 0) {
                    return Err(PyError::new(
                        "TypeError",
                        "can't multiply sequence by non-int of type 'float' (the first of \
                         several weight vectors is empty)",
                    ));
                }
                values.push(PyValue::Float(bp * exp(0.0)?));
            }
            Weights::Vectors(vectors) => {
                let mut terms = Vec::with_capacity(n);
                for (w, is_tuple) in vectors {
                    let reweighed;
                    let w = if self.config.auto_reweigh
                        && hyp_len < 4
                        && *is_tuple
                        && w.len() == 4
                        && w.iter().all(|&x| x == 0.25)
                    {
                        // Q5: the *corpus* hypothesis length, and only for the exact tuple.
                        reweighed = vec![u64_ratio(1, hyp_len)?; hyp_len as usize];
                        &reweighed
                    } else {
                        w
                    };
                    terms.clear();
                    for (&wj, pj) in w.iter().zip(&p) {
                        // Step 8c: a precision that is not > 0 is silently dropped (Q4).
                        if pj.signum() > 0 {
                            terms.push(wj * pj.to_f64()?.ln());
                        }
                    }
                    let s = exp(fsum(&terms)?)?;
                    values.push(PyValue::Float(bp * s));
                }
            }
        }
        Ok(NltkScore {
            list: values.len() >= 2,
            values,
            warnings,
        })
    }
}

/// NLTK `modified_precision(references, hypothesis, n)` on token lists: the numerator and
/// denominator, unreduced (`NLTK.md` §3). No references and a hypothesis with an n-gram of this
/// order raise `KeyError`, as in NLTK.
pub fn modified_precision(
    refs: &[Vec<&str>],
    hyp: &[&str],
    n: usize,
) -> Result<(u64, u64), PyError> {
    let tokens = |words: &[&str]| {
        let mut t = Tokens::default();
        for w in words {
            t.push(w);
        }
        t
    };
    let grams = (hyp.len() + 1).saturating_sub(n) as u64;
    if n == 0 {
        return Ok((0, grams.max(1)));
    }
    if refs.is_empty() && grams > 0 {
        return Err(PyError::new("KeyError", format!("({},)", py_repr(hyp[0]))));
    }
    let refs: Vec<Tokens> = refs.iter().map(|r| tokens(r)).collect();
    let mut ws = ClipWorkspace::default();
    clipped_matches(&tokens(hyp), &refs, n, &mut ws);
    Ok((ws.matches[n - 1], grams.max(1)))
}

/// NLTK `closest_ref_length`: the reference length closest to `hyp_len`, the shorter on a tie;
/// `ValueError` without references.
pub fn closest_ref_length(ref_lens: &[usize], hyp_len: usize) -> Result<usize, PyError> {
    if ref_lens.is_empty() {
        return Err(PyError::new("ValueError", "min() arg is an empty sequence"));
    }
    Ok(closest_ref_len(hyp_len, ref_lens.iter().copied()))
}

/// NLTK `brevity_penalty(closest_ref_len, hyp_len)`: int 1 for a longer hypothesis, int 0 for an
/// empty one, else the float `exp(1 − r/h)` (Q2).
pub fn brevity_penalty(closest_ref_len: u64, hyp_len: u64) -> Result<PyValue, PyError> {
    Ok(if hyp_len > closest_ref_len {
        PyValue::Int(1)
    } else if hyp_len == 0 {
        PyValue::Int(0)
    } else {
        PyValue::Float(exp(1.0 - u64_ratio(closest_ref_len, hyp_len)?)?)
    })
}

/// `closest_ref_length`: the reference length minimising (|r − h|, r).
pub(super) fn closest_ref_len(hyp_len: usize, ref_lens: impl Iterator<Item = usize>) -> usize {
    ref_lens
        .min_by_key(|&r| (hyp_len.abs_diff(r), r))
        .unwrap_or(0)
}
