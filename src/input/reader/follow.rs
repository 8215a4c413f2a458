//! `--follow`: a file read like `tail -F`, or a FIFO read writer after writer.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{io_message, read_failed, Batcher, LineReader, ReaderState, Refs, Stop};

/// How often a followed file is checked for growth, truncation and replacement.
const FOLLOW_POLL: Duration = Duration::from_millis(20);

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
}

/// `--follow`: reads `path` like `tail -F`, from its start: keeps reading as it grows; when it is
/// truncated (`copytruncate` rotation), rewritten in place (the bytes before the read position
/// changed) or replaced (a new file under the name), reads the new contents from the start,
/// after a batch that marks the restart. A file that does not exist yet is waited for; a
/// replacement that cannot be read (no permission, a directory, a symlink loop) is warned
/// about once and waited on until it can be. A FIFO is read writer after writer: when its last
/// writer closes it, a last line without newline is a line, and the FIFO is opened again for
/// the next writer (`tail -F` reopens a name the same way), its lines continuing the stream.
/// Ends only on a stop request.
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
    };
    let Some(mut followed) = follower.reopen(out, None, true)? else {
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
            // What was written to the old file before it was replaced is still to be read.
            followed.reader.resume();
            follower.drain(&mut followed.reader, out)?;
            if followed.reader.halted() {
                return Ok(());
            }
        }
        if followed.reader.cut_short() {
            // Rewritten while the reader was behind: the rest of the old contents is gone, and
            // a partial line read is a piece of a line, not one.
            let dropped = followed.reader.abandon();
            let partial = match dropped {
                0 => String::new(),
                n => format!("; a partial line of {n} bytes read before is dropped"),
            };
            crate::diagnostic::diagnostic(&format!(
                "warning: {} was rewritten before it was read to its end: what was not read \
                 yet of the old contents is lost{partial}",
                follower.name
            ));
        } else {
            // The old file (or what the FIFO's writers wrote) is finished: a last line without
            // newline is a line.
            followed.reader.finish();
            follower.drain(&mut followed.reader, out)?;
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
        // The old file stays open until the new one is: a FIFO keeps a reader all along, so a
        // writer that opens it meanwhile loses nothing (a FIFO's data is discarded when its
        // last reader closes it).
        match follower.reopen(out, note, false)? {
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

    /// How the regular file at the path differs from the one being read, if it does.
    fn change(&self, followed: &Followed) -> Option<&'static str> {
        let reader = &followed.reader;
        match std::fs::metadata(self.path) {
            Ok(meta) if file_id(&meta) != followed.id => Some("replaced"),
            Ok(meta) if meta.len() < reader.offset() => Some("truncated"),
            // Grown: unless the bytes before the read position are the ones read there, the
            // file was rewritten (truncated and regrown past the position between two polls).
            Ok(meta) if meta.len() > reader.offset() && !reader.tail_matches() => Some("truncated"),
            // Missing for a moment during a rotation: read on from the old file meanwhile.
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            // The name no longer leads to a file (a symlink loop, a directory on the way that
            // cannot be searched): the old file is finished, the name is waited on.
            Err(_) => Some("replaced"),
            // Unchanged: wait.
            Ok(_) => None,
        }
    }

    /// Opens the path, waiting (one poll at a time) until it can be read; `None` if a stop is
    /// requested first. `note` marks the restart in the report once it is open. At the first
    /// open a missing file is waited for (one warning) and any other failure is fatal; later,
    /// every failure is warned about once and waited out: a rotation that leaves something
    /// unreadable under the name is said, not waited on in silence, and not fatal to a daemon.
    fn reopen(
        &mut self,
        out: &mut Batcher,
        note: Option<String>,
        first: bool,
    ) -> Result<Option<Followed>, Stop> {
        loop {
            if self.state.stop_requested() {
                return Ok(None);
            }
            let warning = match self.open() {
                Ok(followed) => {
                    self.warned = None;
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

    /// Opens the path. Marked waiting throughout (the caller has sent every line read): opening
    /// a FIFO waits for a writer.
    fn open(&self) -> io::Result<Followed> {
        self.state.set_waiting(true);
        let file = File::open(self.path);
        self.state.set_waiting(false);
        let file = file?;
        let meta = file.metadata()?;
        // Linux opens a directory for reading; its reads fail.
        if meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "Is a directory",
            ));
        }
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
        Ok(Followed {
            reader,
            id: file_id(&meta),
            stream,
        })
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
