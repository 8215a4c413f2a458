//! Reading the saved totals of a stats document (`merge`), checked: the invariants of the
//! statistics [`NltkBleu::token_stats`] makes, and sums that cannot wrap.

use serde_json::Value;

use super::{Compat, Last, NltkBleu, NltkStats};
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
    /// the previous one's (L − n + 1 n-grams of L words); the denominators against the
    /// lengths and the segments ([`check_lengths`](NltkBleu::check_lengths)); the reference
    /// lengths against each other ([`check_ref_lengths`]); the last segment as
    /// `token_stats` records it ([`check_last`](NltkBleu::check_last)).
    fn check_saved(&self, s: &NltkStats) -> Result<(), String> {
        let what = "NLTK BLEU statistics";
        saved::check_nrefs(s.nrefs, what)?;
        if s.segments > saved::MAX_COUNT {
            return Err(format!("{what}: {} segments", s.segments));
        }
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
        self.check_lengths(s)?;
        check_ref_lengths(s)?;
        self.check_last(s)
    }

    /// The denominators against `hyp_len` and `segments`. A segment with references and a
    /// hypothesis of L words counts `max(1, L − n + 1)` n-grams of order n (`NLTK.md` §3 step
    /// 5: `modified_precision` divides by `max(1, len(hyp) − n + 1)`; MATLAB sums the true
    /// count `max(0, L − n + 1)`), and at most the true count of them match. Write D_n for the
    /// order-n denominator sum and D_0 = `hyp_len + segments` (the sum of L + 1):
    ///
    /// * D_n − D_(n+1) is the number of segments with L ≥ n + 1 (MATLAB: L ≥ n): between 0 and
    ///   `segments`, and at most D_(n−1) − D_n (a hypothesis long enough to lose an n-gram
    ///   from order n to n + 1 loses one from order n − 1 to n too); so NLTK's D_1 lies between
    ///   `hyp_len` (no empty hypothesis) and D_0, and MATLAB's is `hyp_len`;
    /// * NLTK's D_N is at least `segments` (one n-gram at least of every order), and its
    ///   order-n numerator at most the true count D_(n−1) − `segments` (`max(1, L − n + 2) − 1`
    ///   is `max(0, L − n + 1)`); MATLAB's denominators are the true counts.
    ///
    /// A segment without references (`raised`: NLTK raises, Q12) adds its hypothesis length and
    /// no denominator, so with one only the bounds such a segment cannot break are checked:
    /// the steps from order 1 on, D_1 at most D_0 (MATLAB: `hyp_len`), the order-1 numerator
    /// at most `hyp_len`. (Without references a segment is a bad line for every framing, so
    /// bleu-stream writes no such document; the library may still sum one.)
    fn check_lengths(&self, s: &NltkStats) -> Result<(), String> {
        let n = self.max_order;
        if n == 0 {
            return Ok(());
        }
        let (nums, dens) = s.counts.split_at(n);
        let matlab = self.config.compat == Compat::Matlab;
        let every = s.raised.is_none();
        let segments = u128::from(s.segments);
        let hyp_len = u128::from(s.hyp_len);
        // D_0, D_1, …, D_N.
        let d: Vec<u128> = std::iter::once(hyp_len + segments)
            .chain(dens.iter().map(|&x| u128::from(x)))
            .collect();
        let err = |why: String| Err(format!("inconsistent statistics: NLTK BLEU {why}"));
        saved::at_most(
            nums[0],
            s.hyp_len,
            "NLTK BLEU order-1 numerator above hyp_len (a hypothesis of L words has L unigrams)",
        )?;
        let (low, high) = match (matlab, every) {
            (false, true) => (hyp_len, d[0]),
            (false, false) => (0, d[0]),
            (true, true) => (hyp_len, hyp_len),
            (true, false) => (0, hyp_len),
        };
        if d[1] < low || d[1] > high {
            let counted = if matlab {
                "MATLAB counts the L unigrams of a hypothesis of L words"
            } else {
                "NLTK counts max(1, L) unigrams of a hypothesis of L words"
            };
            return err(format!(
                "order-1 denominator {} for hyp_len {} over {} segments ({counted}, so from \
                 {low} to {high})",
                d[1], s.hyp_len, s.segments
            ));
        }
        // The drop from order i to i + 1 (the steps are non-negative: `check_saved`).
        let mut previous = if every { Some(d[0] - d[1]) } else { None };
        for i in 1..n {
            let drop = d[i] - d[i + 1];
            if drop > segments {
                return err(format!(
                    "order-{} denominator {} is {drop} below the order-{i} one over {} segments \
                     (at most one n-gram fewer per segment)",
                    i + 1,
                    d[i + 1],
                    s.segments
                ));
            }
            if let Some(before) = previous.filter(|&p| drop > p) {
                let lower = if i == 1 {
                    "hyp_len + segments".to_owned()
                } else {
                    format!("the order-{} one", i - 1)
                };
                return err(format!(
                    "order-{} denominator {} is {drop} below the order-{i} one, which is only \
                     {before} below {lower} (a hypothesis long enough to lose an n-gram at one \
                     order loses one at every order below)",
                    i + 1,
                    d[i + 1],
                ));
            }
            previous = Some(drop);
        }
        if matlab || !every {
            return Ok(());
        }
        if d[n] < segments {
            return err(format!(
                "order-{n} denominator {} below the {} segments (NLTK counts at least one n-gram \
                 of every order in each)",
                d[n], s.segments
            ));
        }
        for i in 2..=n {
            let grams = d[i - 1] - segments;
            if u128::from(nums[i - 1]) > grams {
                return err(format!(
                    "order-{i} numerator {} above the {grams} order-{i} n-grams the hypotheses \
                     have (the order-{} denominator less one per segment)",
                    nums[i - 1],
                    i - 1
                ));
            }
        }
        Ok(())
    }

    /// The last segment as [`token_stats`](NltkBleu::token_stats) records it: every segment
    /// with references records itself, so a document of segments that all had some has one
    /// (`hyp_len` its own when it is the only segment); its order-5 precision is
    /// `modified_precision(refs, hyp, 5)` of its L words — matches at most `max(0, L − 4)` over
    /// `max(1, L − 4)` (`NLTK.md` §6, Q7) — with smoothing methods 5 and 7, and `0/1` (not
    /// computed) otherwise.
    fn check_last(&self, s: &NltkStats) -> Result<(), String> {
        let Some(last) = &s.last else {
            if s.segments > 0 && s.raised.is_none() {
                return Err(format!(
                    "inconsistent statistics: NLTK BLEU statistics of {} segments without the \
                     last one's (\"last\" is null)",
                    s.segments
                ));
            }
            return Ok(());
        };
        let grams = last.hyp_len.saturating_sub(4);
        let q5_fits = if self.needs_q5 {
            last.q5.1 == grams.max(1) && last.q5.0 <= grams
        } else {
            last.q5 == (0, 1)
        };
        let alone = s.segments == 1 && s.raised.is_none();
        if !q5_fits || last.hyp_len > s.hyp_len || (alone && last.hyp_len != s.hyp_len) {
            return Err(format!(
                "inconsistent statistics: NLTK BLEU last segment {:?}",
                [last.q5.0, last.q5.1, last.hyp_len]
            ));
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

/// The reference lengths: each segment adds the length of its closest reference to
/// `ref_len` (`NLTK.md` §4) and keeps its longest in `max_ref_len`, and the closest is at most
/// the longest, so `ref_len` is at most `segments × max_ref_len` (a `max_ref_len` of 0, which
/// MATLAB reads as "every reference empty", comes with a `ref_len` of 0). With at most one
/// reference per segment the longest is some segment's only, closest, reference, so
/// `max_ref_len` is at most `ref_len`; with several, a longer reference than the closest may
/// be the longest, and nothing more follows. (A segment without references adds to neither.)
fn check_ref_lengths(s: &NltkStats) -> Result<(), String> {
    if u128::from(s.ref_len) > u128::from(s.segments) * u128::from(s.max_ref_len) {
        return Err(format!(
            "inconsistent statistics: NLTK BLEU ref_len {} above segments × max_ref_len ({} × {}: \
             each segment's closest reference is at most the longest)",
            s.ref_len, s.segments, s.max_ref_len
        ));
    }
    if s.nrefs.range().is_some_and(|(_, most)| most <= 1) {
        saved::at_most(
            s.max_ref_len,
            s.ref_len,
            "NLTK BLEU max_ref_len above ref_len with one reference per segment (the longest is \
             one segment's closest)",
        )?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::super::{NltkBleuConfig, NltkWorkspace};
    use super::*;
    use crate::metric::Metric;
    use crate::test_rng::Rng;

    /// Settings that change what is counted: every smoothing method (5 and 7 record the last
    /// segment's order-5 precision), several weight vectors, a 6-gram and a 1-gram vector, no
    /// order at all, re-weighting, MATLAB.
    fn configs() -> Vec<NltkBleuConfig> {
        let with = |f: &dyn Fn(&mut NltkBleuConfig)| {
            let mut c = NltkBleuConfig::default();
            f(&mut c);
            c
        };
        let mut out: Vec<NltkBleuConfig> =
            (0..=7).map(|m| with(&|c| c.smoothing = Some(m))).collect();
        out.push(NltkBleuConfig::default());
        out.push(with(&|c| c.auto_reweigh = true));
        out.push(with(&|c| c.weights = vec![vec![0.5, 0.5], vec![0.25; 4]]));
        out.push(with(&|c| c.weights = vec![vec![1.0 / 6.0; 6]]));
        out.push(with(&|c| c.weights = vec![vec![1.0]]));
        out.push(with(&|c| c.weights = vec![vec![]]));
        out.push(with(&|c| c.compat = Compat::Matlab));
        out.push(with(&|c| {
            c.compat = Compat::Matlab;
            c.weights = vec![vec![1.0, 1.0, 1.0]];
        }));
        out
    }

    /// Random words of a small vocabulary (so that n-grams match), 0 to `most` of them.
    fn words(rng: &mut Rng, most: usize) -> String {
        let len = rng.below(most + 1);
        (0..len)
            .map(|_| ["a", "b", "c", "d"][rng.below(4)])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Segments with empty and short hypotheses and references, one to three references (the
    /// longest often not the closest) and, with `bare`, some without any (NLTK raises).
    fn segments(m: &NltkBleu, rng: &mut Rng, n: usize, bare: bool) -> Vec<NltkStats> {
        let mut ws = NltkWorkspace::default();
        (0..n)
            .map(|_| {
                let hyp = words(rng, 9);
                let nrefs = if bare && rng.below(8) == 0 {
                    0
                } else {
                    1 + rng.below(3)
                };
                let refs: Vec<String> = (0..nrefs).map(|_| words(rng, 12)).collect();
                let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
                m.stats(&hyp, &refs, &mut ws)
            })
            .collect()
    }

    fn sum(m: &NltkBleu, segments: &[NltkStats]) -> NltkStats {
        let mut t = m.new_totals();
        for s in segments {
            m.merge(&mut t, s);
        }
        t
    }

    /// Every sum of consecutive segments `token_stats` makes, under every setting, passes the
    /// checks: a rule that refused one would refuse a document bleu-stream wrote.
    #[test]
    fn every_sum_of_real_segments_is_accepted() {
        let mut rng = Rng(0x5eed_4e17);
        for config in configs() {
            let m = NltkBleu::new(config).unwrap();
            for bare in [false, true] {
                for _ in 0..40 {
                    let n = 1 + rng.below(12);
                    let segs = segments(&m, &mut rng, n, bare);
                    let start = rng.below(segs.len());
                    let end = start + 1 + rng.below(segs.len() - start);
                    for part in [&segs[..], &segs[start..end], &segs[end - 1..end]] {
                        let t = sum(&m, part);
                        let read = m.read_saved(&m.save_totals(&t));
                        assert_eq!(read.as_ref(), Ok(&t), "{:?}: {t:?}", m.config);
                    }
                }
            }
        }
    }

    /// The audit's forgeries (a `hyp_len` or an order-1 denominator doubled: a plausible
    /// score, exit 0) and the other impossible lengths are refused, naming what is wrong.
    #[test]
    fn lengths_that_contradict_the_counts_are_refused() {
        let m = NltkBleu::new(NltkBleuConfig::default()).unwrap();
        let mut ws = NltkWorkspace::default();
        let segs: Vec<NltkStats> = [
            ("a b c d e f", &["a b c d e f", "a b"][..]),
            ("a b", &["a b c"][..]),
            ("", &["a"][..]),
            ("c d e", &["a b c d", "a"][..]),
        ]
        .iter()
        .map(|(h, r)| m.stats(h, r, &mut ws))
        .collect();
        let t = sum(&m, &segs);
        assert_eq!(t.counts[..], [10, 7, 4, 3, 12, 9, 7, 6]);
        assert_eq!((t.hyp_len, t.ref_len, t.max_ref_len), (11, 14, 6));
        let refused = |edit: &dyn Fn(&mut NltkStats), says: &str| {
            let mut forged = t.clone();
            edit(&mut forged);
            let e = m.read_saved(&m.save_totals(&forged)).unwrap_err();
            assert!(e.contains(says), "{e:?} does not contain {says:?}");
        };
        refused(&|s| s.hyp_len = 30, "order-1 denominator 12 for hyp_len 30");
        refused(&|s| s.hyp_len = 7, "order-1 numerator above hyp_len");
        refused(
            &|s| s.counts[4] = 24,
            "order-1 denominator 24 for hyp_len 11",
        );
        // Two segments fewer: more than one n-gram lost per segment from order 1 to 2 …
        refused(
            &|s| s.segments = 2,
            "is 3 below the order-1 one over 2 segments",
        );
        // … or a drop that grows with the order, or too few n-grams for the segments.
        refused(
            &|s| s.counts[7] = 3,
            "is 4 below the order-3 one, which is only 2",
        );
        refused(
            &|s| s.counts[2] = 6,
            "order-3 numerator 6 above the 5 order-3 n-grams",
        );
        refused(
            &|s| s.max_ref_len = 3,
            "ref_len 14 above segments × max_ref_len",
        );
        refused(&|s| s.max_ref_len = 0, "(4 × 0");
        refused(&|s| s.last = None, "without the last one's");
        refused(
            &|s| s.last.as_mut().unwrap().q5 = (1, 1),
            "last segment [1, 1, 3]",
        );
        let one = m.stats("a b c", &["a b", "a b c d e f g"], &mut ws);
        let mut lone = one.clone();
        lone.last.as_mut().unwrap().hyp_len = 2;
        assert!(m.read_saved(&m.save_totals(&lone)).is_err());
        // One reference per segment: the longest is some segment's closest.
        let single = sum(&m, &[m.stats("a", &["a b c"], &mut ws)]);
        let mut forged = single.clone();
        forged.max_ref_len = 4;
        forged.ref_len = 3;
        forged.segments = 1;
        assert!(m
            .read_saved(&m.save_totals(&forged))
            .unwrap_err()
            .contains("max_ref_len above ref_len with one reference per segment"));
        // MATLAB counts the true unigrams: the order-1 denominator is hyp_len.
        let matlab = NltkBleu::new(NltkBleuConfig {
            compat: Compat::Matlab,
            ..NltkBleuConfig::default()
        })
        .unwrap();
        let mut t = sum(&matlab, &[matlab.stats("a b", &["a b"], &mut ws)]);
        t.hyp_len = 3;
        let e = matlab.read_saved(&matlab.save_totals(&t)).unwrap_err();
        assert!(e.contains("MATLAB counts the L unigrams"), "{e}");
    }
}
