//! `gleu`: NLTK 3.10.4 `sentence_gleu` / `corpus_gleu` (Google's GLEU), bit for bit
//! (`NLTK.md` §9).
//!
//! A segment contributes the `(tp, n_all)` pair of its best reference: `tp` = clipped matches of
//! every n-gram with `min_len ≤ n ≤ max_len` (NLTK's `everygrams`), `n_all` = the larger of the
//! hypothesis and reference n-gram counts. The corpus score is `Σ tp / Σ n_all`, so the totals
//! are two integers and every report is exact. Tokens are Python `str.split()` tokens, what NLTK
//! users pass — after a sacreBLEU tokenizer and `str.lower()` if `--tokenize` / `--lowercase` are
//! given, as for `nltk-bleu`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::nltk_bleu::NLTK_VERSION;
use super::options::CommonArgs;
use super::score::{self, Piece, Score};
use super::Registered;
use super::{saved, Metric, NgramOrders};
use crate::input::{RefCounts, Segment};
use crate::ngram::{clipped_matches, ClipWorkspace};
use crate::tokenize::{Scratch, Tokenizer, Tokens};

/// `gleu`'s own options (`--tokenize` and `--lowercase` are shared: [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "GLEU options")]
pub struct GleuArgs {
    /// gleu: smallest n-gram order (NLTK min_len; 0 also counts empty n-grams).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub gleu_min_len: u32,

    /// gleu: largest n-gram order (NLTK max_len). Above 5, lines longer than
    /// --max-line-bytes × 5 / N are skipped (each order takes memory per token).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub gleu_max_len: u32,
}

/// GLEU settings; `Default` is NLTK's (`min_len=1, max_len=4`) on whitespace tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GleuConfig {
    pub min_len: usize,
    pub max_len: usize,
    /// A sacreBLEU tokenizer applied before the whitespace split (`--tokenize`).
    pub tokenizer: Option<Tokenizer>,
    /// Python `str.lower()` first (`--lowercase`).
    pub lowercase: bool,
}

impl Default for GleuConfig {
    fn default() -> Self {
        GleuConfig {
            min_len: 1,
            max_len: 4,
            tokenizer: None,
            lowercase: false,
        }
    }
}

/// The `gleu` metric.
#[derive(Debug)]
pub struct Gleu {
    config: GleuConfig,
}

/// Statistics of one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GleuStats {
    /// `(tp, n_all)` of the best reference; `None` when no reference had `n_all > 0` (NLTK then
    /// records nothing for the sentence).
    pub best: Option<(u64, u64)>,
    /// Index of the best reference.
    pub best_ref: usize,
    /// Number of references.
    pub nrefs: usize,
}

/// Running corpus totals: NLTK's `corpus_n_match` and `corpus_n_all`.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct GleuTotals {
    pub matches: u64,
    pub total: u64,
    pub nrefs: RefCounts,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct GleuWorkspace {
    scratch: Scratch,
    lower: String,
    hyp: Tokens,
    reference: Tokens,
    clip: ClipWorkspace,
}

impl Gleu {
    /// A GLEU metric with these settings.
    pub fn new(config: GleuConfig) -> Gleu {
        Gleu { config }
    }

    fn tokenize(&self, text: &str, scratch: &mut Scratch, lower: &mut String, out: &mut Tokens) {
        match self.config.tokenizer {
            Some(t) => t.tokenize(text, self.config.lowercase, scratch, out),
            None => {
                out.clear();
                if self.config.lowercase {
                    out.extend_split_lowercased(text, lower);
                } else {
                    out.extend_split(text);
                }
            }
        }
    }

    /// The number of everygrams of a sequence of `len` tokens: every n-gram occurrence with
    /// `min_len ≤ n ≤ max_len`, plus — for `min_len = 0` — one empty n-gram per start position
    /// (NLTK's `everygrams` emits the empty prefix of every window). `max_len = 0` gives none.
    fn everygram_count(&self, len: usize) -> u64 {
        let GleuConfig {
            min_len, max_len, ..
        } = self.config;
        if max_len == 0 {
            return 0;
        }
        let mut count = 0;
        for n in min_len.max(1)..=max_len.min(len) {
            count += (len + 1 - n) as u64;
        }
        if min_len == 0 {
            count += len as u64;
        }
        count
    }

    /// `tp` of `hyp` against one reference: the clipped count of every shared everygram.
    fn matches(&self, ws: &mut GleuWorkspace) -> u64 {
        let GleuConfig {
            min_len, max_len, ..
        } = self.config;
        if max_len == 0 || min_len > max_len {
            return 0;
        }
        let (hyp, reference) = (&ws.hyp, &ws.reference);
        // Orders above the shorter length have no shared n-gram.
        let top = max_len.min(hyp.len()).min(reference.len());
        let mut tp = 0;
        if min_len == 0 {
            // The empty n-gram: len(hyp) of them against len(ref).
            tp += hyp.len().min(reference.len()) as u64;
        }
        if top < min_len.max(1) {
            return tp;
        }
        // With one reference, clipped matches are the multiset overlap of each order (the
        // clipping maximum is over that reference alone): NLTK's `Counter` intersection.
        clipped_matches(hyp, std::slice::from_ref(reference), top, &mut ws.clip);
        tp + ws.clip.matches[min_len.max(1) - 1..top].iter().sum::<u64>()
    }

