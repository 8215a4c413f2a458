//! [`DynMetric`]: the object-safe face of [`Metric`], which the pipeline, the subcommands and
//! the renderers use, so that they hold a list of metrics of different types.
//!
//! Batches carry one `Box<dyn Any>` per metric holding a `Vec<Stats>`, so the type erasure costs
//! one allocation per batch, not per segment.

use std::any::Any;

use serde_json::Value;

use super::{Metric, NgramOrders, Score};
use crate::input::Segment;

/// What the rest of the program needs of a metric, with the types erased.
pub trait DynMetric: Send + Sync {
    /// See [`Metric::key`].
    fn key(&self) -> &'static str;
    /// The typed settings as JSON (what a stats document records; see [`Metric::Config`]).
    fn config_json(&self) -> Value;
    /// A fresh workspace for one worker thread.
    fn new_workspace(&self) -> Box<dyn Any + Send>;
    /// An empty per-batch statistics vector.
    fn new_batch(&self, capacity: usize) -> Box<dyn Any + Send>;
    /// Computes one segment's statistics and appends them to `batch`; returns their index.
    fn push_stats(
        &self,
        segment: &Segment<'_>,
        ws: &mut (dyn Any + Send),
        batch: &mut (dyn Any + Send),
    ) -> usize;
    /// See [`Metric::segment_warning`], for entry `index` of `batch`.
    fn segment_warning(&self, batch: &(dyn Any + Send), index: usize) -> Option<String>;
    /// See [`Metric::sentence_scores`], for entry `index` of `batch`.
    fn sentence_scores(
        &self,
        batch: &(dyn Any + Send),
        index: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), String>;
    /// Serializes the [`Metric::sentence`] record of entry `index` of `batch` as JSON onto
    /// `out` (the JSONL renderer frames it); `Err` as for [`Metric::sentence`], with nothing
    /// written.
    fn write_sentence(
        &self,
        batch: &(dyn Any + Send),
        index: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), String>;
    /// See [`Metric::columns`].
    fn columns(&self) -> usize;
    /// See [`Metric::expects_detokenized`].
    fn expects_detokenized(&self) -> bool;
    /// See [`Metric::lower_is_better`].
    fn lower_is_better(&self) -> bool;
    /// See [`Metric::max_batch_segments`].
    fn max_batch_segments(&self) -> usize;
    /// See [`Metric::ngram_orders`].
    fn ngram_orders(&self) -> Option<NgramOrders>;
    /// Empty corpus totals.
    fn new_totals(&self) -> Box<dyn Any + Send>;
    /// See [`Metric::sums`].
    fn sums(&self, totals: &(dyn Any + Send)) -> Vec<u64>;
    /// Adds entry `index` of `batch` to `totals`.
    fn accumulate(&self, totals: &mut (dyn Any + Send), batch: &(dyn Any + Send), index: usize);
    /// See [`Metric::score`].
    fn score(&self, totals: &(dyn Any + Send)) -> Score;
    /// See [`Metric::save_totals`].
    fn save_totals(&self, totals: &(dyn Any + Send)) -> Value;
    /// See [`Metric::merge_saved`].
    fn merge_saved(&self, totals: &mut (dyn Any + Send), saved: &Value) -> Result<(), String>;
    /// See [`Metric::check_saved_segments`].
    fn check_saved_segments(&self, saved: &Value, segments: u64) -> Result<(), String>;
    /// See [`Metric::merge_refusal`].
    fn merge_refusal(&self) -> Option<String>;
    /// See [`Metric::totals_refusal`].
    fn totals_refusal(&self, totals: &(dyn Any + Send)) -> Option<String>;
    /// See [`Metric::vector_len`].
    fn vector_len(&self) -> Option<usize>;
    /// Writes the vector form of entry `index` of `batch` (see [`Metric::stats_vector`]).
    fn batch_vector(&self, batch: &(dyn Any + Send), index: usize, out: &mut [u64]);
    /// See [`Metric::check_vector`].
    fn check_vector(&self, vector: &[u64]) -> Result<(), String>;
    /// See [`Metric::score_vector`].
    fn score_vector(&self, sums: &[u64]) -> f64;
}

const TYPE_MISMATCH: &str = "metric state of a different metric type (pipeline bug)";

fn stats<M: Metric>(batch: &(dyn Any + Send), index: usize) -> &M::Stats {
    &batch.downcast_ref::<Vec<M::Stats>>().expect(TYPE_MISMATCH)[index]
}

