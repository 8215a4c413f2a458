//! The reader: turns input streams into [`Batch`]es of raw records for the workers.
//!
//! Lines end at `\n` only (not at a bare `\r`, unlike sacreBLEU's universal-newline stdin); a
//! trailing `\r` is removed; a last line without `\n` is still a record. A batch is handed over
//! when it is full **or as soon as no complete line is left in the read buffer** — the next read
//! may block on a live pipe (`tail -f`), and the lines already read must be scored now, not when
//! a batch fills. On files this merely cuts a batch per buffer refill.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use crossbeam_channel::Sender;

use super::{Framing, InputFormat};

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
        }
    }

    /// The stream's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True when the next [`next_line`](Self::next_line) will not need to read (and so cannot
    /// block).
    pub fn has_line(&mut self) -> bool {
        self.find_newline() || (self.eof && self.start < self.end)
    }

    fn find_newline(&mut self) -> bool {
        if self.newline.is_none() {
            self.newline = memchr::memchr(b'\n', &self.buf[self.start..self.end]);
        }
        self.newline.is_some()
    }

    /// The next line without its `\n` (and without one trailing `\r`), or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            if self.find_newline() {
                let nl = self.newline.take().expect("found above");
                let line = self.start..self.start + nl;
                self.start += nl + 1;
                return Ok(Some(strip_cr(&self.buf[line])));
            }
            if self.eof {
                if self.start < self.end {
                    let line = self.start..self.end;
                    self.start = self.end;
                    return Ok(Some(strip_cr(&self.buf[line])));
                }
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
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
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
        refs: Option<usize>,
    },
    /// Parallel files read in lockstep: the hypothesis stream first, then one per reference.
    Parallel { streams: Vec<LineReader> },
}

/// Sends batches to `tx` until the input ends, fails, or the receiving side hangs up.
pub fn run(plan: Plan, tx: Sender<Batch>) {
    let mut out = Batcher {
        tx,
        batch: Batch {
            first_line: 1,
            ..Batch::default()
        },
        next_line: 1,
        framing: None,
    };
    let result = match plan {
        Plan::Lines {
            sources,
            format,
            refs,
        } => {
            out.framing = match format {
                InputFormat::Auto => None,
                InputFormat::Tsv => Some(Framing::Tsv { refs }),
                InputFormat::Jsonl => Some(Framing::Jsonl { refs }),
            };
            read_lines(sources, refs, &mut out)
        }
        Plan::Parallel { streams } => {
            out.framing = Some(Framing::Parallel);
            read_parallel(streams, &mut out)
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
}

impl Batcher {
    /// Hands the current batch over (if it has anything to say) and starts the next one.
    fn send(&mut self) -> Result<(), Stop> {
        if self.batch.is_empty() && self.batch.fatal.is_none() {
            return Ok(());
        }
        let next = Batch {
            seq: self.batch.seq + 1,
            first_line: self.next_line,
            ..Batch::default()
        };
        let mut batch = std::mem::replace(&mut self.batch, next);
        // Records read before the format is known are empty lines: bad in any framing.
        batch.framing = Some(self.framing.unwrap_or(Framing::Tsv { refs: None }));
        self.tx.send(batch).map_err(|_| Stop::HungUp)
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

fn read_lines(
    sources: Vec<LineReader>,
    refs: Option<usize>,
    out: &mut Batcher,
) -> Result<(), Stop> {
    for mut source in sources {
        loop {
            if !source.has_line() {
                out.send()?;
            }
            let line = match source.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    return Err(Stop::Fatal(format!(
                        "{}: read failed: {}",
                        source.name(),
                        io_message(&e)
                    )))
                }
            };
            if out.framing.is_none() {
                if let Some(&first) = line.iter().find(|b| !b.is_ascii_whitespace()) {
                    out.framing = Some(if first == b'{' {
                        Framing::Jsonl { refs }
                    } else {
                        Framing::Tsv { refs }
                    });
                }
            }
            out.batch.push_field(line);
            out.record_done()?;
        }
    }
    Ok(())
}

fn read_parallel(mut streams: Vec<LineReader>, out: &mut Batcher) -> Result<(), Stop> {
    loop {
        if !streams[0].has_line() {
            out.send()?;
        }
        let line_no = out.next_line;
        let mut ended: Vec<usize> = Vec::new();
        for (i, stream) in streams.iter_mut().enumerate() {
            match stream.next_line() {
                Ok(Some(line)) => out.batch.push_field(line),
                Ok(None) => ended.push(i),
                Err(e) => {
                    return Err(Stop::Fatal(format!(
                        "{}: read failed: {}",
                        stream.name(),
                        io_message(&e)
                    )))
                }
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
        run(plan, tx);
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
        while let Some(l) = r.next_line().unwrap() {
            lines.push(l.to_vec());
        }
        assert_eq!(lines, [&b"a"[..], b"b\rc", b"", b"last"]);
    }

    #[test]
    fn long_lines_grow_the_buffer() {
        let long: &'static [u8] = Box::leak(vec![b'x'; READ_SIZE * 3].into_boxed_slice());
        let mut r = reader(long);
        assert_eq!(r.next_line().unwrap().unwrap().len(), READ_SIZE * 3);
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn auto_detects_jsonl_after_empty_lines() {
        let plan = Plan::Lines {
            sources: vec![reader(b"\n  {\"hyp\":\"a\",\"ref\":\"a\"}\n")],
            format: InputFormat::Auto,
            refs: None,
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
            refs: None,
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
            refs: None,
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
