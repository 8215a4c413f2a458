//! `mteval-bleu`: the BLEU score of NIST's `mteval-v13a.pl` (`MTEVAL.md` §4.1, §4.5, §4.6), on
//! mteval's own tokenization.
//!
//! Statistics per segment are mteval's: clipped matches and hypothesis n-gram counts for orders
//! 1–4 (clipping by the maximum count over the references) and the BLEU reference length
//! (closest to the hypothesis length, ties to the shorter, or the shortest). They are integers
//! and sum over the corpus, so every running report is mteval's system score of the prefix read
//! so far. The same formula scores a segment (rows) and the corpus, as mteval does at every
//! level — including its smoothing, which is not sacreBLEU's: each order with no match gets
//! `1 / (2^k · total)`, and an order with no hypothesis n-gram counts as precision 1.
//!
//! Agreement with mteval is within the vectors' relative tolerance (1e-12, `vectors/mteval/
//! README.md`): mteval itself is not bit-reproducible (Perl's hash order changes its sums).

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::options::CommonArgs;
use super::score::{self, Piece, Score};
use super::Registered;
use super::{saved, Metric};
use crate::input::{RefCounts, Segment};
use crate::ngram::{clipped_matches, ClipWorkspace};
use crate::tokenize::mteval::{MtevalScratch, MtevalTokenizer};
use crate::tokenize::Tokens;

/// BLEU's maximum n-gram order in mteval-v13a (fixed).
pub const ORDER: usize = 4;

/// `--brevity-penalty`: which reference length a segment contributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum BrevityPenalty {
    /// The reference length closest to the hypothesis length; ties go to the shorter one.
    #[default]
    Closest,
    /// The shortest reference length.
    Shortest,
}

impl BrevityPenalty {
    /// The option value.
    pub fn name(self) -> &'static str {
        match self {
            BrevityPenalty::Closest => "closest",
            BrevityPenalty::Shortest => "shortest",
        }
    }
}

/// `mteval-bleu`'s own options (the tokenization switches are shared with `nist`:
/// [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "mteval options (nist, mteval-bleu)")]
pub struct MtevalBleuArgs {
    /// mteval-bleu: BLEU reference length per segment: the closest to the hypothesis length
    /// (ties to the shorter) or the shortest.
    #[arg(long, value_enum, value_name = "WHICH", default_value = "closest")]
    pub brevity_penalty: BrevityPenalty,

    /// mteval-bleu: no smoothing (mteval --no-smoothing): 0 when an order has no match.
    #[arg(long)]
    pub mteval_no_smoothing: bool,
}

/// mteval BLEU settings; `Default` is `mteval-v13a.pl` without options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MtevalBleuConfig {
    pub tokenizer: MtevalTokenizer,
    pub brevity_penalty: BrevityPenalty,
    /// mteval's smoothing (on unless `--no-smoothing`).
    pub smoothing: bool,
}

impl Default for MtevalBleuConfig {
    fn default() -> Self {
        MtevalBleuConfig {
            tokenizer: MtevalTokenizer::default(),
            brevity_penalty: BrevityPenalty::Closest,
            smoothing: true,
        }
    }
}

/// The `mteval-bleu` metric.
#[derive(Debug)]
pub struct MtevalBleu {
    config: MtevalBleuConfig,
}

/// Statistics of one segment, or the sums of many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MtevalBleuStats {
    /// Clipped matches per order 1..4.
    pub matches: [u64; ORDER],
    /// Hypothesis n-grams per order 1..4 (`tst[0]` is the hypothesis length).
    pub totals: [u64; ORDER],
    /// BLEU reference length (closest or shortest).
    pub ref_len: u64,
    /// Number of references (a range once summed).
    pub nrefs: RefCounts,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct MtevalBleuWorkspace {
    scratch: MtevalScratch,
    hyp: Tokens,
    refs: Vec<Tokens>,
    clip: ClipWorkspace,
}

impl MtevalBleu {
    /// An mteval BLEU metric with these settings.
    pub fn new(config: MtevalBleuConfig) -> MtevalBleu {
        MtevalBleu { config }
    }

