//! sacreBLEU's spellings given to the scoring command.
//!
//! MT people type sacreBLEU command lines from memory. Several of its options mean something
//! else here or parse as something else: `-lc` would be `-l -c`, `-l en-de` would lowercase and
//! read a file `en-de`, `-m bleu chrf` would score BLEU and read a file `chrf`, `-tok 13a` would
//! be `-t ok`. Each is refused before clap sees it, with the bleu-stream spelling, instead of
//! being taken silently as something else.

use std::path::Path;

/// The first sacreBLEU spelling in `argv` (after the program name), as a usage message.
pub fn check(argv: &[std::ffi::OsString]) -> Result<(), String> {
    let args: Vec<&str> = argv
        .iter()
        .skip(1)
        .map(|a| a.to_str().unwrap_or(""))
        .take_while(|a| *a != "--")
        .collect();
    for (i, &arg) in args.iter().enumerate() {
        if let Some((shown, hint)) = hint(arg, &args[i + 1..], &args[..i]) {
            return Err(format!("'{shown}' is sacreBLEU's spelling; {hint}"));
        }
    }
    Ok(())
}

/// What bleu-stream says for `arg` (followed by `rest`), if it is a sacreBLEU spelling: the
/// mistaken words and the hint.
fn hint(arg: &str, rest: &[&str], before: &[&str]) -> Option<(String, String)> {
    let next = rest.first().copied();
    // A value of the previous option (e.g. `--weights -lc`) is not an option.
    if before
        .last()
        .is_some_and(|p| takes_value(p) && !p.contains('='))
    {
        return None;
    }
    let name = arg.split('=').next().unwrap_or(arg);
    // The option's value: after `=`, else the next argument.
    let value = arg.split_once('=').map(|(_, v)| v).or(next);
    let text = match name {
        "-tok" => "bleu-stream says -t/--tokenize NAME",
        "-lc" => "bleu-stream says -l/--lowercase (which lowercases for every metric)",
        "-sl" | "--sentence-level" => {
            "bleu-stream prints a sentence score per input line by default (-b or --corpus-only \
             for the corpus score alone)"
        }
        // `--input` is bleu-stream's own option (auto, tsv, jsonl): only a file after it is
        // sacreBLEU's `--input HYP`; any other bad value is clap's to list the right ones.
        "-i" | "--input"
            if !is_input_format(value)
                && (name == "-i" || value.is_some_and(|v| Path::new(v).is_file())) =>
        {
            "bleu-stream reads the hypotheses from FILE or standard input; give the references \
             with -r/--ref FILE (bleu-stream -r ref.txt hyp.txt), or TSV lines hyp<TAB>ref"
        }
        "--chrf-lowercase" => "bleu-stream says -l/--lowercase (which lowercases for every metric)",
        "-nr" | "--num-refs" => {
            "bleu-stream says --refs N for TSV lines hyp<TAB>ref1<TAB>ref2…, or -r once per \
             reference file"
        }
        "-sh" | "--short" => "bleu-stream's signatures are sacreBLEU's long form",
        "-ci" => "bleu-stream says --confidence",
        "-sv" => "bleu-stream says --smooth-value",
        "--paired-bs" | "--paired-ar" | "--paired-bs-n" | "--paired-ar-n" | "--paired-jobs" => {
            "paired tests are `bleu-stream compare -r REF -i BASELINE SYSTEM…`"
        }
        // sacreBLEU's `-t wmt14` is its test set; here -t is the tokenizer.
        "-t" if value.is_some_and(is_test_set) => {
            return Some((
                format!("-t {}", value.unwrap_or_default()),
                "-t is --tokenize in bleu-stream; sacreBLEU's test sets (read from its local \
                 cache) are `bleu-stream sacrebleu -t NAME -l SRC-TGT`, and bleu-stream itself \
                 scores files you give it (-r REF HYP, or TSV lines)"
                    .to_owned(),
            ));
        }
        "--test-set" | "--langpair" => {
            "bleu-stream scores files you give it (-r REF HYP, or TSV lines); sacreBLEU's test \
             sets (read from its local cache) are `bleu-stream sacrebleu -t NAME -l SRC-TGT`"
        }
        "-l" if next.is_some_and(is_language_pair) => {
            return Some((
                format!("-l {}", next.unwrap_or_default()),
                "-l is --lowercase in bleu-stream, and there is no language-pair option: pick \
                 the tokenizer with -t as sacreBLEU's -l does (zh for Chinese targets, ja-mecab \
                 for Japanese, ko-mecab for Korean, else the default 13a)"
                    .to_owned(),
            ));
        }
        "-m" | "--metrics" if !arg.contains('=') && rest.len() >= 2 => {
            // `-m bleu chrf ter`: names after the list that are metric names, not files.
            let names: Vec<&str> = rest[1..]
                .iter()
                .copied()
                .take_while(|a| is_metric_name(a) && !Path::new(a).exists())
                .collect();
            if names.is_empty() {
                return None;
            }
            let list: Vec<&str> = std::iter::once(rest[0]).chain(names).collect();
            return Some((
                format!("{arg} {}", list.join(" ")),
                format!(
                    "bleu-stream takes a comma-separated list: -m {} (a name after the list \
                     would be read as an input file)",
                    list.join(",")
                ),
            ));
        }
        _ => return None,
    };
    Some((arg.to_owned(), text.to_owned()))
}

