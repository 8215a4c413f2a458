//! `--confidence`: confidence intervals of corpus scores by resampling segments, kept by the
//! merger next to the corpus totals.
//!
//! * `bootstrap` (sacreBLEU's `--confidence`): every segment's statistics are kept in their
//!   vector form (integers, `u32` each) and resampled with replacement at the final report
//!   ([`significance::bootstrap`]). Memory grows with the corpus: only when asked.
//! * `streaming`: the online Poisson bootstrap ([`significance::poisson`]): B replicate totals,
//!   constant memory, an interval in every running report.
//!
//! Both are mergeable: stats documents carry the vectors (concatenated in shard order, so a
//! merged resample draws exactly what one run draws) or the replicate sums (added; weights
//! hash the global line number, so shards must number their lines with `--first-line`).

use std::any::Any;

use serde::Serialize;
use serde_json::Value;

use crate::metric::{Confidence, DynMetric, Score};
use crate::significance::poisson::Replicates;
use crate::significance::{self, Interval, Vectors};

/// Which resampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Resampling stored segments with replacement (sacreBLEU).
    Bootstrap,
    /// Online Poisson bootstrap.
    Streaming,
}

impl Method {
    /// The name in stats documents and `--confidence=`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Bootstrap => "bootstrap",
            Method::Streaming => "streaming",
        }
    }

    /// The name in signatures and JSON reports.
    fn report_name(self) -> &'static str {
        match self {
            Method::Bootstrap => "bootstrap",
            Method::Streaming => "poisson",
        }
    }
}

/// Most resamples or replicates (`--confidence-n`, and in a merged stats document).
pub const MAX_SAMPLES: u64 = 1_000_000;

/// What the replicates of `--confidence=streaming` may take: `--confidence-n` sums of every
/// metric's vector (8 bytes each), allocated before the first line. The audit's `-m bleu,chrf
/// --max-ngram-order 64 --chrf-char-order 64 --chrf-word-order 64 --confidence-n 1000000`
/// asked for 4.1 GB and aborted on a failed allocation. With `--group-by`, all groups' together
/// stay within it too (`groups.rs`).
pub const REPLICATE_BUDGET: usize = 1 << 30;

/// `--confidence`, `--confidence-n`, `--seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub method: Method,
    /// Resamples (bootstrap) or replicates (streaming).
    pub samples: usize,
    pub seed: u64,
}

enum Part {
    Bootstrap(Vectors),
    Streaming(Replicates),
}

/// The `resampling` part of a stats document ([`Resampler::save`]):
/// `{"method":"bootstrap","samples":1000,"seed":12345,"lines":[1,800],"metrics":[…]}`.
#[derive(Serialize)]
pub struct SavedResampling<'a> {
    method: &'static str,
    samples: usize,
    seed: u64,
    /// The lowest and highest input line covered, `null` before any.
    lines: Option<(u64, u64)>,
    metrics: Vec<SavedPart<'a>>,
}

