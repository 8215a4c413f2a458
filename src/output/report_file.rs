//! Report files (`--report-file`, `--prometheus`): replaced atomically and safely at every
//! report, and checked before the run starts.
//!
//! A daemon that rewrites a file in a directory others can write to must not be steered into
//! overwriting something else (issue 19, point 1). So:
//! * the temporary file is created with `O_CREAT|O_EXCL` under a random name
//!   (`tempfile::NamedTempFile`): a symlink or file planted at a guessable name is never opened
//!   or followed, a name already taken is simply skipped;
//! * it gets the permission bits (rwx, not set-id or sticky) of the regular file it replaces
//!   (a 0600 report stays 0600; a new one gets 0666 less the umask, as `>` would), and its
//!   owner and group as far as the process may set them (root: both; others: a group they
//!   belong to), so that a collector reading the file through its group keeps reading it; it
//!   is `fsync`ed, then renamed over PATH, so that a reader sees the old report or the new
//!   one, never half of one, even after a crash;
//! * PATH itself must be a regular file (or a symlink, which the rename replaces, or absent):
//!   a FIFO, device, socket or directory there is refused, not replaced; a symlink lends the
//!   report nothing of its target (owner, mode): it gets what a new file gets;
//! * before the run, the directory must take a temporary file named as the real ones are
//!   ([`probe`]): a report that could never be written is a usage error at once, not a
//!   warning after the whole input was read;
//! * an output that is the same file as an input, or as another output, is refused before
//!   anything is written ([`same_file`], [`clashing_outputs`]).

use std::ffi::OsString;
#[cfg(unix)]
use std::fs::Permissions;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::diagnostic::io_message;

/// Checks that `path` may be replaced by a report file: absent, a regular file, or a symlink
/// (the rename replaces the link itself, never its target). The error says what is there.
pub fn check(path: &Path) -> Result<(), String> {
    // `new.json/` (or `new.json/.`, `..`) names a directory: the probe's temporary file goes
    // into `.`, but no rename onto it can succeed (ENOTDIR), so every report would fail (found
    // by the output audit and its review).
    let bytes = path.as_os_str().as_encoded_bytes();
    let last = bytes.rsplit(|&b| b == b'/').next().unwrap_or_default();
    if matches!(last, b"" | b"." | b"..") {
        return Err(format!(
            "{}: ends in '/', '.' or '..', so it names a directory: give the report a file name",
            path.display()
        ));
    }
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
/// directory exists and takes a new file): creates and removes a temporary file there, named
/// as [`replace`] names its own ([`temporary_prefix`]). A probe under another name passed
/// where the real one could never be made (audit: with a 250-byte PATH name the short probe
/// name passed, then every report failed with "File name too long").
pub fn probe(path: &Path) -> Result<(), String> {
    check(path)?;
    let dir = dir_of(path);
    tempfile::Builder::new()
        .prefix(&temporary_prefix(path))
        .suffix(TEMPORARY_SUFFIX)
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

/// The longest part of PATH's name that goes into the temporary file's name. The temporary
/// name adds 12 bytes (`.`, `.`, six random characters, `.tmp`) to what it takes of PATH's
/// name: with all of a name near NAME_MAX (255 bytes) it could not be created although PATH
/// itself can. The name part only helps a person tell whose leftover a temporary file is.
const NAME_IN_TEMPORARY: usize = 128;

/// The prefix of the temporary file of a report for `path`: `.NAME.`, NAME cut to
/// [`NAME_IN_TEMPORARY`] bytes; the suffix is [`TEMPORARY_SUFFIX`].
fn temporary_prefix(path: &Path) -> OsString {
    let name = path.file_name().unwrap_or(path.as_os_str());
    let mut prefix = OsString::from(".");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = name.as_bytes();
        prefix.push(std::ffi::OsStr::from_bytes(
            &bytes[..bytes.len().min(NAME_IN_TEMPORARY)],
        ));
    }
    #[cfg(not(unix))]
    prefix.push(name);
    prefix.push(".");
    prefix
}

const TEMPORARY_SUFFIX: &str = ".tmp";

/// Replaces `path` with `contents` atomically (see the module documentation).
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    // Checked again at every report: what sits at PATH may have changed since the start.
    if let Err(message) = check(path) {
        return Err(io::Error::other(message));
    }
    let prefix = temporary_prefix(path);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(TEMPORARY_SUFFIX);
    // The metadata of the report being replaced: of a regular file at PATH itself, never of
    // what a symlink there points to. The link is replaced, not followed, so its target's
    // owner and mode are not the old report's; taking them let whoever may plant a link (in a
    // sticky /tmp, any user) choose the owner and mode of a file root writes (audit: a link to
    // a 0666 file of nobody's made root's report nobody's, 0666). A link gets what a new file
    // gets.
    #[cfg(unix)]
    let old = fs::symlink_metadata(path)
        .ok()
        .filter(fs::Metadata::is_file);
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

/// Device and inode of standard error when it is a file (`2> file`).
#[cfg(unix)]
pub fn stderr_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    stream_id(io::stderr().as_fd())
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

#[cfg(not(unix))]
pub fn stderr_id() -> Option<(u64, u64)> {
    None
}

/// Where `path` leads, by name: its directory resolved (so that `./r.json` and `r.json`
/// meet) and its file name. With `follow`, a symlink at `path` is followed first (to at most
/// 40 links, as the kernel does), dangling or not: opening it for appending creates its target.
/// Unlike device and inode, this exists for a file that does not exist yet.
fn path_key(path: &Path, follow: bool) -> (PathBuf, Option<OsString>) {
    let mut path = path.to_owned();
    for _ in 0..40 {
        if !follow || !fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            break;
        }
        match fs::read_link(&path) {
            Ok(target) => path = dir_of(&path).join(target),
            Err(_) => break,
        }
    }
    let dir = fs::canonicalize(dir_of(&path)).unwrap_or_else(|_| dir_of(&path).to_owned());
    (dir, path.file_name().map(std::ffi::OsStr::to_owned))
}

