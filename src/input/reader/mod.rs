//! The reader: turns input streams into [`Batch`]es of raw records for the workers.
//!
//! Lines end at `\n` only (not at a bare `\r`, unlike sacreBLEU's universal-newline stdin); a
//! trailing `\r` is removed; a last line without `\n` is still a record. A batch is handed over
//! when it is full **or, on a stream that may block (a pipe, a terminal), as soon as no complete
//! line is left in the read buffer** — the next read may wait on a live pipe (`tail -f`), and the
//! lines already read must be scored now, not when a batch fills. A regular file never waits, so
//! its batches just fill up (`--follow` hands its batch over before each wait for growth).

mod batch;
mod follow;
mod parallel;
mod source;
#[cfg(test)]
mod tests;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crossbeam_channel::{Receiver, Sender};

use super::{Framing, InputFormat, Refs};

pub use batch::{Batch, MAX_RECORDS};
use batch::{LONG_BUDGET, MIN_LONG_LINE};
use follow::read_follow;
use parallel::{read_aligned, read_parallel};
pub use source::{Line, LineReader, Source};

pub use crate::diagnostic::io_message;

/// What the reader thread shares with the merger and the signal thread, so that a graceful stop
/// (SIGINT/SIGTERM) finishes exactly the lines already read: once a stop is requested the reader
/// makes no more read calls but still frames and sends every complete line already in its
/// buffers, then ends; the merger is done when the reader has ended and every batch is merged,
/// or earlier when it has merged every batch sent while the reader waits for input that may
/// never come (a pipe, a terminal, a followed file that does not grow: a reader waiting there
/// has sent every complete line it holds). Reads of regular files do not count as waiting: they
/// return at once, and the lines they return were read before the reader saw the stop.
#[derive(Debug, Default)]
pub struct ReaderState {
    stop: AtomicBool,
    waiting: AtomicBool,
    sent: AtomicU64,
    /// Bytes of [`LONG_BUDGET`] held by batches in flight ([`ReaderState::hold`]).
    held: Mutex<usize>,
    released: Condvar,
    /// Worker threads (0: not said, taken as 2), for what a long line is ([`LONG_BUDGET`]).
    workers: AtomicUsize,
    /// With several input files: the first line number of each file read so far, and its name
    /// ([`ReaderState::file_line`]).
    file_starts: Mutex<Vec<(u64, String)>>,
}

impl ReaderState {
    /// Asks the reader to read no more input.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn set_waiting(&self, waiting: bool) {
        self.waiting.store(waiting, Ordering::SeqCst);
    }

    /// Says how many worker threads score the batches (before the reader starts).
    pub fn workers(&self, workers: usize) {
        self.workers.store(workers, Ordering::Relaxed);
    }

    /// The shortest line that holds a share of [`LONG_BUDGET`] ([`ReaderState::hold`]).
    fn long_line(&self) -> usize {
        let workers = match self.workers.load(Ordering::Relaxed) {
            0 => 2,
            n => n,
        };
        (LONG_BUDGET / workers).max(MIN_LONG_LINE)
    }

    /// Waits until `bytes` more of [`LONG_BUDGET`] are free, or nothing is held (a line longer
    /// than the budget is scored alone), then holds them. A worker's memory grows with the
    /// longest line it scores: four workers scoring four 16 MB lines at once (with more
    /// queued) took 4 times that (issue 19, point 3), and so did every worker scoring a line
    /// just under the 1 MiB that alone was held back before (safety audit).
    fn hold(&self, bytes: usize) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        while *held > 0 && *held + bytes > LONG_BUDGET {
            held = self.released.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        *held += bytes;
    }

    /// A worker has scored a batch that held `bytes` ([`Batch::held`]) and dropped what it
    /// grew for it.
    pub fn release(&self, bytes: usize) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        *held = held.saturating_sub(bytes);
        self.released.notify_one();
    }

    /// Input line `first_line` (counted over all files) is the first of file `name`.
    fn file_starts(&self, first_line: u64, name: &str) {
        let mut starts = self.file_starts.lock().unwrap_or_else(|e| e.into_inner());
        starts.push((first_line, name.to_owned()));
    }

    /// With several input files, the file that line `line` (counted over all files, from 1)
    /// is in and its number there: line numbers alone do not say where to look. A line the
    /// reader has not reached yet (no caller asks for one) gets the last file read.
    pub fn file_line(&self, line: u64) -> Option<(String, u64)> {
        let starts = self.file_starts.lock().unwrap_or_else(|e| e.into_inner());
        let at = starts.partition_point(|(first, _)| *first <= line);
        let (first, name) = &starts[at.checked_sub(1)?];
        Some((name.clone(), line - first + 1))
    }

    /// True when the reader waits for input and every batch it has sent is among the first
    /// `merged` ones.
    pub fn caught_up(&self, merged: u64) -> bool {
        self.waiting.load(Ordering::SeqCst) && self.sent.load(Ordering::SeqCst) == merged
    }
}