    /// Segment statistics of `hyp` against `refs` (at least one reference).
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut MtevalBleuWorkspace) -> MtevalBleuStats {
        let tok = self.config.tokenizer;
        tok.tokenize(hyp, &mut ws.scratch, &mut ws.hyp);
        if ws.refs.len() < refs.len() {
            ws.refs.resize_with(refs.len(), Tokens::default);
        }
        for (r, out) in refs.iter().zip(&mut ws.refs) {
            tok.tokenize(r, &mut ws.scratch, out);
        }
        let refs_tok = &ws.refs[..refs.len()];
        clipped_matches(&ws.hyp, refs_tok, ORDER, &mut ws.clip);
        let mut stats = MtevalBleuStats {
            nrefs: RefCounts::one(refs.len()),
            ..MtevalBleuStats::default()
        };
        let len = ws.hyp.len();
        for n in 1..=ORDER {
            stats.matches[n - 1] = ws.clip.matches[n - 1];
            stats.totals[n - 1] = (len + 1).saturating_sub(n) as u64;
        }
        let hyp_len = ws.hyp.len();
        let lens = refs_tok.iter().map(Tokens::len);
        stats.ref_len = match self.config.brevity_penalty {
            // argmin of (|r − h|, r): the first minimum in this key is the same whatever the
            // reference order.
            BrevityPenalty::Closest => lens.min_by_key(|&r| (r.abs_diff(hyp_len), r)),
            BrevityPenalty::Shortest => lens.min(),
        }
        .unwrap_or(0) as u64;
        stats
    }

    /// mteval's BLEU (`cum_4`) of a statistics vector, with or without its smoothing. The same
    /// function scores segments, documents and the system in mteval.
    pub fn stats_score(&self, s: &MtevalBleuStats) -> f64 {
        let hyp_len = s.totals[0];
        if self.config.smoothing {
            // lp = exp(min(0, 1 − ref/hyp)), 0 for an empty hypothesis side.
            let lp = if hyp_len > 0 {
                (1.0 - s.ref_len as f64 / hyp_len as f64).min(0.0).exp()
            } else {
                0.0
            };
            let mut smooth = 1u64;
            let mut sum = 0.0f64;
            for n in 0..ORDER {
                let t = if s.totals[n] == 0 {
                    // No hypothesis n-gram of this order: precision 1, still divided by 4.
                    0.0
                } else if s.matches[n] == 0 {
                    smooth = smooth.saturating_mul(2);
                    (1.0 / (smooth as f64 * s.totals[n] as f64)).ln()
                } else {
                    (s.matches[n] as f64 / s.totals[n] as f64).ln()
                };
                sum += t;
            }
            (sum / ORDER as f64).exp() * lp
        } else {
            // `--no-smoothing`: 0 as soon as an order has no match (mteval's `cum_4`).
            let mut out = 0.0;
            let mut sum = 0.0f64;
            for n in 0..ORDER {
                if s.matches[n] == 0 {
                    out = 0.0;
                } else {
                    let lp = (1.0 - s.ref_len as f64 / hyp_len as f64).min(0.0);
                    sum += (s.matches[n] as f64 / s.totals[n] as f64).ln();
                    out = (sum / (n + 1) as f64 + lp).exp();
                }
            }
            out
        }
    }

    /// The system-level score as mteval-v13a.pl prints it, or why the script dies there: with
    /// smoothing it first prints `length ratio: hyp/ref … penalty (log): ln(lp)`, which divides
    /// by the total reference length and takes the log of the length penalty.
    pub fn corpus_score(&self, s: &MtevalBleuStats) -> Result<f64, String> {
        if self.config.smoothing {
            if s.ref_len == 0 {
                return Err("mteval-v13a.pl dies here: Illegal division by zero \
                            (total reference length 0)"
                    .to_owned());
            }
            if s.totals[0] == 0 {
                return Err(
                    "mteval-v13a.pl dies here: Can't take log of 0 (all hypotheses empty)"
                        .to_owned(),
                );
            }
        }
        Ok(self.stats_score(s))
    }

    fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        format!(
            "nrefs:{nrefs}|case:{}|tok:{}|bp:{}|smooth:{}|mteval:v13a",
            if c.tokenizer.case_sensitive {
                "mixed"
            } else {
                "lc"
            },
            c.tokenizer.name(),
            c.brevity_penalty.name(),
            if c.smoothing { "yes" } else { "no" },
        )
    }
}

