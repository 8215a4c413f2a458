//! Report files (`--report-file`, `--prometheus`): replaced atomically and safely at every
//! report, and checked before the run starts.
//!
//! A daemon that rewrites a file in a directory others can write to must not be steered into
//! overwriting something else (issue 19, point 1). So:
//! * the temporary file is created with `O_CREAT|O_EXCL` under a random name
//!   (`tempfile::NamedTempFile`): a symlink or file planted at a guessable name is never opened
//!   or followed, a name already taken is simply skipped;
//! * it gets the permission bits (rwx, not set-id or sticky) of the file it replaces (a 0600
//!   report stays 0600; a new one
//!   gets 0666 less the umask, as `>` would), and its owner and group as far as the process
//!   may set them (root: both; others: a group they belong to), so that a collector reading
//!   the file through its group keeps reading it; it is `fsync`ed, then renamed over PATH, so
//!   that a reader sees the old report or the new one, never half of one, even after a crash;
//! * PATH itself must be a regular file (or a symlink, which the rename replaces, or absent):
//!   a FIFO, device, socket or directory there is refused, not replaced;
//! * before the run, the directory must take a temporary file ([`probe`]): a report that could
//!   never be written is a usage error at once, not a warning after the whole input was read;
//! * an output that is the same file as an input, or as another output, is refused before
//!   anything is written ([`same_file`], [`clashing_outputs`]).

#[cfg(unix)]
use std::fs::Permissions;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use crate::diagnostic::io_message;

/// Checks that `path` may be replaced by a report file: absent, a regular file, or a symlink
/// (the rename replaces the link itself, never its target). The error says what is there.
pub fn check(path: &Path) -> Result<(), String> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return check_dir(path),
        Err(e) => return Err(format!("{}: {}", path.display(), io_message(&e))),
    };
    let kind = meta.file_type();
    if kind.is_file() || kind.is_symlink() {
        return check_dir(path);
    }
    Err(format!(
        "{}: is {}, not a regular file: refusing to replace it with a report",
        path.display(),
        describe(&kind)
    ))
}

/// The directory of `path` must exist: the temporary file is created there.
fn check_dir(path: &Path) -> Result<(), String> {
    let dir = dir_of(path);
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "{}: {} is not a directory",
            path.display(),
            dir.display()
        )),
        Err(e) => Err(format!(
            "{}: {}: {}",
            path.display(),
            dir.display(),
            io_message(&e)
        )),
    }
}

fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// "a directory", "a FIFO", … for the refusal message.
fn describe(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Checks once, before the run, that a report file can be created next to `path` (the
/// directory exists and takes a new file): creates and removes a temporary file there.
pub fn probe(path: &Path) -> Result<(), String> {
    check(path)?;
    let dir = dir_of(path);
    tempfile::Builder::new()
        .prefix(".bleu-stream-probe.")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| {
            format!(
                "{}: cannot create a file in {}: {}",
                path.display(),
                dir.display(),
                io_message(&e)
            )
        })
}

/// Replaces `path` with `contents` atomically (see the module documentation).
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    // Checked again at every report: what sits at PATH may have changed since the start.
    if let Err(message) = check(path) {
        return Err(io::Error::other(message));
    }
    let name = path.file_name().unwrap_or(path.as_os_str());
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // The metadata of the report being replaced (following a link, as the mode always did).
    #[cfg(unix)]
    let old = fs::metadata(path).ok().filter(fs::Metadata::is_file);
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        // The read/write/execute bits only: a report is data, and carrying a set-user-ID,
        // set-group-ID or sticky bit over to a file this process wrote would be a gift (a
        // setuid report rewritten by root stays root's).
        let mode = old.as_ref().map(|m| m.permissions().mode() & 0o777);
        // Created with at most the final bits (never more readable than the report it
        // replaces), then set to exactly them below (the umask may have taken some away).
        builder.permissions(Permissions::from_mode(mode.unwrap_or(0o666)));
        mode
    };
    let dir = dir_of(path);
    let mut tmp = builder.tempfile_in(dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot create a temporary file in {}: {}",
                dir.display(),
                io_message(&e)
            ),
        )
    })?;
    #[cfg(unix)]
    if let Some(old) = &old {
        keep_owner(tmp.as_file(), old);
    }
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        // After the owner: changing the owner may reset bits.
        tmp.as_file()
            .set_permissions(Permissions::from_mode(mode))?;
    }
    tmp.write_all(contents)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // The rename itself is durable once the directory is synced; a failure there (some file
    // systems refuse to sync a directory) loses nothing that was not already safe.
    if let Ok(dir) = File::open(dir_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Gives `file` the owner and group of `old` where the process may: both as root, else the
/// group alone when the process belongs to it. Where it may not, the new file stays the
/// process's (the permission bits are still kept), as any rewrite by another user would.
#[cfg(unix)]
fn keep_owner(file: &File, old: &fs::Metadata) {
    use std::os::unix::fs::{fchown, MetadataExt};
    let Ok(mine) = file.metadata() else { return };
    if (mine.uid(), mine.gid()) == (old.uid(), old.gid()) {
        return;
    }
    if fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
        let _ = fchown(file, None, Some(old.gid()));
    }
}

