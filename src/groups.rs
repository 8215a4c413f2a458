//! `--group-by`: corpus totals per group, next to the overall ones.
//!
//! Groups are kept in order of first appearance and found by their key (the JSON text of the
//! key value, [`crate::input::group`]); a group holds what the overall totals hold — per-metric
//! totals, counts, the resampling state — so its report is exactly the report of a separate
//! run over its lines. Memory grows with the number of groups, which `--max-groups` caps.

use std::any::Any;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::Value;

use crate::confidence::{self, Resampler, SavedResampling, REPLICATE_BUDGET};
use crate::input::group::MAX_KEY_BYTES;
use crate::metric::{saved, DynMetric};
use crate::output::GroupReport;

/// `--max-groups` by default.
pub const DEFAULT_MAX: usize = 10_000;

/// One group in a stats document's `groups` ([`Groups::save`]):
/// `{"group":KEY,"segments":N,"bad_lines":B,"metrics":[{"key":…,"stats":…}],"resampling":…}`.
#[derive(Serialize)]
pub struct SavedGroup<'a> {
    group: Value,
    segments: u64,
    bad_lines: u64,
    metrics: Vec<SavedStats>,
    /// `--confidence` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    resampling: Option<SavedResampling<'a>>,
}

/// A metric's totals in a group: its key and [`crate::metric::Metric::save_totals`].
#[derive(Serialize)]
struct SavedStats {
    key: &'static str,
    stats: Value,
}

/// One group's running totals.
pub struct Group {
    /// The key as JSON text.
    pub key: Box<str>,
    pub totals: Vec<Box<dyn Any + Send>>,
    pub segments: u64,
    pub bad_lines: u64,
    pub resampler: Option<Resampler>,
}

/// Every group seen so far.
pub struct Groups {
    index: FxHashMap<Box<[u8]>, usize>,
    pub list: Vec<Group>,
    max: usize,
    resampling: Option<confidence::Settings>,
}

/// The bytes of one group's replicates (`samples` replicates of `width` 8-byte sums) when
/// `groups` groups of them exceed [`REPLICATE_BUDGET`], which bounds the replicates of all
/// groups as it bounds one run's: every group keeps its own `--confidence-n` replicate sums of
/// every metric, allocated when the group is first seen, so 10,000 groups of four metrics at
/// the default 1000 replicates wanted 2.6 GB, and 100 groups at 1,000,000 replicates ended in
/// an allocation failure that lost every row.
fn over_replicate_budget(groups: usize, samples: usize, width: usize) -> Option<usize> {
    let per_group = samples.saturating_mul(width).saturating_mul(8);
    (groups.saturating_mul(per_group) > REPLICATE_BUDGET).then_some(per_group)
}

impl Groups {
    /// `Err` when one more group's streaming replicates would take the groups' replicates past
    /// [`REPLICATE_BUDGET`] (a stop like `--max-groups`', naming the arithmetic).
    fn check_replicate_budget(
        &self,
        key: &[u8],
        metrics: &[Box<dyn DynMetric>],
    ) -> Result<(), String> {
        let Some(settings) = self.resampling else {
            return Ok(());
        };
        if settings.method != confidence::Method::Streaming {
            return Ok(());
        }
        let width: usize = metrics.iter().filter_map(|m| m.vector_len()).sum();
        let groups = self.list.len() + 1;
        let Some(per_group) = over_replicate_budget(groups, settings.samples, width) else {
            return Ok(());
        };
        Err(format!(
            "group {} would be group {groups}, but --confidence=streaming keeps {} replicates of \
             every group ({per_group} bytes a group with these metrics), and {groups} groups \
             would take more than 1 GiB: lower --confidence-n, or score fewer groups a run",
            String::from_utf8_lossy(key),
            settings.samples,
        ))
    }

    /// Groups of up to `max` keys, each resampled like the overall totals when `resampling`.
    pub fn new(max: usize, resampling: Option<confidence::Settings>) -> Groups {
        Groups {
            index: FxHashMap::default(),
            list: Vec::new(),
            max,
            resampling,
        }
    }

