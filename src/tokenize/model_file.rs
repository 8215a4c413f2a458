//! Opening the files a tokenizer loads — SentencePiece models, MeCab dictionaries, the compiled
//! dictionary cache — which the user supplies (`--spm-model`, `--mecab-dic`, `$SACREBLEU`) and
//! so are untrusted like any input.
//!
//! # Why
//!
//! The audit of crafted models (2026-11-27) found a FIFO given as a model blocking `open` for
//! ever — the signal handlers only set a flag, so neither Ctrl-C nor SIGTERM ended the wait —
//! and `/dev/zero` or a 6 GB sparse file read until memory ran out. A file is therefore opened
//! without blocking (`O_NONBLOCK`, which changes nothing for a regular file), must be a regular
//! file by the descriptor actually opened (no race with a swapped path), and may be at most
//! [`MAX_BYTES`]: the largest real one, mecab-ko-dic's `sys.dic`, is 80 MB.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The largest model or dictionary file read (512 MiB).
pub const MAX_BYTES: u64 = 512 << 20;

/// Opens `path` for reading: a regular file of at most [`MAX_BYTES`], with its length. Errors
/// are `io::Error`s whose text says what is wrong ("not a regular file", the size).
pub fn open(path: &Path) -> io::Result<(File, u64)> {
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a model or dictionary is read from a file)",
        ));
    }
    if meta.len() > MAX_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} bytes, more than a model or dictionary file may be ({} MiB)",
                meta.len(),
                MAX_BYTES >> 20
            ),
        ));
    }
    Ok((file, meta.len()))
}

/// The whole file at `path`, [`open`]ed as above; a file that grows while it is read is cut at
/// [`MAX_BYTES`] + 1 bytes and refused.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    read_into(path, &mut bytes)?;
    Ok(bytes)
}

/// [`read`] into `buf` (cleared first), reusing its memory.
pub fn read_into(path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
    let (file, len) = open(path)?;
    buf.clear();
    buf.try_reserve_exact(len as usize)
        .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "out of memory"))?;
    file.take(MAX_BYTES + 1).read_to_end(buf)?;
    if buf.len() as u64 > MAX_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("grew past {} MiB while it was read", MAX_BYTES >> 20),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("model");
        std::fs::write(&file, b"bytes").unwrap();
        assert_eq!(read(&file).unwrap(), b"bytes");
        // A FIFO without a writer: refused at once, not waited on.
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read(&fifo).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        for special in ["/dev/zero", "/dev/null"] {
            let e = read(Path::new(special)).unwrap_err();
            assert!(
                e.to_string().contains("not a regular file"),
                "{special}: {e}"
            );
        }
        assert!(read(dir.path()).is_err(), "a directory");
        // A sparse file past the bound: refused by its size, nothing read.
        let big = dir.path().join("big");
        File::create(&big).unwrap().set_len(MAX_BYTES + 1).unwrap();
        let e = read(&big).unwrap_err();
        assert!(e.to_string().contains("536870913 bytes"), "{e}");
    }
}
