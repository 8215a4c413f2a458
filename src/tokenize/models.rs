//! Tokenizers that need a file besides the program — MeCab's IPADIC for `ja-mecab`, a
//! SentencePiece model for `flores101`/`flores200`/`spm` — : where that file is looked up, and
//! the one loaded copy the whole process shares.
//!
//! The command line loads them while it validates its options ([`prepare`]), so that a missing
//! dictionary is a usage error (exit status 2) before any input is read, never a failure in a
//! worker thread. [`Tokenizer`] stays a plain `Copy` name; its workers find the loaded data here.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::dictionary_cache;
use super::ja_mecab::{self, JaMecab};
use super::spm::Spm;
use super::Tokenizer;

/// Environment variable naming the IPADIC source directory (`--mecab-dic` wins over it).
pub const MECAB_DIC_ENV: &str = "BLEU_STREAM_MECAB_DIC";

/// Files given on the command line (`None`: the environment or the default place).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelPaths {
    /// `--mecab-dic DIR`.
    pub mecab_dic: Option<PathBuf>,
    /// `--spm-model FILE`.
    pub spm_model: Option<PathBuf>,
    /// For the sacreBLEU drop-in, whose command line has neither `--mecab-dic` nor
    /// `--spm-model`: what cannot be found is then not offered through them.
    pub drop_in: bool,
}

impl ModelPaths {
    /// The option that chose the tokenizer, for messages: sacreBLEU's `-tok` in the drop-in
    /// (where `-t` is the test set), `-t` in the main command.
    pub fn flag(&self) -> &'static str {
        if self.drop_in {
            "-tok"
        } else {
            "-t"
        }
    }
}

static JA_MECAB: OnceLock<JaMecab> = OnceLock::new();
static FLORES101: OnceLock<Spm> = OnceLock::new();
static FLORES200: OnceLock<Spm> = OnceLock::new();
static SPBLEU_1K: OnceLock<Spm> = OnceLock::new();

/// sacreBLEU's SentencePiece models (`tokenizer_spm.py` `SPM_MODELS`): the file name under
/// `$SACREBLEU/models/` (the basename of the download URL) and the URL.
fn spm_file(tok: Tokenizer) -> Option<(&'static OnceLock<Spm>, &'static str, &'static str)> {
    const FLORES101_URL: &str =
        "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model";
    Some(match tok {
        Tokenizer::Flores101 | Tokenizer::Spm => {
            (&FLORES101, "sacrebleu_tokenizer_spm.model", FLORES101_URL)
        }
        Tokenizer::Flores200 => (
            &FLORES200,
            "flores200sacrebleuspm",
            "https://tinyurl.com/flores200sacrebleuspm",
        ),
        Tokenizer::SpBleu1K => (
            &SPBLEU_1K,
            "spbleu-1k_tokenizer_spm.model",
            "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model",
        ),
        _ => return None,
    })
}

/// sacreBLEU's own directory (`utils.SACREBLEU_DIR`): `$SACREBLEU` if set (even empty: paths
/// are then relative, as `os.path.join` makes them), else `~/.sacrebleu`. Its models and its
/// test-set cache live there.
pub fn sacrebleu_dir() -> PathBuf {
    match std::env::var_os("SACREBLEU") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(".sacrebleu"),
    }
}

/// sacreBLEU's model directory: `$SACREBLEU/models`.
pub fn sacrebleu_models_dir() -> PathBuf {
    sacrebleu_dir().join("models")
}

/// The model file of a SentencePiece tokenizer: `--spm-model`, else sacreBLEU's place.
pub fn spm_model(tok: Tokenizer, paths: &ModelPaths) -> Option<(PathBuf, &'static str)> {
    let (_, file, _) = spm_file(tok)?;
    Some(match &paths.spm_model {
        Some(f) => (f.clone(), "--spm-model"),
        None => (
            sacrebleu_models_dir().join(file),
            "sacreBLEU's model directory",
        ),
    })
}

fn load_spm(tok: Tokenizer, paths: &ModelPaths) -> Result<Spm, String> {
    let (_, _, url) = spm_file(tok).expect("an SPM tokenizer");
    let (path, how) = spm_model(tok, paths).expect("an SPM tokenizer");
    let (flag, name) = (paths.flag(), tok.cli_name());
    let bytes = super::model_file::read(&path).map_err(|e| {
        format!(
            "{flag} {name} needs the SentencePiece model {} ({how}): {}. bleu-stream does not \
             download; sacreBLEU fetches it from {url} into $SACREBLEU/models/ (default \
             ~/.sacrebleu/models/) the first time it runs with -tok {name}: put the file \
             there{}",
            path.display(),
            crate::diagnostic::io_message(&e),
            if paths.drop_in {
                ""
            } else {
                ", or give it with --spm-model FILE"
            }
        )
    })?;
    Spm::from_bytes(&bytes).map_err(|e| {
        format!(
            "{flag} {name}: {} is not a usable SentencePiece model: {e}",
            path.display()
        )
    })
}
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
        Tokenizer::Flores101 | Tokenizer::Flores200 | Tokenizer::Spm | Tokenizer::SpBleu1K => {
            if tok == Tokenizer::Spm {
                warn_spm_once();
            }
            let (cell, _, _) = spm_file(tok).expect("an SPM tokenizer");
            let _guard = LOADING.lock().unwrap_or_else(|e| e.into_inner());
            if cell.get().is_none() {
                let spm = load_spm(tok, paths)?;
                let _ = cell.set(spm);
            }
            Ok(())
        }
        Tokenizer::KoMecab => {
            super::ko_mecab::install(paths.mecab_dic.as_deref(), !paths.drop_in)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

/// sacreBLEU's warning for `-tok spm` (once per process).
fn warn_spm_once() {
    static WARNED: OnceLock<()> = OnceLock::new();
    WARNED.get_or_init(|| {
        crate::diagnostic::diagnostic(
            "warning: tokenizer 'spm' has been changed to 'flores101' (sacreBLEU: it may be \
             removed in the future); same model, signature tok:flores101",
        )
    });
}

/// The loaded model of a SentencePiece tokenizer (see [`ja_mecab`] for when it is loaded here).
///
/// # Panics
/// When it was not prepared and cannot be loaded (the message says why).
pub(super) fn spm(tok: Tokenizer) -> &'static Spm {
    let (cell, _, _) = spm_file(tok).expect("an SPM tokenizer");
    if let Some(spm) = cell.get() {
        return spm;
    }
    if let Err(e) = prepare(tok, &ModelPaths::default()) {
        panic!("{e}");
    }
    cell.get().expect("prepared")
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
                "{} ja-mecab needs MeCab's IPADIC source dictionary ({how}): {e}. Install the \
                 mecab-ipadic package (Debian/Ubuntu: apt-get install mecab-ipadic, which puts it \
                 in {}) or give its directory with {}{MECAB_DIC_ENV}=DIR",
                paths.flag(),
                ja_mecab::DEFAULT_DIR,
                if paths.drop_in {
                    ""
                } else {
                    "--mecab-dic DIR or "
                }
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