/// One metric's resampling state: `{"key":"bleu","vectors":[…]}` (bootstrap) or
/// `{"key":"bleu","replicates":[…]}` (streaming).
#[derive(Serialize)]
struct SavedPart<'a> {
    key: &'static str,
    #[serde(flatten)]
    data: SavedData<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum SavedData<'a> {
    /// Every segment's statistics vector, back to back ([`Vectors::as_flat`]).
    Vectors(&'a [u32]),
    /// The replicates' sums ([`Replicates::as_flat`]).
    Replicates(&'a [u64]),
}

/// The resampling state of a run: one part per metric.
pub struct Resampler {
    pub settings: Settings,
    parts: Vec<Part>,
    /// Scratch for one segment's vector.
    vector: Vec<u64>,
    /// Input lines covered (streaming: the line numbers that keyed the weights), for `merge`
    /// to check that shards do not overlap.
    lines: Option<(u64, u64)>,
    /// `merge`: the lines of the last document merged, to check that documents come in input
    /// order ([`Resampler::merge_saved`]).
    last_lines: Option<(u64, u64)>,
}

impl Resampler {
    /// Resampling for `metrics`; `Err` names a metric that cannot be resampled.
    pub fn new(settings: Settings, metrics: &[Box<dyn DynMetric>]) -> Result<Resampler, String> {
        let mut parts = Vec::new();
        let mut streaming_width = 0usize;
        for m in metrics {
            let width = m.vector_len().ok_or_else(|| {
                format!(
                    "--confidence: {} cannot be resampled (its corpus statistics are not a sum \
                     of fixed-size integer vectors); resampling supports {}",
                    m.key(),
                    resampled_metrics().join(", ")
                )
            })?;
            if settings.method == Method::Streaming {
                streaming_width += width;
            }
        }
        let bytes = streaming_width
            .saturating_mul(settings.samples)
            .saturating_mul(8);
        if bytes > REPLICATE_BUDGET {
            return Err(format!(
                "--confidence=streaming keeps {} replicates of {streaming_width} sums with these \
                 metrics, {} MiB, more than 1 GiB: lower --confidence-n (or the metrics' orders)",
                settings.samples,
                bytes >> 20
            ));
        }
        for m in metrics {
            let width = m.vector_len().expect("checked above");
            parts.push(match settings.method {
                Method::Bootstrap => Part::Bootstrap(Vectors::new(width)),
                Method::Streaming => Part::Streaming(Replicates::new(width, settings.samples)),
            });
        }
        Ok(Resampler {
            settings,
            parts,
            vector: Vec::new(),
            lines: None,
            last_lines: None,
        })
    }

    /// Adds the segment at `index` of a batch's statistics (one entry per metric), read from
    /// input line `line`. `Err` when a count does not fit the compact form.
    pub fn add(
        &mut self,
        metrics: &[Box<dyn DynMetric>],
        batches: &[Box<dyn Any + Send>],
        index: usize,
        line: u64,
    ) -> Result<(), String> {
        for ((m, batch), part) in metrics.iter().zip(batches).zip(&mut self.parts) {
            let width = m.vector_len().expect("checked in new");
            self.vector.resize(width, 0);
            m.batch_vector(batch.as_ref(), index, &mut self.vector);
            match part {
                Part::Bootstrap(v) => v.push(&self.vector)?,
                Part::Streaming(r) => r.add(self.settings.seed, line, &self.vector),
            }
        }
        self.lines = Some(match self.lines {
            None => (line, line),
            Some((lo, hi)) => (lo.min(line), hi.max(line)),
        });
        Ok(())
    }

    /// The interval of metric `i`, or `None` when there is none to give: the bootstrap only
    /// resamples at the final report (its cost grows with the corpus), and nothing resamples
    /// an empty corpus.
    pub fn interval(&self, metric: &dyn DynMetric, i: usize, is_final: bool) -> Option<Confidence> {
        let score = |sums: &[u64]| metric.score_vector(sums);
        let interval = match &self.parts[i] {
            Part::Bootstrap(v) if is_final && !v.is_empty() => {
                significance::bootstrap(v, self.settings.samples, self.settings.seed, &score)
            }
            Part::Streaming(r) if self.lines.is_some() => {
                let mut scores = r.scores(&score);
                Interval::from_scores(&mut scores)
            }
            _ => return None,
        };
        Some(Confidence {
            method: self.settings.method.report_name(),
            samples: self.settings.samples,
            seed: self.settings.seed,
            mean: interval.mean,
            ci: interval.ci,
            lower: interval.lower,
            upper: interval.upper,
        })
    }

    /// The resampling part of a stats document.
    pub fn save<'a>(&'a self, metrics: &[Box<dyn DynMetric>]) -> SavedResampling<'a> {
        let parts = metrics
            .iter()
            .zip(&self.parts)
            .map(|(m, part)| SavedPart {
                key: m.key(),
                data: match part {
                    Part::Bootstrap(v) => SavedData::Vectors(v.as_flat()),
                    Part::Streaming(r) => SavedData::Replicates(r.as_flat()),
                },
            })
            .collect();
        SavedResampling {
            method: self.settings.method.name(),
            samples: self.settings.samples,
            seed: self.settings.seed,
            lines: self.lines,
            metrics: parts,
        }
    }

    /// The settings a saved resampling part was made with.
    pub fn saved_settings(saved: &Value) -> Result<Settings, String> {
        let method = match saved.get("method").and_then(Value::as_str) {
            Some("bootstrap") => Method::Bootstrap,
            Some("streaming") => Method::Streaming,
            _ => return Err("resampling statistics without a known method".to_owned()),
        };
        let number = |key: &str| {
            saved
                .get(key)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("resampling statistics without \"{key}\""))
        };
        // The same range as --confidence-n: a document asking for 2^63 resamples must be an
        // error, not an allocation that aborts (issue 19, point 2); 0 would give NaN.
        let samples = number("samples")?;
        if !(1..=MAX_SAMPLES).contains(&samples) {
            return Err(format!(
                "resampling statistics: \"samples\" is {samples}, not in 1..={MAX_SAMPLES}"
            ));
        }
        Ok(Settings {
            method,
            samples: usize::try_from(samples).map_err(|e| e.to_string())?,
            seed: number("seed")?,
        })
    }

    /// Adds a saved resampling part of a shard that follows everything added so far. The shard
    /// scored `segments` segments, and its totals' [`sums`](DynMetric::sums) are `sums` (per
    /// metric): a bootstrap part has one vector per segment, which add up to the sums where
    /// those are laid out as the vectors (the audit forged a document of 2 segments with 100
    /// vectors, or none: a plausible, wrong interval).
    pub fn merge_saved(
        &mut self,
        metrics: &[Box<dyn DynMetric>],
        saved: &Value,
        segments: u64,
        sums: &[Vec<u64>],
    ) -> Result<(), String> {
        assert_eq!(sums.len(), metrics.len(), "sums of every metric");
        use crate::metric::saved::only_keys;
        let obj = saved
            .as_object()
            .ok_or("resampling statistics are not an object")?;
        only_keys(
            obj,
            &["method", "samples", "seed", "lines", "metrics"],
            "resampling statistics",
        )?;
        let theirs = Resampler::saved_settings(saved)?;
        if theirs != self.settings {
            return Err(format!(
                "resampled with --confidence={} --confidence-n={} --seed={}, not --confidence={} \
                 --confidence-n={} --seed={}",
                theirs.method.name(),
                theirs.samples,
                theirs.seed,
                self.settings.method.name(),
                self.settings.samples,
                self.settings.seed
            ));
        }
        let lines: Option<(u64, u64)> = crate::metric::saved::field(saved, "lines")?;
        if let Some((lo, hi)) = lines.filter(|(lo, hi)| lo > hi) {
            return Err(format!(
                "resampling statistics: \"lines\" [{lo}, {hi}] is not a range of line numbers"
            ));
        }
        if let (Method::Streaming, Some((lo, hi)), Some((mlo, mhi))) =
            (self.settings.method, lines, self.lines)
        {
            if lo <= mhi && mlo <= hi {
                return Err(format!(
                    "lines {lo}-{hi} overlap lines {mlo}-{mhi} of an earlier document: the \
                     streaming bootstrap keys its weights by line number, so give each shard \
                     its own numbering with --first-line"
                ));
            }
        }
        // The bootstrap resamples the segments in the order the documents come in, so shards
        // in another order give another interval, silently (safety audit: `merge part-*.json`
        // takes part-10 before part-2). Shards numbered from 1 each overlap and cannot tell;
        // shards with their own numbering (`--first-line`) can.
        if let (Method::Bootstrap, Some((lo, hi)), Some((llo, lhi))) =
            (self.settings.method, lines, self.last_lines)
        {
            if hi < llo {
                return Err(format!(
                    "lines {lo}-{hi} come before lines {llo}-{lhi} of the document before: the \
                     bootstrap resamples the segments in the order the documents are given, so \
                     give them in input order (a shell sorts part-10 before part-2: use `ls -v`, \
                     `sort -V` or zero-padded names)"
                ));
            }
        }
        let parts = saved
            .get("metrics")
            .and_then(Value::as_array)
            .filter(|p| p.len() == metrics.len())
            .ok_or("resampling statistics of another number of metrics")?;
        for (((m, part), theirs), sums) in metrics.iter().zip(&mut self.parts).zip(parts).zip(sums)
        {
            if theirs.get("key").and_then(Value::as_str) != Some(m.key()) {
                return Err(format!("resampling statistics without {}", m.key()));
            }
            let data = match part {
                Part::Bootstrap(_) => "vectors",
                Part::Streaming(_) => "replicates",
            };
            if let Some(obj) = theirs.as_object() {
                only_keys(
                    obj,
                    &["key", data],
                    &format!("resampling statistics of {}", m.key()),
                )?;
            }
            // Each vector is one segment's statistics (bootstrap) or a sum of them with
            // Poisson weights (replicates): the metric's invariants hold for both.
            let check = |v: &[u64]| {
                m.check_vector(v)
                    .map_err(|e| format!("resampling statistics of {}: {e}", m.key()))
            };
            match part {
                Part::Bootstrap(v) => {
                    let flat: Vec<u32> = crate::metric::saved::field(theirs, "vectors")?;
                    let theirs = Vectors::from_flat(v.width(), flat)?;
                    let mut row = Vec::with_capacity(v.width());
                    for i in 0..theirs.len() {
                        row.clear();
                        row.extend(theirs.row(i).iter().map(|&x| u64::from(x)));
                        check(&row)?;
                    }
                    if theirs.len() as u64 != segments {
                        return Err(format!(
                            "resampling statistics of {}: {} vectors for {segments} segments (a \
                             run writes one per segment)",
                            m.key(),
                            theirs.len()
                        ));
                    }
                    let total = theirs.total();
                    if sums.len() == total.len() && *sums != total {
                        return Err(format!(
                            "resampling statistics of {}: the vectors add up to {total:?}, the \
                             statistics to {sums:?}",
                            m.key()
                        ));
                    }
                    v.extend_from(&theirs)?;
                }
                Part::Streaming(r) => {
                    let flat: Vec<u64> = crate::metric::saved::field(theirs, "replicates")?;
                    let width = m.vector_len().unwrap_or(0);
                    let theirs = Replicates::from_flat(width, r.count(), flat)?;
                    theirs.as_flat().chunks_exact(width).try_for_each(check)?;
                    r.merge(&theirs)?;
                }
            }
        }
        if lines.is_some() {
            self.last_lines = lines;
        }
        if let Some((lo, hi)) = lines {
            self.lines = Some(match self.lines {
                None => (lo, hi),
                Some((mlo, mhi)) => (mlo.min(lo), mhi.max(hi)),
            });
        }
        Ok(())
    }
}

