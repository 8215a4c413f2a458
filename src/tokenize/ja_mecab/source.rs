//! IPADIC's source dictionary (Debian's `mecab-ipadic`: EUC-JP `*.csv`, `matrix.def`,
//! `char.def`, `unk.def`): reading, checking and compiling it with vibrato.

use std::path::{Path, PathBuf};

use super::dictionary_cache::Checksum;
use super::euc_jp;

/// Where Debian's and Ubuntu's `mecab-ipadic` package installs the source dictionary.
pub const DEFAULT_DIR: &str = "/usr/share/mecab/dic/ipadic";

/// Entries of the dictionary sacreBLEU uses: `tokenizer_ja_mecab.py` asserts
/// `dictionary_info().size == 392126` ("Please make sure to use the IPA dictionary").
pub const ENTRIES: usize = 392_126;

/// The line Debian's mecab-ipadic (2.7.0-20070801+main-3) appends to `Noun.proper.csv`; the
/// IPADIC that PyPI `ipadic` compiled, and so sacreBLEU, lacks it.
const DEBIAN_REIWA: &str = "令和,1288,1288,5904,名詞,固有名詞,一般,*,*,*,令和,レイワ,レイワ";

/// Changes whenever what is compiled from the same source changes (this module's recipe or the
/// vibrato version's dictionary format), so that the cache key changes with it.
/// (Recipe 3: the source is checked before it is compiled, so a damaged dictionary an older
/// bleu-stream compiled and cached is not loaded from the cache unchecked.)
const RECIPE: &str = "ja-mecab recipe 3; vibrato 0.5; drop Debian reiwa; euc_jp=cpython; \
                      U+FFFF no category; unk.def covers char.def";

/// The category U+FFFF gets ([`with_mecab_ffff`]): no other character has it.
const FFFF_CATEGORY: &str = "MECAB_NO_CATEGORY";

/// `char.def` and `unk.def` with U+FFFF in a category of its own that behaves as MeCab 0.996
/// treats that character. MeCab's compiled character table (`char.bin`) has entries for
/// U+0000–U+FFFE only (0xFFFF of them), so looking up U+FFFF reads one entry past its end, in
/// the zero-filled rest of the mapped page: a character of no category (never grouped with a
/// neighbour, `'다\uFFFF'` → `다 \uFFFF`), not invoked, of length 0 (one character a word) and
/// default type 0, whose unknown words are DEFAULT's. vibrato's table from `char.def` puts it in
/// DEFAULT, which groups it with Hangul, Thai or another U+FFFF; so it gets a category here with
/// those properties and DEFAULT's `unk.def` entries.
fn with_mecab_ffff(char_def: &mut String, unk_def: &mut String) {
    char_def.push_str(&format!(
        "\n{FFFF_CATEGORY} 0 0 0\n0xFFFF {FFFF_CATEGORY}\n"
    ));
    let default: Vec<String> = unk_def
        .lines()
        .filter_map(|line| line.strip_prefix("DEFAULT,"))
        .map(|rest| format!("{FFFF_CATEGORY},{rest}\n"))
        .collect();
    if !unk_def.ends_with('\n') {
        unk_def.push('\n');
    }
    unk_def.extend(default);
}

/// A character category that `char.def` defines and `unk.def` has no entry for. MeCab refuses
/// such a dictionary when it loads it ("cannot find UNK category"); vibrato compiles it and
/// panics on the first character of the category that no word covers (the audit: an `unk.def`
/// without its DEFAULT lines, then an emoji).
fn category_without_unknown_words(char_def: &str, unk_def: &str) -> Option<String> {
    let defined = char_def
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|first| !first.starts_with("0x"));
    let with_entries: std::collections::HashSet<&str> = unk_def
        .lines()
        .filter_map(|l| l.split(',').next())
        .collect();
    defined
        .into_iter()
        .find(|c| !with_entries.contains(c))
        .map(str::to_owned)
}

