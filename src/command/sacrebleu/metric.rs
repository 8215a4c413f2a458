//! sacreBLEU's three CLI metrics, built from its arguments as the registry's typed settings
//! ([`BleuConfig`], [`ChrfConfig`], [`TerConfig`]) and driven the way `sacrebleu.py` drives its
//! `Metric` objects: segment statistics as rows, corpus scores from their Python-order sums,
//! and `Score.format`'s pieces (name, score, verbose part, signature).

use crate::metric::bleu::{Bleu, BleuConfig, BleuWorkspace, SmoothMethod};
use crate::metric::chrf::{Chrf, ChrfConfig, ChrfWorkspace};
use crate::metric::ter::{Ter, TerConfig, TerWorkspace};
use crate::tokenize::Tokenizer;

use super::args::Args;

/// One metric of `-m`, with its settings.
pub enum SbMetric {
    Bleu(Bleu),
    Chrf(Chrf, ChrfGiven),
    Ter(Ter),
}

/// chrF's `--chrf-beta` as given: sacreBLEU squares it, so a negative beta scores as its
/// absolute value (the engine's), yet names the score as given (`chrF-1`).
#[derive(Clone, Copy, Debug)]
pub struct ChrfGiven {
    pub beta: i128,
    pub word_order: usize,
    /// Neither a character nor a word order (`-cc 0 -cw 0`).
    pub no_order: bool,
}

impl ChrfGiven {
    /// sacreBLEU's `CHRF.__init__` name: `f"chrF{beta}" + "+" * word_order`.
    pub fn name(&self) -> String {
        format!("chrF{}{}", self.beta, "+".repeat(self.word_order))
    }

    /// Whether sacreBLEU's corpus score fails: with no order at all every statistics list is
    /// empty, and `sum_of_lists` indexes the first element (`IndexError`); sentence scores
    /// never sum, so `-sl` scores 0.0.
    pub fn has_no_order(&self) -> bool {
        self.no_order
    }
}

/// Per-segment statistics, as sacreBLEU's lists (`[hyp_len, ref_len, matches…, totals…]`,
/// chrF's triples, TER's `[edits, average reference length]`); integers are exact in `f64`.
pub type Row = Vec<f64>;

/// A computed score: what `Score.format` needs.
#[derive(Clone, Debug)]
pub struct SbScore {
    /// `BLEU`, `chrF2++`, `TER`.
    pub name: String,
    pub score: f64,
    /// BLEU's `67.5/41.7/… (BP = …)`; empty for the others.
    pub verbose: String,
}

/// Workspaces of the three metrics (one set per run; the CLI scores on one thread).
#[derive(Default)]
pub struct Workspaces {
    bleu: BleuWorkspace,
    chrf: ChrfWorkspace,
    ter: TerWorkspace,
}

