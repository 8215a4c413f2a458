//! `bleu-stream compare` (issue 7, item 4): paired bootstrap resampling and approximate
//! randomization of systems against a baseline.
//!
//! The CLI tests run on small made-up corpora. The conformance test runs sacreBLEU 2.6.0's
//! `--paired-bs` and `--paired-ar` on WMT22 systems (`../shared/data/wmt22`) and compares:
//! corpus scores bit for bit, and p-values, bootstrap means and interval half-widths within the
//! resampling error of two independent runs — the random numbers differ (NumPy's against ours),
//! so equality is not expected. The tolerances, derived in [`Tolerance`], are printed with every
//! number compared.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use crate::util::{
    assert_refused, eprint_whole, json_f64, par_map, shared_or_skip, wmt22_dir, Cmd, Output,
    TempDir,
};

const WORDS: [&str; 24] = [
    "the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "to", "house", "in", "red",
    "small", "garden", "quickly", "after", "rain", "children", "played", "with", "ball", "near",
    "river",
];

/// A made-up corpus: `n` references of 6–17 words, and for each `error_rate` a system that
/// replaces about that fraction of the reference words (deterministic, from `seed`).
struct Toy {
    refs: Vec<String>,
    systems: Vec<Vec<String>>,
}

fn toy(n: usize, error_rates: &[f64], seed: u64) -> Toy {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |bound: u64| -> u64 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % bound
    };
    let mut refs = Vec::new();
    let mut words: Vec<Vec<&str>> = Vec::new();
    for _ in 0..n {
        let len = 6 + next(12) as usize;
        let w: Vec<&str> = (0..len).map(|_| WORDS[next(24) as usize]).collect();
        refs.push(w.join(" ") + " .");
        words.push(w);
    }
    let systems = error_rates
        .iter()
        .map(|&rate| {
            words
                .iter()
                .map(|w| {
                    let out: Vec<&str> = w
                        .iter()
                        .map(|&x| {
                            if (next(1000) as f64) < rate * 1000.0 {
                                WORDS[next(24) as usize]
                            } else {
                                x
                            }
                        })
                        .collect();
                    out.join(" ") + " ."
                })
                .collect()
        })
        .collect();
    Toy { refs, systems }
}

fn lines(v: &[String]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}

/// `base<TAB>sys1<TAB>…` lines.
fn tsv(systems: &[Vec<String>]) -> String {
    (0..systems[0].len())
        .map(|i| {
            let fields: Vec<&str> = systems.iter().map(|s| s[i].as_str()).collect();
            fields.join("\t") + "\n"
        })
        .collect()
}

fn compare(args: &[&str]) -> Output {
    Cmd::new().arg("compare").args(args).run()
}

fn jsonl(out: &Output) -> Vec<Value> {
    out.assert_success();
    out.jsonl().expect("JSON Lines")
}

/// Regression (review of the numeric-extremes fixes): `compare` still printed Rust's `NaN` for
/// an infinite score's interval; Python (and the main command) spell it `nan`.
#[test]
fn compare_spells_a_nan_interval_as_python() {
    let dir = TempDir::new("nan");
    let r = dir.file_str("r.txt", "a b c d\nx y z\n");
    let h1 = dir.file_str("h1.txt", "a b c e\nx y z w\n");
    let h2 = dir.file_str("h2.txt", "a b c d\nx y q w\n");
    let args = [
        "-s",
        "add-k",
        "--smooth-value",
        "1e308",
        "--paired-bs-n",
        "10",
    ];
    let out = compare(&[&["-r", &r, "-i", &h1, &h2][..], &args].concat());
    out.assert_success();
    assert!(
        out.stdout_str().contains("inf (inf ± nan)") && !out.stdout_str().contains("NaN"),
        "{}",
        out.describe()
    );
}

