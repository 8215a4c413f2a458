//! mteval-v13a.pl's NIST: information weights with its quirks, the system score, group
//! (segment / document) scores and the brevity penalty.

use super::segment::NistStats;
use super::totals::NistTotals;
use super::{Nist, LN2};

impl Nist {
    /// mteval's information weight of table id `g`: `−ln(C(g) / C(prefix)) / ln 2`, with the
    /// total word count W for unigrams and for bigrams whose first token is `0` (the quirk).
    pub(super) fn mteval_info(&self, t: &NistTotals, g: u32) -> f64 {
        let order = t.table.order[g as usize];
        let prefix = t.table.prefix(g);
        let denominator = if order == 1 || (order == 2 && Some(prefix) == t.zero_unigram) {
            t.words
        } else {
            t.table.freq(prefix)
        };
        -(t.table.freq(g) as f64 / denominator as f64).ln() / LN2
    }

    /// mteval's system NIST of the totals, with its parts, or why mteval gives no score.
    pub(super) fn mteval_score(&self, t: &NistTotals) -> Result<MtevalNist, String> {
        if let Some(s) = t.empty_ref_segment {
            return Err(format!(
                "mteval-v13a.pl dies: Illegal division by zero (scored segment {s} has only \
                 empty references; bad lines are not counted, a warning names its line)"
            ));
        }
        if t.words == 0 {
            return Err(
                "mteval-v13a.pl dies: Illegal division by zero (no reference words)".to_owned(),
            );
        }
        let n_max = self.config.order;
        let mut info = vec![0.0f64; n_max];
        for &g in &t.matched_ids {
            let n = t.table.order[g as usize] as usize;
            info[n - 1] += self.mteval_info(t, g) * t.matched.get(g) as f64;
        }
        let mut sum = 0.0f64;
        for (i, &count) in info.iter().zip(&t.hyp_ngrams) {
            sum += i / count.max(1) as f64;
        }
        let (lo, hi) = t.nrefs.range().unwrap_or((1, 1));
        let avg_ref_len = if lo == hi {
            t.words as f64 / lo as f64
        } else {
            t.avg_ref_len_sum
        };
        let hyp_len = t.hyp_ngrams.first().copied().unwrap_or(0);
        let ratio = hyp_len as f64 / avg_ref_len;
        let bp = mteval_brevity_penalty(ratio);
        Ok(MtevalNist {
            score: sum * bp,
            info,
            bp,
            ratio,
            hyp_len,
            avg_ref_len,
        })
    }

    /// mteval's NIST of a group of segments already added to `totals` — one segment, or a
    /// document — with the information weights of everything in `totals`: what mteval prints at
    /// segment and document level (`-d 2`, `--metricsMATR-output`). The weights are only final
    /// once the whole corpus has been added, which is why rows use NLTK's `sentence_nist`.
    pub fn mteval_group_score(
        &self,
        t: &mut NistTotals,
        group: &[&NistStats],
    ) -> Result<f64, String> {
        let n_max = self.config.order;
        let mut info = vec![0.0f64; n_max];
        let mut hyp_ngrams = vec![0u64; n_max];
        let (mut words, mut nrefs) = (0u64, 0usize);
        for stats in group {
            let count = stats.refs.len();
            if t.ref_ids.len() < count {
                t.ref_ids.resize_with(count, Vec::new);
            }
            // Every n-gram of a segment that was added is in the table: look the ids up.
            for (r, tokens) in stats.refs.iter().enumerate() {
                t.table
                    .ids(tokens, n_max, false, &mut t.ref_ids[r])
                    .ok_or("segment not added to these totals")?;
                words += tokens.len() as u64;
            }
            nrefs = nrefs.max(count);
            for m in &stats.matches {
                let g = t.ref_ids[m.reference as usize][m.location(&stats.refs)];
                info[m.order as usize - 1] += self.mteval_info(t, g) * f64::from(m.count);
            }
            for n in 1..=n_max {
                hyp_ngrams[n - 1] += (stats.hyp_len + 1).saturating_sub(n as u64);
            }
        }
        if words == 0 {
            return Err("mteval-v13a.pl dies: Illegal division by zero".to_owned());
        }
        let mut sum = 0.0f64;
        for (i, &count) in info.iter().zip(&hyp_ngrams) {
            sum += i / count.max(1) as f64;
        }
        let ratio = hyp_ngrams.first().copied().unwrap_or(0) as f64 / (words as f64 / nrefs as f64);
        Ok(sum * mteval_brevity_penalty(ratio))
    }
}

/// mteval's system NIST and its parts.
pub(super) struct MtevalNist {
    pub(super) score: f64,
    pub(super) info: Vec<f64>,
    pub(super) bp: f64,
    pub(super) ratio: f64,
    pub(super) hyp_len: u64,
    pub(super) avg_ref_len: f64,
}

/// mteval's NIST brevity penalty: `exp(−β·ln²(ratio))` for 0 < ratio < 1, with
/// `β = −ln 0.5 / ln 1.5 / ln 1.5` (0.5 at ratio 2/3), in the script's operation order.
pub fn mteval_brevity_penalty(ratio: f64) -> f64 {
    if ratio >= 1.0 {
        return 1.0;
    }
    if ratio <= 0.0 || ratio.is_nan() {
        return 0.0;
    }
    let beta = -(0.5f64).ln() / (1.5f64).ln() / (1.5f64).ln();
    (-beta * ratio.ln() * ratio.ln()).exp()
}
