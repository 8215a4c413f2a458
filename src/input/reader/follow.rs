//! `--follow`: a file read like `tail -F`, or a FIFO read writer after writer.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{io_message, read_failed, Batcher, LineReader, ReaderState, Refs, Stop};

/// How often a followed file is checked for growth, truncation and replacement.
const FOLLOW_POLL: Duration = Duration::from_millis(20);

/// After a replacement, the old file is read on until it has not grown for this many polls
/// (1 s): its writer may not have reopened the name yet, and may still be writing the end of
/// a line. GNU `tail -F` (polling) likewise reads the old file until it has been unchanged for
/// `--max-unchanged-stats` checks (5, a second apart) before it looks at the name again.
const REPLACED_QUIET_POLLS: u32 = 50;

/// Most replacement files opened ahead while an older file is still read (see
/// [`Follower::watch`]): a name rotated faster than that is warned about.
const MAX_QUEUED: usize = 8;

/// A followed file, opened.
struct Followed {
    reader: LineReader,
    id: Option<(u64, u64)>,
    /// Not a regular file (a FIFO): a read waits for a writer, and the end of the data means
    /// that the last writer closed it, not that the writer is between two writes.
    stream: bool,
}

/// The followed path, and what reopening it needs.
struct Follower<'a> {
    path: &'a Path,
    name: String,
    refs: Refs,
    max_line: usize,
    state: Arc<ReaderState>,
    /// The last warning about the path: not repeated while the same failure lasts.
    warned: Option<String>,
    /// Regular files found under the name after the one being read, opened when seen, oldest
    /// first: each is read in turn from its start.
    queued: VecDeque<Followed>,
    /// [`MAX_QUEUED`] was reached (warned once until the queue empties).
    overflowed: bool,
}

/// `--follow`: reads `path` like `tail -F`, from its start: keeps reading as it grows; when it is
/// truncated (`copytruncate` rotation), rewritten in place (the bytes before the read position
/// changed) or replaced (a new file under the name: the old one is read on until it has not
/// grown for a second), reads the new contents from the start, after a batch that marks the
/// restart. A last line without newline in the old contents is a piece of a line (its writer
/// did not end it there), dropped with a warning, as is what a truncation or rewrite took
/// before it was read. A file that does not exist yet is waited for; a replacement that cannot
/// be read (no permission, a directory, a symlink loop) is warned about once and waited on until
/// it can be; a name that cannot be looked up for a while leaves the open file read on. A FIFO
/// is read writer after writer: when its last writer closes it, a last line without newline is
/// a line, and the FIFO is opened again for the next writer (`tail -F` reopens a name the same
/// way), its lines continuing the stream; a FIFO or file put under the name meanwhile is read
/// instead. Ends only on a stop request.
///
/// Every wait (for a writer, for growth, for the file to appear or become readable) happens
/// with every complete line read sent and the reader marked waiting (see [`ReaderState`]), so
/// a stop ends the run at once, without losing a line.
pub(super) fn read_follow(
    path: &Path,
    refs: Refs,
    max_line: usize,
    out: &mut Batcher,
) -> Result<(), Stop> {
    let mut follower = Follower {
        path,
        name: path.display().to_string(),
        refs,
        max_line,
        state: Arc::clone(&out.state),
        warned: None,
        queued: VecDeque::new(),
        overflowed: false,
    };
    let Some(mut followed) = follower.reopen(out, None, None)? else {
        return Ok(());
    };
    loop {
        follower.drain(&mut followed.reader, out)?;
        // At the end of what has been written so far (or stopping: a partial last line is not
        // read yet, the writer may still be writing it).
        if followed.reader.halted() || follower.state.stop_requested() {
            return Ok(());
        }
        let change = if followed.stream {
            // A FIFO at its end: its last writer closed it.
            None
        } else {
            // Wait, then look at the file before reading on: a read would take whatever sits
            // at the read position, even in a file rewritten meanwhile.
            follower.poll();
            match follower.change(&followed) {
                Some(change) => Some(change),
                None => {
                    followed.reader.resume();
                    continue;
                }
            }
        };
        if change == Some("replaced") {
            follower.watch(followed.id);
            if !follower.drain_replaced(&mut followed.reader, followed.id, out)? {
                return Ok(());
            }
        }
        let reader = &mut followed.reader;
        if reader.cut_short() || reader.unread() > 0 {
            // Truncated, or rewritten, while the reader was behind: the rest of the old
            // contents is gone, and a partial line read is a piece of a line, not one. (A
            // truncation that leaves the file shorter than the read position is only seen as
            // the end of the data: the length seen after the last read tells what was lost.)
            let unread = match reader.unread() {
                0 => String::new(),
                n => format!(" ({n} bytes or more)"),
            };
            let partial = match reader.abandon() {
                0 => String::new(),
                n => format!("; a partial line of {n} bytes read before is dropped"),
            };
            crate::diagnostic::diagnostic(&format!(
                "warning: {} was rewritten before it was read to its end: what was not read \
                 yet of the old contents is lost{unread}{partial}",
                follower.name
            ));
        } else if let (Some(change), 1..) = (change, reader.pending()) {
            // A regular file truncated or replaced after a line without newline: its writer
            // did not end it (in the old file, within the grace period after a replacement),
            // so it is a piece of a line, whose rest (if it comes) goes to the new contents.
            // Scored, it would be a wrong segment or a bad line.
            let dropped = reader.abandon();
            crate::diagnostic::diagnostic(&format!(
                "warning: {} was {change}: a last line of {dropped} bytes without newline in \
                 the old contents is dropped, not scored",
                follower.name
            ));
        } else {
            // What the FIFO's writers wrote is finished: a last line without newline is a
            // line (its last writer closed the FIFO).
            reader.finish();
            follower.drain(reader, out)?;
        }
        out.send()?;
        if followed.stream && followed.reader.offset() == 0 {
            // At most one reopen per poll for a stream that ended without a byte (a pipe whose
            // writer is gone, named through /dev/stdin): it costs nothing, it does not spin.
            // After a writer's data the FIFO is reopened at once: a next writer that opened,
            // wrote an unended line and closed during a poll left its bytes in the pipe, read
            // only with the writer after it, glued to that one's first line (found by the
            // streaming audit). Reopened at once, the open waits for that writer instead.
            follower.poll();
        }
        let note = change
            .map(|change| format!("{} was {change}: reading it from the start", follower.name));
        if let Some(next) = follower.queued.pop_front() {
            // A file put under the name while the one before was read: opened then, read now.
            follower.overflowed &= !follower.queued.is_empty();
            out.batch.restart = Some(note.unwrap_or_else(|| {
                format!("{} was replaced: reading it from the start", follower.name)
            }));
            out.send()?;
            followed = next;
            continue;
        }
        // The old file stays open until the new one is: a FIFO keeps a reader all along, so a
        // writer that opens it meanwhile loses nothing (a FIFO's data is discarded when its
        // last reader closes it).
        match follower.reopen(out, note, Some(followed.id))? {
            Some(new) => followed = new,
            None => return Ok(()),
        }
    }
}