#[test]
fn compare_prints_a_table_like_sacrebleu() {
    let dir = TempDir::new("table");
    let t = toy(120, &[0.3, 0.1, 0.3], 1);
    let r = dir.file_str("ref.txt", &lines(&t.refs));
    let base = dir.file_str("base.txt", &lines(&t.systems[0]));
    let good = dir.file_str("good.txt", &lines(&t.systems[1]));
    let same = dir.file_str("same.txt", &lines(&t.systems[0]));
    let out = compare(&["-r", &r, "-i", &base, &good, &same, "-m", "bleu,chrf"]);
    out.assert_success();
    let text = out.stdout_str();
    let rows: Vec<&str> = text.lines().collect();
    assert!(
        rows[0].starts_with("# bleu-stream ")
            && rows[0].contains("compare: paired bootstrap resampling, 1000 resamples, seed 12345, 120 segments, 2 systems"),
        "{text}"
    );
    assert!(rows[1].starts_with("System") && rows[1].contains("BLEU (μ ± 95% CI)"));
    assert!(rows[1].contains("chrF2 (μ ± 95% CI)"), "{text}");
    assert!(rows[2].starts_with(&format!("Baseline: {base}")), "{text}");
    assert!(
        !rows[2].contains("(p ="),
        "the baseline has no p-value: {text}"
    );
    // The better system: significant, at the smallest p 1000 resamples can give.
    assert!(rows[3].starts_with(&good), "{text}");
    assert!(rows[3].contains("(p = 0.0010)*"), "{text}");
    // The baseline's twin: p = 1 (ties count), and the same numbers as the baseline.
    assert!(rows[4].contains("(p = 1.0000)"), "{text}");
    let cells = |row: &str| {
        row.split("  ")
            .filter(|c| !c.trim().is_empty())
            .map(str::trim)
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let (b, s) = (cells(rows[2]), cells(rows[4]));
    assert_eq!(b[1], s[1].replace(" (p = 1.0000)", ""), "{text}");
    assert!(rows[5].starts_with("# BLEU signature: nrefs:1|bs:1000|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"), "{text}");
    assert!(
        rows[6].starts_with("# chrF2 signature: nrefs:1|bs:1000|seed:12345|"),
        "{text}"
    );
    assert!(rows[7].starts_with("# p: "), "{text}");
    assert_eq!(rows.len(), 8, "{text}");
    // Scores: `-w` decimals, like the scoring command's.
    let score = |row: &str| cells(row)[1].split(' ').next().unwrap().to_owned();
    let scored = Cmd::new().args(["-w", "3", "-b", "-r", &r, &base]).run();
    scored.assert_success();
    let out = compare(&[
        "-r",
        &r,
        "-i",
        &base,
        &good,
        "-w",
        "3",
        "--paired-bs-n",
        "10",
    ]);
    assert_eq!(
        score(out.stdout_str().lines().nth(2).unwrap()),
        scored.stdout_str().trim()
    );
}

/// The count of the test not run is warned about (audit 2026-11-27: sacreBLEU and this
/// command ignored `--paired-bs-n` under `--paired-ar` without a word).
#[test]
fn the_other_tests_count_is_warned_about() {
    let dir = TempDir::new("counts");
    let t = toy(20, &[0.3, 0.1], 3);
    let r = dir.file_str("ref.txt", &lines(&t.refs));
    let base = dir.file_str("base.txt", &lines(&t.systems[0]));
    let sys = dir.file_str("sys.txt", &lines(&t.systems[1]));
    let files = ["-r", &r, "-i", &base, &sys];
    let out = compare(&[&files[..], &["--paired-ar", "--paired-bs-n", "10"]].concat());
    out.assert_success();
    assert!(
        out.stderr_str()
            .contains("warning: --paired-bs-n does nothing here: the test is --paired-ar"),
        "{}",
        out.describe()
    );
    let out = compare(&[&files[..], &["--paired-ar-n", "10", "--paired-bs-n", "10"]].concat());
    assert!(
        out.stderr_str()
            .contains("warning: --paired-ar-n does nothing here"),
        "{}",
        out.describe()
    );
    let out = compare(&[&files[..], &["--paired-ar", "--paired-ar-n", "10"]].concat());
    assert!(out.stderr.is_empty(), "{}", out.describe());
}

/// Regression (audit 2026-11-27): many n-gram orders on a long line took memory per token and
/// order without a bound (compare reads lines whole); such a line is now an error naming the
/// limit, as the scoring command skips it.
#[test]
fn many_ngram_orders_on_a_long_line_are_an_error() {
    let dir = TempDir::new("orders");
    let long = "+ ".repeat(50_000);
    let r = dir.file_str("ref.txt", &format!("a b\n{long}\n"));
    let base = dir.file_str("base.txt", &format!("a b\n{long}\n"));
    let args = ["-r", &r, "-i", &base, &base, "-m", "gleu", "--gleu-max-len"];
    assert_refused(
        &compare(&[&args[..], &["1024"]].concat()),
        2,
        &["line 2: line of 300002 bytes is longer than 81920 bytes (--gleu-max-len 1024"],
    );
    compare(&[&args[..], &["4"]].concat()).assert_success();
    // Regression: compare had no --max-line-bytes and read any line whole.
    assert_refused(
        &compare(&["-r", &r, "-i", &base, &base, "--max-line-bytes", "64K"]),
        1,
        &[
            "base.txt: line 2: 100000 bytes, more than --max-line-bytes 65536",
            "raise --max-line-bytes",
        ],
    );
    // The limit bounds a segment, all files' lines of it together, as for scoring with -r
    // (regression, compare audit: each file had a limit of its own, and a baseline, a system
    // and a reference of 16 MB lines took 1.38 GB).
    assert_refused(
        &compare(&["-r", &r, "-i", &base, &base, "--max-line-bytes", "250K"]),
        1,
        &[
            "ref.txt: line 2: 100000 bytes, which take the segment (this line and the other \
           files' lines of it) past --max-line-bytes 256000",
        ],
    );
    compare(&[
        "-r",
        &r,
        "-i",
        &base,
        &base,
        "--max-line-bytes",
        "300K",
        "-m",
        "chrf",
    ])
    .assert_success();
}

/// Regression (audit 2026-11-27): a system file name with a line feed split its row in two.
#[test]
fn a_name_with_a_line_feed_keeps_the_table_one_row_per_system() {
    let dir = TempDir::new("names");
    let t = toy(20, &[0.3, 0.1], 2);
    let r = dir.file_str("ref.txt", &lines(&t.refs));
    let base = dir.file_str("base.txt", &lines(&t.systems[0]));
    let odd = dir.file_str("sys\nnew\"line", &lines(&t.systems[1]));
    let out = compare(&["-r", &r, "-i", &base, &odd, "--paired-bs-n", "10"]);
    out.assert_success();
    let text = out.stdout_str();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[3].contains("sys\\u{a}new\"line"), "{text}");
    assert!(rows[4].starts_with("# BLEU signature"), "{text}");
}