/// Device and inode of the file at `path`, following links (`None` when absent).
#[cfg(unix)]
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub fn file_id(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// Device and inode of an open file.
#[cfg(unix)]
pub fn open_file_id(file: &File) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    file.metadata().ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub fn open_file_id(_file: &File) -> Option<(u64, u64)> {
    None
}

/// Device and inode of standard input when it is a file (`< file`).
#[cfg(unix)]
pub fn stdin_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    stream_id(io::stdin().as_fd())
}

/// Device and inode of standard output when it is a file (`> file`).
#[cfg(unix)]
pub fn stdout_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    stream_id(io::stdout().as_fd())
}

/// Device and inode of the regular file behind a standard stream, if it is one.
#[cfg(unix)]
fn stream_id(fd: std::os::fd::BorrowedFd<'_>) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = File::from(fd.try_clone_to_owned().ok()?).metadata().ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
pub fn stdin_id() -> Option<(u64, u64)> {
    None
}

#[cfg(not(unix))]
pub fn stdout_id() -> Option<(u64, u64)> {
    None
}

/// The first two of `outputs` (each with the option that names it) that are one file: the
/// same path (its directory resolved, so `./r.json` and `r.json` meet) or, when both exist,
/// the same device and inode. Each report replaces the file whole, so the other output's
/// contents would be lost without a word.
pub fn clashing_outputs(outputs: &[(&str, &Path)]) -> Option<String> {
    let key = |path: &Path| {
        let dir = fs::canonicalize(dir_of(path)).unwrap_or_else(|_| dir_of(path).to_owned());
        (dir, path.file_name().map(std::ffi::OsStr::to_owned))
    };
    for (i, (flag_a, a)) in outputs.iter().enumerate() {
        for (flag_b, b) in &outputs[..i] {
            let same_id = matches!((file_id(a), file_id(b)), (Some(x), Some(y)) if x == y);
            if same_id || key(a) == key(b) {
                return Some(format!(
                    "{flag_a} {}: is also the file of {flag_b} {}: one would overwrite the \
                     other; give each output its own file",
                    a.display(),
                    b.display()
                ));
            }
        }
    }
    None
}

/// The first of `outputs` that is the same file as one of `inputs` (device and inode, so that
/// links and `./` spellings are seen through), as an error message: writing there would destroy
/// the input being read.
pub fn same_file(outputs: &[&Path], inputs: &[(String, Option<(u64, u64)>)]) -> Option<String> {
    outputs.iter().find_map(|out| {
        let id = file_id(out)?;
        inputs
            .iter()
            .find(|(_, input)| *input == Some(id))
            .map(|(name, _)| {
                format!(
                    "{}: is the same file as the input {name}: refusing to write over an input",
                    out.display()
                )
            })
    })
}
