//! `-t/--test-set NAME[,NAME…] -l SRC-TGT`: the references of a named test set, read from
//! sacreBLEU's local cache where sacreBLEU itself keeps them, so that a command line that works
//! with sacreBLEU works here once sacreBLEU has fetched the test set.
//!
//! sacreBLEU (`dataset/base.py`) keeps each field of a test set as plain text in
//! `$SACREBLEU/NAME/NAME_.SRC-TGT.FIELD` — `$SACREBLEU` defaulting to `~/.sacrebleu`, `NAME_` the
//! name with `/` replaced by `_`, `FIELD` with `:` replaced by `-` (`ref:A` → `ref-A`). Which
//! fields are references, and which language pairs a test set has, is its registry
//! (`sacrebleu.dataset.DATASETS`), recorded in `testsets.tsv` by
//! `tools/gen_sacrebleu_testsets.py`. bleu-stream never downloads: a test set that is not in the
//! cache is an error that says how to fetch it.

use std::path::{Path, PathBuf};

/// sacreBLEU 2.6.0's registry: `NAME<TAB>SRC-TGT<TAB>KIND<TAB>REF_FIELD[,…]` per line.
const REGISTRY: &str = include_str!("testsets.tsv");

/// One language pair of a test set, as the registry records it.
struct Entry {
    name: &'static str,
    langpair: &'static str,
    /// The reference fields are read from a WMT XML file (wmt21 and later): sacreBLEU keeps
    /// only the listed references the XML has.
    xml: bool,
    refs: &'static str,
}

fn entries() -> impl Iterator<Item = Entry> {
    REGISTRY
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut f = l.split('\t');
            let (name, langpair, kind, refs) = (
                f.next().unwrap_or_default(),
                f.next().unwrap_or_default(),
                f.next().unwrap_or_default(),
                f.next().unwrap_or_default(),
            );
            Entry {
                name,
                langpair,
                xml: kind == "xml",
                refs,
            }
        })
}

/// The language pairs of test set `name` in sacreBLEU's order; `None` for a test set sacreBLEU
/// does not know.
pub fn langpairs(name: &str) -> Option<Vec<&'static str>> {
    let pairs: Vec<&'static str> = entries()
        .filter(|e| e.name == name)
        .map(|e| e.langpair)
        .collect();
    (!pairs.is_empty()).then_some(pairs)
}

/// `SACREBLEU_DIR`, where sacreBLEU keeps its test sets (and models).
pub fn cache_dir() -> PathBuf {
    crate::tokenize::models::sacrebleu_dir()
}

/// Where sacreBLEU keeps field `field` of `name`/`langpair` (`Dataset._get_txt_file_path`).
fn field_path(dir: &Path, name: &str, langpair: &str, field: &str) -> PathBuf {
    dir.join(name).join(format!(
        "{}.{langpair}.{}",
        name.replace('/', "_"),
        field.replace(':', "-")
    ))
}

/// The reference files of `name`/`langpair` in the cache `dir` (`get_reference_files`), in
/// sacreBLEU's order. `Err` with a message when the test set is not in the cache. The caller has
/// checked that the test set and language pair exist.
pub fn reference_files(dir: &Path, name: &str, langpair: &str) -> Result<Vec<PathBuf>, String> {
    let Some(entry) = entries().find(|e| e.name == name && e.langpair == langpair) else {
        return Ok(Vec::new());
    };
    let missing = |path: &Path| {
        format!(
            "-t {name} -l {langpair}: the test set is not in sacreBLEU's cache ({} does not \
             exist), and bleu-stream does not download test sets. Fetch it once with sacreBLEU \
             (`sacrebleu -t {name} -l {langpair} --echo src > /dev/null`; set SACREBLEU to use \
             another cache), or give the reference file(s) as arguments instead of -t.",
            path.display()
        )
    };
    let fields = entry.refs.split(',').filter(|f| !f.is_empty());
    if !entry.xml {
        return fields
            .map(|f| {
                let path = field_path(dir, name, langpair, f);
                if path.is_file() {
                    Ok(path)
                } else {
                    Err(missing(&path))
                }
            })
            .collect();
    }
    // A WMT XML test set is processed into every one of its fields at once (source,
    // references, docid, origlang…), so the source's file tells whether it is in the cache; of
    // the listed references, those the XML had are there (`WMTXMLDataset.get_reference_files`
    // keeps the listed fields the XML has).
    let src = field_path(dir, name, langpair, "src");
    if !src.is_file() {
        return Err(missing(&src));
    }
    Ok(fields
        .map(|f| field_path(dir, name, langpair, f))
        .filter(|p| p.is_file())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_has_sacrebleus_test_sets_and_references() {
        assert_eq!(
            entries()
                .map(|e| e.name)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            67
        );
        let pairs = langpairs("wmt22").unwrap();
        assert!(pairs.contains(&"en-de") && pairs.contains(&"cs-en"));
        assert!(langpairs("wmt99").is_none());
        // wmt22 cs-en is scored against reference B (the registry's per-pair override).
        let cs_en = entries()
            .find(|e| e.name == "wmt22" && e.langpair == "cs-en")
            .unwrap();
        assert!(cs_en.xml);
        assert_eq!(cs_en.refs, "ref:B");
        let two = entries()
            .find(|e| e.name == "wmt20/tworefs" && e.langpair == "en-de")
            .unwrap();
        assert!(!two.xml);
        assert_eq!(two.refs, "ref:0,ref:1");
    }

    #[test]
    fn paths_are_sacrebleus() {
        let dir = Path::new("/c");
        assert_eq!(
            field_path(dir, "wmt22", "en-de", "ref:A"),
            Path::new("/c/wmt22/wmt22.en-de.ref-A")
        );
        assert_eq!(
            field_path(dir, "wmt21/dev", "en-ha", "ref"),
            Path::new("/c/wmt21/dev/wmt21_dev.en-ha.ref")
        );
    }

    #[test]
    fn missing_cache_says_how_to_fetch() {
        let dir = tempfile::tempdir().unwrap();
        let err = reference_files(dir.path(), "wmt22", "en-de").unwrap_err();
        assert!(err.contains("wmt22.en-de.src"), "{err}");
        assert!(err.contains("--echo src"), "{err}");
        let err = reference_files(dir.path(), "wmt14", "en-de").unwrap_err();
        assert!(err.contains("wmt14.en-de.ref"), "{err}");
    }

    #[test]
    fn xml_sets_keep_the_listed_references_present() {
        let dir = tempfile::tempdir().unwrap();
        let set = dir.path().join("wmt21").join("dev");
        std::fs::create_dir_all(&set).unwrap();
        for f in ["src", "ref-A", "docid"] {
            std::fs::write(set.join(format!("wmt21_dev.en-ha.{f}")), "x\n").unwrap();
        }
        let files = reference_files(dir.path(), "wmt21/dev", "en-ha").unwrap();
        assert_eq!(files, vec![set.join("wmt21_dev.en-ha.ref-A")]);
    }
}
