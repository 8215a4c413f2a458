//! Input streams ([`Source`]) and the per-stream line reader ([`LineReader`]).

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;

use super::{io_message, ReaderState};

/// Read buffer size per stream.
pub(super) const READ_SIZE: usize = 128 * 1024;

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
            // A directory opens, and fails only at its first read: after the rows of the files
            // before it. Refused here, with the files that do not exist (the man page: "all
            // files are opened before anything is written").
            Source::File(p) => match File::open(p) {
                Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => {
                    Err(format!("{}: Is a directory", p.display()))
                }
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
    pub(super) state: Option<Arc<ReaderState>>,
    /// `--max-line-bytes`: a longer line is skipped, never buffered whole.
    max_line: usize,
    /// Bytes of the current over-long line skipped so far.
    skipping: Option<u64>,
    /// The last byte skipped was a `\r` (not counted if a `\n` follows).
    skipped_cr: bool,
    /// A stop was requested when more input was needed: no more read calls; what is buffered
    /// after the last complete line is dropped (a line is read once its `\n` has been read).
    halted: bool,
    /// A read may wait for a writer (not a regular file): the reader marks itself waiting
    /// around it (see [`ReaderState`]).
    pub(super) may_block: bool,
    /// `--follow`: the last (up to [`TAIL`]) bytes read, to notice a file rewritten in place.
    pub(super) tail: Vec<u8>,
    /// `--follow` on a regular file: another handle on it, for positioned reads of the bytes
    /// before the read position ([`Self::tail_matches`]).
    pub(super) positioned: Option<File>,
    /// A read found the followed file rewritten under the reader ([`Self::cut_short`]).
    cut_short: bool,
    /// `--follow` on a regular file: its length after the last read that returned data
    /// (`fstat` of [`positioned`](Self::positioned)), to tell, once the file is found
    /// truncated, whether the reader had reached its end or lost what it had not read yet
    /// ([`Self::unread`]).
    seen_len: u64,
}

