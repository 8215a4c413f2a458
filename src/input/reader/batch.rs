//! [`Batch`]: a run of consecutive input records, as the reader hands them to the workers.

use crate::input::Framing;

/// Records per batch at most, unless the work asks for fewer ([`super::run`]'s `max_records`).
pub const MAX_RECORDS: usize = 2048;
/// Bytes per batch at most (soft: a batch is cut after the record that crosses it).
const MAX_BYTES: usize = 256 * 1024;
/// Batches whose data buffer is at most this big are handed back to the reader for reuse.
pub(super) const RECYCLE_BYTES: usize = 4 * MAX_BYTES;

/// Bytes of long lines in flight at once, on all workers together; a longer line is scored
/// alone. A line is *long* from `LONG_BUDGET / workers` bytes ([`super::ReaderState::workers`],
/// at least [`MIN_LONG_LINE`]): its batch holds a share of the budget while a worker scores
/// it, and the worker drops what it grew for it after ([`super::ReaderState::hold`]). A
/// worker's memory is a multiple of the longest line it scored (up to about 25× for the word
/// n-gram metrics, 43× for NIST: README "Memory"), so what the workers keep of shorter lines
/// adds up to at most that multiple of the budget, whatever `-j`. Before, only a batch of
/// 1 MiB or more was held back (one at a time), so every worker could score, and keep what it
/// grew for, a line just under 1 MiB: 2.4 GB at `-j 128` (safety audit, 2026-11-27).
pub const LONG_BUDGET: usize = 2 << 20;

/// The shortest long line, however many workers: 4 KiB lines are not worth holding back.
pub const MIN_LONG_LINE: usize = 4 << 10;

/// A run of consecutive input records, raw bytes not yet decoded.
#[derive(Debug, Default)]
pub struct Batch {
    /// Position of this batch in the input (0, 1, 2, …): the merger restores this order.
    pub seq: u64,
    /// 1-based line number of the first record.
    pub first_line: u64,
    /// How the records are framed.
    pub framing: Option<Framing>,
    pub(super) data: Vec<u8>,
    /// `(start, end)` of every field in `data`.
    pub(super) fields: Vec<(usize, usize)>,
    /// End (in `fields`) of every record's fields.
    pub(super) records: Vec<usize>,
    /// The input failed after these records (read error, streams of different length).
    pub fatal: Option<String>,
    /// Records found bad by the reader itself (a line over `--max-line-bytes`): index and
    /// message, in order. Their fields are empty.
    pub bad: Vec<(usize, String)>,
    /// `--follow`: the file was truncated or replaced after these records, and is read again
    /// from its start; the message says which (the merger writes a report marking it).
    pub restart: Option<String>,
    /// Bytes of the longest record so far.
    pub(super) longest: usize,
    /// Bytes of the budget for long lines (`LONG_BUDGET`) this batch holds (its longest record,
    /// if long; else 0): the worker that scores it gives them back
    /// ([`super::ReaderState::release`]) and drops its grown workspaces.
    pub held: usize,
}

impl Batch {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when the batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The fields of record `i` (one line for TSV/JSONL; one line per stream for parallel files).
    pub fn fields<'b>(&'b self, i: usize, out: &mut Vec<&'b [u8]>) {
        let start = if i == 0 { 0 } else { self.records[i - 1] };
        out.clear();
        out.extend(
            self.fields[start..self.records[i]]
                .iter()
                .map(|&(s, e)| &self.data[s..e]),
        );
    }

    pub(super) fn push_field(&mut self, bytes: &[u8]) {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        self.fields.push((start, self.data.len()));
    }

    pub(super) fn end_record(&mut self) {
        let first = self.records.last().copied().unwrap_or(0);
        let start = self.fields.get(first).map_or(self.data.len(), |f| f.0);
        self.longest = self.longest.max(self.data.len() - start);
        self.records.push(self.fields.len());
    }

    /// Marks the record being built as bad (its fields stay empty).
    pub(super) fn mark_bad(&mut self, message: String) {
        self.bad.push((self.records.len(), message));
    }

    /// The batch emptied for reuse by the reader (see [`run`]), or `None` when its buffers
    /// grew too big to keep (a batch with a very long line must not pin that memory).
    pub fn recycle(mut self) -> Option<Batch> {
        if self.data.capacity() > RECYCLE_BYTES {
            return None;
        }
        self.data.clear();
        self.fields.clear();
        self.records.clear();
        self.bad.clear();
        self.framing = None;
        self.fatal = None;
        self.restart = None;
        self.longest = 0;
        self.held = 0;
        Some(self)
    }

    pub(super) fn is_full(&self, max_records: usize) -> bool {
        self.records.len() >= max_records || self.data.len() >= MAX_BYTES
    }
}