    /// Segment statistics: NLTK's per-sentence loop of `corpus_gleu`.
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut GleuWorkspace) -> GleuStats {
        self.tokenize(hyp, &mut ws.scratch, &mut ws.lower, &mut ws.hyp);
        let tpfp = self.everygram_count(ws.hyp.len());
        let mut best: Option<(u64, u64)> = None;
        let mut best_ratio = 0.0f64;
        let mut best_ref = 0;
        for (j, r) in refs.iter().enumerate() {
            self.tokenize(r, &mut ws.scratch, &mut ws.lower, &mut ws.reference);
            let tpfn = self.everygram_count(ws.reference.len());
            let n_all = tpfp.max(tpfn);
            if n_all == 0 {
                continue;
            }
            let tp = self.matches(ws);
            // `max(..., key=lambda x: x[0] / x[1])`: the first of the best ratios (as doubles)
            // wins, even when a later reference with the same ratio has other counts (Q20).
            let ratio = tp as f64 / n_all as f64;
            if best.is_none() || ratio > best_ratio {
                best = Some((tp, n_all));
                best_ratio = ratio;
                best_ref = j;
            }
        }
        GleuStats {
            best,
            best_ref,
            nrefs: refs.len(),
        }
    }

    /// NLTK's final step: `0.0` when nothing was counted, else `matches / total` (int true
    /// division; counts stay below 2^53, so one IEEE division is correctly rounded).
    pub fn score(matches: u64, total: u64) -> f64 {
        if total == 0 {
            0.0
        } else {
            matches as f64 / total as f64
        }
    }

    fn signature(&self, nrefs: &str) -> String {
        let c = &self.config;
        let tok = match c.tokenizer {
            Some(t) => format!("{}+split", t.name()),
            None => "split".to_owned(),
        };
        format!(
            "nrefs:{nrefs}|case:{}|tok:{tok}|min:{}|max:{}|nltk:{NLTK_VERSION}",
            if c.lowercase { "lc" } else { "mixed" },
            c.min_len,
            c.max_len
        )
    }
}

/// The JSON record of a sentence GLEU score.
#[derive(Serialize)]
pub struct GleuRecord {
    pub score: f64,
    pub matches: u64,
    pub total: u64,
    pub best_ref: usize,
}

#[derive(Serialize)]
struct GleuCorpusRecord {
    score: f64,
    matches: u64,
    total: u64,
}

impl Registered for Gleu {
    const NAME: &'static str = "gleu";
    const SUMMARY: &'static str = "NLTK 3.10.4 GLEU";
    type Args = GleuArgs;

    fn config_from_args(common: &CommonArgs, args: GleuArgs) -> Result<GleuConfig, String> {
        Ok(GleuConfig {
            min_len: args.gleu_min_len as usize,
            max_len: args.gleu_max_len as usize,
            tokenizer: common.tokenizer()?,
            lowercase: common.lowercase,
        })
    }

    fn new(config: GleuConfig) -> Result<Gleu, String> {
        if config.min_len > 1024 || config.max_len > 1024 {
            return Err("gleu: n-gram orders above 1024".to_owned());
        }
        Ok(Gleu::new(config))
    }
}

impl Metric for Gleu {
    type Stats = GleuStats;
    type Totals = GleuTotals;
    type Workspace = GleuWorkspace;
    type Config = GleuConfig;
    type Sentence = GleuRecord;