/// Every metric's score of its totals, with its confidence interval when resampling (the
/// merger's running and final reports, and `merge`'s).
pub fn scores(
    metrics: &[Box<dyn DynMetric>],
    totals: &[Box<dyn Any + Send>],
    resampler: Option<&Resampler>,
    is_final: bool,
) -> Vec<Score> {
    metrics
        .iter()
        .zip(totals)
        .enumerate()
        .map(|(i, (m, t))| {
            let mut score = m.score(t.as_ref());
            score.confidence = resampler.and_then(|r| r.interval(m.as_ref(), i, is_final));
            score
        })
        .collect()
}

/// The metrics with a vector form, for messages (checked against the registry below).
fn resampled_metrics() -> Vec<&'static str> {
    vec!["bleu", "chrf", "ter", "gleu"]
}

#[cfg(test)]
mod tests {
    use crate::metric::options::CommonArgs;
    use crate::metric::registry::{augment, REGISTRY};
    use clap::{Args, Command, FromArgMatches};

    /// Regression (audit 2026-11-26): the message left out `ter`, which resamples.
    #[test]
    fn the_message_names_every_metric_that_resamples() {
        let matches = augment(CommonArgs::augment_args(Command::new("x")))
            .try_get_matches_from(["x"])
            .unwrap();
        let common = CommonArgs::from_arg_matches(&matches).unwrap();
        let resampled: Vec<&str> = REGISTRY
            .iter()
            .filter(|e| {
                (e.from_args)(&common, &matches)
                    .unwrap()
                    .vector_len()
                    .is_some()
            })
            .map(|e| e.name)
            .collect();
        assert_eq!(resampled, super::resampled_metrics());
    }
}
