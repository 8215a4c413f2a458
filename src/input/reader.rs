//! The reader: turns input streams into [`Batch`]es of raw records for the workers.
//!
//! Lines end at `\n` only (not at a bare `\r`, unlike sacreBLEU's universal-newline stdin); a
//! trailing `\r` is removed; a last line without `\n` is still a record. A batch is handed over
//! when it is full **or, on a stream that may block (a pipe, a terminal), as soon as no complete
//! line is left in the read buffer** — the next read may wait on a live pipe (`tail -f`), and the
//! lines already read must be scored now, not when a batch fills. A regular file never waits, so
//! its batches just fill up (`--follow` hands its batch over before each wait for growth).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use super::{Framing, InputFormat, Refs};

/// Records per batch at most.
const MAX_RECORDS: usize = 2048;
/// Bytes per batch at most (soft: a batch is cut after the record that crosses it).
const MAX_BYTES: usize = 256 * 1024;
/// Batches whose data buffer is at most this big are handed back to the reader for reuse.
const RECYCLE_BYTES: usize = 4 * MAX_BYTES;
/// Read buffer size per stream.
const READ_SIZE: usize = 128 * 1024;

/// A run of consecutive input records, raw bytes not yet decoded.
#[derive(Debug, Default)]
pub struct Batch {
    /// Position of this batch in the input (0, 1, 2, …): the merger restores this order.
    pub seq: u64,
    /// 1-based line number of the first record.
    pub first_line: u64,
    /// How the records are framed.
    pub framing: Option<Framing>,
    data: Vec<u8>,
    /// `(start, end)` of every field in `data`.
    fields: Vec<(usize, usize)>,
    /// End (in `fields`) of every record's fields.
    records: Vec<usize>,
    /// The input failed after these records (read error, streams of different length).
    pub fatal: Option<String>,
    /// Records found bad by the reader itself (a line over `--max-line-bytes`): index and
    /// message, in order. Their fields are empty.
    pub bad: Vec<(usize, String)>,
    /// `--follow`: the file was truncated or replaced after these records, and is read again
    /// from its start; the message says which (the merger writes a report marking it).
    pub restart: Option<String>,
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

    fn push_field(&mut self, bytes: &[u8]) {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        self.fields.push((start, self.data.len()));
    }

    fn end_record(&mut self) {
        self.records.push(self.fields.len());
    }

    /// Marks the record being built as bad (its fields stay empty).
    fn mark_bad(&mut self, message: String) {
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
        Some(self)
    }

    fn is_full(&self) -> bool {
        self.records.len() >= MAX_RECORDS || self.data.len() >= MAX_BYTES
    }
}

/// An input stream: standard input or a named file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    /// `-` is standard input.
    pub fn from_arg(arg: &str) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::File(PathBuf::from(arg))
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            Source::File(p) => p.display().to_string(),
        }
    }

    /// Opens the stream as a [`LineReader`]; the error message names it.
    pub fn reader(&self) -> Result<LineReader, String> {
        let inner = self.open()?;
        let regular = match self {
            Source::Stdin => stdin_is_regular_file(),
            Source::File(p) => std::fs::metadata(p).is_ok_and(|m| m.is_file()),
        };
        let mut reader = LineReader::new(inner, self.name());
        reader.may_block = !regular;
        Ok(reader)
    }

    /// Opens the stream; the error message names it.
    pub fn open(&self) -> Result<Box<dyn Read + Send>, String> {
        match self {
            Source::Stdin => Ok(Box::new(io::stdin())),
            Source::File(p) => match File::open(p) {
                Ok(f) => Ok(Box::new(f)),
                Err(e) => Err(format!("{}: {}", p.display(), io_message(&e))),
            },
        }
    }
}

/// True when standard input is a regular file (`< file`): reading it never waits for a writer.
#[cfg(unix)]
fn stdin_is_regular_file() -> bool {
    use std::os::fd::AsFd;
    io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| File::from(fd).metadata().ok())
        .is_some_and(|m| m.is_file())
}

