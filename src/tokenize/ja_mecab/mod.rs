//! sacreBLEU 2.6.0's `ja-mecab` tokenizer (MeCab 0.996 `-Owakati` with PyPI `ipadic`), in pure
//! Rust: the `vibrato` crate (a MeCab-compatible Viterbi tokenizer) on IPADIC 2.7.0's *source*
//! dictionary as Debian's and Ubuntu's `mecab-ipadic` package installs it.
//!
//! What makes the result identical to sacreBLEU's (`SACREBLEU.md` §2.6):
//! - the EUC-JP source is decoded as CPython/iconv decode it ([`euc_jp`]), not as WHATWG does;
//! - the entry Debian added to `Noun.proper.csv` (令和, the 2019 era name) is dropped: the
//!   dictionary sacreBLEU checks (`392126` entries) predates it;
//! - vibrato runs with `ignore_space(true)` (MeCab skips the SPACE class before each token) and
//!   `max_grouping_len(24)` (MeCab's limit on grouping unknown characters);
//! - sacreBLEU strips the line (Python whitespace), MeCab tokenizes it, the surfaces are joined
//!   by spaces and the result is stripped and split on Python whitespace by BLEU.
//!
//! A NUL character: MeCab receives the line as a C string, so sacreBLEU's tokens stop at the
//! first NUL (`"日本\0語"` → `日本`). We reproduce that: the line is cut at its first NUL.

mod euc_jp;
mod jis0208;
mod source;

use std::path::Path;

use super::dictionary_cache::{self, Outcome};
use super::Tokens;
use crate::unicode::py_strip;

pub use euc_jp::{decode_into as decode_euc_jp, DecodeError};
pub use source::{DEFAULT_DIR, ENTRIES};

/// The loaded tokenizer (shared by all threads; each has a [`Worker`]).
pub struct JaMecab {
    tokenizer: vibrato::Tokenizer,
}

impl std::fmt::Debug for JaMecab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JaMecab")
    }
}

impl JaMecab {
    /// Loads the IPADIC source dictionary in `dir`, through the compiled-dictionary cache in
    /// `cache` (none: always compile). Returns what the cache did, for `--verbose`-style reports
    /// and tests.
    pub fn load(dir: &Path, cache: Option<&Path>) -> Result<(JaMecab, Outcome), String> {
        let src = source::Source::open(dir)?;
        let decode = |bytes: &[u8]| {
            vibrato::Dictionary::read(bytes).map_err(|e| format!("compiled dictionary: {e}"))
        };
        let (dict, outcome) =
            dictionary_cache::load_or_build(cache, "ja-mecab-ipadic", src.key, decode, || {
                let dict = src.compile()?;
                let mut bytes = Vec::new();
                dict.write(&mut bytes)
                    .map_err(|e| format!("serialising the compiled dictionary: {e}"))?;
                Ok::<_, String>((dict, bytes))
            })?;
        let tokenizer = vibrato::Tokenizer::new(dict)
            .ignore_space(true)
            .map_err(|e| format!("{}: char.def: {e}", dir.display()))?
            .max_grouping_len(24);
        Ok((JaMecab { tokenizer }, outcome))
    }

    /// A per-thread worker.
    pub fn worker(&'static self) -> Worker {
        Worker {
            inner: self.tokenizer.new_worker(),
            joined: String::new(),
        }
    }
}

/// Per-thread state: vibrato's lattice and the joined output.
pub struct Worker {
    inner: vibrato::tokenizer::worker::Worker<'static>,
    joined: String,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ja_mecab::Worker")
    }
}

impl Worker {
    /// Appends the BLEU tokens of `line` (already lowercased and right-stripped by the caller).
    pub fn tokenize(&mut self, line: &str, out: &mut Tokens) {
        // MeCab sees a C string: nothing after the first NUL.
        let line = line.split('\0').next().unwrap_or("");
        let line = py_strip(line);
        if line.is_empty() {
            return;
        }
        self.inner.reset_sentence(line);
        self.inner.tokenize();
        self.joined.clear();
        for i in 0..self.inner.num_tokens() {
            if i > 0 {
                self.joined.push(' ');
            }
            self.joined.push_str(self.inner.token(i).surface());
        }
        out.extend_split(&self.joined);
    }
}