#[test]
fn jsonl_carries_full_precision_and_the_scoring_commands_scores() {
    let dir = TempDir::new("jsonl");
    let t = toy(80, &[0.25, 0.2], 2);
    let r = dir.file_str("ref.txt", &lines(&t.refs));
    let base = dir.file_str("base.txt", &lines(&t.systems[0]));
    let sys = dir.file_str("sys.txt", &lines(&t.systems[1]));
    let records = jsonl(&compare(&[
        "-r",
        &r,
        "-i",
        &base,
        &sys,
        "-m",
        "bleu,chrf,gleu",
        "-f",
        "jsonl",
    ]));
    assert_eq!(records.len(), 3);
    let head = &records[0];
    assert_eq!(head["type"], "compare");
    assert_eq!(head["test"], "paired-bs");
    assert_eq!(head["samples"], 1000);
    assert_eq!(head["seed"], 12345);
    assert_eq!(head["segments"], 80);
    assert_eq!(head["systems"], 1, "systems compared with the baseline");
    assert_eq!(head["metrics"]["bleu"]["name"], "BLEU");
    assert_eq!(
        head["metrics"]["bleu"]["signature"],
        "nrefs:1|bs:1000|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    );
    assert_eq!(records[1]["system"], base.as_str());
    assert_eq!(records[1]["baseline"], true);
    assert_eq!(records[2]["baseline"], false);
    assert!(records[1]["bleu"]["p_value"].is_null());
    let p = json_f64(&records[2]["bleu"]["p_value"]).unwrap();
    assert!(p > 0.0 && p <= 1.0);
    // p = (count + 1)/1001 exactly.
    let count = p * 1001.0 - 1.0;
    assert!((count - count.round()).abs() < 1e-9, "{p}");
    for key in ["bleu", "chrf", "gleu"] {
        for record in &records[1..] {
            let m = &record[key];
            let (mean, ci) = (json_f64(&m["mean"]).unwrap(), json_f64(&m["ci"]).unwrap());
            let (lower, upper) = (
                json_f64(&m["lower"]).unwrap(),
                json_f64(&m["upper"]).unwrap(),
            );
            assert!(
                lower <= mean && mean <= upper && ci == 0.5 * (upper - lower),
                "{m}"
            );
        }
    }
    // The scores are the scoring command's corpus scores, bit for bit.
    for (i, file) in [&base, &sys].iter().enumerate() {
        let scored = Cmd::new()
            .args([
                "-m",
                "bleu,chrf,gleu",
                "--corpus-only",
                "-f",
                "jsonl",
                "-r",
                &r,
                file,
            ])
            .run();
        let report = &jsonl(&scored)[0];
        for key in ["bleu", "chrf", "gleu"] {
            assert_eq!(records[i + 1][key]["score"], report[key]["score"], "{key}");
        }
    }
    // Randomization: p-values only.
    let records = jsonl(&compare(&[
        "-r",
        &r,
        "-i",
        &base,
        &sys,
        "--paired-ar",
        "-f",
        "jsonl",
    ]));
    assert_eq!(records[0]["test"], "paired-ar");
    assert_eq!(records[0]["samples"], 10000);
    assert!(records[0]["metrics"]["bleu"]["signature"]
        .as_str()
        .unwrap()
        .starts_with("nrefs:1|ar:10000|seed:12345|"));
    assert!(records[2]["bleu"]["mean"].is_null() && records[2]["bleu"]["ci"].is_null());
    let p = json_f64(&records[2]["bleu"]["p_value"]).unwrap();
    let count = p * 10001.0 - 1.0;
    assert!((count - count.round()).abs() < 1e-6, "{p}");
}

/// Regression (significance audit): with 3 references TER's average reference lengths are not
/// exact, and the score shown came from the resampling vectors' exact sums (117.85714285714286)
/// instead of sacreBLEU's float sum, which the scoring command reproduces: 117.85714285714289
/// (`sacrebleu r0 r1 r2 -i base -m ter -w 14 -b`, sacreBLEU 2.6.0).
#[test]
fn scores_are_the_scoring_commands_also_for_ter_with_three_references() {
    let dir = TempDir::new("compare-ter3");
    let file = |name: &str, lines: &[&str]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        dir.file_str(name, &text)
    };
    let r0 = file("r0", &["h e a", "d f"]);
    let r1 = file("r1", &["c h", "d a f d g e f b b"]);
    let r2 = file("r2", &["f a e h d g b", "b e e d g"]);
    let base = file("base", &["e b g f b", "d c d a d c a f e"]);
    let sys = file("sys", &["g e h b d e b", "g g e c h a c"]);
    let out = compare(&[
        "-r", &r0, "-r", &r1, "-r", &r2, "-i", &base, &sys, "-m", "ter", "-f", "jsonl",
    ]);
    out.assert_success();
    let records = jsonl(&out);
    assert_eq!(
        json_f64(&records[1]["ter"]["score"]),
        Some(117.85714285714289)
    );
    // The same number as the scoring command's.
    let one = Cmd::new()
        .args([
            "-m", "ter", "-r", &r0, "-r", &r1, "-r", &r2, &base, "-b", "-w", "14",
        ])
        .run();
    assert_eq!(one.stdout_str().trim(), "117.85714285714289");
}

