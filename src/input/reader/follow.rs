//! `--follow`: a file read like `tail -F`.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{read_failed, Batcher, Line, LineReader, Refs, Stop};

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
pub(super) fn read_follow(
    path: &Path,
    refs: Refs,
    max_line: usize,
    out: &mut Batcher,
) -> Result<(), Stop> {
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