/// The first two of `outputs` (each with the option that names it) that are one file: the
/// same path ([`path_key`]) or, when both exist, the same device and inode. Each report
/// replaces the file whole, so the other output's contents would be lost without a word.
pub fn clashing_outputs(outputs: &[(&str, &Path)]) -> Option<String> {
    let key = |path: &Path| path_key(path, false);
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

/// The first of `outputs` that is the same file as one of `inputs`, as an error message:
/// writing there would destroy the input being read, or (`--follow`) feed it back as input
/// without end. The same device and inode (so that links and `./` spellings are seen
/// through), or, for an input by name (`paths`), the same path ([`path_key`]): a file to
/// follow that does not exist yet has no inode, and `--follow log -o log` created it and then
/// read its own rows back for ever (audit). Outputs come with whether writing them follows a
/// symlink at their path (`-o`, opened for appending) or replaces it (report files).
pub fn same_file(
    outputs: &[(&Path, bool)],
    inputs: &[(String, Option<(u64, u64)>)],
    paths: &[(String, &Path)],
) -> Option<String> {
    let message = |out: &Path, name: &str| {
        format!(
            "{}: is the same file as the input {name}: refusing to write over an input",
            out.display()
        )
    };
    outputs.iter().find_map(|&(out, follows)| {
        let by_id = file_id(out).and_then(|id| {
            inputs
                .iter()
                .find(|(_, input)| *input == Some(id))
                .map(|(name, _)| name)
        });
        let key = path_key(out, follows);
        by_id
            .or_else(|| {
                paths
                    .iter()
                    .find(|(_, input)| path_key(input, true) == key)
                    .map(|(name, _)| name)
            })
            .map(|name| message(out, name))
    })
}