#[test]
fn tsv_input_threads_and_seeds() {
    let dir = TempDir::new("tsv");
    let t = toy(150, &[0.3, 0.28, 0.2], 3);
    let r = dir.file_str("ref.txt", &lines(&t.refs));
    let files: Vec<String> = t
        .systems
        .iter()
        .enumerate()
        .map(|(i, s)| dir.file_str(&format!("s{i}.txt"), &lines(s)))
        .collect();
    let table = dir.file_str("systems.tsv", &tsv(&t.systems));
    for test in ["--paired-bs", "--paired-ar"] {
        let from_files = jsonl(&compare(&[
            "-r", &r, test, "-f", "jsonl", "-i", &files[0], &files[1], &files[2],
        ]));
        let from_tsv = jsonl(&compare(&["-r", &r, test, "-f", "jsonl", &table]));
        let stdin = Cmd::new()
            .args(["compare", "-r", &r, test, "-f", "jsonl", "-j", "1"])
            .stdin(tsv(&t.systems))
            .run();
        let from_stdin = jsonl(&stdin);
        assert_eq!(from_tsv, from_stdin, "a file and standard input read alike");
        assert_eq!(from_tsv[1]["system"], "Baseline");
        assert_eq!(from_tsv[2]["system"], "System 1");
        assert_eq!(from_tsv[3]["system"], "System 2");
        for i in 1..4 {
            assert_eq!(
                from_tsv[i]["bleu"], from_files[i]["bleu"],
                "{test}: TSV = files"
            );
        }
        // Threads do not change anything; another seed does.
        for threads in ["1", "2", "5"] {
            let again = jsonl(&compare(&[
                "-r", &r, test, "-f", "jsonl", "-j", threads, &table,
            ]));
            assert_eq!(again, from_tsv, "{test} -j {threads}");
        }
        let other = jsonl(&compare(&[
            "-r", &r, test, "-f", "jsonl", "--seed", "7", &table,
        ]));
        assert_eq!(other[0]["seed"], 7);
        assert_eq!(other[1]["bleu"]["score"], from_tsv[1]["bleu"]["score"]);
        assert_ne!(
            other[2]["bleu"]["p_value"], from_tsv[2]["bleu"]["p_value"],
            "{test}"
        );
    }
}

#[test]
fn metric_options_are_the_scoring_commands() {
    let dir = TempDir::new("options");
    let t = toy(40, &[0.3, 0.2], 4);
    let r = dir.file_str("ref.txt", &lines(&t.refs).to_uppercase());
    let base = dir.file_str("base.txt", &lines(&t.systems[0]));
    let sys = dir.file_str("sys.txt", &lines(&t.systems[1]));
    let options = [
        "--lowercase",
        "--chrf-word-order=2",
        "--smooth-method=floor",
        "--tokenize=char",
    ];
    let records = jsonl(&compare(
        &[
            &[
                "-r",
                &r,
                "-i",
                &base,
                &sys,
                "-m",
                "bleu,chrf",
                "-f",
                "jsonl",
                "--paired-bs-n",
                "5",
            ],
            &options[..],
        ]
        .concat(),
    ));
    let scored = Cmd::new()
        .args([
            "-m",
            "bleu,chrf",
            "--corpus-only",
            "-f",
            "jsonl",
            "-r",
            &r,
            &sys,
        ])
        .args(options)
        .run();
    let report = &jsonl(&scored)[0];
    assert_eq!(records[2]["bleu"]["score"], report["bleu"]["score"]);
    assert_eq!(records[2]["chrf"]["score"], report["chrf"]["score"]);
    assert_eq!(records[0]["metrics"]["chrf"]["name"], "chrF2++");
    let sig = records[0]["metrics"]["bleu"]["signature"].as_str().unwrap();
    assert!(
        sig.contains("case:lc") && sig.contains("tok:char") && sig.contains("smooth:floor"),
        "{sig}"
    );
}