/// `--follow`: bytes before the read position checked to notice a rewritten file.
pub(super) const TAIL: usize = 64;

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
            skipped_cr: false,
            halted: false,
            may_block: true,
            tail: Vec::new(),
            positioned: None,
            cut_short: false,
            seen_len: 0,
        }
    }

    /// Lines longer than `bytes` are skipped (and reported as [`Line::TooLong`]).
    pub fn max_line(mut self, bytes: usize) -> LineReader {
        self.max_line = bytes;
        self
    }

    /// The current line limit ([`Self::max_line`]).
    pub fn line_limit(&self) -> usize {
        self.max_line
    }

    /// Sets the limit for the lines read from now on: parallel files give each stream what is
    /// left of a segment's `--max-line-bytes` (`parallel.rs`).
    pub fn set_line_limit(&mut self, bytes: usize) {
        self.max_line = bytes;
    }

    /// Gives back a buffer grown for a long line once what is buffered fits a normal one.
    /// Parallel files keep a reader per file: without this, each would keep the largest buffer
    /// it ever grew, and `-r` with many files would hold one long line's buffer per file.
    pub fn shrink(&mut self) {
        let live = self.end - self.start;
        if self.buf.len() > 2 * READ_SIZE && live <= READ_SIZE / 2 {
            self.buf.copy_within(self.start..self.end, 0);
            self.start = 0;
            self.end = live;
            self.buf.truncate(READ_SIZE);
            self.buf.shrink_to_fit();
        }
    }

    /// The size of the read buffer (tests).
    #[cfg(test)]
    pub fn buffer_len(&self) -> usize {
        self.buf.len()
    }

    /// A reader that keeps a partial last line at the end of the data (see [`Self::resume`]).
    pub fn following(mut self) -> LineReader {
        self.follow = true;
        self
    }

    /// After the end of the data: try reading again (the followed file may have grown, or, after
    /// [`cut_short`](Self::cut_short), turned out unchanged after all: its bytes before the
    /// read position as they were read).
    pub fn resume(&mut self) {
        self.eof = false;
        self.cut_short = false;
    }

    /// `--follow`: the data ends here for good (the last writer of a FIFO closed it, a rotated
    /// file is finished). From now on the reader reads no more and is at the end of an ordinary
    /// stream: [`next_line`](Self::next_line) returns the complete lines still buffered, then a
    /// last line without newline (checked against `--max-line-bytes` like any other, and
    /// reported over-long with its full length if its start was skipped), then `None`.
    pub fn finish(&mut self) {
        self.follow = false;
        self.eof = true;
    }

    /// `--follow`: a read found the file rewritten (truncated and written again past the read
    /// position) before the reader had reached the end of what was there: the old contents
    /// after the read position are gone, and what is buffered after the last complete line is
    /// a piece of a line whose rest went with them.
    pub fn cut_short(&self) -> bool {
        self.cut_short
    }

    /// `--follow`, when the old contents end in a piece of a line (after
    /// [`cut_short`](Self::cut_short), bytes [`unread`](Self::unread) at a truncation, or a
    /// line without newline at a rotation): drops what is buffered after the last complete line
    /// (and an over-long line being skipped) instead of counting it as a last line, and ends
    /// the stream. Returns the bytes dropped.
    pub fn abandon(&mut self) -> u64 {
        let dropped = self.pending();
        self.skipping = None;
        self.start = self.end;
        self.newline = None;
        self.follow = false;
        self.eof = true;
        dropped
    }

    /// `--follow` on a regular file: bytes that were in the file beyond the read position when
    /// it was last looked at (after the last read that returned data). Once the file is found
    /// truncated, that many bytes of the old contents were never read: a read returns nothing
    /// past the end of a truncated file, which looks like the end of the data, so without this
    /// a truncation under a reader still behind the writer lost them in silence (audit F1).
    pub fn unread(&self) -> u64 {
        self.seen_len.saturating_sub(self.offset)
    }

    /// Bytes buffered after the last complete line (with those of an over-long line being
    /// skipped): a line whose newline has not been read.
    pub fn pending(&self) -> u64 {
        (self.end - self.start) as u64 + self.skipping.unwrap_or(0)
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

    /// `--follow`: true when the bytes before the read position in the followed file are still
    /// the ones read there (up to [`TAIL`] of them), i.e. the file was not rewritten under the
    /// reader. Always true without a [`positioned`](Self::positioned) handle (a FIFO).
    #[cfg(unix)]
    pub(super) fn tail_matches(&self) -> bool {
        use std::os::unix::fs::FileExt;
        let Some(file) = &self.positioned else {
            return true;
        };
        let mut now = [0; TAIL];
        let now = &mut now[..self.tail.len()];
        let at = self.offset - self.tail.len() as u64;
        file.read_exact_at(now, at).is_ok() && now == &self.tail[..]
    }

    #[cfg(not(unix))]
    pub(super) fn tail_matches(&self) -> bool {
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
                    // Without the `\r` of a `\r\n`, whether it was dropped or is still here.
                    let cr = match nl {
                        0 => self.skipped_cr,
                        _ => self.buf[self.start - 2] == b'\r',
                    };
                    return Ok(Some(Line::TooLong(skipped + nl as u64 - u64::from(cr))));
                }
                // The limit counts the line without its line end: a `\r` before the `\n` is
                // not part of it (as documented).
                let text = strip_cr(&self.buf[line.clone()]).len();
                if text > self.max_line {
                    return Ok(Some(Line::TooLong(text as u64)));
                }
                return Ok(Some(Line::Text(strip_cr(&self.buf[line]))));
            }
            // One byte more than the limit may be the `\r` of a `\r\n` still to come.
            if self.end - self.start > self.max_line.saturating_add(1) {
                // Over the limit and no end in sight: drop what is buffered, remember how much.
                *self.skipping.get_or_insert(0) += (self.end - self.start) as u64;
                self.skipped_cr = self.buf[self.end - 1] == b'\r';
                self.start = self.end;
            }
            if self.eof && !self.follow && !self.halted {
                let rest = (self.end - self.start) as u64;
                if let Some(skipped) = self.skipping.take() {
                    let cr = match rest {
                        0 => self.skipped_cr,
                        _ => self.buf[self.end - 1] == b'\r',
                    };
                    self.start = self.end;
                    return Ok(Some(Line::TooLong(skipped + rest - u64::from(cr))));
                }
                if rest > 0 {
                    let line = self.start..self.end;
                    self.start = self.end;
                    let text = strip_cr(&self.buf[line]);
                    if text.len() > self.max_line {
                        return Ok(Some(Line::TooLong(text.len() as u64)));
                    }
                    return Ok(Some(Line::Text(text)));
                }
                return Ok(None);
            }
            if self.eof {
                return Ok(None);
            }
            self.fill()?;
        }
    }

    /// The complete lines already buffered, in order, while `each` returns true: what
    /// [`next_line`](Self::next_line) would return for them, found by one `memchr` pass over
    /// the buffer rather than a call (and a new search) per line. Never reads: at the end of
    /// the buffered lines it returns, and `next_line` goes on from there. Does nothing while an
    /// over-long line is being skipped: its end, and its length, are `next_line`'s to report
    /// (`next_line` only leaves one unfinished in `--follow` mode, and then with no `\n`
    /// buffered, so this is a guard rather than a path).
    pub fn buffered_lines(&mut self, mut each: impl FnMut(Line<'_>) -> bool) {
        if self.skipping.is_some() {
            return;
        }
        // The cached newline is an offset from `start`, which moves.
        self.newline = None;
        let mut at = self.start;
        for nl in memchr::memchr_iter(b'\n', &self.buf[self.start..self.end]) {
            let text = strip_cr(&self.buf[at..self.start + nl]);
            at = self.start + nl + 1;
            let line = match text.len() {
                len if len > self.max_line => Line::TooLong(len as u64),
                _ => Line::Text(text),
            };
            if !each(line) {
                break;
            }
        }
        self.start = at;
    }

    pub(super) fn fill(&mut self) -> io::Result<()> {
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
                    if self.follow && !self.tail_matches() {
                        // The file was rewritten since the bytes before the position were
                        // read (truncated and written again past it while this reader was
                        // busy or held back by its consumers): what this read returned does
                        // not continue what was read. It is dropped, and the reader is at the
                        // end of the data, where the follower finds the file changed and reads
                        // it from the start.
                        self.cut_short = true;
                        self.eof = true;
                        break Ok(());
                    }
                    if self.follow {
                        let read = &self.buf[self.end..self.end + n];
                        let keep = TAIL.saturating_sub(n).min(self.tail.len());
                        self.tail.drain(..self.tail.len() - keep);
                        self.tail.extend_from_slice(&read[n.saturating_sub(TAIL)..]);
                    }
                    self.end += n;
                    self.offset += n as u64;
                    if let Some(file) = self.positioned.as_ref().filter(|_| self.follow) {
                        // One fstat per read of up to READ_SIZE bytes.
                        self.seen_len = file.metadata().map_or(self.offset, |m| m.len());
                    }
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
