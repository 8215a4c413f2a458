//! The on-disk cache of compiled tokenizer dictionaries, so that only the first run pays for
//! compiling a dictionary from its source (about a second for IPADIC).
//!
//! Files live in `$XDG_CACHE_HOME/bleu-stream/` (default `~/.cache/bleu-stream/`) and are named
//! after the *source's* checksum (`<kind>-<key as 16 hex digits>.bin`), so that a changed source
//! gets a new file rather than a stale one. A cache file is never trusted: it carries a magic
//! line, the key, the payload length and the payload's checksum, and anything that does not
//! check out — or a payload its decoder rejects — is rebuilt and replaced. Files are written to
//! a temporary file in the same directory and renamed into place (atomic; a symlink at the
//! destination is replaced, never followed). When the cache directory cannot be written the
//! compiled dictionary is still used, just not kept.

use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};

/// First bytes of every cache file (the version changes when the layout does).
const MAGIC: &[u8; 16] = b"bleu-stream-dc1\n";
/// Header: magic, key, payload length, payload checksum.
const HEADER: usize = 16 + 8 + 8 + 8;

/// A 64-bit checksum of byte strings, for cache keys and for detecting corrupt cache files (not
/// against forgery: the cache is the user's own directory). FxHash: fast enough to hash a
/// 100 MB dictionary in a few tens of milliseconds.
#[derive(Default)]
pub struct Checksum(rustc_hash::FxHasher);

impl Checksum {
    /// Adds `bytes` (with its length, so that the split between calls counts).
    pub fn add(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.write_u64(bytes.len() as u64);
        self.0.write(bytes);
        self
    }

    pub fn value(&self) -> u64 {
        self.0.finish()
    }
}

/// The cache directory: `$XDG_CACHE_HOME/bleu-stream` when that is an absolute path (the XDG
/// rule), else `$HOME/.cache/bleu-stream`; `None` when neither is known.
pub fn cache_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .map(|h| h.join(".cache"))
    })?;
    Some(base.join("bleu-stream"))
}

/// The path of the cache file of `kind` with source checksum `key`.
pub fn cache_path(dir: &Path, kind: &str, key: u64) -> PathBuf {
    dir.join(format!("{kind}-{key:016x}.bin"))
}

/// What [`load_or_build`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A valid cache file was used.
    Cached,
    /// Compiled from source and cached (`None`) or compiled but not cached (why).
    Built(Option<String>),
}

/// Returns the compiled dictionary of `kind` for the source with checksum `key`: decoded from
/// the cache file when it is valid, else built with `build` (which returns the value and its
/// serialised form) and written to the cache. `decode` rejects (with `Err`) a payload it cannot
/// read; such a file is rebuilt.
pub fn load_or_build<T, E>(
    dir: Option<&Path>,
    kind: &str,
    key: u64,
    decode: impl Fn(&[u8]) -> Result<T, String>,
    build: impl FnOnce() -> Result<(T, Vec<u8>), E>,
) -> Result<(T, Outcome), E> {
    if let Some(dir) = dir {
        if let Some(value) = read_valid(&cache_path(dir, kind, key), key).and_then(|p| {
            // A payload that passed the checksum but does not decode (e.g. written by another
            // version of the dictionary library) is rebuilt too.
            decode(&p).ok()
        }) {
            return Ok((value, Outcome::Cached));
        }
    }
    let (value, payload) = build()?;
    let stored = match dir {
        Some(dir) => write_atomic(dir, &cache_path(dir, kind, key), key, &payload)
            .err()
            .map(|e| format!("{}: {e}", dir.display())),
        None => Some("no cache directory (neither XDG_CACHE_HOME nor HOME is set)".to_owned()),
    };
    Ok((value, Outcome::Built(stored)))
}

/// The payload of the cache file at `path` if its header checks out.
fn read_valid(path: &Path, key: u64) -> Option<Vec<u8>> {
    let mut bytes = super::model_file::read(path).ok()?;
    if bytes.len() < HEADER || &bytes[..16] != MAGIC {
        return None;
    }
    let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let (file_key, len, sum) = (word(16), word(24), word(32));
    if file_key != key || len != (bytes.len() - HEADER) as u64 {
        return None;
    }
    if Checksum::default().add(&bytes[HEADER..]).value() != sum {
        return None;
    }
    bytes.drain(..HEADER);
    Some(bytes)
}

/// Writes the cache file: a temporary file in `dir`, then renamed over `path`.
fn write_atomic(dir: &Path, path: &Path, key: u64, payload: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .suffix(".bin")
        .tempfile_in(dir)?;
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&key.to_le_bytes());
    header.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    header.extend_from_slice(&Checksum::default().add(payload).value().to_le_bytes());
    tmp.write_all(&header)?;
    tmp.write_all(payload)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(p: &[u8]) -> Result<String, String> {
        String::from_utf8(p.to_vec()).map_err(|e| e.to_string())
    }

    #[test]
    fn builds_then_reads_then_rebuilds_corrupt_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = Some(dir.path());
        let build = || Ok::<_, ()>(("dict".to_owned(), b"dict".to_vec()));
        assert_eq!(
            load_or_build(d, "t", 7, decode, build).unwrap(),
            ("dict".to_owned(), Outcome::Built(None))
        );
        assert_eq!(
            load_or_build(d, "t", 7, decode, || Err(())).unwrap(),
            ("dict".to_owned(), Outcome::Cached)
        );
        // Another key is another file.
        assert!(load_or_build(d, "t", 8, decode, || Err(())).is_err());
        // A flipped payload byte, a truncated file, a payload the decoder rejects: rebuilt.
        let path = cache_path(dir.path(), "t", 7);
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        for bad in [flipped, good[..good.len() - 1].to_vec(), b"junk".to_vec()] {
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(
                load_or_build(d, "t", 7, decode, build).unwrap().1,
                Outcome::Built(None)
            );
            assert_eq!(std::fs::read(&path).unwrap(), good);
        }
        let reject = |_: &[u8]| Err::<String, _>("no".to_owned());
        assert_eq!(
            load_or_build(d, "t", 7, reject, build).unwrap().1,
            Outcome::Built(None)
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("victim");
        std::fs::write(&target, b"keep").unwrap();
        let path = cache_path(dir.path(), "t", 1);
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let build = || Ok::<_, ()>(("x".to_owned(), b"x".to_vec()));
        load_or_build(Some(dir.path()), "t", 1, decode, build).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert!(!std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn unwritable_cache_still_builds() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let (v, outcome) = load_or_build(Some(&file.join("sub")), "t", 1, decode, || {
            Ok::<_, ()>(("x".to_owned(), b"x".to_vec()))
        })
        .unwrap();
        assert_eq!(v, "x");
        assert!(matches!(outcome, Outcome::Built(Some(_))));
    }
}