/// A metric name of bleu-stream's or sacreBLEU's (`ter`).
fn is_metric_name(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    crate::metric::registry::names().any(|n| n == lower) || ["ter", "chrf++"].contains(&&*lower)
}

/// Options of the scoring command that take a value in the next argument.
fn takes_value(option: &str) -> bool {
    matches!(
        option,
        "-r" | "--ref"
            | "-m"
            | "--metrics"
            | "-t"
            | "--tokenize"
            | "--tok"
            | "-s"
            | "--smooth-method"
            | "--weights"
            | "--epsilon"
            | "--alpha"
            | "--k"
            | "-o"
            | "--output"
            | "-w"
            | "--width"
            | "-j"
            | "--threads"
            | "-f"
            | "--format"
    )
}

/// `wmt14`, `wmt21/systems`, `iwslt17,wmt20`: sacreBLEU test-set names (its `DATASETS` of
/// 2.6.0 all start with one of these), and no tokenizer or file of that name.
fn is_test_set(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let known = |name: &str| {
        ["wmt", "iwslt", "mtnt", "mtedx", "multi30k"]
            .iter()
            .any(|p| name.starts_with(p))
    };
    lower.split(',').all(known) && !Path::new(value).exists()
}

fn is_input_format(value: Option<&str>) -> bool {
    matches!(value, Some("auto" | "tsv" | "jsonl"))
}

/// `en-de`, `zh-en`, `eng-deu`: a sacreBLEU language pair (and no file of that name).
fn is_language_pair(value: &str) -> bool {
    let mut parts = value.split('-');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| (2..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_lowercase()))
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none() && !Path::new(value).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<(), String> {
        let argv: Vec<std::ffi::OsString> = std::iter::once("bleu-stream")
            .chain(args.iter().copied())
            .map(Into::into)
            .collect();
        check(&argv)
    }

    #[test]
    fn sacrebleu_spellings_are_refused_with_the_bleu_stream_spelling() {
        for (args, shown, hint) in [
            (&["-tok", "intl"][..], "'-tok'", "-t/--tokenize"),
            (&["-lc"], "'-lc'", "-l/--lowercase"),
            (&["-sl"], "'-sl'", "sentence score per input line"),
            (&["-l", "en-de"], "'-l en-de'", "no language-pair option"),
            (&["-i", "hyp.txt"], "'-i'", "-r/--ref FILE"),
            (&["-m", "bleu", "chrf"], "'-m bleu chrf'", "-m bleu,chrf"),
            (
                &["-m", "bleu", "chrf", "ter"],
                "'-m bleu chrf ter'",
                "-m bleu,chrf,ter",
            ),
            (
                &["--chrf-lowercase"],
                "'--chrf-lowercase'",
                "-l/--lowercase",
            ),
            (&["-nr", "2"], "'-nr'", "--refs N"),
            (&["--paired-bs"], "'--paired-bs'", "bleu-stream compare"),
            (&["-t", "wmt14"], "'-t wmt14'", "-t NAME -l SRC-TGT"),
            (
                &["-t=wmt22,wmt21/systems"],
                "'-t wmt22,wmt21/systems'",
                "-t is --tokenize",
            ),
            (
                &["--input=Cargo.toml"],
                "'--input=Cargo.toml'",
                "-r/--ref FILE",
            ),
            (&["--input", "Cargo.toml"], "'--input'", "-r/--ref FILE"),
        ] {
            let e = run(args).unwrap_err();
            assert!(e.starts_with(shown) && e.contains(hint), "{args:?}: {e}");
        }
    }

    #[test]
    fn bleu_stream_spellings_pass() {
        for args in [
            &["-t", "intl", "-l"][..],
            &["-m", "bleu,chrf", "file.tsv"],
            &["-m", "bleu", "data.tsv"],
            &["--input", "tsv"],
            // Regression (input audit): a misspelt format is clap's error (which lists the
            // values), not sacreBLEU's `--input HYP`.
            &["--input", "json"],
            &["--input=xml"],
            &["--input"],
            &["-t", "13a"],
            &["-t", "flores200"],
            &["-l", "corpus.tsv"],
            &["--weights", "-lc"],
            &["--", "-lc"],
        ] {
            assert_eq!(run(args), Ok(()), "{args:?}");
        }
    }
}