    fn key(&self) -> &'static str {
        "gleu"
    }

    fn ngram_orders(&self) -> Option<NgramOrders> {
        let n = self.config.max_len;
        Some(NgramOrders::words(n, format!("--gleu-max-len {n}")))
    }

    fn config(&self) -> &GleuConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut GleuWorkspace) -> GleuStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &GleuStats, out: &mut Vec<f64>) -> Result<(), String> {
        let (m, a) = stats.best.unwrap_or((0, 0));
        out.push(Gleu::score(m, a));
        Ok(())
    }

    fn sentence(&self, stats: &GleuStats) -> Result<GleuRecord, String> {
        let (matches, total) = stats.best.unwrap_or((0, 0));
        Ok(GleuRecord {
            score: Gleu::score(matches, total),
            matches,
            total,
            best_ref: stats.best_ref,
        })
    }

    fn new_totals(&self) -> GleuTotals {
        GleuTotals::default()
    }

    fn add(&self, totals: &mut GleuTotals, stats: &GleuStats) {
        if let Some((m, a)) = stats.best {
            totals.matches += m;
            totals.total += a;
        }
        totals.nrefs.add(stats.nrefs);
    }

    /// `(matches, total)`: the stats vector's layout.
    fn sums(&self, totals: &GleuTotals) -> Vec<u64> {
        vec![totals.matches, totals.total]
    }

    fn save_totals(&self, totals: &GleuTotals) -> Value {
        serde_json::to_value(totals).expect("integers serialize")
    }

    fn merge_saved(&self, totals: &mut GleuTotals, saved: &Value) -> Result<(), String> {
        let other = GleuTotals::deserialize(saved).map_err(|e| format!("GLEU statistics: {e}"))?;
        saved::check_nrefs(other.nrefs, "GLEU statistics")?;
        self.check_vector(&[other.matches, other.total])?;
        saved::add_to(&mut totals.matches, other.matches, "GLEU statistics")?;
        saved::add_to(&mut totals.total, other.total, "GLEU statistics")?;
        totals.nrefs.merge(other.nrefs);
        Ok(())
    }

    /// A segment's `tp` counts n-grams of both sides, `n_all` is the larger side's count: the
    /// matches are at most the total, in any sum of segments.
    fn check_vector(&self, v: &[u64]) -> Result<(), String> {
        match v {
            &[matches, total] => saved::at_most(matches, total, "GLEU matches above the total"),
            _ => Err(format!("GLEU statistics: {} numbers, not 2", v.len())),
        }
    }

    /// NLTK `corpus_gleu`'s sums `(n_match, n_all)` (a sentence without n-grams adds nothing).
    fn vector_len(&self) -> Option<usize> {
        Some(2)
    }

    fn stats_vector(&self, stats: &GleuStats, out: &mut [u64]) {
        let (m, a) = stats.best.unwrap_or((0, 0));
        out.copy_from_slice(&[m, a]);
    }

    fn score_vector(&self, sums: &[u64]) -> f64 {
        Gleu::score(sums[0], sums[1])
    }

    fn score(&self, totals: &GleuTotals) -> Score {
        let score = Gleu::score(totals.matches, totals.total);
        let signature = self.signature(&totals.nrefs.signature_value());
        let line = vec![
            Piece::Text("GLEU = ".to_owned()),
            Piece::Score(score),
            Piece::Text(format!(
                " (matches = {}, total = {})",
                totals.matches, totals.total
            )),
        ];
        let fields = score::fields(&GleuCorpusRecord {
            score,
            matches: totals.matches,
            total: totals.total,
        });
        Score::new("gleu", "GLEU".to_owned(), score, signature, fields, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(hyp: &str, refs: &[&str], min_len: usize, max_len: usize) -> f64 {
        let gleu = Gleu::new(GleuConfig {
            min_len,
            max_len,
            ..GleuConfig::default()
        });
        let stats = gleu.stats(hyp, refs, &mut GleuWorkspace::default());
        let (m, a) = stats.best.unwrap_or((0, 0));
        Gleu::score(m, a)
    }

    #[test]
    fn nltk_docstring_example() {
        // nltk.translate.gleu_score.sentence_gleu docstring: 0.4393... (vector
        // sentence_gleu.doctest.00002: 29/66).
        let hyp1 = "It is a guide to action which ensures that the military always obeys the \
                    commands of the party";
        let ref1a = "It is a guide to action that ensures that the military will forever heed \
                     Party commands";
        assert_eq!(sentence(hyp1, &[ref1a], 1, 4), 0.4393939393939394);
    }

    #[test]
    fn everygram_counts_and_edge_lengths() {
        let g = Gleu::new(GleuConfig::default());
        assert_eq!(g.everygram_count(0), 0);
        assert_eq!(g.everygram_count(1), 1);
        assert_eq!(g.everygram_count(5), 5 + 4 + 3 + 2);
        let zero = Gleu::new(GleuConfig {
            min_len: 0,
            max_len: 2,
            ..GleuConfig::default()
        });
        assert_eq!(zero.everygram_count(3), 3 + 3 + 2);
        assert_eq!(sentence("a b", &["a b"], 0, 0), 0.0);
        assert_eq!(sentence("", &[""], 1, 4), 0.0);
        assert_eq!(sentence("a b", &["a b"], 3, 2), 0.0);
    }

    #[test]
    fn first_of_equal_ratios_wins() {
        // 1/2 twice: the first reference is kept.
        let gleu = Gleu::new(GleuConfig {
            min_len: 1,
            max_len: 1,
            ..GleuConfig::default()
        });
        let stats = gleu.stats("a b", &["a x", "a y"], &mut GleuWorkspace::default());
        assert_eq!((stats.best, stats.best_ref), (Some((1, 2)), 0));
    }
}