impl Follower<'_> {
    /// Frames and sends every line the reader returns until it needs data that is not there
    /// (or stops); the lines read are sent before each read, which may wait.
    fn drain(&self, reader: &mut LineReader, out: &mut Batcher) -> Result<(), Stop> {
        loop {
            if !reader.has_line() {
                out.send()?;
            }
            match reader.next_line() {
                Ok(Some(line)) => out.line(line, self.refs)?,
                Ok(None) => return Ok(()),
                Err(e) => return Err(read_failed(&self.name, &e)),
            }
        }
    }

    /// Sleeps one poll interval, marked waiting: every line read has been sent.
    fn poll(&self) {
        self.state.set_waiting(true);
        std::thread::sleep(FOLLOW_POLL);
        self.state.set_waiting(false);
    }

    /// After the name was found to lead to another file: reads on from the old one until it
    /// has not grown for [`REPLACED_QUIET_POLLS`] polls, as GNU `tail -F` does, so that the
    /// lines its writer adds before it reopens the name, and the end of a line it was writing,
    /// are not lost (audit F2: they were, and a half-written last line was scored as a whole
    /// one). False on a stop.
    ///
    /// The name is watched meanwhile ([`watch`](Self::watch)): a file put under it and
    /// replaced again within that second was otherwise never opened, its lines lost without a
    /// word (found by the review of that change: two rotations 0.2 s apart lost the file in
    /// between).
    fn drain_replaced(
        &mut self,
        reader: &mut LineReader,
        id: Option<(u64, u64)>,
        out: &mut Batcher,
    ) -> Result<bool, Stop> {
        let mut quiet = 0;
        loop {
            reader.resume();
            let before = reader.offset();
            self.drain(reader, out)?;
            if reader.halted() || self.state.stop_requested() {
                return Ok(false);
            }
            if reader.cut_short() {
                return Ok(true);
            }
            quiet = if reader.offset() == before {
                quiet + 1
            } else {
                0
            };
            if quiet >= REPLACED_QUIET_POLLS {
                return Ok(true);
            }
            self.poll();
            self.watch(id);
        }
    }

    /// Opens the regular file now under the name, if it is neither the one being read
    /// (`current`) nor the newest one opened ahead, and queues it to be read after them. A
    /// rotation leaves the old file to be read on for a while (see
    /// [`drain_replaced`](Self::drain_replaced)); a file opened now is read whatever happens to
    /// the name meanwhile. Anything else under the name (missing, a FIFO, unreadable) is left
    /// to [`reopen`](Self::reopen) once the queue is empty.
    fn watch(&mut self, current: Option<(u64, u64)>) {
        let Ok(meta) = std::fs::metadata(self.path) else {
            return;
        };
        let id = file_id(&meta);
        let newest = self.queued.back().map_or(current, |f| f.id);
        if !meta.is_file() || id == current || id == newest {
            return;
        }
        if self.queued.len() >= MAX_QUEUED {
            if !self.overflowed {
                self.overflowed = true;
                crate::diagnostic::diagnostic(&format!(
                    "warning: {} was replaced more than {MAX_QUEUED} times while an older file \
                     was still being read: files put under the name meanwhile may not be read",
                    self.name
                ));
            }
            return;
        }
        // Opened by name: it may have changed again since the look; what was opened is
        // queued if it is a regular file not queued yet.
        if let Ok(Some(followed)) = self.open_regular() {
            let newest = self.queued.back().map_or(current, |f| f.id);
            if followed.id != current && followed.id != newest {
                self.queued.push_back(followed);
            }
        }
    }

    /// How the regular file at the path differs from the one being read, if it does.
    fn change(&mut self, followed: &Followed) -> Option<&'static str> {
        let reader = &followed.reader;
        let meta = match std::fs::metadata(self.path) {
            Ok(meta) => meta,
            // Missing for a moment during a rotation: read on from the old file meanwhile.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            // The name cannot be looked up (a directory on the way that cannot be searched or
            // is no directory for a moment, a symlink loop): nothing says the file changed.
            // Read on from the open file, and say so once. Taking this as a replacement made
            // the same file be read again from its start once the name worked again, every
            // line counted twice (audit F5). GNU `tail -F` does read it again ("has become
            // accessible"); a score must not count a line twice.
            Err(e) => {
                let warning = format!(
                    "{}: cannot check the name; reading on from the file already open",
                    io_message(&e)
                );
                if self.warned.as_ref() != Some(&warning) {
                    crate::diagnostic::diagnostic(&format!("warning: {}: {warning}", self.name));
                    self.warned = Some(warning);
                }
                return None;
            }
        };
        self.warned = None;
        if file_id(&meta) != followed.id {
            Some("replaced")
        } else if meta.len() < reader.offset() {
            Some("truncated")
        } else if meta.len() > reader.offset() && !reader.tail_matches() {
            // Grown: unless the bytes before the read position are the ones read there, the
            // file was rewritten (truncated and regrown past the position between two polls).
            Some("truncated")
        } else {
            // Unchanged, or grown: read on.
            None
        }
    }

    /// Opens the path, waiting (one poll at a time) until it can be read; `None` if a stop is
    /// requested first. `note` marks the restart in the report once it is open; without one,
    /// a file other than `previous` (the one read before, if any: a FIFO whose name now leads
    /// elsewhere) is marked replaced. At the first open a missing file is waited for (one
    /// warning) and any other failure is fatal; later, every failure is warned about once and
    /// waited out: a rotation that leaves something unreadable under the name is said, not
    /// waited on in silence, and not fatal to a daemon.
    fn reopen(
        &mut self,
        out: &mut Batcher,
        note: Option<String>,
        previous: Option<Option<(u64, u64)>>,
    ) -> Result<Option<Followed>, Stop> {
        let first = previous.is_none();
        loop {
            if self.state.stop_requested() {
                return Ok(None);
            }
            let warning = match self.open() {
                // A FIFO whose name led elsewhere while it waited for a writer, or a stop.
                Ok(None) => continue,
                Ok(Some(followed)) => {
                    self.warned = None;
                    let note = note.or_else(|| {
                        previous.filter(|&id| id != followed.id).map(|_| {
                            format!("{} was replaced: reading it from the start", self.name)
                        })
                    });
                    if let Some(note) = note {
                        out.batch.restart = Some(note);
                        out.send()?;
                    }
                    return Ok(Some(followed));
                }
                Err(e) if first && e.kind() == io::ErrorKind::NotFound => {
                    "waiting for it to appear".to_owned()
                }
                Err(e) if first => {
                    return Err(Stop::Fatal(format!("{}: {}", self.name, io_message(&e))))
                }
                Err(e) => format!(
                    "{}: waiting for a readable file under that name",
                    io_message(&e)
                ),
            };
            if self.warned.as_ref() != Some(&warning) {
                crate::diagnostic::diagnostic(&format!("warning: {}: {warning}", self.name));
                self.warned = Some(warning);
            }
            self.poll();
        }
    }

    /// Opens the path; `None` when a stop is requested, or the name leads elsewhere, while a
    /// FIFO waits for a writer. A FIFO is opened without blocking and then waited on one poll
    /// at a time, the name checked at every poll: a blocking open waited for a writer of the
    /// FIFO it had found, so a FIFO replaced after its last writer closed it (by a new FIFO,
    /// whose writer then waited for ever, or a regular file) was never read again (audit F3).
    fn open(&self) -> io::Result<Option<Followed>> {
        let file = open_nonblocking(self.path)?;
        let meta = file.metadata()?;
        self.followed(file, meta)
    }

    /// Opens the path if it is a regular file (`None` otherwise): never waits.
    fn open_regular(&self) -> io::Result<Option<Followed>> {
        let file = open_nonblocking(self.path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(None);
        }
        self.followed(file, meta)
    }

    /// The reader of `file`, just opened (without blocking) with metadata `meta`.
    fn followed(&self, file: File, meta: std::fs::Metadata) -> io::Result<Option<Followed>> {
        // Linux opens a directory for reading; its reads fail.
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "Is a directory",
            ));
        }
        let id = file_id(&meta);
        if is_fifo(&meta) && !self.wait_for_writer(&file, id)? {
            return Ok(None);
        }
        set_blocking(&file)?;
        let mut reader = LineReader::new(Box::new(file.try_clone()?), self.name.clone())
            .following()
            .max_line(self.max_line);
        reader.state = Some(Arc::clone(&self.state));
        // A regular file returns at once; the wait for growth is the poll. A FIFO's read waits
        // for its writer.
        let stream = !meta.is_file();
        reader.may_block = stream;
        // A regular file is checked after every read (and at every poll) for a rewrite under
        // the reader: the bytes before the read position must still be the ones read there.
        reader.positioned = (!stream).then_some(file);
        Ok(Some(Followed { reader, id, stream }))
    }

    /// Waits, marked waiting, one poll at a time, until a writer has written to the FIFO
    /// `file` (opened without blocking) or opened and closed it. False when a stop is requested
    /// or the path no longer leads to this FIFO (`id`) first. A name that cannot be looked up
    /// for a moment, or is missing, is waited out on the FIFO open.
    #[cfg(unix)]
    fn wait_for_writer(&self, file: &File, id: Option<(u64, u64)>) -> io::Result<bool> {
        use std::os::fd::AsRawFd;
        let timeout = FOLLOW_POLL.as_millis() as libc::c_int;
        loop {
            if self.state.stop_requested() {
                return Ok(false);
            }
            let mut fd = libc::pollfd {
                fd: file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            self.state.set_waiting(true);
            // SAFETY: one valid `pollfd` for the descriptor `file` owns. Linux reports no
            // POLLHUP on a FIFO opened for reading before any writer has come: the poll waits
            // for a writer's data or its close.
            let ready = unsafe { libc::poll(&mut fd, 1, timeout) };
            self.state.set_waiting(false);
            match ready {
                1.. => return Ok(true),
                0 => {}
                _ => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
            if std::fs::metadata(self.path).is_ok_and(|meta| file_id(&meta) != id) {
                return Ok(false);
            }
        }
    }

    #[cfg(not(unix))]
    fn wait_for_writer(&self, _file: &File, _id: Option<(u64, u64)>) -> io::Result<bool> {
        Ok(true)
    }
}

/// Opens `path` for reading without waiting for a FIFO's writer (`O_NONBLOCK`, which changes
/// nothing for a regular file).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Makes reads of `file` wait for data again, once a FIFO has a writer: the reader marks
/// itself waiting around them.
#[cfg(unix)]
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is the open descriptor `file` owns; F_GETFL/F_SETFL only read and set its
    // status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_blocking(_file: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn is_fifo(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo()
}

#[cfg(not(unix))]
fn is_fifo(_meta: &std::fs::Metadata) -> bool {
    false
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