    /// The group of `key` (JSON text), made on first sight; `Err` says the cap is reached.
    pub fn get(
        &mut self,
        key: &[u8],
        metrics: &[Box<dyn DynMetric>],
    ) -> Result<&mut Group, String> {
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                self.check_replicate_budget(key, metrics)?;
                if self.list.len() >= self.max {
                    return Err(format!(
                        "group {} would be group {} but --max-groups is {}: raise it if the \
                         input really has that many groups",
                        String::from_utf8_lossy(key),
                        self.list.len() + 1,
                        self.max
                    ));
                }
                let key_text =
                    std::str::from_utf8(key).map_err(|_| "a group key is not UTF-8".to_owned())?;
                let resampler = match self.resampling {
                    Some(settings) => Some(Resampler::new(settings, metrics)?),
                    None => None,
                };
                self.list.push(Group {
                    key: key_text.into(),
                    totals: metrics.iter().map(|m| m.new_totals()).collect(),
                    segments: 0,
                    bad_lines: 0,
                    resampler,
                });
                self.index.insert(key.into(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        Ok(&mut self.list[i])
    }

    /// One report per group, in order of first appearance.
    pub fn reports(&self, metrics: &[Box<dyn DynMetric>], is_final: bool) -> Vec<GroupReport> {
        self.list
            .iter()
            .map(|g| GroupReport {
                key: g.key.to_string(),
                segments: g.segments,
                bad_lines: g.bad_lines,
                metrics: confidence::scores(metrics, &g.totals, g.resampler.as_ref(), is_final),
            })
            .collect()
    }

    /// The `groups` part of a stats document; `Err` when a group's totals cannot be saved
    /// exactly (the metric's reason).
    pub fn save<'a>(
        &'a self,
        metrics: &[Box<dyn DynMetric>],
    ) -> Result<Vec<SavedGroup<'a>>, String> {
        let mut out = Vec::with_capacity(self.list.len());
        for g in &self.list {
            let mut parts = Vec::with_capacity(metrics.len());
            for (m, t) in metrics.iter().zip(&g.totals) {
                if let Some(why) = m.totals_refusal(t.as_ref()) {
                    return Err(format!(
                        "cannot emit mergeable statistics of group {}: {why}",
                        g.key
                    ));
                }
                parts.push(SavedStats {
                    key: m.key(),
                    stats: m.save_totals(t.as_ref()),
                });
            }
            out.push(SavedGroup {
                // Keys are canonical JSON ([`crate::input::group`]): they read back unchanged.
                group: serde_json::from_str(&g.key).unwrap_or(Value::Null),
                segments: g.segments,
                bad_lines: g.bad_lines,
                metrics: parts,
                resampling: g.resampler.as_ref().map(|r| r.save(metrics)),
            });
        }
        Ok(out)
    }