/// `compare --help` lists the options of the metrics it can resample, not those of the
/// metrics it refuses (regression: it listed the NLTK, multi-bleu, NIST and mteval sections).
#[test]
fn help_lists_only_the_options_of_metrics_compare_supports() {
    let out = compare(&["--help"]);
    out.assert_success();
    let help = out.stdout_str();
    for shown in [
        "BLEU options:",
        "chrF options:",
        "TER options:",
        "GLEU options:",
        "--tokenize",
    ] {
        assert!(help.contains(shown), "{shown}: {help}");
    }
    for hidden in [
        "NIST options",
        "--nist-order",
        "NLTK BLEU options",
        "--nltk-smoothing",
        "multi-bleu options",
        "NLTK chrF options",
        "mteval options",
        "--mteval-international",
        "\n      --case-sensitive\n",
    ] {
        assert!(!help.contains(hidden), "{hidden}: {help}");
    }
}

#[test]
fn bad_input_is_refused_with_line_numbers() {
    let dir = TempDir::new("bad");
    let r = dir.file_str("ref.txt", "a b c\nd e f\ng h i\n");
    let r2 = dir.file_str("ref2.txt", "a b c\nd e f\n");
    let s = dir.file_str("s.txt", "a b c\nd e x\ng h i\n");
    let check = |args: &[&str], stdin: &[u8], code: i32, message: &str| {
        let out = Cmd::new().arg("compare").args(args).stdin(stdin).run();
        assert_eq!(out.code, Some(code), "{}", out.describe());
        let err = out.stderr_str();
        assert!(
            err.starts_with("bleu-stream: error: ") && err.contains(message),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    };
    check(
        &["-r", &r],
        b"a\tb\nc\td\ne\n",
        2,
        "<stdin>: line 3: 1 field, but line 1 has 2 (one per system; a TAB inside a sentence?)",
    );
    check(
        &["-r", &r],
        b"a\tb\tc\nc\td\ne\tf\n",
        2,
        "<stdin>: line 2: 2 fields, but line 1 has 3",
    );
    check(
        &["-r", &r],
        b"a\nb\nc\n",
        2,
        "line 1: one field; compare needs the baseline and at least one system",
    );
    check(
        &["-r", &r],
        b"a\tb\nc\td\n",
        1,
        "streams have different lengths: <stdin> ended after line 2 but",
    );
    check(
        &["-r", &r, "-r", &r2],
        b"a\tb\nc\td\ne\tf\n",
        1,
        "ref2.txt ended after line 2 but <stdin>, ",
    );
    check(
        &["-r", &r, "-i", &s, &r2],
        b"",
        1,
        "ref2.txt ended after line 2 but",
    );
    check(&["-r", &r], b"a\xff\tb\nc\td\ne\tf\n", 2, "<stdin>: line 1: field 1: invalid UTF-8 at byte 2 (use --invalid-utf8 lossy to replace it)");
    let empty = dir.file_str("empty.txt", "");
    check(&["-r", &empty], b"", 2, "no segments to compare");
    check(
        &["-r", &r, "-m", "bleu,nist", "-i", &s, &s],
        b"",
        2,
        "metric 'nist' cannot be resampled",
    );
    check(
        &["-r", &r, "-m", "bleu,nist", "-i", &s, &s],
        b"",
        2,
        "compare supports bleu, chrf, ter, gleu",
    );
    // The refused metric's own options still parse, so the refusal is what is said.
    check(
        &["-r", &r, "-m", "nist", "--nist-order", "4", "-i", &s, &s],
        b"",
        2,
        "metric 'nist' cannot be resampled",
    );
    check(&["-r", &r, "-m", "tER"], b"", 2, "unknown metric 'tER'");
    check(&["-i", &s, &s], b"", 2, "--ref <FILE>");
    check(&["-r", &r, "-i", &s], b"", 2, "");
    check(
        &["-r", &r, "--paired-bs", "--paired-ar", &s],
        b"",
        2,
        "cannot be used with",
    );
    check(
        &["-r", &r, "--paired-bs-n", "0", &s],
        b"",
        2,
        "--paired-bs-n",
    );
    check(
        &["-r", "-", "-"],
        b"",
        2,
        "standard input ('-') can be read only once",
    );
    let missing = dir.path().join("missing.txt");
    check(
        &["-r", missing.to_str().unwrap(), &s],
        b"",
        1,
        "missing.txt: No such file or directory",
    );
    check(&["-r", &r, "--smooth-method", "nope", &s], b"", 2, "nope");
    // Lossy UTF-8 is accepted on request.
    let out = Cmd::new()
        .args([
            "compare",
            "-r",
            &r,
            "--invalid-utf8",
            "lossy",
            "--paired-bs-n",
            "3",
        ])
        .stdin(&b"a\xff\tb\nc\td\ne\tf\n"[..])
        .run();
    out.assert_success();
    // --help: exit 0, both usages, the metric options.
    let help = compare(&["--help"]);
    help.assert_success();
    let text = help.stdout_str();
    for needle in [
        "-i BASELINE SYSTEM…",
        "--paired-ar-n",
        "--chrf-word-order",
        "--tokenize",
        "Exit status",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
}

// ---------------------------------------------------------------------------------------------
// Against sacreBLEU 2.6.0 on WMT22
// ---------------------------------------------------------------------------------------------

/// One WMT22 comparison: language pair, reference letters, baseline, systems.
struct Case {
    pair: &'static str,
    refs: &'static [&'static str],
    baseline: &'static str,
    systems: &'static [&'static str],
}