/// What the reader thread reads.
pub enum Plan {
    /// TSV/JSONL records, one per line, from these streams one after the other (like `cat`,
    /// except that every file's last line ends a record).
    Lines {
        sources: Vec<LineReader>,
        format: InputFormat,
        refs: Refs,
        /// `--group-by col:N`: a TSV line holds a key column besides its hypothesis and
        /// references ([`Batcher::settle_framing`]).
        key_column: bool,
    },
    /// Parallel files read in lockstep: the hypothesis stream first, then one per reference.
    Parallel { streams: Vec<LineReader> },
    /// Streams read in lockstep that must stay aligned (`compare`: systems and references):
    /// one record per line number with one field per stream, and the first stream to end
    /// before the others ends the input with an error ([`Batch::fatal`]), as does a read error.
    Aligned { streams: Vec<LineReader> },
    /// `--follow FILE`: TSV/JSONL records from a file read like `tail -F`.
    Follow {
        path: PathBuf,
        format: InputFormat,
        refs: Refs,
        /// As for [`Plan::Lines`].
        key_column: bool,
        /// `--max-line-bytes`.
        max_line: usize,
    },
}

/// Sends batches to `tx` until the input ends, fails, a stop is requested, or the receiving side
/// hangs up.
///
/// `recycled` brings back batches the workers are done with ([`Batch::recycle`]): reusing their
/// buffers saves an allocation, its page faults and its growth by doubling per batch (on the
/// bench corpus, 2,384 page faults per run become 1,747). When none is waiting, a new batch is
/// allocated.
pub fn run(
    plan: Plan,
    max_records: usize,
    tx: Sender<Batch>,
    recycled: Receiver<Batch>,
    state: Arc<ReaderState>,
) {
    let mut out = Batcher {
        max_records: max_records.clamp(1, MAX_RECORDS),
        tx,
        recycled,
        batch: Batch {
            first_line: 1,
            ..Batch::default()
        },
        next_line: 1,
        framing: None,
        key_column: false,
        state: Arc::clone(&state),
    };
    let framing = |format, refs: Refs| match format {
        InputFormat::Auto => None,
        InputFormat::Tsv => Some(Framing::Tsv { refs }),
        InputFormat::Jsonl => Some(Framing::Jsonl {
            refs: refs.exactly(),
        }),
    };
    let watch = |mut r: LineReader| {
        r.state = Some(Arc::clone(&state));
        r
    };
    let result = match plan {
        Plan::Lines {
            sources,
            format,
            refs,
            key_column,
        } => {
            out.framing = framing(format, refs);
            out.key_column = key_column;
            read_lines(sources.into_iter().map(watch).collect(), refs, &mut out)
        }
        Plan::Parallel { streams } => {
            out.framing = Some(Framing::Parallel);
            read_parallel(streams.into_iter().map(watch).collect(), &mut out)
        }
        Plan::Aligned { streams } => {
            out.framing = Some(Framing::Parallel);
            read_aligned(streams.into_iter().map(watch).collect(), &mut out)
        }
        Plan::Follow {
            path,
            format,
            refs,
            key_column,
            max_line,
        } => {
            out.framing = framing(format, refs);
            out.key_column = key_column;
            read_follow(&path, refs, max_line, &mut out)
        }
    };
    match result {
        Ok(()) | Err(Stop::HungUp) => {}
        Err(Stop::Fatal(message)) => out.batch.fatal = Some(message),
    }
    let _ = out.send();
}

enum Stop {
    /// The workers are gone (the merger stopped early): nothing more to do.
    HungUp,
    /// The input failed; the message says how.
    Fatal(String),
}

struct Batcher {
    /// Records per batch at most.
    max_records: usize,
    tx: Sender<Batch>,
    recycled: Receiver<Batch>,
    batch: Batch,
    next_line: u64,
    framing: Option<Framing>,
    /// Lines hold a key column ([`Plan::Lines`]).
    key_column: bool,
    state: Arc<ReaderState>,
}