/// The JSON record of a sentence mteval BLEU score.
#[derive(Serialize)]
pub struct MtevalBleuRecord {
    pub score: f64,
    pub matches: [u64; ORDER],
    pub totals: [u64; ORDER],
    pub hyp_len: u64,
    pub ref_len: u64,
}

/// The JSON form of a corpus mteval BLEU score: `score` is null and `error` says why when
/// mteval-v13a.pl dies instead of printing one.
#[derive(Serialize)]
struct MtevalBleuCorpusRecord {
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    matches: [u64; ORDER],
    totals: [u64; ORDER],
    hyp_len: u64,
    ref_len: u64,
}

impl Registered for MtevalBleu {
    const NAME: &'static str = "mteval-bleu";
    const SUMMARY: &'static str = "mteval-v13a.pl BLEU";
    type Args = MtevalBleuArgs;

    fn config_from_args(
        common: &CommonArgs,
        args: MtevalBleuArgs,
    ) -> Result<MtevalBleuConfig, String> {
        Ok(MtevalBleuConfig {
            tokenizer: MtevalTokenizer {
                international: common.mteval_international,
                case_sensitive: common.case_sensitive,
                split_non_ascii: false,
            },
            brevity_penalty: args.brevity_penalty,
            smoothing: !args.mteval_no_smoothing,
        })
    }

    fn new(config: MtevalBleuConfig) -> Result<MtevalBleu, String> {
        Ok(MtevalBleu::new(config))
    }
}

impl Metric for MtevalBleu {
    type Stats = MtevalBleuStats;
    type Totals = MtevalBleuStats;
    type Workspace = MtevalBleuWorkspace;
    type Config = MtevalBleuConfig;
    type Sentence = MtevalBleuRecord;