impl<M: Metric> DynMetric for M {
    fn key(&self) -> &'static str {
        Metric::key(self)
    }

    fn config_json(&self) -> Value {
        serde_json::to_value(self.config()).expect("settings serialize to JSON")
    }

    fn new_workspace(&self) -> Box<dyn Any + Send> {
        Box::<M::Workspace>::default()
    }

    fn new_batch(&self, capacity: usize) -> Box<dyn Any + Send> {
        Box::new(Vec::<M::Stats>::with_capacity(capacity))
    }

    fn push_stats(
        &self,
        segment: &Segment<'_>,
        ws: &mut (dyn Any + Send),
        batch: &mut (dyn Any + Send),
    ) -> usize {
        let ws = ws.downcast_mut::<M::Workspace>().expect(TYPE_MISMATCH);
        let batch = batch.downcast_mut::<Vec<M::Stats>>().expect(TYPE_MISMATCH);
        batch.push(self.segment_stats(segment, ws));
        batch.len() - 1
    }

    fn segment_warning(&self, batch: &(dyn Any + Send), index: usize) -> Option<String> {
        Metric::segment_warning(self, stats::<M>(batch, index))
    }

    fn sentence_scores(
        &self,
        batch: &(dyn Any + Send),
        index: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), String> {
        Metric::sentence_scores(self, stats::<M>(batch, index), out)
    }

    fn write_sentence(
        &self,
        batch: &(dyn Any + Send),
        index: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let record = self.sentence(stats::<M>(batch, index))?;
        serde_json::to_writer(&mut *out, &record).expect("writing to a Vec cannot fail");
        Ok(())
    }

    fn columns(&self) -> usize {
        Metric::columns(self)
    }

    fn lower_is_better(&self) -> bool {
        Metric::lower_is_better(self)
    }

    fn max_batch_segments(&self) -> usize {
        Metric::max_batch_segments(self)
    }

    fn ngram_orders(&self) -> Option<NgramOrders> {
        Metric::ngram_orders(self)
    }

    fn expects_detokenized(&self) -> bool {
        Metric::expects_detokenized(self)
    }

    fn new_totals(&self) -> Box<dyn Any + Send> {
        Box::new(Metric::new_totals(self))
    }

    fn accumulate(&self, totals: &mut (dyn Any + Send), batch: &(dyn Any + Send), index: usize) {
        let totals = totals.downcast_mut::<M::Totals>().expect(TYPE_MISMATCH);
        self.add(totals, stats::<M>(batch, index));
    }

    fn sums(&self, totals: &(dyn Any + Send)) -> Vec<u64> {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::sums(self, totals)
    }

    fn score(&self, totals: &(dyn Any + Send)) -> Score {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::score(self, totals)
    }

    fn save_totals(&self, totals: &(dyn Any + Send)) -> Value {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::save_totals(self, totals)
    }

    fn merge_saved(&self, totals: &mut (dyn Any + Send), saved: &Value) -> Result<(), String> {
        let totals = totals.downcast_mut::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::merge_saved(self, totals, saved)
    }

    fn check_saved_segments(&self, saved: &Value, segments: u64) -> Result<(), String> {
        Metric::check_saved_segments(self, saved, segments)
    }

    fn merge_refusal(&self) -> Option<String> {
        Metric::merge_refusal(self)
    }

    fn totals_refusal(&self, totals: &(dyn Any + Send)) -> Option<String> {
        let totals = totals.downcast_ref::<M::Totals>().expect(TYPE_MISMATCH);
        Metric::totals_refusal(self, totals)
    }

    fn vector_len(&self) -> Option<usize> {
        Metric::vector_len(self)
    }

    fn batch_vector(&self, batch: &(dyn Any + Send), index: usize, out: &mut [u64]) {
        self.stats_vector(stats::<M>(batch, index), out);
    }

    fn check_vector(&self, vector: &[u64]) -> Result<(), String> {
        Metric::check_vector(self, vector)
    }

    fn score_vector(&self, sums: &[u64]) -> f64 {
        Metric::score_vector(self, sums)
    }
}

/// The smallest batch any of `metrics` asks for ([`Metric::max_batch_segments`]): one run's
/// batches carry the statistics of every metric.
pub fn smallest_batch<'a>(metrics: impl IntoIterator<Item = &'a dyn DynMetric>) -> usize {
    let smallest = metrics.into_iter().map(|m| m.max_batch_segments()).min();
    smallest.unwrap_or(crate::input::reader::MAX_RECORDS)
}