impl Batcher {
    /// Hands the current batch over (if it has anything to say) and starts the next one.
    fn send(&mut self) -> Result<(), Stop> {
        if self.batch.is_empty() && self.batch.fatal.is_none() && self.batch.restart.is_none() {
            return Ok(());
        }
        let mut next = self.recycled.try_recv().unwrap_or_default();
        next.seq = self.batch.seq + 1;
        next.first_line = self.next_line;
        let mut batch = std::mem::replace(&mut self.batch, next);
        if batch.longest >= self.state.long_line() {
            batch.held = batch.longest;
            self.state.hold(batch.held);
        }
        // Records read before the format is known are empty lines: bad in any framing.
        batch.framing = Some(self.framing.unwrap_or(Framing::Tsv {
            refs: Refs::Unknown,
        }));
        self.tx.send(batch).map_err(|_| Stop::HungUp)?;
        self.state.sent.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// Frames (detecting the format if still unknown) and records one TSV/JSONL line.
    fn line(&mut self, line: Line<'_>, refs: Refs) -> Result<(), Stop> {
        if let Line::Text(text) = line {
            self.settle_framing(text, refs);
        }
        if !self.framed_line(line) {
            self.send()?;
        }
        Ok(())
    }

    /// Lets line `text` decide what is still open of the framing: the format, and for TSV the
    /// number of fields.
    fn settle_framing(&mut self, text: &[u8], refs: Refs) {
        if self.framing.is_none() {
            // A UTF-8 byte order mark does not hide JSON.
            let body = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
            match body.iter().find(|&&b| !super::is_space(b)) {
                Some(&first) => {
                    self.framing = Some(if first == b'{' {
                        Framing::Jsonl {
                            refs: refs.exactly(),
                        }
                    } else {
                        Framing::Tsv { refs }
                    })
                }
                // A blank line with a TAB is not empty: it is a TSV record with empty fields
                // (`paste` of two empty lines), and cannot be JSON. Deciding here, not at the
                // next non-blank line, keeps its row independent of where batches end.
                None if body.contains(&b'\t') => self.framing = Some(Framing::Tsv { refs }),
                None => {}
            }
        }
        if let Some(Framing::Tsv {
            refs: refs @ Refs::Unknown,
        }) = &mut self.framing
        {
            // The first line with a TAB sets the number of fields of every other line; with a
            // key column, the first with a reference besides the key and the hypothesis (a
            // `key<TAB>hyp` line is bad, and made every good line after it bad too: "3 fields
            // but line 1 has 2", group audit).
            let tabs = memchr::memchr_iter(b'\t', text).count();
            if tabs > usize::from(self.key_column) {
                *refs = Refs::AsLine {
                    line: self.next_line,
                    count: tabs,
                };
            }
        }
    }

    /// True once every line is framed alike: the format and, for TSV, the number of fields
    /// are known, so [`Batcher::settle_framing`] has nothing left to do and the lines can go
    /// straight to [`Batcher::framed_line`].
    fn framing_known(&self) -> bool {
        !matches!(
            self.framing,
            None | Some(Framing::Tsv {
                refs: Refs::Unknown
            })
        )
    }

    /// Records one line (an over-long one as a bad record without fields); false when the batch
    /// is full and must be sent before the next line.
    fn framed_line(&mut self, line: Line<'_>) -> bool {
        match line {
            Line::Text(text) => self.batch.push_field(text),
            Line::TooLong(bytes) => self.batch.mark_bad(too_long(bytes)),
        }
        self.finish_record()
    }

    /// Ends the record being built, and its line; false when the batch is now full.
    fn finish_record(&mut self) -> bool {
        self.batch.end_record();
        self.next_line += 1;
        !self.batch.is_full(self.max_records)
    }

    /// Ends the record being built and sends the batch if it is full.
    fn record_done(&mut self) -> Result<(), Stop> {
        if !self.finish_record() {
            self.send()?;
        }
        Ok(())
    }
}

fn read_lines(sources: Vec<LineReader>, refs: Refs, out: &mut Batcher) -> Result<(), Stop> {
    let several = sources.len() > 1;
    for mut source in sources {
        if several {
            out.state.file_starts(out.next_line, source.name());
        }
        loop {
            // The lines already buffered in one pass once their framing is settled (on the
            // bench corpus the reader thread's CPU time falls by a quarter).
            if out.framing_known() {
                source.buffered_lines(|line| out.framed_line(line));
                if out.batch.is_full(out.max_records) {
                    out.send()?;
                    continue;
                }
            }
            // Lines already read must be scored before a read that may wait (live input). A
            // regular file never waits: its batches fill up instead of being cut at every
            // buffer refill (fewer, fuller batches: less hand-over between threads).
            if source.may_block && !source.has_line() {
                out.send()?;
            }
            // On a stop request the source reads no more but still returns every complete line
            // it holds, then `None`.
            match source.next_line() {
                Ok(Some(line)) => out.line(line, refs)?,
                Ok(None) => break,
                Err(e) => return Err(read_failed(source.name(), &e)),
            }
        }
        if source.halted() {
            return Ok(());
        }
    }
    Ok(())
}

fn too_long(bytes: u64) -> String {
    format!("line of {bytes} bytes is longer than --max-line-bytes: skipped")
}

fn read_failed(name: &str, e: &io::Error) -> Stop {
    Stop::Fatal(format!("{name}: read failed: {}", io_message(e)))
}