    fn key(&self) -> &'static str {
        "mteval-bleu"
    }

    fn config(&self) -> &MtevalBleuConfig {
        &self.config
    }

    fn segment_stats(
        &self,
        segment: &Segment<'_>,
        ws: &mut MtevalBleuWorkspace,
    ) -> MtevalBleuStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &MtevalBleuStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(self.stats_score(stats));
        Ok(())
    }

    fn sentence(&self, stats: &MtevalBleuStats) -> Result<MtevalBleuRecord, String> {
        Ok(MtevalBleuRecord {
            score: self.stats_score(stats),
            matches: stats.matches,
            totals: stats.totals,
            hyp_len: stats.totals[0],
            ref_len: stats.ref_len,
        })
    }

    fn new_totals(&self) -> MtevalBleuStats {
        MtevalBleuStats::default()
    }

    fn add(&self, totals: &mut MtevalBleuStats, stats: &MtevalBleuStats) {
        for n in 0..ORDER {
            totals.matches[n] += stats.matches[n];
            totals.totals[n] += stats.totals[n];
        }
        totals.ref_len += stats.ref_len;
        totals.nrefs.merge(stats.nrefs);
    }

    fn sums(&self, t: &MtevalBleuStats) -> Vec<u64> {
        [&t.matches[..], &t.totals, &[t.ref_len]].concat()
    }

    fn save_totals(&self, totals: &MtevalBleuStats) -> Value {
        serde_json::to_value(totals).expect("integers serialize")
    }

    fn check_saved_segments(&self, saved: &Value, segments: u64) -> Result<(), String> {
        match saved::field::<[u64; ORDER]>(saved, "totals") {
            Ok(totals) => saved::orders_fit(&totals, segments, "mteval BLEU n-gram totals"),
            Err(_) => Ok(()),
        }
    }

    fn merge_saved(&self, totals: &mut MtevalBleuStats, saved: &Value) -> Result<(), String> {
        let o = <MtevalBleuStats as serde::Deserialize>::deserialize(saved)
            .map_err(|e| format!("mteval BLEU statistics: {e}"))?;
        // What `stats` makes of every segment, and so of any sum: each order has at most the
        // previous order's n-grams (L − n + 1 of L words), and clipped matches are at most the
        // n-grams of their order.
        saved::check_nrefs(o.nrefs, "mteval BLEU statistics")?;
        for n in 0..ORDER {
            saved::at_most(
                o.matches[n],
                o.totals[n],
                &format!("mteval BLEU order-{} matches above the total", n + 1),
            )?;
            if n > 0 {
                saved::at_most(
                    o.totals[n],
                    o.totals[n - 1],
                    &format!(
                        "mteval BLEU order-{} total above the order-{n} total",
                        n + 1
                    ),
                )?;
            }
        }
        let what = "mteval BLEU statistics";
        for n in 0..ORDER {
            saved::add_to(&mut totals.matches[n], o.matches[n], what)?;
            saved::add_to(&mut totals.totals[n], o.totals[n], what)?;
        }
        saved::add_to(&mut totals.ref_len, o.ref_len, what)?;
        totals.nrefs.merge(o.nrefs);
        Ok(())
    }

    fn score(&self, totals: &MtevalBleuStats) -> Score {
        let signature = self.signature(&totals.nrefs.signature_value());
        let name = "mteval-BLEU";
        let mut line = vec![Piece::Text(format!("{name} = "))];
        let (score, error) = match self.corpus_score(totals) {
            Ok(score) => {
                line.push(Piece::Score(score));
                (score, None)
            }
            Err(message) => {
                line.push(Piece::Text(format!("error: {message}")));
                (f64::NAN, Some(message))
            }
        };
        let precisions: Vec<String> = (0..ORDER)
            .map(|n| {
                let (m, t) = (totals.matches[n], totals.totals[n]);
                format!("{:.4}", if t == 0 { 0.0 } else { m as f64 / t as f64 })
            })
            .collect();
        let hyp_len = totals.totals[0];
        let ratio = if totals.ref_len == 0 {
            0.0
        } else {
            hyp_len as f64 / totals.ref_len as f64
        };
        line.push(Piece::Text(format!(
            " (precisions {}, ratio = {ratio:.3}, hyp_len = {hyp_len}, ref_len = {})",
            precisions.join("/"),
            totals.ref_len
        )));
        let fields = score::fields(&MtevalBleuCorpusRecord {
            score: error.is_none().then_some(score),
            error,
            matches: totals.matches,
            totals: totals.totals,
            hyp_len,
            ref_len: totals.ref_len,
        });
        Score::new(
            "mteval-bleu",
            name.to_owned(),
            score,
            signature,
            fields,
            line,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(hyp: &str, refs: &[&str], config: MtevalBleuConfig) -> (f64, MtevalBleuStats) {
        let m = MtevalBleu::new(config);
        let stats = m.stats(hyp, refs, &mut MtevalBleuWorkspace::default());
        (m.stats_score(&stats), stats)
    }

    #[test]
    fn documented_smoothing_examples() {
        // MTEVAL.md §4.5: 5 words, no match, reference of 4 words.
        let (score, _) = segment("a b c d e", &["v w x y"], MtevalBleuConfig::default());
        assert!((score - 0.0534).abs() < 5e-5, "{score}");
        // A 2-word hypothesis equal to the first two of 3 reference words: the length penalty.
        let (score, stats) = segment("a b", &["a b c"], MtevalBleuConfig::default());
        assert_eq!(stats.totals, [2, 1, 0, 0]);
        assert!((score - 0.6065).abs() < 5e-5, "{score}");
    }

    #[test]
    fn reference_length_choice() {
        let closest = MtevalBleuConfig::default();
        let shortest = MtevalBleuConfig {
            brevity_penalty: BrevityPenalty::Shortest,
            ..closest
        };
        let refs = ["a b c d e f", "a b", "a b c d"];
        assert_eq!(segment("a b c d e", &refs, closest).1.ref_len, 4);
        assert_eq!(segment("a b c d e", &refs, shortest).1.ref_len, 2);
    }

    #[test]
    fn corpus_level_deaths() {
        let m = MtevalBleu::new(MtevalBleuConfig::default());
        let empty = MtevalBleuStats {
            ref_len: 3,
            ..MtevalBleuStats::default()
        };
        assert!(m.corpus_score(&empty).unwrap_err().contains("log of 0"));
        assert!(m
            .corpus_score(&MtevalBleuStats::default())
            .unwrap_err()
            .contains("division by zero"));
    }
}