    /// Adds the `groups` part of a stats document (whose lines were framed as `framing`), group
    /// by group; returns the segments and bad lines its groups count, which the caller checks
    /// against the document's. A key may appear once per document (one run keeps one group
    /// per key) and be at most [`MAX_KEY_BYTES`] long, as when scoring.
    pub fn merge_saved(
        &mut self,
        metrics: &[Box<dyn DynMetric>],
        saved: &Value,
        framing: &Value,
        known_keys: &[saved::KnownKeys],
        text_keys: Option<&str>,
    ) -> Result<(u64, u64, Vec<Vec<u64>>), String> {
        let list = saved
            .as_array()
            .ok_or("\"groups\" is not an array of group statistics")?;
        let mut seen = FxHashSet::default();
        let (mut all_segments, mut all_bad) = (0u64, 0u64);
        // Per metric, what the document's groups add to their sums (`Metric::sums`).
        let mut all_sums: Vec<Vec<u64>> = vec![Vec::new(); metrics.len()];
        for (n, part) in list.iter().enumerate() {
            let obj = part
                .as_object()
                .ok_or_else(|| format!("group {}: not an object", n + 1))?;
            let key = obj.get("group").unwrap_or(&Value::Null);
            if !(key.is_string() || key.is_number()) {
                return Err(format!(
                    "group {}: its key must be a string or a number",
                    n + 1
                ));
            }
            if let (Some(by), true) = (text_keys, key.is_number()) {
                return Err(format!(
                    "group {key}: a number, but --group-by {by} reads TSV columns, whose keys \
                     are text"
                ));
            }
            // JSON text: any control character in a string key comes out escaped.
            let key_text = key.to_string();
            saved::only_keys(
                obj,
                &["group", "segments", "bad_lines", "metrics", "resampling"],
                &format!("group {key_text}"),
            )?;
            if key_text.len() > MAX_KEY_BYTES {
                return Err(format!(
                    "group {}: a key of {} bytes (as JSON text; at most {MAX_KEY_BYTES})",
                    n + 1,
                    key_text.len()
                ));
            }
            if !seen.insert(key_text.clone()) {
                return Err(format!(
                    "group {key_text} appears twice in the document (one run keeps one group per \
                     key)"
                ));
            }
            let count = |field: &str| {
                saved::count_field(obj, field).map_err(|e| format!("group {key_text}: {e}"))
            };
            let (segments, bad_lines) = (count("segments")?, count("bad_lines")?);
            let parts = part
                .get("metrics")
                .and_then(Value::as_array)
                .filter(|p| p.len() == metrics.len())
                .ok_or_else(|| format!("group {key_text}: statistics of other metrics"))?;
            let group = self.get(key_text.as_bytes(), metrics)?;
            let mut sums = Vec::with_capacity(metrics.len());
            for (((m, t), p), known) in metrics
                .iter()
                .zip(&mut group.totals)
                .zip(parts)
                .zip(known_keys)
            {
                if p.get("key").and_then(Value::as_str) != Some(m.key()) {
                    return Err(format!("group {key_text}: {} statistics missing", m.key()));
                }
                if let Some(part) = p.as_object() {
                    saved::only_keys(part, &["key", "stats"], &format!("group {key_text}"))?;
                }
                let stats = p
                    .get("stats")
                    .ok_or_else(|| format!("group {key_text}: {} statistics missing", m.key()))?;
                saved::fits_document(m.as_ref(), stats, segments, framing)
                    .map_err(|e| format!("group {key_text}: {e}"))?;
                let before = m.sums(t.as_ref());
                m.merge_saved(t.as_mut(), stats)
                    .and_then(|()| known.check(m.key(), stats))
                    .map_err(|e| format!("group {key_text}: {e}"))?;
                sums.push(saved::added(&before, &m.sums(t.as_ref())));
            }
            match (&mut group.resampler, part.get("resampling")) {
                (None, None) => {}
                (Some(r), Some(saved)) => r
                    .merge_saved(metrics, saved, segments, &sums)
                    .map_err(|e| format!("group {key_text}: {e}"))?,
                _ => {
                    return Err(format!(
                        "group {key_text}: resampling statistics do not match the document's"
                    ))
                }
            }
            let sum = |a, b, what| {
                saved::add_count(a, b, what).map_err(|e| format!("group {key_text}: {e}"))
            };
            group.segments = sum(group.segments, segments, "segments")?;
            group.bad_lines = sum(group.bad_lines, bad_lines, "bad_lines")?;
            all_segments = saved::add_count(all_segments, segments, "the groups' segments")?;
            all_bad = saved::add_count(all_bad, bad_lines, "the groups' bad_lines")?;
            for (all, group) in all_sums.iter_mut().zip(sums) {
                saved::add_sums(all, &group)?;
            }
        }
        Ok((all_segments, all_bad, all_sums))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (audit 2026-11-27): streaming replicates of every group had no ceiling (100
    /// groups × 1,000,000 replicates of BLEU: an allocation failure, every row lost).
    #[test]
    fn streaming_replicates_of_all_groups_stay_within_the_budget() {
        // BLEU's 10 sums × 1,000,000 replicates: 80 MB a group; 13 fit in 1 GiB, 14 do not.
        assert_eq!(over_replicate_budget(13, 1_000_000, 10), None);
        assert_eq!(over_replicate_budget(14, 1_000_000, 10), Some(80_000_000));
        // The defaults (1000 replicates) with four metrics (33 sums): 4,067 groups fit.
        assert_eq!(over_replicate_budget(4_067, 1000, 33), None);
        assert!(over_replicate_budget(4_068, 1000, 33).is_some());
        assert!(over_replicate_budget(usize::MAX, usize::MAX, usize::MAX).is_some());
    }
}