/// The source dictionary directory, checked and with its checksum (the cache key).
pub struct Source {
    dir: PathBuf,
    /// The lexicon files, in the order mecab-dict-index reads them.
    csvs: Vec<String>,
    pub key: u64,
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>, String> {
    let path = dir.join(name);
    crate::tokenize::model_file::read(&path)
        .map_err(|e| format!("{}: {}", path.display(), crate::diagnostic::io_message(&e)))
}

fn decode(dir: &Path, name: &str, bytes: &[u8], out: &mut String) -> Result<(), String> {
    euc_jp::decode_into(bytes, out).map_err(|e| {
        format!(
            "{}: not EUC-JP at byte {} (IPADIC's source is EUC-JP)",
            dir.join(name).display(),
            e.offset
        )
    })
}

/// The files besides the lexicon that the compiled dictionary depends on.
const DEFS: [&str; 3] = ["matrix.def", "char.def", "unk.def"];

impl Source {
    /// Finds the dictionary in `dir` and checksums it (one file in memory at a time); a clear
    /// error when it is missing, compiled instead of source, or unreadable.
    pub fn open(dir: &Path) -> Result<Source, String> {
        if !dir.is_dir() {
            return Err(format!("{}: no such directory", dir.display()));
        }
        if dir.join("sys.dic").exists() && !dir.join("matrix.def").exists() {
            return Err(format!(
                "{} holds a compiled MeCab dictionary (sys.dic); ja-mecab needs IPADIC's source \
                 (*.csv, matrix.def, char.def, unk.def), as Debian's mecab-ipadic installs it",
                dir.display()
            ));
        }
        let mut csvs: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {}", dir.display(), crate::diagnostic::io_message(&e)))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".csv"))
            .collect();
        // mecab-dict-index reads the CSV files in name order; entry order breaks cost ties.
        csvs.sort();
        if csvs.is_empty() {
            return Err(format!(
                "{}: no *.csv lexicon files (not an IPADIC source directory)",
                dir.display()
            ));
        }
        let mut sum = Checksum::default();
        sum.add(RECIPE.as_bytes());
        // One buffer for all files: a fresh allocation per file would page-fault 53 MB anew.
        let mut buf = Vec::new();
        for name in csvs.iter().map(String::as_str).chain(DEFS) {
            let path = dir.join(name);
            crate::tokenize::model_file::read_into(&path, &mut buf).map_err(|e| {
                format!("{}: {}", path.display(), crate::diagnostic::io_message(&e))
            })?;
            sum.add(name.as_bytes()).add(&buf);
        }
        Ok(Source {
            dir: dir.to_owned(),
            csvs,
            key: sum.value(),
        })
    }

    /// Decodes, checks and compiles the dictionary (about a second for IPADIC). Fails when it
    /// is not the IPADIC sacreBLEU uses (its entry count).
    pub fn compile(&self) -> Result<vibrato::Dictionary, String> {
        let dir = &self.dir;
        let mut lexicon = String::new();
        let mut entries = 0usize;
        let mut text = String::new();
        for name in &self.csvs {
            text.clear();
            decode(dir, name, &read(dir, name)?, &mut text)?;
            for line in text.lines() {
                if line.is_empty() || (name == "Noun.proper.csv" && line == DEBIAN_REIWA) {
                    continue;
                }
                entries += 1;
                lexicon.push_str(line);
                lexicon.push('\n');
            }
        }
        if entries != ENTRIES {
            return Err(format!(
                "{}: {entries} dictionary entries, but sacreBLEU's ja-mecab uses IPADIC 2.7.0 \
                 with {ENTRIES} (install Debian's/Ubuntu's mecab-ipadic)",
                dir.display()
            ));
        }
        let matrix = read(dir, "matrix.def")?;
        if matrix.is_empty() {
            // (vibrato unwraps the header line: a panic.)
            return Err(format!(
                "{}: empty (its first line gives the matrix's size)",
                dir.join("matrix.def").display()
            ));
        }
        let (mut char_def, mut unk_def) = (String::new(), String::new());
        decode(dir, "char.def", &read(dir, "char.def")?, &mut char_def)?;
        decode(dir, "unk.def", &read(dir, "unk.def")?, &mut unk_def)?;
        if let Some(category) = category_without_unknown_words(&char_def, &unk_def) {
            return Err(format!(
                "{}: no entry for the character category {category} of char.def (MeCab: \
                 \"cannot find UNK category\"; vibrato panics on the first such character)",
                dir.join("unk.def").display()
            ));
        }
        with_mecab_ffff(&mut char_def, &mut unk_def);
        vibrato::SystemDictionaryBuilder::from_readers(
            lexicon.as_bytes(),
            matrix.as_slice(),
            char_def.as_bytes(),
            unk_def.as_bytes(),
        )
        .map_err(|e| format!("{}: compiling the dictionary: {e}", dir.display()))
    }
}