/// Close systems (p from 0.01 to 0.5) and clearly different ones; one and two references.
const CASES: [Case; 3] = [
    Case {
        pair: "de-en",
        refs: &["A"],
        baseline: "Online-B",
        systems: &["JDExploreAcademy", "Online-A", "Online-G", "LT22"],
    },
    Case {
        pair: "cs-en",
        refs: &["B", "C"],
        baseline: "Online-B",
        systems: &["JDExploreAcademy", "Online-A"],
    },
    Case {
        pair: "en-de",
        refs: &["A"],
        baseline: "Online-B",
        systems: &["JDExploreAcademy", "Online-W"],
    },
];

/// Resampling error of two independent runs of the same test on the same data.
///
/// * **p-value**: each run estimates the true p by a count over n draws, a binomial
///   proportion with standard error `√(p(1−p)/n)`; the difference of two runs has √2 times that.
///   Allowed: `4·√(p(1−p)/n)` (2.8 standard errors of the difference, p the mean of the two
///   estimates) plus `2/(n+1)` for the +1 of the formula and the coarseness of counts near 0.
/// * **bootstrap mean**: the mean of n resampled scores whose spread is σ ≈ ci/1.96 has
///   standard error σ/√n; allowed: 4·√2·σ/√n.
/// * **half-width ci = (s₉₇₄ − s₂₅)/2**: a sample quantile q of n draws has standard error
///   `√(q(1−q)/n)/f(x_q)`, for normal scores `0.0845·σ` at q = 2.5%, n = 1000; the two ends are
///   nearly independent, so ci has `0.0598·σ`, 3.05% of ci = 1.96σ, and the difference of two
///   runs 4.3%. Allowed: 4·√2·3.05% ≈ 17.2% of sacreBLEU's half-width.
///
/// sacreBLEU's float32 sums and (NumPy 2) float32 precisions move its scores by about 1e-6
/// relative, far below these.
struct Tolerance;

impl Tolerance {
    fn p(p1: f64, p2: f64, n: usize) -> f64 {
        let p = 0.5 * (p1 + p2);
        4.0 * (p * (1.0 - p) / n as f64).sqrt() + 2.0 / (n + 1) as f64
    }

    fn mean(ci: f64, n: usize) -> f64 {
        4.0 * std::f64::consts::SQRT_2 * (ci / 1.96) / (n as f64).sqrt()
    }

    /// Relative error of one half-width estimate, for normal scores.
    fn ci_relative(n: usize) -> f64 {
        let (q, z) = (0.025f64, 1.959_963_984_540_054f64);
        let density = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let quantile_se = (q * (1.0 - q) / n as f64).sqrt() / density;
        let ci_se = std::f64::consts::FRAC_1_SQRT_2 * quantile_se;
        4.0 * std::f64::consts::SQRT_2 * ci_se / z
    }
}

/// sacreBLEU's name of our metric key.
fn sacrebleu_name(key: &str) -> &'static str {
    match key {
        "bleu" => "BLEU",
        "chrf" => "chrF2",
        _ => unreachable!(),
    }
}

/// Why the pinned sacreBLEU cannot be run, if so.
fn sacrebleu_missing() -> Option<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sacrebleu, sys; sys.exit(sacrebleu.__version__ != '2.6.0')",
        ])
        .output();
    match out {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "python3 has no sacrebleu 2.6.0 ({})",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("cannot run python3: {e}")),
    }
}

/// sacreBLEU's command line, except that JSON output converts NumPy floats: with chrF,
/// `--paired-bs -f json` fails in sacreBLEU 2.6.0 itself ("Object of type float32 is not JSON
/// serializable": chrF's bootstrap mean is a NumPy float32). The conversion is exact.
const SACREBLEU_CLI: &str = "\
import json, sys, numpy
encode = json.JSONEncoder.default
def default(self, o):
    return float(o) if isinstance(o, numpy.floating) else encode(self, o)
json.JSONEncoder.default = default
from sacrebleu.sacrebleu import main
sys.argv = ['sacrebleu'] + sys.argv[1:]
main()
";

