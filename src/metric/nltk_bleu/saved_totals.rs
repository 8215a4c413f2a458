//! Reading the saved totals of a stats document (`merge`), checked: the invariants of the
//! statistics [`NltkBleu::token_stats`] makes, and sums that cannot wrap.

use serde_json::Value;

use super::{Last, NltkBleu, NltkStats};
use crate::metric::pymath::PyError;
use crate::metric::saved;

impl NltkBleu {
    /// Saved totals ([`Metric::save_totals`]), read and checked.
    pub(super) fn read_saved(&self, saved: &Value) -> Result<NltkStats, String> {
        let counts: Vec<u64> = saved::field(saved, "counts")?;
        if counts.len() != 2 * self.max_order {
            return Err(format!(
                "NLTK BLEU statistics: {} counts where {} were expected",
                counts.len(),
                2 * self.max_order
            ));
        }
        let last: Option<[u64; 3]> = saved::field(saved, "last")?;
        let raised: Option<(String, String)> = saved::field(saved, "raised")?;
        let other = NltkStats {
            counts: counts.into(),
            hyp_len: saved::field(saved, "hyp_len")?,
            ref_len: saved::field(saved, "ref_len")?,
            max_ref_len: saved::field(saved, "max_ref_len")?,
            last: last.map(|[num, den, hyp_len]| Last {
                q5: (num, den),
                hyp_len,
            }),
            segments: saved::field(saved, "segments")?,
            nrefs: saved::field(saved, "nrefs")?,
            raised: match raised {
                None => None,
                Some((kind, message)) => Some(Box::new(saved_error(kind, message)?)),
            },
        };
        self.check_saved(&other)?;
        Ok(other)
    }

    /// The invariants of what [`token_stats`](NltkBleu::token_stats) makes of every segment,
    /// and so of any sum of segments: per order, the numerator (clipped matches) at most the
    /// denominator (the n-gram count, at least 1 for NLTK), each order's denominator at most
    /// the previous one's (L − n + 1 n-grams of L words); the last segment's order-5 precision
    /// at most 1 with a positive denominator.
    fn check_saved(&self, s: &NltkStats) -> Result<(), String> {
        let what = "NLTK BLEU statistics";
        saved::check_nrefs(s.nrefs, what)?;
        let n = self.max_order;
        let (nums, dens) = s.counts.split_at(n);
        for i in 0..n {
            saved::at_most(
                nums[i],
                dens[i],
                &format!("NLTK BLEU order-{} numerator above its denominator", i + 1),
            )?;
            if i > 0 {
                saved::at_most(
                    dens[i],
                    dens[i - 1],
                    &format!(
                        "NLTK BLEU order-{} denominator above the order-{i} one",
                        i + 1
                    ),
                )?;
            }
        }
        if let Some(last) = &s.last {
            if last.q5.1 == 0 || last.q5.0 > last.q5.1 || last.hyp_len > s.hyp_len {
                return Err(format!(
                    "inconsistent statistics: NLTK BLEU last segment {:?}",
                    [last.q5.0, last.q5.1, last.hyp_len]
                ));
            }
        }
        if s.segments > saved::MAX_COUNT {
            return Err(format!("{what}: {} segments", s.segments));
        }
        Ok(())
    }

    /// [`merge`](NltkBleu::merge) of saved totals, with every sum checked.
    pub(super) fn add_checked(&self, totals: &mut NltkStats, s: &NltkStats) -> Result<(), String> {
        let what = "NLTK BLEU statistics";
        if totals.counts.len() != s.counts.len() {
            return Err(format!("{what}: {} counts", s.counts.len()));
        }
        for (t, &c) in totals.counts.iter_mut().zip(&s.counts) {
            saved::add_to(t, c, what)?;
        }
        saved::add_to(&mut totals.hyp_len, s.hyp_len, what)?;
        saved::add_to(&mut totals.ref_len, s.ref_len, what)?;
        totals.segments = saved::add_count(totals.segments, s.segments, what)?;
        totals.max_ref_len = totals.max_ref_len.max(s.max_ref_len);
        if s.last.is_some() {
            totals.last = s.last;
        }
        totals.nrefs.merge(s.nrefs);
        if totals.raised.is_none() {
            totals.raised.clone_from(&s.raised);
        }
        Ok(())
    }
}

/// A saved "NLTK raised" record: one of the exceptions [`token_stats`](NltkBleu::token_stats)
/// records, and a message without control characters ([`py_repr`] escapes them), since the
/// report prints it.
fn saved_error(kind: String, message: String) -> Result<PyError, String> {
    let known = PyError::kind_named(&kind);
    if known != kind
        || message
            .chars()
            .any(|c| (c as u32) < 0x20 || c as u32 == 0x7f)
    {
        return Err(format!(
            "NLTK BLEU statistics: \"raised\" is {}, not an error NLTK BLEU records",
            serde_json::json!([kind, message])
        ));
    }
    Ok(PyError::new(known, message))
}
