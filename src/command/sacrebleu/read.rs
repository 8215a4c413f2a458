//! Reading references and systems as `sacrebleu.py` does: files split on `\n` only, stdin with
//! universal newlines (`\r`, `\r\n`, `\n`), every line `rstrip`ped (Python whitespace), UTF-8
//! strict.

use std::io::Read;

use crate::unicode::py_rstrip;

/// Why input could not be read: the message, and the exit status sacreBLEU ends with.
pub type Failure = (String, u8);

fn decode(bytes: Vec<u8>, what: &str) -> Result<String, Failure> {
    String::from_utf8(bytes).map_err(|e| {
        (
            format!(
                "{what}: 'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid UTF-8",
                e.as_bytes()[e.utf8_error().valid_up_to()],
                e.utf8_error().valid_up_to()
            ),
            1,
        )
    })
}

/// Checks that the encoding is one we read (`-e`): UTF-8 only, under any name Python's
/// `codecs.lookup` gives the `utf_8` codec.
pub fn check_encoding(encoding: &str) -> Result<(), Failure> {
    if is_python_utf8(encoding) {
        Ok(())
    } else {
        Err((
            format!("--encoding {encoding}: only UTF-8 input is supported by bleu-stream"),
            1,
        ))
    }
}

/// Whether CPython 3.11's codec search finds `utf_8` for `name`. The C lookup normalises first
/// (`_Py_normalize_encoding`, on the name's UTF-8 bytes): ASCII letters and digits and `.` are
/// kept, lowercased, every run of other bytes becomes one `_`, dropped at the ends; so a
/// non-ASCII character separates (`utf8éucs2` is `utf8_ucs2`, `uétf8` no codec).
/// `encodings.normalize_encoding` then leaves that form as it is; the codec is the name itself
/// or an alias from `encodings.aliases`, also with `.` read as `_` (the audit found `-e U8` and
/// `-e cp65001` refused, which sacreBLEU reads as UTF-8).
fn is_python_utf8(name: &str) -> bool {
    const ALIASES: [&str; 6] = ["cp65001", "u8", "utf", "utf8", "utf8_ucs2", "utf8_ucs4"];
    let mut norm = String::with_capacity(name.len());
    let mut punct = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            if punct && !norm.is_empty() {
                norm.push('_');
            }
            norm.push(c.to_ascii_lowercase());
            punct = false;
        } else {
            punct = true;
        }
    }
    norm == "utf_8"
        || ALIASES.contains(&norm.as_str())
        || ALIASES.contains(&norm.replace('.', "_").as_str())
}

/// sacreBLEU's reference streams from `concat` (per test set, its reference files): one stream
/// per file, or with `--num-refs N` above 1 the N TAB-separated fields of every line (a line
/// with another number of fields is sacreBLEU's `FATAL`, status 17). sacreBLEU makes all
/// `max(files, N)` lists up front; here the streams past the files exist once a line fills
/// them, so `--num-refs 1000000000` costs nothing before the first line says it is wrong (the
/// audit: a 24 GB allocation aborted). Without lines, the one stream kept gives the same error
/// as all of them.
pub fn reference_streams(
    concat: &[Vec<String>],
    num_refs: i64,
    test_set: Option<&str>,
) -> Result<Vec<Vec<String>>, Failure> {
    let streams = (concat[0].len() as i64).max(num_refs).max(0) as usize;
    let mut refs: Vec<Vec<String>> = vec![Vec::new(); streams.min(concat[0].len().max(1))];
    for files in concat {
        if files.len() > streams {
            // sacreBLEU indexes its reference streams by the first test set's count.
            return Err((
                format!(
                    "-t {}: IndexError: list index out of range (a later test set has more \
                     references than the first)",
                    test_set.unwrap_or_default()
                ),
                1,
            ));
        }
        for (refno, path) in files.iter().enumerate() {
            for (lineno, line) in file_lines(path)?.into_iter().enumerate() {
                if num_refs == 1 {
                    refs[refno].push(line);
                    continue;
                }
                let fields: Vec<&str> = if num_refs >= 1 {
                    line.splitn(num_refs as usize, '\t').collect()
                } else {
                    line.split('\t').collect()
                };
                if fields.len() as i64 != num_refs {
                    return Err((
                        format!(
                            "FATAL: line {}: expected {num_refs} fields, but found {}.",
                            lineno + 1,
                            fields.len()
                        ),
                        17,
                    ));
                }
                if refs.len() < fields.len() {
                    refs.resize_with(fields.len(), Vec::new);
                }
                for (k, f) in fields.into_iter().enumerate() {
                    refs[k].push(f.to_owned());
                }
            }
        }
    }
    Ok(refs)
}