fn run_sacrebleu(dir: &Path, case: &Case, test: &str) -> Vec<Value> {
    let tgt = &case.pair[3..];
    let mut cmd = Command::new("python3");
    cmd.args(["-c", SACREBLEU_CLI]).current_dir(dir);
    for r in case.refs {
        cmd.arg(format!(
            "references/generaltest2022.{}.ref.{r}.{tgt}",
            case.pair
        ));
    }
    cmd.arg("-i");
    for s in std::iter::once(&case.baseline).chain(case.systems) {
        cmd.arg(format!(
            "system-outputs/generaltest2022.{}.hyp.{s}.{tgt}",
            case.pair
        ));
    }
    cmd.args([test, "-m", "bleu", "chrf", "-f", "json"])
        .env("SACREBLEU_SEED", "12345")
        .env("NO_COLOR", "1");
    let out = cmd.output().expect("run sacrebleu");
    assert!(
        out.status.success(),
        "sacrebleu failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&out.stdout).expect("sacreBLEU's JSON list")
}

fn run_ours(dir: &Path, case: &Case, test: &str) -> Vec<Value> {
    let tgt = &case.pair[3..];
    let mut cmd = Cmd::new();
    cmd.arg("compare").current_dir(dir);
    for r in case.refs {
        cmd.args([
            "-r",
            &format!("references/generaltest2022.{}.ref.{r}.{tgt}", case.pair),
        ]);
    }
    cmd.arg("-i");
    for s in std::iter::once(&case.baseline).chain(case.systems) {
        cmd.arg(format!(
            "system-outputs/generaltest2022.{}.hyp.{s}.{tgt}",
            case.pair
        ));
    }
    cmd.args([test, "-m", "bleu,chrf", "-f", "jsonl"]);
    jsonl(&cmd.run())
}

#[test]
fn p_values_agree_with_sacrebleu_on_wmt22_within_resampling_error() {
    let Some(shared) = shared_or_skip("compare against sacreBLEU on WMT22") else {
        return;
    };
    if let Some(why) = sacrebleu_missing() {
        if std::env::var_os("CI").is_some() {
            panic!("compare: sacreBLEU 2.6.0 is needed under CI ({why}); .ci/run installs it");
        }
        eprint_whole(&format!(
            "SKIPPED: compare against sacreBLEU: {why} (pip install sacrebleu==2.6.0)\n"
        ));
        return;
    }
    let start = Instant::now();
    let dir = wmt22_dir(&shared);
    let jobs: Vec<(&Case, &str)> = CASES
        .iter()
        .flat_map(|c| [(c, "--paired-bs"), (c, "--paired-ar")])
        .collect();
    let results = par_map(&jobs, |(case, test)| {
        (run_sacrebleu(&dir, case, test), run_ours(&dir, case, test))
    });
    let mut report = String::from(
        "compare: sacreBLEU 2.6.0 (NumPy draws) against bleu-stream compare, WMT22, seed 12345\n\
         compare: test       pair   system            metric  p(sacreBLEU) p(ours)  |Δp|    tol    \
         mean(sb)  mean(ours) tol    ci(sb)  ci(ours) tol\n",
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for ((case, test), (theirs, ours)) in jobs.iter().zip(&results) {
        let n = ours[0]["samples"].as_u64().unwrap() as usize;
        assert_eq!(theirs.len(), ours.len() - 1, "one record per system");
        for (i, (t, o)) in theirs.iter().zip(&ours[1..]).enumerate() {
            let system = if i == 0 {
                case.baseline
            } else {
                case.systems[i - 1]
            };
            for key in ["bleu", "chrf"] {
                let (t, o) = (&t[sacrebleu_name(key)], &o[key]);
                let what = format!("{test} {} {system} {key}", case.pair);
                // The corpus scores are the same computation: bit for bit.
                if json_f64(&t["score"]) != json_f64(&o["score"]) {
                    failures.push(format!("{what}: score {} vs {}", t["score"], o["score"]));
                }
                let mut line =
                    format!("compare: {test:<10} {:<6} {system:<17} {key:<7}", case.pair);
                match (json_f64(&t["p_value"]), json_f64(&o["p_value"])) {
                    (None, None) => line.push_str(&format!("{:>45}", "(baseline)")),
                    (Some(pt), Some(po)) => {
                        let tol = Tolerance::p(pt, po, n);
                        let delta = (pt - po).abs();
                        line.push_str(&format!(" {pt:>12.4} {po:>8.4} {delta:>6.4} {tol:>6.4}"));
                        if delta > tol {
                            failures.push(format!("{what}: p {pt} vs {po}, |Δ| {delta} > {tol}"));
                        }
                        compared += 1;
                    }
                    other => failures.push(format!("{what}: p-values {other:?}")),
                }
                match (json_f64(&t["mean"]), json_f64(&o["mean"])) {
                    (Some(mt), Some(mo)) => {
                        let (ct, co) = (json_f64(&t["ci"]).unwrap(), json_f64(&o["ci"]).unwrap());
                        let tol_mean = Tolerance::mean(ct, n);
                        let tol_ci = Tolerance::ci_relative(n) * ct;
                        line.push_str(&format!(
                            "  {mt:>9.4} {mo:>9.4} {tol_mean:>6.4} {ct:>7.4} {co:>8.4} {tol_ci:>6.4}"
                        ));
                        if (mt - mo).abs() > tol_mean {
                            failures
                                .push(format!("{what}: mean {mt} vs {mo} (tolerance {tol_mean})"));
                        }
                        if (ct - co).abs() > tol_ci {
                            failures.push(format!("{what}: ci {ct} vs {co} (tolerance {tol_ci})"));
                        }
                        compared += 2;
                    }
                    (None, None) => {}
                    other => failures.push(format!("{what}: means {other:?}")),
                }
                report.push_str(line.trim_end());
                report.push('\n');
            }
        }
    }
    report.push_str(&format!(
        "compare: {compared} numbers within resampling error, {} out, scores bit for bit, {:.1?}\n",
        failures.len(),
        start.elapsed()
    ));
    eprint_whole(&report);
    assert!(
        failures.is_empty(),
        "compare against sacreBLEU:\n{}",
        failures.join("\n")
    );
}

#[test]
fn tolerances_are_the_documented_ones() {
    // 1000 resamples: the half-width may differ by 17.2% (4·√2 · 3.05%).
    let rel = Tolerance::ci_relative(1000);
    assert!((rel - 0.172).abs() < 0.001, "{rel}");
    // p = 0.5, n = 1000: 4·0.0158 + 0.002.
    assert!((Tolerance::p(0.5, 0.5, 1000) - 0.0652).abs() < 0.0001);
    assert!((Tolerance::mean(1.96, 1000) - 0.1789).abs() < 0.0001);
}

/// Regression (compare audit): `paste base sys | bleu-stream compare -r ref` with a system file
/// 50 lines short compared the empty fields `paste` pads it with as that system's output, and
/// printed a "significant" difference in silence; the scoring command warns about such a run.
/// Now each column's trailing run of empty outputs is warned about (runs of 2 or more, as there:
/// a corpus may end in one empty output), and the scores stay what sacreBLEU computes.
#[test]
fn a_short_system_column_pasted_in_tsv_is_warned_about() {
    let small = toy(40, &[0.0, 0.3], 7);
    let dir = TempDir::new("short-column");
    let r = dir.file_str("r.txt", &lines(&small.refs));
    let mut short = small.systems[1].clone();
    for line in &mut short[37..] {
        line.clear();
    }
    let pasted = tsv(&[small.systems[0].clone(), short, small.systems[0].clone()]);
    let out = Cmd::new()
        .args(["compare", "-r", &r, "--paired-bs-n", "10"])
        .stdin(pasted.into_bytes())
        .run();
    out.assert_success();
    let err = out.stderr_str();
    assert!(
        err.contains("warning: System 1: the last 3 lines, from line 38 on, are empty"),
        "{err}"
    );
    assert!(err.contains("give the files with -i"), "{err}");
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    // One trailing empty output, or empty outputs before the end, are not a shorter file.
    let mut one = small.systems[1].clone();
    one[39].clear();
    one[10].clear();
    one[11].clear();
    let out = Cmd::new()
        .args(["compare", "-r", &r, "--paired-bs-n", "10"])
        .stdin(tsv(&[small.systems[0].clone(), one]).into_bytes())
        .run();
    out.assert_success();
    assert!(!out.stderr_str().contains("warning"), "{}", out.describe());
    // -i files that end in empty lines are as long as the others: those are the system's
    // output, not padding (regression, review: the warning fired and advised -i).
    let mut ends_empty = small.systems[1].clone();
    for line in &mut ends_empty[37..] {
        line.clear();
    }
    let base = dir.file_str("base.txt", &lines(&small.systems[0]));
    let sys = dir.file_str("sys.txt", &lines(&ends_empty));
    let out = compare(&["-r", &r, "-i", &base, &sys, "--paired-bs-n", "10"]);
    out.assert_success();
    assert!(!out.stderr_str().contains("warning"), "{}", out.describe());
    // A run across many batches (2,048 records at most), on two workers, and a run interrupted
    // by one non-empty output.
    let big = toy(5000, &[0.0, 0.3], 8);
    let r = dir.file_str("r5000.txt", &lines(&big.refs));
    let mut short = big.systems[1].clone();
    for (i, line) in short.iter_mut().enumerate() {
        if i >= 2500 && i != 2999 {
            line.clear();
        }
    }
    let out = Cmd::new()
        .args(["compare", "-r", &r, "--paired-bs-n", "10", "-j", "2"])
        .stdin(tsv(&[big.systems[0].clone(), short]).into_bytes())
        .run();
    out.assert_success();
    assert!(
        out.stderr_str()
            .contains("warning: System 1: the last 2000 lines, from line 3001 on, are empty"),
        "{}",
        out.describe()
    );
}
