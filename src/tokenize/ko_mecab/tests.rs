//! The reader and the search on a tiny dictionary built here, byte for byte in MeCab's formats
//! (a small Darts double array builder included), and the reader's errors on damaged files.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::*;

/// One entry: `(lc, rc, posid, wcost)`.
type Entry = (u16, u16, u16, i16);

/// Builds a Darts double array (units `(base, check)`) for `keys` → leaf values.
fn double_array(keys: &BTreeMap<Vec<u8>, u32>) -> Vec<(i32, u32)> {
    let mut units: Vec<(i32, u32)> = vec![(0, 0)];
    let mut used = vec![true];
    let mut bases = std::collections::HashSet::new();
    // (unit index, key prefix) of nodes still to place.
    let mut todo = vec![(0usize, Vec::<u8>::new())];
    while let Some((at, prefix)) = todo.pop() {
        // Children: offset 0 for "the key ends here", c + 1 for byte c.
        let mut children: Vec<(usize, Option<u8>)> = Vec::new();
        if keys.contains_key(&prefix) {
            children.push((0, None));
        }
        let mut next: Vec<u8> = keys
            .keys()
            .filter(|k| k.len() > prefix.len() && k.starts_with(&prefix))
            .map(|k| k[prefix.len()])
            .collect();
        next.dedup();
        children.extend(next.iter().map(|&c| (usize::from(c) + 1, Some(c))));
        let mut b = 1usize;
        while bases.contains(&b)
            || children
                .iter()
                .any(|&(off, _)| used.get(b + off).copied().unwrap_or(false))
        {
            b += 1;
        }
        bases.insert(b);
        units[at].0 = b as i32;
        for &(off, c) in &children {
            let p = b + off;
            if units.len() <= p {
                units.resize(p + 1, (0, 0));
                used.resize(p + 1, false);
            }
            used[p] = true;
            units[p].1 = b as u32;
            match c {
                None => units[p].0 = -(keys[&prefix] as i32) - 1,
                Some(c) => {
                    let mut k = prefix.clone();
                    k.push(c);
                    todo.push((p, k));
                }
            }
        }
    }
    units.resize(units.len() + 300, (0, 0));
    units
}

/// A compiled dictionary file of `kind` with `entries` (key → entries).
fn dictionary_file(kind: u32, entries: &[(&str, Vec<Entry>)], lsize: u32, rsize: u32) -> Vec<u8> {
    let mut keys = BTreeMap::new();
    let mut tokens = Vec::new();
    for (key, list) in entries {
        keys.insert(
            key.as_bytes().to_vec(),
            ((tokens.len() as u32) << 8) | list.len() as u32,
        );
        tokens.extend(list.iter().copied());
    }
    let da = double_array(&keys);
    let features = b"feature\0".to_vec();
    let (dsize, tsize, fsize) = (8 * da.len(), 16 * tokens.len(), features.len());
    let size = (72 + dsize + tsize + fsize) as u32;
    let mut out = Vec::new();
    for v in [
        size ^ 0xef71_8f77,
        102,
        kind,
        keys.len() as u32,
        lsize,
        rsize,
        dsize as u32,
        tsize as u32,
        fsize as u32,
        0,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let mut charset = b"UTF-8".to_vec();
    charset.resize(32, 0);
    out.extend_from_slice(&charset);
    for (base, check) in da {
        out.extend_from_slice(&base.to_le_bytes());
        out.extend_from_slice(&check.to_le_bytes());
    }
    for (lc, rc, posid, wcost) in tokens {
        for v in [lc, rc, posid] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&wcost.to_le_bytes());
        out.extend_from_slice(&[0; 8]);
    }
    out.extend_from_slice(&features);
    out
}

const CATEGORIES: [&str; 4] = ["DEFAULT", "SPACE", "ALPHA", "HANGUL"];

/// `CharInfo` bits: categories `types`, default category, length, group, invoke.
fn info(types: u32, default: u32, length: u32, group: bool, invoke: bool) -> u32 {
    types | (default << 18) | (length << 26) | (u32::from(group) << 30) | (u32::from(invoke) << 31)
}

