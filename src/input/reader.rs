//! The reader: turns input streams into [`Batch`]es of raw records for the workers.
//!
//! Lines end at `\n` only (not at a bare `\r`, unlike sacreBLEU's universal-newline stdin); a
//! trailing `\r` is removed; a last line without `\n` is still a record. A batch is handed over
//! when it is full **or as soon as no complete line is left in the read buffer** — the next read
//! may block on a live pipe (`tail -f`), and the lines already read must be scored now, not when
//! a batch fills. On files this merely cuts a batch per buffer refill.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Sender;

use super::{Framing, InputFormat, Refs};

/// Records per batch at most.
const MAX_RECORDS: usize = 2048;
/// Bytes per batch at most (soft: a batch is cut after the record that crosses it).
const MAX_BYTES: usize = 256 * 1024;
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

/// `io::Error` text without Rust's " (os error N)" suffix.
pub fn io_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// What the reader thread shares with the merger and the signal thread, so that a graceful stop
/// (SIGINT/SIGTERM) finishes exactly the lines already read: once a stop is requested the reader
/// reads no more, and the merger is done when it has merged every batch sent while the reader
/// waits for input (a reader waiting for input has sent every complete line it holds).
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
}

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
    /// block).
    pub fn has_line(&mut self) -> bool {
        self.find_newline() || (self.eof && !self.follow && self.start < self.end)
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
            if self.eof && !self.follow {
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
        if let Some(state) = &self.state {
            state.set_waiting(true);
        }
        let result = loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    self.offset += n as u64;
                    break Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            }
        };
        if let Some(state) = &self.state {
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
pub fn run(plan: Plan, tx: Sender<Batch>, state: Arc<ReaderState>) {
    let mut out = Batcher {
        tx,
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
        let next = Batch {
            seq: self.batch.seq + 1,
            first_line: self.next_line,
            ..Batch::default()
        };
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
            if let Some(&first) = body.iter().find(|&&b| !super::is_space(b)) {
                self.framing = Some(if first == b'{' {
                    Framing::Jsonl {
                        refs: refs.exactly(),
                    }
                } else {
                    Framing::Tsv { refs }
                });
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

    fn stop_requested(&self) -> bool {
        self.state.stop_requested()
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
            if !source.has_line() {
                out.send()?;
            }
            if out.stop_requested() {
                return Ok(());
            }
            match source.next_line() {
                Ok(Some(line)) => out.line(line, refs)?,
                Ok(None) => break,
                Err(e) => return Err(read_failed(source.name(), &e)),
            }
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

/// `--follow`: reads `path` like `tail -F`, from its start: keeps reading as it grows; when it is
/// truncated (`copytruncate` rotation) or replaced (a new file under the name), reads the new
/// contents from the start, after a batch that marks the restart. Ends only on a stop request.
fn read_follow(path: &Path, refs: Refs, max_line: usize, out: &mut Batcher) -> Result<(), Stop> {
    let name = path.display().to_string();
    let state = Arc::clone(&out.state);
    let open = || -> Result<(LineReader, Option<(u64, u64)>), Stop> {
        let file = File::open(path).map_err(|e| read_failed(&name, &e))?;
        let id = file_id(&file.metadata().map_err(|e| read_failed(&name, &e))?);
        let mut reader = LineReader::new(Box::new(file), name.clone())
            .following()
            .max_line(max_line);
        reader.state = Some(Arc::clone(&state));
        Ok((reader, id))
    };
    let (mut reader, mut id) = open()?;
    loop {
        if !reader.has_line() {
            out.send()?;
        }
        if out.stop_requested() {
            return Ok(());
        }
        match reader.next_line() {
            Ok(Some(line)) => {
                out.line(line, refs)?;
                continue;
            }
            Ok(None) => {}
            Err(e) => return Err(read_failed(&name, &e)),
        }
        // At the end of what has been written so far.
        let change = match std::fs::metadata(path) {
            Ok(meta) if file_id(&meta) != id => Some("replaced"),
            Ok(meta) if meta.len() < reader.offset() => Some("truncated"),
            // Missing for a moment during a rotation, or unchanged: wait.
            _ => None,
        };
        if let Some(change) = change {
            // The old file is finished: a last line without newline is a line.
            if let Some(line) = reader.take_partial() {
                out.line(Line::Text(&line), refs)?;
            }
            if let Ok(new) = open() {
                out.batch.restart = Some(format!("{name} was {change}: reading it from the start"));
                out.send()?;
                (reader, id) = new;
                continue;
            }
        }
        out.state.set_waiting(true);
        std::thread::sleep(FOLLOW_POLL);
        out.state.set_waiting(false);
        reader.resume();
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

fn read_parallel(mut streams: Vec<LineReader>, out: &mut Batcher) -> Result<(), Stop> {
    loop {
        if !streams[0].has_line() {
            out.send()?;
        }
        if out.stop_requested() {
            return Ok(());
        }
        let line_no = out.next_line;
        let mut ended: Vec<usize> = Vec::new();
        for (i, stream) in streams.iter_mut().enumerate() {
            match stream.next_line() {
                Ok(Some(Line::Text(line))) => out.batch.push_field(line),
                Ok(Some(Line::TooLong(bytes))) => {
                    out.batch.push_field(b"");
                    let record = out.batch.records.len();
                    if !out.batch.bad.iter().any(|(r, _)| *r == record) {
                        out.batch
                            .mark_bad(format!("{}: {}", stream.name(), too_long(bytes)));
                    }
                }
                Ok(None) => ended.push(i),
                Err(e) => return Err(read_failed(stream.name(), &e)),
            }
        }
        if ended.len() == streams.len() {
            return Ok(());
        }
        if !ended.is_empty() {
            // Drop the partial record; name the shorter stream(s).
            let fields = out.batch.records.last().copied().unwrap_or(0);
            out.batch.fields.truncate(fields);
            let names: Vec<&str> = ended.iter().map(|&i| streams[i].name()).collect();
            let longer: Vec<&str> = (0..streams.len())
                .filter(|i| !ended.contains(i))
                .map(|i| streams[i].name())
                .collect();
            return Err(Stop::Fatal(format!(
                "streams have different lengths: {} ended after line {} but {} {} line {}",
                names.join(", "),
                line_no - 1,
                longer.join(", "),
                if longer.len() == 1 { "has" } else { "have" },
                line_no
            )));
        }
        out.record_done()?;
    }
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
        run(plan, tx, Arc::default());
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
        let plan = Plan::Parallel {
            streams: vec![reader(b"h1\nh2\nh3\n"), reader(b"r1\nr2\n")],
        };
        let batches = collect(plan);
        assert_eq!(records(&batches), [vec!["h1", "r1"], vec!["h2", "r2"]]);
        let fatal = batches.last().unwrap().fatal.clone().unwrap();
        assert_eq!(
            fatal,
            "streams have different lengths: test ended after line 2 but test has line 3"
        );
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
}