/// The key sacreBLEU's `METRICS` dict uses (`BLEU`, `CHRF`, `TER`): it orders the outputs.
pub fn upper_name(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// The most memory chrF's statistics may take in the drop-in ([`SbMetric::check_statistics_size`]).
pub const STATISTICS_BUDGET: u128 = 1 << 30;

impl SbMetric {
    /// `METRICS[name](**metric_args)`. `tokenizer` is the resolved `-tok` (already mapped
    /// through the tokenizer registry by the caller).
    pub fn new(name: &str, args: &Args, tokenizer: Tokenizer) -> Result<SbMetric, String> {
        // A negative order is accepted by sacreBLEU and scores with the first `-cc + -cw`
        // orders' statistics (its `range(self.order)`), a quirk not reproduced (README).
        let int = |v: i64, what: &str| -> Result<usize, String> {
            usize::try_from(v).map_err(|_| format!("{what} must not be negative (got {v})"))
        };
        Ok(match name {
            "bleu" => {
                let method = SmoothMethod::from_name(&args.smooth_method)
                    .ok_or_else(|| format!("unknown smoothing method {}", args.smooth_method))?;
                SbMetric::Bleu(Bleu::new(BleuConfig {
                    tokenizer,
                    lowercase: args.lowercase,
                    smooth_method: method,
                    smooth_value: args.smooth_value,
                    max_ngram_order: 4,
                    sentence_effective_order: args.sentence_level,
                    corpus_effective_order: args.sentence_level,
                }))
            }
            "chrf" => {
                // sacreBLEU squares any int (a float product overflows only past 1e154);
                // `ChrfConfig::factors` squares exactly below 2^64.
                let beta = u64::try_from(args.chrf_beta.unsigned_abs()).map_err(|_| {
                    "--chrf-beta: an absolute value of 2^64 or more is beyond what bleu-stream \
                     supports"
                        .to_owned()
                })?;
                let (char_order, word_order) = (
                    int(args.chrf_char_order, "--chrf-char-order")?,
                    int(args.chrf_word_order, "--chrf-word-order")?,
                );
                let given = ChrfGiven {
                    beta: args.chrf_beta,
                    word_order,
                    no_order: char_order + word_order == 0,
                };
                SbMetric::Chrf(
                    Chrf::new(ChrfConfig {
                        char_order,
                        word_order,
                        beta,
                        lowercase: args.chrf_lowercase,
                        whitespace: args.chrf_whitespace,
                        eps_smoothing: args.chrf_eps_smoothing,
                    })
                    // The reader strips as sacrebleu.py does, not every field (`read.rs`).
                    .lines_as_given(),
                    given,
                )
            }
            "ter" => SbMetric::Ter(Ter::new(TerConfig {
                normalized: args.ter_normalized,
                no_punct: args.ter_no_punct,
                asian_support: args.ter_asian_support,
                case_sensitive: args.ter_case_sensitive,
            })),
            other => return Err(format!("unknown metric {other}")),
        })
    }

    /// Effective order (BLEU with `-sl`).
    pub(super) fn effective_order(&self) -> bool {
        match self {
            SbMetric::Bleu(b) => b.config().corpus_effective_order,
            _ => false,
        }
    }

    /// Refuses a chrF whose statistics would pass [`STATISTICS_BUDGET`] for `segments` segments
    /// kept at once. Like sacreBLEU, the drop-in keeps 3 counts per n-gram order for every
    /// segment (24 bytes an order, a float32 copy for resampling, about 40 in all) and works
    /// through about 128 bytes an order per line: sacreBLEU's orders are unbounded, and the
    /// audit's `--chrf-char-order 100000000` on one line aborted on a 4 GiB allocation.
    pub fn check_statistics_size(&self, segments: usize) -> Result<(), String> {
        let SbMetric::Chrf(chrf, _) = self else {
            return Ok(());
        };
        let config = crate::metric::Metric::config(chrf);
        let orders = (config.char_order + config.word_order) as u128;
        let bytes = orders * (40 * segments as u128 + 128);
        if bytes <= STATISTICS_BUDGET {
            return Ok(());
        }
        Err(format!(
            "--chrf-char-order {} --chrf-word-order {}: chrF keeps 3 counts per n-gram order for \
             each segment ({segments} here), about {} MiB; bleu-stream's drop-in stops at \
             {} MiB (sacreBLEU keeps as much, as Python lists): use fewer orders or segments",
            config.char_order,
            config.word_order,
            bytes >> 20,
            STATISTICS_BUDGET >> 20
        ))
    }

    /// Whether sacreBLEU checks for tokenized input (`_force` false: BLEU without `--force`).
    pub fn checks_tokenized(&self, force: bool) -> bool {
        matches!(self, SbMetric::Bleu(_)) && !force
    }

    /// `_compute_segment_statistics` of one hypothesis against its references.
    pub fn row(&self, hyp: &str, refs: &[&str], ws: &mut Workspaces) -> Row {
        match self {
            SbMetric::Bleu(m) => m
                .stats(hyp, refs, &mut ws.bleu)
                .counts
                .iter()
                .map(|&c| c as f64)
                .collect(),
            SbMetric::Chrf(m, _) => m
                .stats(hyp, refs, &mut ws.chrf)
                .counts
                .iter()
                .map(|&c| c as f64)
                .collect(),
            SbMetric::Ter(m) => {
                let s = m.stats(hyp, refs, &mut ws.ter);
                vec![s.edits.total as f64, s.avg_ref_len]
            }
        }
    }

    /// `sum_of_lists`: element-wise sums in segment order (exact for the integer metrics; TER's
    /// float lengths add up in Python's order).
    pub fn sum_rows(rows: &[Row]) -> Row {
        let mut total = vec![0.0; rows.first().map_or(0, Vec::len)];
        for r in rows {
            for (t, v) in total.iter_mut().zip(r) {
                *t += v;
            }
        }
        total
    }

    /// `_compute_score_from_stats` on Python numbers (integers, or floats for TER lengths).
    /// `Err`: what sacreBLEU raises instead — `math.log` of a negative precision, which only
    /// add-k smoothing with a negative `-sv` makes.
    pub fn score(&self, stats: &[f64]) -> Result<SbScore, String> {
        Ok(match self {
            SbMetric::Bleu(m) => {
                let ints: Vec<u64> = stats.iter().map(|&v| v as u64).collect();
                let s = m.compute(&ints, self.effective_order());
                if s.precisions.iter().any(|&p| p < 0.0) {
                    let precisions: Vec<String> =
                        s.precisions.iter().map(|p| format!("{p:.1}")).collect();
                    return Err(format!(
                        "ValueError: math domain error (sacreBLEU takes the log of each n-gram \
                         precision, and a negative -sv (add-k or floor smoothing) made some \
                         negative: \
                         {})",
                        precisions.join("/")
                    ));
                }
                SbScore {
                    name: "BLEU".into(),
                    score: s.score,
                    verbose: s.details().trim_start().to_owned(),
                }
            }
            SbMetric::Chrf(m, given) => {
                let ints: Vec<u64> = stats.iter().map(|&v| v as u64).collect();
                SbScore {
                    name: given.name(),
                    score: m.f_score(&ints),
                    verbose: String::new(),
                }
            }
            SbMetric::Ter(_) => SbScore {
                name: "TER".into(),
                score: Ter::compute(stats[0] as u64, stats[1]),
                verbose: String::new(),
            },
        })
    }

    /// The metric's signature fields, long names, in sacreBLEU's order (without `nrefs` and
    /// `version`, which [`signature`] places).
    fn fields(&self) -> Vec<(&'static str, String)> {
        let long = match self {
            SbMetric::Bleu(m) => m.signature("0", self.effective_order()),
            SbMetric::Chrf(m, _) => m.signature("0"),
            SbMetric::Ter(m) => m.signature("0"),
        };
        long.split('|')
            .filter_map(|kv| kv.split_once(':'))
            .filter(|(k, _)| *k != "nrefs" && *k != "version")
            .map(|(k, v)| (static_key(k), v.to_owned()))
            .collect()
    }

    /// `Signature.format(short)` with the common fields (`nrefs`, `bs`, `ar`, `seed`).
    pub fn signature(&self, common: &Common, short: bool) -> String {
        let mut pairs: Vec<(&'static str, String)> = vec![("nrefs", common.nrefs.clone())];
        if let Some(bs) = common.bs {
            pairs.push(("bs", bs.to_string()));
        }
        if let Some(ar) = common.ar {
            pairs.push(("ar", ar.to_string()));
        }
        if let Some(seed) = &common.seed {
            pairs.push(("seed", seed.clone()));
        }
        pairs.extend(self.fields());
        pairs.push(("version", crate::metric::bleu::SACREBLEU_VERSION.to_owned()));
        let abbr = |k: &'static str| -> &'static str {
            match (self, k) {
                (_, "version") => "v",
                (_, "nrefs") => "#",
                (_, "seed") => "rs",
                (_, "case") => "c",
                (_, "eff") => "e",
                (SbMetric::Bleu(_), "smooth") => "s",
                (SbMetric::Chrf(..), "space") => "s",
                (SbMetric::Ter(_), "tok") => "t",
                (SbMetric::Ter(_), "norm") => "nr",
                (SbMetric::Ter(_), "punct") => "pn",
                (SbMetric::Ter(_), "asian") => "as",
                (_, k) => k,
            }
        };
        pairs
            .iter()
            .map(|(k, v)| format!("{}:{v}", if short { abbr(k) } else { k }))
            .collect::<Vec<_>>()
            .join("|")
    }
}

/// The signature fields every metric shares.
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// Number of references, or `var`.
    pub nrefs: String,
    pub bs: Option<i128>,
    pub ar: Option<i128>,
    pub seed: Option<String>,
}

fn static_key(k: &str) -> &'static str {
    const KEYS: &[&str] = &[
        "case", "eff", "tok", "smooth", "nc", "nw", "space", "norm", "punct", "asian",
    ];
    KEYS.iter().find(|&&x| x == k).copied().unwrap_or("?")
}