fn char_file() -> Vec<u8> {
    let mut out = (CATEGORIES.len() as u32).to_le_bytes().to_vec();
    for name in CATEGORIES {
        let mut n = name.as_bytes().to_vec();
        n.resize(32, 0);
        out.extend_from_slice(&n);
    }
    for c in 0..0xffffu32 {
        let v = match c {
            0x20 | 0x09 => info(1 << 1, 1, 0, true, false),
            0x61..=0x7a => info(1 << 2, 2, 0, true, true),
            0xac00..=0xd7a3 => info(1 << 3, 3, 2, false, false),
            _ => info(1, 0, 1, false, true),
        };
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// A 3×3 matrix of zeros except `[1][2]` (rc 1 followed by lc 2) = 500.
fn matrix_file() -> Vec<u8> {
    let mut out = vec![3, 0, 3, 0];
    for i in 0..9 {
        let cost: i16 = if i == 1 + 3 * 2 { 500 } else { 0 };
        out.extend_from_slice(&cost.to_le_bytes());
    }
    out
}

/// Writes a tiny dictionary into a fresh directory; `penalty` is the dicrc
/// `left-space-penalty-factor`.
fn tiny(name: &str, penalty: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "bleu-stream-ko-mecab-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let sys = dictionary_file(
        0,
        &[
            ("a", vec![(1, 1, 10, 100)]),
            ("ab", vec![(1, 1, 10, 150)]),
            ("b", vec![(1, 1, 10, 100)]),
            ("c", vec![(0, 0, 120, 10)]),
            ("d", vec![(0, 0, 10, 10)]),
            ("가", vec![(0, 0, 10, 50)]),
        ],
        3,
        3,
    );
    let unk = dictionary_file(
        2,
        &[
            ("DEFAULT", vec![(0, 0, 1, 2000)]),
            ("SPACE", vec![(0, 0, 2, 2000)]),
            ("ALPHA", vec![(0, 0, 3, 1000), (0, 0, 4, 1200)]),
            ("HANGUL", vec![(0, 0, 5, 3000)]),
        ],
        3,
        3,
    );
    std::fs::write(dir.join("sys.dic"), sys).unwrap();
    std::fs::write(dir.join("unk.dic"), unk).unwrap();
    std::fs::write(dir.join("char.bin"), char_file()).unwrap();
    std::fs::write(dir.join("matrix.bin"), matrix_file()).unwrap();
    std::fs::write(
        dir.join("dicrc"),
        format!("; tiny\ncost-factor = 800\nbos-feature = BOS/EOS,*\nleft-space-penalty-factor = {penalty}\n"),
    )
    .unwrap();
    dir
}

fn tokenize(model: &Model, line: &str) -> String {
    let mut scratch = Scratch::default();
    model.tokenize_into(line, &mut scratch);
    scratch.text
}

#[test]
fn prefix_and_exact_search() {
    let dir = tiny("search", "");
    let sys = Dictionary::open(&dir.join("sys.dic")).unwrap();
    assert_eq!(sys.kind(), 0);
    assert_eq!(sys.lexsize(), 6);
    let mut out = Vec::new();
    sys.common_prefix_search(b"abc", &mut out);
    let found: Vec<(u32, u32)> = out.iter().map(|m| (m.first, m.len)).collect();
    assert_eq!(found, [(0, 1), (1, 2)], "shortest first");
    sys.common_prefix_search(b"x", &mut out);
    assert!(out.is_empty());
    assert_eq!(sys.exact_match_search(b"ab").map(|m| m.first), Some(1));
    assert_eq!(sys.exact_match_search(b"abc"), None);
    assert_eq!(
        sys.exact_match_search("가".as_bytes()).map(|m| m.count),
        Some(1)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn best_path_unknown_words_and_space_penalty() {
    let dir = tiny("path", "");
    let model = Model::open(&dir).unwrap();
    // "ab" (150) beats "a" + "b" (200); unknown-word grouping: "xyz" is one ALPHA group.
    assert_eq!(tokenize(&model, "ab"), "ab");
    assert_eq!(tokenize(&model, " ab  xyz\t"), "ab xyz");
    // "a" then "b" after a space: rc 1 → lc 1 costs 0.
    assert_eq!(tokenize(&model, "a b"), "a b");
    // Without a penalty the particle "c" (posid 120) and "d" win over the ALPHA group "cd".
    assert_eq!(tokenize(&model, "가 cd"), "가 c d");
    // Hangul unknown words: length 2, no grouping; "가" is a word.
    assert_eq!(tokenize(&model, "각각가"), "각각 가");
    // Characters of no category: invoke, length 1; NUL ends the line.
    assert_eq!(tokenize(&model, "!?\0ab"), "! ?");
    assert_eq!(tokenize(&model, ""), "");
    std::fs::remove_dir_all(&dir).unwrap();

    // mecab-ko's penalty on a posid-120 word after a space flips it to the unknown group.
    let dir = tiny("penalty", "120,5000");
    let model = Model::open(&dir).unwrap();
    assert_eq!(tokenize(&model, "가 cd"), "가 cd");
    assert_eq!(tokenize(&model, "가cd"), "가 c d", "no space, no penalty");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn damaged_files_are_errors_not_panics() {
    let dir = tiny("damaged", "");
    let files = ["sys.dic", "unk.dic", "char.bin", "matrix.bin"];
    let originals: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect();
    for (file, original) in files.iter().zip(&originals) {
        let path = dir.join(file);
        // Every truncation of the small files, a sample of the big ones.
        let step = (original.len() / 200).max(1);
        for len in (0..original.len()).step_by(step) {
            std::fs::write(&path, &original[..len]).unwrap();
            assert!(Model::open(&dir).is_err(), "{file} cut to {len} bytes");
        }
        // One byte too many.
        let mut longer = original.clone();
        longer.push(0);
        std::fs::write(&path, &longer).unwrap();
        assert!(Model::open(&dir).is_err(), "{file} with an extra byte");
        std::fs::write(&path, original).unwrap();
    }
    assert!(Model::open(&dir).is_ok());

    // A wrong version, and a leaf pointing past the token table.
    let sys = &originals[0];
    let mut bad = sys.clone();
    bad[4] = 101;
    std::fs::write(dir.join("sys.dic"), &bad).unwrap();
    let e = Model::open(&dir).unwrap_err();
    assert!(e.contains("version"), "{e}");
    let mut bad = sys.clone();
    let leaf = 72
        + 8 * (1..)
            .find(|u| i32::from_le_bytes(bad[72 + 8 * u..76 + 8 * u].try_into().unwrap()) < 0)
            .unwrap();
    bad[leaf..leaf + 4].copy_from_slice(&(-(99i32 << 8) - 2).to_le_bytes());
    std::fs::write(dir.join("sys.dic"), &bad).unwrap();
    let e = Model::open(&dir).unwrap_err();
    assert!(e.contains("token table"), "{e}");
    std::fs::write(dir.join("sys.dic"), sys).unwrap();

    // A dicrc line without '=' and an odd penalty list.
    std::fs::write(dir.join("dicrc"), "broken\n").unwrap();
    assert!(Model::open(&dir).unwrap_err().contains("format error"));
    std::fs::write(dir.join("dicrc"), "left-space-penalty-factor = 120\n").unwrap();
    assert!(Model::open(&dir).unwrap_err().contains("odd number"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(Model::open(&dir).unwrap_err().contains("dicrc"));
}

#[test]
fn context_ids_must_fit_the_matrix() {
    let dir = tiny("ids", "");
    let mut m = vec![2, 0, 2, 0];
    m.extend_from_slice(&[0; 8]);
    std::fs::write(dir.join("matrix.bin"), m).unwrap();
    let e = Model::open(&dir).unwrap_err();
    assert!(e.contains("not compatible"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}