#[cfg(not(unix))]
fn stdin_is_regular_file() -> bool {
    false
}

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

    /// True when the reader waits for input and every batch it has sent is among the first
    /// `merged` ones.
    pub fn caught_up(&self, merged: u64) -> bool {
        self.waiting.load(Ordering::SeqCst) && self.sent.load(Ordering::SeqCst) == merged
    }
}

/// Reads lines from one stream with its own buffer, knowing whether a complete line is buffered.
pub struct LineReader {
    inner: Box<dyn Read + Send>,
    name: String,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Offset (from `start`) of the next `\n` if already found.
    newline: Option<usize>,
    eof: bool,
    /// Bytes read from `inner` so far (to notice a followed file shrinking).
    offset: u64,
    /// `--follow`: at the end of the data a partial last line is kept, not returned: the writer
    /// may still be writing it.
    follow: bool,
    state: Option<Arc<ReaderState>>,
    /// `--max-line-bytes`: a longer line is skipped, never buffered whole.
    max_line: usize,
    /// Bytes of the current over-long line skipped so far.
    skipping: Option<u64>,
    /// A stop was requested when more input was needed: no more read calls; what is buffered
    /// after the last complete line is dropped (a line is read once its `\n` has been read).
    halted: bool,
    /// A read may wait for a writer (not a regular file): the reader marks itself waiting
    /// around it (see [`ReaderState`]).
    may_block: bool,
    /// `--follow`: the last (up to [`TAIL`]) bytes read, to notice a file rewritten in place.
    tail: Vec<u8>,
}

/// `--follow`: bytes before the read position checked to notice a rewritten file.
const TAIL: usize = 64;

/// One line as read.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// The line without its `\n` and one trailing `\r`.
    Text(&'a [u8]),
    /// A line over the maximum length, skipped; its length in bytes.
    TooLong(u64),
}

impl LineReader {
    pub fn new(inner: Box<dyn Read + Send>, name: String) -> LineReader {
        LineReader {
            inner,
            name,
            buf: vec![0; READ_SIZE],
            start: 0,
            end: 0,
            newline: None,
            eof: false,
            offset: 0,
            follow: false,
            state: None,
            max_line: usize::MAX,
            skipping: None,
            halted: false,
            may_block: true,
            tail: Vec::new(),
        }
    }

    /// Lines longer than `bytes` are skipped (and reported as [`Line::TooLong`]).
    pub fn max_line(mut self, bytes: usize) -> LineReader {
        self.max_line = bytes;
        self
    }

    /// A reader that keeps a partial last line at the end of the data (see [`Self::resume`]).
    pub fn following(mut self) -> LineReader {
        self.follow = true;
        self
    }

    /// After the end of the data: try reading again (the followed file may have grown).
    pub fn resume(&mut self) {
        self.eof = false;
    }

    /// The bytes after the last complete line (a line still being written), taken.
    pub fn take_partial(&mut self) -> Option<Vec<u8>> {
        self.skipping = None;
        if self.start < self.end && !self.find_newline() {
            let line = strip_cr(&self.buf[self.start..self.end]).to_vec();
            self.start = self.end;
            Some(line)
        } else {
            None
        }
    }

    /// Bytes read from the stream so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The stream's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True when the next [`next_line`](Self::next_line) will not need to read (and so cannot
    /// block): a complete line is buffered, or the stream has ended (or halted).
    pub fn has_line(&mut self) -> bool {
        self.find_newline() || (self.eof && (!self.follow || self.halted))
    }

    /// True when the reader stopped reading because a stop was requested (not at the end of
    /// the stream): [`next_line`](Self::next_line) returned `None` for that reason.
    pub fn halted(&self) -> bool {
        self.halted
    }

    /// `--follow`: true when the bytes before the read position in `file` are still the ones
    /// read there (up to [`TAIL`] of them), i.e. the file was not rewritten under the reader.
    #[cfg(unix)]
    fn tail_matches(&self, file: &File) -> bool {
        use std::os::unix::fs::FileExt;
        let mut now = vec![0; self.tail.len()];
        let at = self.offset - self.tail.len() as u64;
        file.read_exact_at(&mut now, at).is_ok() && now == self.tail
    }