/// The `rstrip`ped lines of a file (`open(file, newline="\n")`).
pub fn file_lines(path: &str) -> Result<Vec<String>, Failure> {
    if path.ends_with(".gz") {
        return Err((
            format!("{path}: gzip-compressed input is not supported by bleu-stream; decompress it (zcat) first"),
            1,
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| (os_error(&e, path), 1))?;
    let text = decode(bytes, path)?;
    Ok(split_lines(&text, false))
}

/// The last line of Python's traceback for `open(path)` failing with `e`, e.g.
/// `FileNotFoundError: [Errno 2] No such file or directory: 'ref.txt'` (the docs audit found
/// the exception's name and number missing).
fn os_error(e: &std::io::Error, path: &str) -> String {
    use std::io::ErrorKind;
    let class = match e.kind() {
        ErrorKind::NotFound => "FileNotFoundError",
        ErrorKind::PermissionDenied => "PermissionError",
        ErrorKind::IsADirectory => "IsADirectoryError",
        ErrorKind::NotADirectory => "NotADirectoryError",
        _ => "OSError",
    };
    let number = e.raw_os_error().map_or(String::new(), |n| format!(" {n}"));
    let repr = super::pyfmt::py_str_repr(path);
    format!(
        "{class}: [Errno{number}] {}: {repr}",
        crate::diagnostic::io_message(e)
    )
}

/// Lines of `text`: on `\n` only, or with universal newlines; a final terminator does not make
/// an empty line.
pub fn split_lines(text: &str, universal: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = if universal {
            rest.find(['\n', '\r'])
        } else {
            rest.find('\n')
        };
        match end {
            Some(i) => {
                lines.push(py_rstrip(&rest[..i]).to_owned());
                let skip = if rest[i..].starts_with("\r\n") && universal {
                    2
                } else {
                    1
                };
                rest = &rest[i + skip..];
            }
            None => {
                lines.push(py_rstrip(rest).to_owned());
                break;
            }
        }
    }
    lines
}

/// Standard input as TAB-separated systems: the first line's field count is the number of
/// systems; `Err` with status 17 when a later line differs.
pub fn stdin_systems() -> Result<Vec<Vec<String>>, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
        (
            format!(
                "reading standard input: {}",
                crate::diagnostic::io_message(&e)
            ),
            1,
        )
    })?;
    let text = decode(bytes, "<stdin>")?;
    let lines = split_lines(&text, true);
    // `readline()` of an empty stream is '' → one system with one empty line.
    let first = lines.first().cloned().unwrap_or_default();
    let mut systems: Vec<Vec<String>> = first.split('\t').map(|s| vec![s.to_owned()]).collect();
    for line in lines.iter().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != systems.len() {
            return Err((
                "FATAL: the number of tab-delimited fields in the input stream differ across lines."
                    .into(),
                17,
            ));
        }
        for (s, f) in systems.iter_mut().zip(fields) {
            s.push(py_rstrip(f).to_owned());
        }
    }
    Ok(systems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names of the UTF-8 codec, against CPython 3.11's `codecs.lookup(name).name == "utf-8"`.
    #[test]
    fn python_s_names_of_utf_8() {
        for name in [
            "UTF-8",
            "utf 8",
            "Utf_8",
            "utf--8",
            "u8",
            "U8",
            "utf",
            "cp65001",
            "utf8_ucs4",
            "utf8-ucs2",
            "utf8 ",
            " utf8",
            "UTF8",
            "utf+8",
            "utf8\t",
            "utf8.ucs2",
            "-utf8-",
            // Regression (review): a non-ASCII character separates, as in CPython's C-level
            // normalisation of the bytes; these were refused.
            "utf8éucs2",
            "u8\u{e9}",
        ] {
            assert!(is_python_utf8(name), "{name:?}");
        }
        for name in [
            "utf-8-sig",
            "utf_8_sig",
            "utf.8",
            "utf8@x",
            "ｕｔｆ８",
            "utf_8.",
            "utf..8",
            "latin-1",
            "utf-16",
            "",
            "utf_9",
            // Regression (review): these were accepted, the non-ASCII letters dropped; CPython
            // reads them as `cp_65001`, `u_tf8`, `ut_f8`: no codec.
            "cp²65001",
            "uétf8",
            "utİf8",
            "locale",
        ] {
            assert!(!is_python_utf8(name), "{name:?}");
        }
    }

    /// Regression (docs audit): the exception's name and number were missing
    /// (`[Errno] No such file or directory`).
    #[test]
    fn open_errors_read_as_pythons() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(
            os_error(&e, "ref.txt"),
            "FileNotFoundError: [Errno 2] No such file or directory: 'ref.txt'"
        );
        let e = std::io::Error::from_raw_os_error(13);
        assert_eq!(
            os_error(&e, "it's"),
            "PermissionError: [Errno 13] Permission denied: \"it's\""
        );
    }

    #[test]
    fn newlines() {
        assert_eq!(split_lines("a \nb\r\nc", false), ["a", "b", "c"]);
        assert_eq!(split_lines("a\rb\n", false), ["a\rb"]);
        assert_eq!(split_lines("a\rb\r\n\nc", true), ["a", "b", "", "c"]);
        assert!(split_lines("", false).is_empty());
    }
}
