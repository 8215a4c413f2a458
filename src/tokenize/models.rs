//! Tokenizers that need a file besides the program — MeCab's IPADIC for `ja-mecab` — : where
//! that file is looked up, and the one loaded copy the whole process shares.
//!
//! The command line loads them while it validates its options ([`prepare`]), so that a missing
//! dictionary is a usage error (exit status 2) before any input is read, never a failure in a
//! worker thread. [`Tokenizer`] stays a plain `Copy` name; its workers find the loaded data here.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::dictionary_cache;
use super::ja_mecab::{self, JaMecab};
use super::Tokenizer;

/// Environment variable naming the IPADIC source directory (`--mecab-dic` wins over it).
pub const MECAB_DIC_ENV: &str = "BLEU_STREAM_MECAB_DIC";

/// Files given on the command line (`None`: the environment or the default place).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelPaths {
    /// `--mecab-dic DIR`.
    pub mecab_dic: Option<PathBuf>,
}

static JA_MECAB: OnceLock<JaMecab> = OnceLock::new();
/// Serialises loading (two metrics may prepare the same tokenizer).
static LOADING: Mutex<()> = Mutex::new(());

/// Loads what `tok` needs (once per process; later calls return at once). `Err` says what is
/// missing, where it was looked for and how to install it.
pub fn prepare(tok: Tokenizer, paths: &ModelPaths) -> Result<(), String> {
    match tok {
        Tokenizer::JaMecab => {
            let _guard = LOADING.lock().unwrap_or_else(|e| e.into_inner());
            if JA_MECAB.get().is_none() {
                let ja = load_ja_mecab(paths)?;
                let _ = JA_MECAB.set(ja);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The IPADIC directory: `--mecab-dic`, else `$BLEU_STREAM_MECAB_DIC`, else Debian's place.
pub fn mecab_dic(paths: &ModelPaths) -> (PathBuf, &'static str) {
    if let Some(dir) = &paths.mecab_dic {
        return (dir.clone(), "--mecab-dic");
    }
    match std::env::var_os(MECAB_DIC_ENV) {
        Some(dir) if !dir.is_empty() => (PathBuf::from(dir), MECAB_DIC_ENV),
        _ => (PathBuf::from(ja_mecab::DEFAULT_DIR), "the default place"),
    }
}

fn load_ja_mecab(paths: &ModelPaths) -> Result<JaMecab, String> {
    let (dir, how) = mecab_dic(paths);
    load_ja_mecab_from(&dir, dictionary_cache::cache_dir().as_deref())
        .map(|(ja, _)| ja)
        .map_err(|e| {
            format!(
                "-t ja-mecab needs MeCab's IPADIC source dictionary ({how}): {e}. Install the \
                 mecab-ipadic package (Debian/Ubuntu: apt-get install mecab-ipadic, which puts it \
                 in {}) or give its directory with --mecab-dic DIR or {MECAB_DIC_ENV}=DIR",
                ja_mecab::DEFAULT_DIR
            )
        })
}

/// Loads ja-mecab from `dir` with the cache directory `cache`, reporting a cache that could not
/// be written (the tokenizer works all the same).
pub fn load_ja_mecab_from(
    dir: &Path,
    cache: Option<&Path>,
) -> Result<(JaMecab, dictionary_cache::Outcome), String> {
    let (ja, outcome) = JaMecab::load(dir, cache)?;
    if let dictionary_cache::Outcome::Built(Some(why)) = &outcome {
        crate::diagnostic::diagnostic(&format!(
            "warning: the compiled ja-mecab dictionary could not be cached ({why}); every run \
             will compile it again"
        ));
    }
    Ok((ja, outcome))
}

/// The loaded ja-mecab tokenizer. The command line has loaded it ([`prepare`]); a library user
/// who has not gets it loaded from the environment/default place here.
///
/// # Panics
/// When it was not prepared and cannot be loaded (the message says why).
pub(super) fn ja_mecab() -> &'static JaMecab {
    if let Some(ja) = JA_MECAB.get() {
        return ja;
    }
    if let Err(e) = prepare(Tokenizer::JaMecab, &ModelPaths::default()) {
        panic!("{e}");
    }
    JA_MECAB.get().expect("prepared")
}