    #[cfg(not(unix))]
    fn tail_matches(&self, _file: &File) -> bool {
        true
    }

    fn find_newline(&mut self) -> bool {
        if self.newline.is_none() {
            self.newline = memchr::memchr(b'\n', &self.buf[self.start..self.end]);
        }
        self.newline.is_some()
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            if self.find_newline() {
                let nl = self.newline.take().expect("found above");
                let line = self.start..self.start + nl;
                self.start += nl + 1;
                if let Some(skipped) = self.skipping.take() {
                    return Ok(Some(Line::TooLong(skipped + nl as u64)));
                }
                if nl > self.max_line {
                    return Ok(Some(Line::TooLong(nl as u64)));
                }
                return Ok(Some(Line::Text(strip_cr(&self.buf[line]))));
            }
            if self.end - self.start > self.max_line {
                // Over the limit and no end in sight: drop what is buffered, remember how much.
                *self.skipping.get_or_insert(0) += (self.end - self.start) as u64;
                self.start = self.end;
            }
            if self.eof && !self.follow && !self.halted {
                let rest = (self.end - self.start) as u64;
                if let Some(skipped) = self.skipping.take() {
                    self.start = self.end;
                    return Ok(Some(Line::TooLong(skipped + rest)));
                }
                if rest > 0 {
                    let line = self.start..self.end;
                    self.start = self.end;
                    return Ok(Some(Line::Text(strip_cr(&self.buf[line]))));
                }
                return Ok(None);
            }
            if self.eof {
                return Ok(None);
            }
            self.fill()?;
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < READ_SIZE / 2 {
            // A line longer than the buffer: grow it.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let waits = self.may_block.then_some(self.state.as_deref()).flatten();
        if let Some(state) = &self.state {
            if state.stop_requested() {
                // Stopping: read no more. What is buffered after the last complete line is
                // dropped: a line is read once its `\n` has been read.
                self.halted = true;
                self.eof = true;
                return Ok(());
            }
        }
        if let Some(state) = waits {
            state.set_waiting(true);
        }
        let result = loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break Ok(());
                }
                Ok(n) => {
                    if self.follow {
                        let read = &self.buf[self.end..self.end + n];
                        let keep = TAIL.saturating_sub(n).min(self.tail.len());
                        self.tail.drain(..self.tail.len() - keep);
                        self.tail.extend_from_slice(&read[n.saturating_sub(TAIL)..]);
                    }
                    self.end += n;
                    self.offset += n as u64;
                    break Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            }
        };
        if let Some(state) = waits {
            state.set_waiting(false);
        }
        result
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// What the reader thread reads.
pub enum Plan {
    /// TSV/JSONL records, one per line, from these streams one after the other (like `cat`,
    /// except that every file's last line ends a record).
    Lines {
        sources: Vec<LineReader>,
        format: InputFormat,
        refs: Refs,
    },
    /// Parallel files read in lockstep: the hypothesis stream first, then one per reference.
    Parallel { streams: Vec<LineReader> },
    /// `--follow FILE`: TSV/JSONL records from a file read like `tail -F`.
    Follow {
        path: PathBuf,
        format: InputFormat,
        refs: Refs,
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
pub fn run(plan: Plan, tx: Sender<Batch>, recycled: Receiver<Batch>, state: Arc<ReaderState>) {
    let mut out = Batcher {
        tx,
        recycled,
        batch: Batch {
            first_line: 1,
            ..Batch::default()
        },
        next_line: 1,
        framing: None,
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
        } => {
            out.framing = framing(format, refs);
            read_lines(sources.into_iter().map(watch).collect(), refs, &mut out)
        }
        Plan::Parallel { streams } => {
            out.framing = Some(Framing::Parallel);
            read_parallel(streams.into_iter().map(watch).collect(), &mut out)
        }
        Plan::Follow {
            path,
            format,
            refs,
            max_line,
        } => {
            out.framing = framing(format, refs);
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
    tx: Sender<Batch>,
    recycled: Receiver<Batch>,
    batch: Batch,
    next_line: u64,
    framing: Option<Framing>,
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
        let text = match line {
            Line::Text(text) => text,
            Line::TooLong(bytes) => {
                self.batch.mark_bad(too_long(bytes));
                return self.record_done();
            }
        };
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
            // The first line with a TAB sets the number of fields of every other line.
            let tabs = memchr::memchr_iter(b'\t', text).count();
            if tabs > 0 {
                *refs = Refs::AsLine {
                    line: self.next_line,
                    count: tabs,
                };
            }
        }
        self.batch.push_field(text);
        self.record_done()
    }

    fn record_done(&mut self) -> Result<(), Stop> {
        self.batch.end_record();
        self.next_line += 1;
        if self.batch.is_full() {
            self.send()?;
        }
        Ok(())
    }
}

fn read_lines(sources: Vec<LineReader>, refs: Refs, out: &mut Batcher) -> Result<(), Stop> {
    for mut source in sources {
        loop {
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

/// How often a followed file is checked for growth, truncation and replacement.
const FOLLOW_POLL: Duration = Duration::from_millis(20);

/// A followed file, opened.
struct Followed {
    reader: LineReader,
    /// Another handle on the same open file, for positioned reads of what was read already.
    file: File,
    id: Option<(u64, u64)>,
}

/// `--follow`: reads `path` like `tail -F`, from its start: keeps reading as it grows; when it is
/// truncated (`copytruncate` rotation), rewritten in place (the bytes before the read position
/// changed) or replaced (a new file under the name), reads the new contents from the start,
/// after a batch that marks the restart. A file that does not exist yet is waited for. Ends
/// only on a stop request.
fn read_follow(path: &Path, refs: Refs, max_line: usize, out: &mut Batcher) -> Result<(), Stop> {
    let name = path.display().to_string();
    let state = Arc::clone(&out.state);
    let open = || -> io::Result<Followed> {
        let file = File::open(path)?;
        let id = file_id(&file.metadata()?);
        let mut reader = LineReader::new(Box::new(file.try_clone()?), name.clone())
            .following()
            .max_line(max_line);
        reader.state = Some(Arc::clone(&state));
        // A regular file returns at once; the wait for growth is the poll below.
        reader.may_block = false;
        Ok(Followed { reader, file, id })
    };
    let poll = || {
        state.set_waiting(true);
        std::thread::sleep(FOLLOW_POLL);
        state.set_waiting(false);
    };
    let mut warned = false;
    let mut followed = loop {
        match open() {
            Ok(followed) => break followed,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !warned {
                    crate::diagnostic::diagnostic(&format!(
                        "warning: {name}: waiting for it to appear"
                    ));
                    warned = true;
                }
                if state.stop_requested() {
                    return Ok(());
                }
                poll();
            }
            Err(e) => return Err(read_failed(&name, &e)),
        }
    };
    loop {
        let reader = &mut followed.reader;
        if !reader.has_line() {
            out.send()?;
        }
        match reader.next_line() {
            Ok(Some(line)) => {
                out.line(line, refs)?;
                continue;
            }
            Ok(None) => {}
            Err(e) => return Err(read_failed(&name, &e)),
        }
        // At the end of what has been written so far (or stopping: a partial last line is not
        // read yet, the writer may still be writing it).
        if reader.halted() || state.stop_requested() {
            return Ok(());
        }
        // Wait, then look at the file before reading on: a read would take whatever sits at
        // the read position, even in a file rewritten meanwhile.
        poll();
        let change = match std::fs::metadata(path) {
            Ok(meta) if file_id(&meta) != followed.id => Some("replaced"),
            Ok(meta) if meta.len() < reader.offset() => Some("truncated"),
            // Grown: unless the bytes before the read position are the ones read there, the
            // file was rewritten (truncated and regrown past the position between two polls).
            Ok(meta) if meta.len() > reader.offset() && !reader.tail_matches(&followed.file) => {
                Some("truncated")
            }
            // Missing for a moment during a rotation, or unchanged: wait.
            _ => None,
        };
        if let Some(change) = change {
            if change == "replaced" {
                // What was written to the old file before it was replaced is still to be read.
                reader.resume();
                loop {
                    match reader.next_line() {
                        Ok(Some(line)) => out.line(line, refs)?,
                        Ok(None) => break,
                        Err(e) => return Err(read_failed(&name, &e)),
                    }
                }
                if reader.halted() {
                    return Ok(());
                }
            }
            // The old file is finished: a last line without newline is a line.
            if let Some(line) = reader.take_partial() {
                out.line(Line::Text(&line), refs)?;
            }
            if let Ok(new) = open() {
                out.batch.restart = Some(format!("{name} was {change}: reading it from the start"));
                out.send()?;
                followed = new;
                continue;
            }
        }
        followed.reader.resume();
    }
}

/// Device and inode of a file, to notice that a path now names another file.
#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Parallel files read in lockstep, one record per line number. A stream that ends before the
/// others makes every further record a bad line (one empty row each, naming the stream and its
/// last line), until every stream has ended; then the lengths are an input error.
fn read_parallel(mut streams: Vec<LineReader>, out: &mut Batcher) -> Result<(), Stop> {
    // Per stream: its number of lines, once it has ended.
    let mut ended: Vec<Option<u64>> = vec![None; streams.len()];
    loop {
        // Before a read that may block, every record read so far must be on its way.
        if !streams.iter_mut().all(LineReader::has_line) {
            out.send()?;
        }
        let line_no = out.next_line;
        let mut too_long_field = None;
        for (i, stream) in streams.iter_mut().enumerate() {
            if ended[i].is_some() {
                out.batch.push_field(b"");
                continue;
            }
            match stream.next_line() {
                Ok(Some(Line::Text(line))) => out.batch.push_field(line),
                Ok(Some(Line::TooLong(bytes))) => {
                    out.batch.push_field(b"");
                    too_long_field
                        .get_or_insert_with(|| format!("{}: {}", stream.name(), too_long(bytes)));
                }
                Ok(None) => {
                    if stream.halted() {
                        // Stopping before this stream's line was read: the record is not read.
                        out.batch
                            .fields
                            .truncate(out.batch.records.last().copied().unwrap_or(0));
                        return Ok(());
                    }
                    ended[i] = Some(line_no - 1);
                    out.batch.push_field(b"");
                }
                Err(e) => return Err(read_failed(stream.name(), &e)),
            }
        }
        if ended.iter().all(Option::is_some) {
            // No line left in any stream: drop the empty record.
            out.batch
                .fields
                .truncate(out.batch.records.last().copied().unwrap_or(0));
            return match different_lengths(&streams, &ended) {
                Some(message) => Err(Stop::Fatal(message)),
                None => Ok(()),
            };
        }
        let missing: Vec<String> = ended
            .iter()
            .enumerate()
            .filter_map(|(i, lines)| {
                let lines = (*lines)?;
                let what = match i {
                    0 => "hypothesis".to_owned(),
                    _ if streams.len() == 2 => "reference".to_owned(),
                    _ => format!("reference {i}"),
                };
                Some(format!(
                    "no {what}: {} ended after line {lines}",
                    streams[i].name()
                ))
            })
            .collect();
        if !missing.is_empty() {
            out.batch.mark_bad(missing.join("; "));
        } else if let Some(message) = too_long_field {
            out.batch.mark_bad(message);
        }
        out.record_done()?;
    }
}

/// `a, b and c have different lengths (1, 2 and 2 lines)` when the streams' line counts differ.
fn different_lengths(streams: &[LineReader], lines: &[Option<u64>]) -> Option<String> {
    let counts: Vec<u64> = lines.iter().map(|n| n.unwrap_or(0)).collect();
    if counts.iter().all(|&n| n == counts[0]) {
        return None;
    }
    let list = |items: Vec<String>| match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.concat(),
    };
    Some(format!(
        "{} have different lengths ({} lines)",
        list(streams.iter().map(|s| s.name().to_owned()).collect()),
        list(counts.iter().map(u64::to_string).collect()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::unbounded;

    fn reader(data: &'static [u8]) -> LineReader {
        LineReader::new(Box::new(data), "test".to_owned())
    }

    fn collect(plan: Plan) -> Vec<Batch> {
        let (tx, rx) = unbounded();
        run(plan, tx, crossbeam_channel::never(), Arc::default());
        rx.into_iter().collect()
    }

    fn records(batches: &[Batch]) -> Vec<Vec<String>> {
        let mut all = Vec::new();
        let mut fields = Vec::new();
        for b in batches {
            for i in 0..b.len() {
                b.fields(i, &mut fields);
                all.push(
                    fields
                        .iter()
                        .map(|f| String::from_utf8_lossy(f).into_owned())
                        .collect(),
                );
            }
        }
        all
    }

    #[test]
    fn lines_end_at_newline_cr_is_dropped_last_line_counts() {
        let mut r = reader(b"a\r\nb\rc\n\nlast");
        let mut lines = Vec::new();
        while let Some(Line::Text(l)) = r.next_line().unwrap() {
            lines.push(l.to_vec());
        }
        assert_eq!(lines, [&b"a"[..], b"b\rc", b"", b"last"]);
    }

    #[test]
    fn long_lines_grow_the_buffer() {
        let long: &'static [u8] = Box::leak(vec![b'x'; READ_SIZE * 3].into_boxed_slice());
        let mut r = reader(long);
        match r.next_line().unwrap().unwrap() {
            Line::Text(l) => assert_eq!(l.len(), READ_SIZE * 3),
            Line::TooLong(_) => panic!("no limit was set"),
        }
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn auto_detects_jsonl_after_empty_lines() {
        let plan = Plan::Lines {
            sources: vec![reader(b"\n  {\"hyp\":\"a\",\"ref\":\"a\"}\n")],
            format: InputFormat::Auto,
            refs: Refs::Unknown,
        };
        let batches = collect(plan);
        assert_eq!(
            batches.last().unwrap().framing,
            Some(Framing::Jsonl { refs: None })
        );
        assert_eq!(records(&batches).len(), 2);
    }

    #[test]
    fn a_blank_line_with_a_tab_decides_tsv_and_the_number_of_references() {
        // Regression: a first line of only a TAB used to wait for the next non-blank line, so
        // its framing (and whether it was bad) depended on where the batch ended.
        let plan = Plan::Lines {
            sources: vec![reader(b"\t\r\na\tb\tc\n")],
            format: InputFormat::Auto,
            refs: Refs::Unknown,
        };
        let batches = collect(plan);
        assert_eq!(
            batches[0].framing,
            Some(Framing::Tsv {
                refs: Refs::AsLine { line: 1, count: 1 }
            })
        );
        // A blank line without a TAB still decides nothing.
        let plan = Plan::Lines {
            sources: vec![reader(b" \n{\"hyp\":\"a\",\"ref\":\"a\"}\n")],
            format: InputFormat::Auto,
            refs: Refs::Unknown,
        };
        let batches = collect(plan);
        assert_eq!(batches[0].framing, Some(Framing::Jsonl { refs: None }));
    }

    #[test]
    fn files_are_read_one_after_the_other() {
        let plan = Plan::Lines {
            sources: vec![reader(b"a\tb\nc\td"), reader(b"e\tf\n")],
            format: InputFormat::Tsv,
            refs: Refs::Unknown,
        };
        let batches = collect(plan);
        assert_eq!(
            records(&batches),
            [vec!["a\tb"], vec!["c\td"], vec!["e\tf"]]
        );
        assert_eq!(batches[0].first_line, 1);
    }

    #[test]
    fn parallel_streams_in_lockstep_and_length_mismatch() {
        let named =
            |data: &'static [u8], name: &str| LineReader::new(Box::new(data), name.to_owned());
        let plan = Plan::Parallel {
            streams: vec![named(b"h1\nh2\nh3\nh4", "hyp"), named(b"r1\nr2\n", "ref")],
        };
        let batches = collect(plan);
        // Every line of the longer stream is a record, bad, with empty fields for the missing.
        assert_eq!(
            records(&batches),
            [["h1", "r1"], ["h2", "r2"], ["h3", ""], ["h4", ""]]
        );
        let bad: Vec<_> = batches
            .iter()
            .flat_map(|b| {
                b.bad
                    .iter()
                    .map(move |(i, m)| (b.first_line + *i as u64, m))
            })
            .collect();
        let message = "no reference: ref ended after line 2".to_owned();
        assert_eq!(bad, [(3, &message), (4, &message)]);
        let fatal = batches.last().unwrap().fatal.clone().unwrap();
        assert_eq!(fatal, "hyp and ref have different lengths (4 and 2 lines)");
        // Three streams, the hypothesis shortest: every stream that ended is named.
        let plan = Plan::Parallel {
            streams: vec![
                named(b"h1\n", "hyp"),
                named(b"a1\na2\n", "r1"),
                named(b"b1\nb2\nb3\n", "r2"),
            ],
        };
        let batches = collect(plan);
        assert_eq!(records(&batches).len(), 3);
        let bad: Vec<_> = batches.iter().flat_map(|b| b.bad.clone()).collect();
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].1, "no hypothesis: hyp ended after line 1");
        assert_eq!(
            bad[1].1,
            "no hypothesis: hyp ended after line 1; no reference 1: r1 ended after line 2"
        );
        assert_eq!(
            batches.last().unwrap().fatal.as_deref(),
            Some("hyp, r1 and r2 have different lengths (1, 2 and 3 lines)")
        );
        // Same lengths: no error.
        let plan = Plan::Parallel {
            streams: vec![named(b"h1\nh2", "hyp"), named(b"r1\nr2\n", "ref")],
        };
        let batches = collect(plan);
        assert_eq!(records(&batches).len(), 2);
        assert!(batches
            .iter()
            .all(|b| b.fatal.is_none() && b.bad.is_empty()));
    }

    /// A reader that hands out `data` in `chunk`-byte reads and requests a stop after `stop_after`
    /// reads.
    struct Chunked {
        data: &'static [u8],
        chunk: usize,
        reads: usize,
        stop_after: usize,
        state: Arc<ReaderState>,
    }

    impl Read for Chunked {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            assert!(!self.state.stop_requested(), "no read after a stop request");
            let n = self.chunk.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            self.reads += 1;
            if self.reads == self.stop_after {
                self.state.request_stop();
            }
            Ok(n)
        }
    }

    #[test]
    fn a_stop_reads_no_more_but_keeps_every_complete_line_read() {
        let data: &'static [u8] = Box::leak(
            (0..20_000)
                .map(|i| format!("h {i}\tr {i}\n"))
                .collect::<String>()
                .into_bytes()
                .into_boxed_slice(),
        );
        for (chunk, stop_after) in [(100_000, 1), (100_000, 2), (7, 3), (READ_SIZE, 1)] {
            let state = Arc::new(ReaderState::default());
            let source = Chunked {
                data,
                chunk,
                reads: 0,
                stop_after,
                state: Arc::clone(&state),
            };
            let read = (chunk * stop_after).min(data.len());
            let complete = data[..read].iter().filter(|&&b| b == b'\n').count();
            let plan = Plan::Lines {
                sources: vec![LineReader::new(Box::new(source), "test".to_owned())],
                format: InputFormat::Tsv,
                refs: Refs::Unknown,
            };
            let (tx, rx) = unbounded();
            run(plan, tx, crossbeam_channel::never(), state);
            let batches: Vec<Batch> = rx.into_iter().collect();
            let all = records(&batches);
            assert_eq!(
                all.len(),
                complete,
                "chunk {chunk}, stop after {stop_after}"
            );
            let last = complete - 1;
            assert_eq!(all.last().unwrap()[0], format!("h {last}\tr {last}"));
        }
    }

    #[test]
    fn the_follow_tail_keeps_the_last_bytes_read() {
        let data: &'static [u8] = Box::leak(
            (0..3000u32)
                .map(|i| (b'a' + (i % 26) as u8) as char)
                .collect::<String>()
                .into_bytes()
                .into_boxed_slice(),
        );
        for chunk in [1, 7, 63, 64, 65, 1000] {
            let source = Chunked {
                data,
                chunk,
                reads: 0,
                stop_after: 0,
                state: Arc::default(),
            };
            let mut r = LineReader::new(Box::new(source), "test".to_owned()).following();
            let mut read = 0;
            while read < data.len() {
                r.fill().unwrap();
                read = r.offset() as usize;
                let want = &data[read.saturating_sub(TAIL)..read];
                assert_eq!(r.tail, want, "chunk {chunk}, {read} bytes read");
            }
        }
    }

    #[test]
    fn recycled_batches_come_back_empty_and_are_reused() {
        let mut batch = Batch {
            seq: 7,
            first_line: 9,
            framing: Some(Framing::Parallel),
            fatal: Some("failed".to_owned()),
            restart: Some("truncated".to_owned()),
            ..Batch::default()
        };
        batch.push_field(b"h\tr");
        batch.end_record();
        batch.mark_bad("too long".to_owned());
        let capacity = batch.data.capacity();
        let empty = batch.recycle().expect("a small batch is kept");
        assert!(empty.is_empty() && empty.fields.is_empty() && empty.data.is_empty());
        assert!(empty.bad.is_empty() && empty.fatal.is_none() && empty.restart.is_none());
        assert_eq!(empty.framing, None);
        assert_eq!(empty.data.capacity(), capacity);
        // A batch that held a very long line is dropped rather than kept.
        let mut big = Batch::default();
        big.push_field(&vec![b'x'; RECYCLE_BYTES + 1]);
        assert!(big.recycle().is_none());
        // The reader takes a waiting one for its next batch, numbering it itself.
        let (tx, rx) = unbounded();
        let (recycle_tx, recycle_rx) = unbounded();
        recycle_tx.send(empty).unwrap();
        let plan = Plan::Lines {
            sources: vec![reader(b"a\tb\n")],
            format: InputFormat::Tsv,
            refs: Refs::Unknown,
        };
        run(plan, tx, recycle_rx, Arc::default());
        let batches: Vec<Batch> = rx.into_iter().collect();
        assert_eq!(records(&batches), [vec!["a\tb"]]);
        assert_eq!((batches[0].seq, batches[0].first_line), (0, 1));
    }

    #[test]
    fn batches_are_cut_when_full() {
        let data: &'static [u8] = Box::leak(
            "x\ty\n"
                .repeat(MAX_RECORDS * 2 + 5)
                .into_bytes()
                .into_boxed_slice(),
        );
        let batches = collect(Plan::Lines {
            sources: vec![reader(data)],
            format: InputFormat::Tsv,
            refs: Refs::Unknown,
        });
        assert!(batches.len() >= 3);
        assert_eq!(records(&batches).len(), MAX_RECORDS * 2 + 5);
        let mut line = 1;
        for (i, b) in batches.iter().enumerate() {
            assert_eq!((b.seq, b.first_line), (i as u64, line));
            line += b.len() as u64;
        }
    }

    /// A stream that may block (a pipe) has its batch handed over whenever no complete line is
    /// left to read, so that live lines are scored at once; a regular file, which never waits,
    /// fills its batches however its reads are cut.
    #[test]
    fn only_streams_that_may_block_cut_a_batch_per_read() {
        let data: &'static [u8] = Box::leak("h\tr\n".repeat(100).into_bytes().into_boxed_slice());
        let chunked = |may_block| {
            let source = Chunked {
                data,
                chunk: 40,
                reads: 0,
                stop_after: usize::MAX,
                state: Arc::default(),
            };
            let mut r = LineReader::new(Box::new(source), "test".to_owned());
            r.may_block = may_block;
            collect(Plan::Lines {
                sources: vec![r],
                format: InputFormat::Tsv,
                refs: Refs::Unknown,
            })
        };
        let pipe = chunked(true);
        let file = chunked(false);
        assert_eq!(records(&pipe), records(&file));
        assert_eq!(records(&file).len(), 100);
        assert!(pipe.len() >= 5, "{} batches from a pipe", pipe.len());
        assert_eq!(file.len(), 1);
    }
}
