//! Property tests (issue 6, item 3): invariants of the whole binary on random, messy input.
//!
//! The example-based tests in `cli.rs` pin known outputs; these check laws that must hold for
//! *any* input, so that a framing, batching or merging bug shows up even on input nobody thought
//! of:
//!
//! * output (stdout, stderr, exit status) is byte-identical at `--threads 1..8`, and there is
//!   exactly one row per input line;
//! * output does not depend on how the input arrives (batch boundaries): feeding it through a
//!   pipe in random chunks with small pauses — the reader cuts a batch whenever no complete line
//!   is buffered — gives the same bytes as one write;
//! * the final corpus statistics are the sums of the per-line statistics, and the corpus score is
//!   the library's score of those sums, bit for bit — for every metric whose corpus statistics
//!   are sums (all but `nltk-chrf`, whose corpus score is a sequential float sum of sentence
//!   scores, and `nltk-bleu` with smoothing 5–7, which reads the last sentence): BLEU and chrF on
//!   messy input, summed by hand from the JSON rows; GLEU, NIST, mteval BLEU, multi-bleu and NLTK
//!   BLEU (smoothing 0–4) on clean segments, where each row is also the library's row of that
//!   line alone;
//! * TSV and JSONL forms of the same segments give identical output;
//! * splitting the input anywhere and adding the two parts' corpus statistics gives the whole's
//!   statistics and score (the same metrics; the other five through their stats documents).
//!
//! Case counts are bounded (see [`config`]) so that the module runs in well under a minute in
//! `cargo test --release` on two cores; `PROPTEST_CASES` raises them for a longer local run.
//! Failing inputs are shrunk by proptest and printed; each bug found is kept below as a plain
//! regression test (section "Regressions").

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use bstr::{BStr, BString};
use clap::FromArgMatches;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};
use serde_json::{json, Value};

use bleu_stream::input::Segment;
use bleu_stream::metric::bleu::{Bleu, BleuArgs};
use bleu_stream::metric::chrf::{Chrf, ChrfArgs};
use bleu_stream::metric::options::CommonArgs;
use bleu_stream::metric::DynMetric;
use bleu_stream::metric::{registry, Registered};
use bleu_stream::output::jsonl::score_object;

use crate::util::{show_f64, Cmd, Output, BIN};

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

/// `cases` cases (or `$PROPTEST_CASES`), no regression files written into the source tree (the
/// bugs found are kept as explicit tests instead), few shrink iterations so that a failure is
/// reported in seconds, not minutes.
pub(crate) fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    }
}

/// Every metric the binary knows, so that a metric added later is covered without editing this
/// file.
fn all_metrics() -> String {
    registry::names().collect::<Vec<_>>().join(",")
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/// Words that exercise the tokenizers and metrics: punctuation rules of 13a/intl, CJK for zh,
/// entities, numbers with separators, combining marks, emoji (incl. ZWJ sequences), characters
/// whose case mapping changes length, Python-only white space (U+001C–U+001F, U+0085, U+2028),
/// a BOM, and repeated words so that n-grams match.
const VOCAB: &[&str] = &[
    "the",
    "the",
    "cat",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "Hello,",
    "world!",
    "don't",
    "It's",
    "state-of-the-art",
    "5-6",
    "1,000.5",
    "3.14",
    "1 000",
    "42",
    "2019.",
    "&amp;",
    "&quot;",
    "&lt;",
    "&gt;",
    "<skipped>",
    "“quoted”",
    "«guillemets»",
    "(paren)",
    "$5",
    "100%",
    "-",
    ".",
    ",",
    "'",
    "\"",
    "日本語",
    "中文字符",
    "한국어",
    "e\u{301}",
    "n\u{303}o",
    "🙂",
    "👩\u{200d}👩\u{200d}👧",
    "Ⅻ",
    "ﬁ",
    "İstanbul",
    "STRASSE",
    "straße",
    "ΣΑΣ",
    "\u{a0}",
    "\u{1c}",
    "\u{85}",
    "\u{2028}",
    "\u{3000}",
    "\u{feff}",
    "x\u{200b}y",
    "Ünïcödé",
    "…",
    "—",
];

/// Byte sequences that are not UTF-8: a lone continuation byte, truncated sequences, an
/// overlong encoding, a surrogate, bytes that never occur.
const INVALID_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f\x99",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xf8\x88\x80\x80\x80",
];

/// One token of raw field text.
fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        12 => prop::sample::select(VOCAB).prop_map(|s| s.as_bytes().to_vec()),
        2 => "[a-zA-Z0-9]{1,8}".prop_map(String::into_bytes),
        // Any Unicode scalar values (newlines become spaces: they would end the line).
        2 => prop::collection::vec(any::<char>(), 1..4)
            .prop_map(|cs| cs.into_iter().map(|c| if c == '\n' { ' ' } else { c }).collect::<String>().into_bytes()),
        1 => prop::sample::select(INVALID_UTF8).prop_map(<[u8]>::to_vec),
        // A long token (a very long one now and then: longer than the read buffer's slack).
        1 => (prop_oneof![9 => 1usize..200, 1 => 1000usize..5000],
              prop::sample::select(&["x", "ab", "日", "é"][..]))
            .prop_map(|(n, s)| s.repeat(n).into_bytes()),
        1 => Just(b"\r".to_vec()),
    ]
}

/// White space between tokens: ASCII (incl. VT and FF), thin space, ideographic space, NBSP.
const SEPARATORS: &[&[u8]] = &[
    b" ",
    b" ",
    b"  ",
    b"\x0b",
    b"\x0c",
    "\u{2009}".as_bytes(),
    "\u{3000}".as_bytes(),
    b"\xc2\xa0",
];

/// Blank-ish lines: empty, a space, a lone TAB, a lone CR, a lone BOM.
const BLANKS: &[&[u8]] = &[b"", b" ", b"\t", b"\r", b"\xef\xbb\xbf"];

/// Separators between tokens: spaces, runs of spaces, other white space.
fn separator() -> impl Strategy<Value = &'static [u8]> {
    prop::sample::select(SEPARATORS)
}

/// A field of 0–10 tokens (an empty field is common on purpose).
fn field() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((token(), separator()), 0..10).prop_map(|parts| {
        let mut out = Vec::new();
        for (i, (tok, sep)) in parts.into_iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(sep);
            }
            out.extend_from_slice(&tok);
        }
        out
    })
}

/// A field as a Rust string (JSON cannot carry invalid UTF-8: it is repaired).
fn text_field() -> impl Strategy<Value = String> {
    field().prop_map(|f| String::from_utf8_lossy(&f).into_owned())
}

/// One input line (without its `\n`): TSV lines with 1–5 fields, JSON records (good, with nulls,
/// ids, truncated, wrong types, missing keys), blank lines, arbitrary bytes.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let tsv = prop::collection::vec(field(), 1..=5).prop_map(|fields| fields.join(&b'\t'));
    let json_good = (
        text_field(),
        prop::collection::vec(prop::option::weighted(0.85, text_field()), 1..4),
        prop::option::of(any::<i32>()),
        any::<bool>(),
    )
        .prop_map(|(hyp, refs, id, single)| {
            let v = match (single, refs.first()) {
                (true, Some(Some(r))) => json!({"hyp": hyp, "ref": r}),
                _ => json!({"hyp": hyp, "refs": refs}),
            };
            let mut v = v;
            if let Some(id) = id {
                v["id"] = json!(id);
            }
            v.to_string().into_bytes()
        });
    let json_bad = (
        text_field(),
        text_field(),
        0usize..8,
        any::<prop::sample::Index>(),
    )
        .prop_map(|(hyp, r, kind, cut)| {
            let good = json!({"hyp": hyp, "refs": [r]}).to_string();
            match kind {
                0 => good.as_bytes()[..cut.index(good.len())].to_vec(),
                1 => json!({"refs": [r]}).to_string().into_bytes(),
                2 => json!({"hyp": 7, "refs": [r]}).to_string().into_bytes(),
                3 => json!({"hyp": hyp, "refs": "r"}).to_string().into_bytes(),
                4 => json!({"hyp": hyp, "refs": []}).to_string().into_bytes(),
                5 => json!({"hyp": hyp, "refs": [null]}).to_string().into_bytes(),
                6 => json!({"hyp": hyp, "ref": r, "refs": [r]})
                    .to_string()
                    .into_bytes(),
                _ => format!("\u{feff}{good}").into_bytes(),
            }
        });
    let junk = prop::collection::vec(any::<u8>(), 0..40).prop_map(|b| {
        b.into_iter()
            .map(|c| if c == b'\n' { b' ' } else { c })
            .collect()
    });
    prop_oneof![
        10 => tsv,
        4 => json_good,
        2 => json_bad,
        1 => prop::sample::select(BLANKS).prop_map(<[u8]>::to_vec),
        1 => junk,
    ]
}

/// An input: lines joined by `\n` or `\r\n`, with or without a final line end (a `BString`
/// so that a failing input is printed as escaped text).
pub(crate) fn input() -> impl Strategy<Value = BString> {
    (
        prop::collection::vec((line(), any::<bool>()), 0..40),
        any::<bool>(),
    )
        .prop_map(|(lines, final_newline)| BString::from(join_lines(&lines, final_newline)))
}

fn join_lines(lines: &[(Vec<u8>, bool)], final_newline: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, (l, crlf)) in lines.iter().enumerate() {
        out.extend_from_slice(l);
        if i + 1 < lines.len() || final_newline {
            out.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
        }
    }
    out
}

/// Number of input lines the binary must see: pieces between `\n`s; a final `\n` does not start
/// another line.
fn count_lines(input: &[u8]) -> usize {
    if input.is_empty() {
        return 0;
    }
    let newlines = input.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(*input.last().unwrap() != b'\n')
}

/// Options of a run that does not change the number of rows: framing, policies, metrics and
/// their settings, output format, periodic reports.
fn run_options() -> impl Strategy<Value = Vec<String>> {
    (
        prop::sample::select(&["", "tsv", "jsonl"][..]),
        prop::sample::select(&["", "any", "1", "2"][..]),
        any::<bool>(),
        prop::sample::select(&["warn", "skip"][..]),
        prop::sample::select(&["text", "jsonl"][..]),
        prop::option::weighted(0.3, 1u64..7),
        prop::option::weighted(0.2, 16usize..3000),
        metric_options(),
    )
        .prop_map(
            |(input, refs, lossy, on_error, format, every, max_line, metric_opts)| {
                let mut args: Vec<String> = Vec::new();
                if !input.is_empty() {
                    args.extend(["--input".into(), input.into()]);
                }
                if !refs.is_empty() {
                    args.extend(["--refs".into(), refs.into()]);
                }
                if lossy {
                    args.extend(["--invalid-utf8".into(), "lossy".into()]);
                }
                args.extend(["--on-error".into(), on_error.into()]);
                args.extend(["-f".into(), format.into()]);
                if let Some(n) = every {
                    args.extend(["--every".into(), n.to_string()]);
                }
                if let Some(n) = max_line {
                    args.extend(["--max-line-bytes".into(), n.to_string()]);
                }
                args.extend(metric_opts);
                args
            },
        )
}

/// Metric selection (all metrics, or BLEU and chrF alone) and settings that change scores.
fn metric_options() -> impl Strategy<Value = Vec<String>> {
    (
        any::<bool>(),
        prop::sample::select(&["", "13a", "intl", "zh", "char", "none"][..]),
        any::<bool>(),
        prop::sample::select(&["exp", "floor", "add-k", "none"][..]),
        1u32..6,
        prop::sample::select(&[0u32, 2][..]),
        any::<bool>(),
    )
        .prop_map(|(all, tok, lc, smooth, order, words, ws)| {
            let metrics = if all {
                all_metrics()
            } else {
                "bleu,chrf".to_owned()
            };
            let mut args = vec!["-m".to_owned(), metrics];
            if !tok.is_empty() {
                args.extend(["--tokenize".into(), tok.into()]);
            }
            if lc {
                args.push("-l".into());
            }
            args.extend(["-s".into(), smooth.into()]);
            args.extend(["--max-ngram-order".into(), order.to_string()]);
            args.extend(["--chrf-word-order".into(), words.to_string()]);
            if ws {
                args.push("--chrf-whitespace".into());
            }
            args
        })
}

/// How stdin is delivered: chunk sizes (cycled) and a pause after each chunk.
#[derive(Clone, Debug)]
struct Feed {
    chunks: Vec<usize>,
    pause_us: Vec<u64>,
}

fn feed() -> impl Strategy<Value = Feed> {
    (
        prop::collection::vec(prop_oneof![1usize..64, 64usize..4096], 1..12),
        prop::collection::vec(prop_oneof![3 => Just(0u64), 1 => 0u64..2000], 1..6),
    )
        .prop_map(|(chunks, pause_us)| Feed { chunks, pause_us })
}

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

/// The parts of a run that must be reproducible.
#[derive(Clone, PartialEq, Eq)]
struct Run {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: Option<i32>,
}

/// Outputs shown as (escaped) text, so that a failure message can be read.
impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("code", &self.code)
            .field("stdout", &BStr::new(&self.stdout))
            .field("stderr", &BStr::new(&self.stderr))
            .finish()
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        assert!(!o.timed_out, "{}", o.describe());
        Run {
            stdout: o.stdout,
            stderr: o.stderr,
            code: o.code,
        }
    }
}

/// One run with the whole input written at once.
fn run_once(args: &[String], input: &[u8]) -> Run {
    Cmd::new().args(args).stdin(input.to_vec()).run().into()
}

/// One run with stdin written in `feed`'s chunks and pauses, so that the reader sees partial
/// lines (even split UTF-8 sequences and `\r\n` pairs) and cuts batches at varying places.
fn run_fed(args: &[String], input: &[u8], feed: &Feed) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bleu-stream");
    let mut stdin = child.stdin.take().expect("piped");
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let input = input.to_vec();
    let feed = feed.clone();
    let writer = thread::spawn(move || {
        let mut pos = 0;
        let mut i = 0;
        while pos < input.len() {
            let n = feed.chunks[i % feed.chunks.len()].min(input.len() - pos);
            if stdin.write_all(&input[pos..pos + n]).is_err() {
                return; // --on-error fail may stop reading early
            }
            let _ = stdin.flush();
            pos += n;
            let pause = feed.pause_us[i % feed.pause_us.len()];
            if pause > 0 {
                thread::sleep(Duration::from_micros(pause));
            }
            i += 1;
        }
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let mut stdout = Vec::new();
    out.read_to_end(&mut stdout).expect("read stdout");
    let stderr = err_reader.join().expect("stderr reader");
    writer.join().expect("stdin writer");
    let status = child.wait().expect("wait");
    Run {
        stdout,
        stderr,
        code: status.code(),
    }
}

/// Options as given, for failure messages.
fn shell(args: &[String]) -> String {
    args.join(" ")
}

/// Checks that `run` has one row per input line: text rows on stdout, or in JSONL one segment
/// or error record per line, numbered 1..=lines in order, plus corpus records — running ones
/// every `--every` lines and one final record last.
fn check_rows(args: &[String], input: &[u8], run: &Run) -> Result<(), TestCaseError> {
    let lines = count_lines(input);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // Input whose every line is bad, or most lines, fails after its rows and report (issue 18;
    // the input audit).
    let nothing_scored = stderr.contains("error: no line could be scored")
        || stderr.contains("error: most lines were bad");
    prop_assert_eq!(
        run.code,
        Some(if nothing_scored { 1 } else { 0 }),
        "stderr: {}",
        stderr
    );
    let jsonl = args.windows(2).any(|w| w[0] == "-f" && w[1] == "jsonl");
    if !jsonl {
        let rows = run.stdout.iter().filter(|&&b| b == b'\n').count();
        prop_assert_eq!(rows, lines, "text rows vs input lines");
        prop_assert!(run.stdout.is_empty() || run.stdout.ends_with(b"\n"));
        return Ok(());
    }
    let text = std::str::from_utf8(&run.stdout).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let records: Vec<Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| TestCaseError::fail(format!("stdout is not JSON Lines: {e}")))?;
    let every = args
        .windows(2)
        .find(|w| w[0] == "--every")
        .map(|w| w[1].parse::<usize>().unwrap());
    let mut line = 0u64;
    let mut running = 0;
    for (i, r) in records.iter().enumerate() {
        match r["type"].as_str() {
            Some("segment") | Some("error") => {
                line += 1;
                prop_assert_eq!(&r["line"], &json!(line), "record {}: {}", i, r);
            }
            Some("corpus") if i + 1 < records.len() => {
                prop_assert_eq!(&r["final"], &json!(false), "record {}", i);
                running += 1;
            }
            Some("corpus") => prop_assert_eq!(&r["final"], &json!(true)),
            _ => prop_assert!(false, "unexpected record {}", r),
        }
    }
    prop_assert_eq!(line as usize, lines, "segment+error records vs input lines");
    prop_assert_eq!(running, every.map_or(0, |k| lines / k), "running reports");
    prop_assert_eq!(
        records.last().map(|r| r["type"].clone()),
        Some(json!("corpus"))
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Statistics helpers
// ---------------------------------------------------------------------------------------------

/// A JSON array of non-negative integers (possibly written as floats, like sacreBLEU's counts).
fn ints(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| {
            let f = x.as_f64().unwrap_or_else(|| panic!("not a number: {x}"));
            assert!(f >= 0.0 && f.fract() == 0.0, "not a count: {x}");
            f as u64
        })
        .collect()
}

/// BLEU statistics of a segment or corpus JSON object as the library's vector
/// `[sys_len, ref_len, matches…, totals…]`.
fn bleu_vector(v: &Value) -> Vec<u64> {
    let mut s = vec![
        v["sys_len"].as_u64().expect("sys_len"),
        v["ref_len"].as_u64().expect("ref_len"),
    ];
    s.extend(ints(&v["counts"]));
    s.extend(ints(&v["totals"]));
    s
}

fn add_into(acc: &mut Vec<u64>, x: &[u64]) {
    if acc.is_empty() {
        acc.resize(x.len(), 0);
    }
    assert_eq!(
        acc.len(),
        x.len(),
        "statistics vectors of different lengths"
    );
    for (a, b) in acc.iter_mut().zip(x) {
        *a += b;
    }
}

/// The BLEU and chrF metrics configured exactly as the binary configures them from `args`.
fn library_metrics(args: &[String]) -> (Bleu, Chrf) {
    let argv = std::iter::once("bleu-stream".to_owned()).chain(args.iter().cloned());
    let matches = bleu_stream::cli::command()
        .try_get_matches_from(argv)
        .expect("options parse");
    let common = CommonArgs::from_arg_matches(&matches).expect("options parse");
    let bleu = BleuArgs::from_arg_matches(&matches).expect("options parse");
    let chrf = ChrfArgs::from_arg_matches(&matches).expect("options parse");
    (
        Bleu::new(Bleu::config_from_args(&common, bleu).expect("options valid")),
        Chrf::new(Chrf::config_from_args(&common, chrf).expect("options valid")),
    )
}

/// Records of a successful JSONL run: the segment records and the final corpus record.
fn segments_and_final(run: &Run) -> (Vec<Value>, Value) {
    // Input whose every line is bad fails after its report (issue 18: nothing scored is not
    // a success).
    let stderr = String::from_utf8_lossy(&run.stderr);
    let nothing_scored = stderr.contains("error: no line could be scored");
    assert_eq!(
        run.code,
        Some(if nothing_scored { 1 } else { 0 }),
        "stderr: {stderr}"
    );
    let records: Vec<Value> = std::str::from_utf8(&run.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON record"))
        .collect();
    let last = records.last().expect("a final record").clone();
    assert_eq!(last["type"], "corpus");
    assert_eq!(last["final"], true);
    let segments = records
        .into_iter()
        .filter(|r| r["type"] == "segment")
        .collect();
    (segments, last)
}

/// Segments as clean data: texts without TAB and line ends (what TSV can carry), 1–4 references.
pub(crate) fn segments() -> impl Strategy<Value = (usize, Vec<(String, Vec<String>)>)> {
    let clean = || {
        text_field().prop_map(|s| {
            s.chars()
                .map(|c| {
                    if matches!(c, '\t' | '\r' | '\n') {
                        ' '
                    } else {
                        c
                    }
                })
                .collect::<String>()
        })
    };
    (1usize..=4).prop_flat_map(move |nrefs| {
        (
            Just(nrefs),
            prop::collection::vec(
                (clean(), prop::collection::vec(clean(), nrefs..=nrefs)),
                0..30,
            ),
        )
    })
}

pub(crate) fn as_tsv(segs: &[(String, Vec<String>)]) -> Vec<u8> {
    let mut out = String::new();
    for (h, refs) in segs {
        out.push_str(h);
        for r in refs {
            out.push('\t');
            out.push_str(r);
        }
        out.push('\n');
    }
    out.into_bytes()
}

pub(crate) fn as_jsonl(segs: &[(String, Vec<String>)]) -> Vec<u8> {
    let mut out = String::new();
    for (h, refs) in segs {
        out.push_str(&json!({"hyp": h, "refs": refs}).to_string());
        out.push('\n');
    }
    out.into_bytes()
}

/// BLEU/chrF options whose per-segment JSON counts are the raw statistics (add-k smoothing
/// reports counts and totals *after* adding k, so it is left out where statistics are summed).
fn summable_options() -> impl Strategy<Value = Vec<String>> {
    (
        prop::sample::select(&["13a", "intl", "zh", "char", "none"][..]),
        any::<bool>(),
        prop::sample::select(&["exp", "floor", "none"][..]),
        1u32..6,
        prop::sample::select(&["auto", "yes", "no"][..]),
        prop::sample::select(&[0u32, 1, 2][..]),
        0u32..4,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(tok, lc, smooth, order, eff, words, beta, ws, eps)| {
            let mut args: Vec<String> = [
                "-m",
                "bleu,chrf",
                "-f",
                "jsonl",
                "--tokenize",
                tok,
                "-s",
                smooth,
                "--effective-order",
                eff,
            ]
            .map(String::from)
            .to_vec();
            args.extend(["--max-ngram-order".into(), order.to_string()]);
            args.extend(["--chrf-word-order".into(), words.to_string()]);
            args.extend(["--chrf-beta".into(), beta.to_string()]);
            if lc {
                args.push("-l".into());
            }
            if ws {
                args.push("--chrf-whitespace".into());
            }
            if eps {
                args.push("--chrf-eps-smoothing".into());
            }
            args
        })
}

/// Checks that the final record's statistics are the sums of the segment records', and that the
/// reported scores are the library's scores of those sums (bit for bit).
fn check_sums(args: &[String], run: &Run) -> Result<(), TestCaseError> {
    let (segments, fin) = segments_and_final(run);
    let (bleu, chrf) = library_metrics(args);
    let (mut bleu_sum, mut chrf_sum) = (Vec::new(), Vec::new());
    for s in &segments {
        add_into(&mut bleu_sum, &bleu_vector(&s["bleu"]));
        add_into(&mut chrf_sum, &ints(&s["chrf"]["stats"]));
    }
    let corpus_bleu = bleu_vector(&fin["bleu"]);
    let corpus_chrf = ints(&fin["chrf"]["stats"]);
    if segments.is_empty() {
        prop_assert!(corpus_bleu.iter().all(|&c| c == 0), "{:?}", corpus_bleu);
        prop_assert!(corpus_chrf.iter().all(|&c| c == 0), "{:?}", corpus_chrf);
        bleu_sum = corpus_bleu.clone();
        chrf_sum = corpus_chrf.clone();
    }
    prop_assert_eq!(&corpus_bleu, &bleu_sum, "BLEU corpus vs sum of segments");
    prop_assert_eq!(&corpus_chrf, &chrf_sum, "chrF corpus vs sum of segments");
    prop_assert_eq!(fin["segments"].as_u64(), Some(segments.len() as u64));
    let eff = bleu.config().corpus_effective_order;
    let want = bleu.compute(&bleu_sum, eff).score;
    let got = fin["bleu"]["score"].as_f64().expect("BLEU score");
    prop_assert!(
        got.to_bits() == want.to_bits(),
        "BLEU {} vs library {}",
        show_f64(got),
        show_f64(want)
    );
    let want = chrf.f_score(&chrf_sum);
    let got = fin["chrf"]["score"].as_f64().expect("chrF score");
    prop_assert!(
        got.to_bits() == want.to_bits(),
        "chrF {} vs library {}",
        show_f64(got),
        show_f64(want)
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The other mergeable metrics (GLEU, NIST, mteval BLEU, multi-bleu, NLTK BLEU 0–4)
// ---------------------------------------------------------------------------------------------

/// Settings of the metrics besides BLEU and chrF whose corpus statistics are sums: all five, in
/// random order, with the options that change what they count or how they score. NLTK BLEU only
/// with smoothing 0–4 (or none): methods 5–7 read the last sentence, so they are neither sums
/// nor mergeable (`bleu-stream merge` refuses them), and `nltk-chrf` is a float sum of sentence
/// scores in input order (refused too).
fn summable_other_options() -> impl Strategy<Value = Vec<String>> {
    let metrics = Just(vec![
        "gleu",
        "nist",
        "mteval-bleu",
        "multi-bleu",
        "nltk-bleu",
    ])
    .prop_shuffle()
    .prop_map(|m| m.join(","));
    (
        metrics,
        prop::sample::select(&["", "13a", "intl", "char", "none"][..]),
        any::<bool>(),
        prop::sample::select(&["", "0", "1", "2", "3", "4"][..]),
        prop::sample::select(&["mteval", "nltk"][..]),
        prop::sample::select(&["mteval", "none"][..]),
        1u32..=6,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(metrics, tok, lc, smoothing, nist, nist_tok, nist_order, detok, flags)| {
                let mut a: Vec<String> = vec!["-m".into(), metrics];
                if !tok.is_empty() {
                    a.extend(["--tokenize".into(), tok.into()]);
                }
                if lc {
                    a.push("-l".into());
                }
                if !smoothing.is_empty() {
                    a.extend(["--nltk-smoothing".into(), smoothing.into()]);
                }
                a.extend(["--nist-compat".into(), nist.into()]);
                a.extend(["--nist-tokenize".into(), nist_tok.into()]);
                a.extend(["--nist-order".into(), nist_order.to_string()]);
                if detok {
                    a.push("--multi-bleu-detok".into());
                }
                if flags {
                    a.extend(
                        [
                            "--case-sensitive",
                            "--mteval-international",
                            "--mteval-no-smoothing",
                            "--brevity-penalty",
                            "shortest",
                            "--gleu-min-len",
                            "2",
                            "--gleu-max-len",
                            "3",
                        ]
                        .map(String::from),
                    );
                }
                a
            },
        )
}

/// The metrics and the row width configured exactly as the binary configures them from `args`.
fn library_dyn_metrics(args: &[String]) -> (Vec<Box<dyn DynMetric>>, usize) {
    let argv = std::iter::once("bleu-stream".into()).chain(args.iter().map(Into::into));
    let config = bleu_stream::cli::parse(argv).expect("options parse and are valid");
    (config.metrics, config.width)
}

/// A segment of clean test data as the framing would give it.
fn as_segment<'a>(hyp: &'a str, refs: &'a [String]) -> Segment<'a> {
    Segment {
        hyp: Cow::Borrowed(hyp),
        refs: refs.iter().map(|r| Cow::Borrowed(r.as_str())).collect(),
        id: None,
        exact: false,
    }
}

/// Integer fields of a JSON object (numbers or arrays of numbers), flattened in the given order:
/// statistics that add up from segment to corpus.
fn int_fields(v: &Value, fields: &[&str]) -> Vec<u64> {
    let mut out = Vec::new();
    for f in fields {
        match &v[*f] {
            Value::Array(_) => out.extend(ints(&v[*f])),
            x => out.push(
                x.as_u64()
                    .unwrap_or_else(|| panic!("{f} is not a count: {v}")),
            ),
        }
    }
    out
}

/// The statistics fields that a metric's JSON rows and corpus records both carry and that
/// add up (NIST has none: its information weights come from the whole corpus's reference
/// n-gram counts, not from per-line numbers).
fn summed_row_fields(key: &str) -> &'static [&'static str] {
    match key {
        "gleu" => &["matches", "total"],
        "mteval-bleu" => &["matches", "totals", "hyp_len", "ref_len"],
        "multi-bleu" | "nltk-bleu" => &["counts", "totals", "hyp_len", "ref_len"],
        _ => &[],
    }
}

/// The same for the `stats` of a stats document (what `merge` adds).
fn summed_document_fields(key: &str) -> &'static [&'static str] {
    match key {
        "gleu" => &["matches", "total"],
        "mteval-bleu" => &["matches", "totals", "ref_len"],
        "multi-bleu" => &["correct", "total", "hyp_len", "ref_len"],
        "nltk-bleu" => &["counts", "hyp_len", "ref_len", "segments"],
        _ => &[],
    }
}

/// For clean segments scored by the binary (`run`, JSONL rows): every row is the library's row
/// of that line alone, and the final record of every metric is the library's report of the sum
/// of the lines' statistics (added in input order: NIST's table is order-sensitive), field for
/// field, bit for bit. Where rows carry additive counts, their sums are the corpus counts too.
fn check_sums_of_every_metric(
    args: &[String],
    segs: &[(String, Vec<String>)],
    run: &Run,
) -> Result<(), TestCaseError> {
    let (records, fin) = segments_and_final(run);
    prop_assert_eq!(records.len(), segs.len(), "one segment record per line");
    let (metrics, width) = library_dyn_metrics(args);
    for m in &metrics {
        let key = m.key();
        let mut ws = m.new_workspace();
        let mut batch = m.new_batch(segs.len());
        let mut row = Vec::new();
        let mut by_hand: Option<Vec<u64>> = Some(Vec::new());
        for (i, (hyp, refs)) in segs.iter().enumerate() {
            row.clear();
            let index = m.push_stats(&as_segment(hyp, refs), ws.as_mut(), batch.as_mut());
            if let Err(message) = m.write_sentence(batch.as_ref(), index, &mut row) {
                row = serde_json::to_vec(&json!({ "error": message })).expect("JSON");
            }
            let want: Value = serde_json::from_slice(&row).expect("the library's row is JSON");
            let got = &records[i][key];
            prop_assert_eq!(got, &want, "{} row {} (`{}`)", key, i + 1, shell(args));
            let fields = summed_row_fields(key);
            if got.get("error").is_some() {
                // The reference tool has no sentence score: no counts in the row to add.
                by_hand = None;
            } else if let (Some(sum), false) = (&mut by_hand, fields.is_empty()) {
                add_into(sum, &int_fields(got, fields));
            }
        }
        let mut totals = m.new_totals();
        for i in 0..segs.len() {
            m.accumulate(totals.as_mut(), batch.as_ref(), i);
        }
        let want = Value::Object(score_object(&m.score(totals.as_ref()), width));
        prop_assert_eq!(&fin[key], &want, "{} corpus (`{}`)", key, shell(args));
        let fields = summed_row_fields(key);
        if let (Some(sum), false, false) = (by_hand, fields.is_empty(), segs.is_empty()) {
            if fin[key].get("error").is_none() {
                prop_assert_eq!(int_fields(&fin[key], fields), sum, "{} corpus counts", key);
            }
        }
    }
    Ok(())
}

/// The metric entry `key` of a stats document.
fn document_stats<'d>(doc: &'d Value, key: &str) -> &'d Value {
    doc["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .find(|m| m["key"] == key)
        .map(|m| &m["stats"])
        .unwrap_or_else(|| panic!("no {key} in {doc}"))
}

/// One stats document (`--emit stats`) of a run.
fn stats_document(run: &Run) -> Value {
    assert_eq!(
        run.code,
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).expect("a stats document")
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(40))]

    /// The number of worker threads never shows in the output: rows, reports, diagnostics and
    /// the exit status are byte-identical at 1..8 threads, with stdin arriving in chunks so that
    /// there are several batches for the workers to race on. Also: one row per input line.
    #[test]
    fn output_is_identical_at_any_thread_count(
        input in input(),
        args in run_options(),
        feed in feed(),
    ) {
        let with = |threads: u32| {
            let mut a = args.clone();
            a.extend(["--threads".into(), threads.to_string()]);
            a
        };
        let first = run_fed(&with(1), &input, &feed);
        check_rows(&args, &input, &first)?;
        for threads in 2..=8 {
            let other = run_fed(&with(threads), &input, &feed);
            prop_assert!(
                other == first,
                "--threads {} differs from --threads 1 for `{}`:\n1: {:?}\n{}: {:?}",
                threads, shell(&args), first, threads, other
            );
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Batch boundaries never show in the output: the same input fed in random chunks with
    /// random pauses (the reader hands over a batch whenever no complete line is buffered, so
    /// batches are cut at random places) gives the same bytes as one write of the whole input.
    #[test]
    fn output_does_not_depend_on_batch_boundaries(
        input in input(),
        args in run_options(),
        feed in feed(),
        threads in 1u32..=4,
    ) {
        let mut args = args;
        args.extend(["--threads".into(), threads.to_string()]);
        let whole = run_once(&args, &input);
        let fed = run_fed(&args, &input, &feed);
        prop_assert!(
            fed == whole,
            "chunked input {:?} differs for `{}`:\nwhole: {:?}\nfed: {:?}",
            feed, shell(&args), whole, fed
        );
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// `--on-error fail` stops at the first bad line; where it stops and what it writes must not
    /// depend on the thread count or on batch boundaries either.
    #[test]
    fn failing_on_a_bad_line_is_deterministic(
        input in input(),
        feed in feed(),
    ) {
        let args: Vec<String> = ["--on-error", "fail", "-f", "jsonl", "-m", "bleu,chrf"]
            .map(String::from).to_vec();
        let first = run_once(&args, &input);
        for threads in [1u32, 3, 8] {
            let mut a = args.clone();
            a.extend(["--threads".into(), threads.to_string()]);
            let other = run_fed(&a, &input, &feed);
            prop_assert!(other == first, "--threads {}: {:?} vs {:?}", threads, other, first);
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// The final corpus statistics are the sums of the per-line statistics (bad lines
    /// excluded), and the corpus scores are the library's scores of those sums, bit for bit.
    #[test]
    fn corpus_totals_are_sums_of_line_statistics(
        input in input(),
        args in summable_options(),
        refs_any in any::<bool>(),
        feed in feed(),
    ) {
        let mut args = args;
        args.extend(["--on-error".into(), "skip".into(), "--invalid-utf8".into(), "lossy".into()]);
        if refs_any {
            args.extend(["--refs".into(), "any".into()]);
        }
        let run = run_fed(&args, &input, &feed);
        check_sums(&args, &run)?;
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// GLEU, NIST, mteval BLEU, multi-bleu and NLTK BLEU (smoothing 0–4): the final corpus
    /// record is the library's report of the sum of the per-line statistics, and every row is
    /// the library's row of that line — at any thread count and however the input arrives.
    #[test]
    fn corpus_totals_are_sums_of_line_statistics_for_every_metric(
        (nrefs, segs) in segments(),
        args in summable_other_options(),
        jsonl in any::<bool>(),
        threads in 1u32..=4,
        feed in feed(),
    ) {
        let mut args = args;
        args.extend(["-f".into(), "jsonl".into(), "--threads".into(), threads.to_string()]);
        let input = if jsonl {
            args.extend(["--input".into(), "jsonl".into()]);
            as_jsonl(&segs)
        } else {
            args.extend(["--input".into(), "tsv".into(), "--refs".into(), nrefs.to_string()]);
            as_tsv(&segs)
        };
        let run = run_fed(&args, &input, &feed);
        check_sums_of_every_metric(&args, &segs, &run)?;
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// TSV and JSONL forms of the same segments give byte-identical output (rows, reports,
    /// diagnostics), for every metric.
    #[test]
    fn tsv_and_jsonl_forms_give_identical_scores(
        (nrefs, segs) in segments(),
        metric_args in metric_options(),
        format in prop::sample::select(&["text", "jsonl"][..]),
    ) {
        let mut args = metric_args;
        args.extend(["-f".into(), format.into()]);
        let mut tsv_args = args.clone();
        tsv_args.extend(["--input".into(), "tsv".into(), "--refs".into(), nrefs.to_string()]);
        let mut json_args = args.clone();
        json_args.extend(["--input".into(), "jsonl".into()]);
        // A TSV line is a line of a file, right-stripped as the sacreBLEU CLI strips lines; a
        // JSONL string is scored as given. Only chrF with white space kept can tell: there,
        // both forms get the stripped text.
        let segs: Vec<(String, Vec<String>)> = if args.iter().any(|a| a == "--chrf-whitespace") {
            let strip = |s: &String| bleu_stream::unicode::py_rstrip(s).to_owned();
            segs.iter().map(|(h, refs)| (strip(h), refs.iter().map(strip).collect())).collect()
        } else {
            segs.clone()
        };
        let mut tsv = run_once(&tsv_args, &as_tsv(&segs));
        let jsonl = run_once(&json_args, &as_jsonl(&segs));
        // The one diagnostic only TSV has: trailing empty hypotheses (or references) blamed on
        // `paste`, which pads TSV and nothing else.
        let text = String::from_utf8_lossy(&tsv.stderr).into_owned();
        tsv.stderr = text
            .split_inclusive('\n')
            .filter(|l| !l.contains("paste pads the shorter file"))
            .collect::<String>()
            .into_bytes();
        let stderr = String::from_utf8_lossy(&tsv.stderr);
        let nothing_scored = stderr.contains("error: no line could be scored");
        prop_assert_eq!(tsv.code, Some(if nothing_scored { 1 } else { 0 }), "{}", stderr);
        prop_assert!(
            tsv == jsonl,
            "`{}`: TSV and JSONL differ:\nTSV: {:?}\nJSONL: {:?}",
            shell(&args), tsv, jsonl
        );
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// Splitting the input at any point and adding the two parts' corpus statistics gives the
    /// whole input's corpus statistics, and the library's score of the sums is the whole's
    /// score, bit for bit (what merging shards of a test set relies on).
    #[test]
    fn split_anywhere_and_merge_gives_the_same_corpus_score(
        (_nrefs, segs) in segments(),
        args in summable_options(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut args = args;
        args.extend(["--input".into(), "jsonl".into(), "--corpus-only".into()]);
        let k = cut.index(segs.len() + 1);
        let whole = run_once(&args, &as_jsonl(&segs));
        let left = run_once(&args, &as_jsonl(&segs[..k]));
        let right = run_once(&args, &as_jsonl(&segs[k..]));
        let (_, whole) = segments_and_final(&whole);
        let (_, left) = segments_and_final(&left);
        let (_, right) = segments_and_final(&right);
        let (bleu, chrf) = library_metrics(&args);

        let mut bleu_sum = bleu_vector(&left["bleu"]);
        add_into(&mut bleu_sum, &bleu_vector(&right["bleu"]));
        prop_assert_eq!(&bleu_sum, &bleu_vector(&whole["bleu"]), "BLEU statistics at {}", k);
        let mut chrf_sum = ints(&left["chrf"]["stats"]);
        add_into(&mut chrf_sum, &ints(&right["chrf"]["stats"]));
        prop_assert_eq!(&chrf_sum, &ints(&whole["chrf"]["stats"]), "chrF statistics at {}", k);

        let merged = bleu.compute(&bleu_sum, bleu.config().corpus_effective_order).score;
        let got = whole["bleu"]["score"].as_f64().unwrap();
        prop_assert!(merged.to_bits() == got.to_bits(),
            "BLEU: merged {} vs whole {}", show_f64(merged), show_f64(got));
        let merged = chrf.f_score(&chrf_sum);
        let got = whole["chrf"]["score"].as_f64().unwrap();
        prop_assert!(merged.to_bits() == got.to_bits(),
            "chrF: merged {} vs whole {}", show_f64(merged), show_f64(got));
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// GLEU, NIST, mteval BLEU, multi-bleu and NLTK BLEU (smoothing 0–4): the two parts' stats
    /// documents, added by the library, give the whole input's statistics and its corpus report,
    /// bit for bit; the additive counts are the sums of the parts' counts.
    #[test]
    fn split_anywhere_and_merge_gives_the_same_corpus_score_for_every_metric(
        (nrefs, segs) in segments(),
        args in summable_other_options(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut args = args;
        args.extend(["--input".into(), "tsv".into(), "--refs".into(), nrefs.to_string()]);
        let k = cut.index(segs.len() + 1);
        let with = |extra: &[&str]| {
            let mut a = args.clone();
            a.extend(extra.iter().map(|s| s.to_string()));
            a
        };
        let emit = with(&["--emit", "stats"]);
        let left = stats_document(&run_once(&emit, &as_tsv(&segs[..k])));
        let right = stats_document(&run_once(&emit, &as_tsv(&segs[k..])));
        let whole_stats = stats_document(&run_once(&emit, &as_tsv(&segs)));
        let report = with(&["--corpus-only", "-f", "jsonl"]);
        let (_, whole) = segments_and_final(&run_once(&report, &as_tsv(&segs)));
        let (metrics, width) = library_dyn_metrics(&args);
        for m in &metrics {
            let key = m.key();
            prop_assert!(m.merge_refusal().is_none(), "{} refuses to merge", key);
            let mut totals = m.new_totals();
            for part in [&left, &right] {
                let merged = m.merge_saved(totals.as_mut(), document_stats(part, key));
                prop_assert!(merged.is_ok(), "{}: {:?}", key, merged);
            }
            prop_assert!(m.totals_refusal(totals.as_ref()).is_none(), "{} refused at {}", key, k);
            // NIST's float sum of words/references per segment may round differently in parts
            // (it is only used when the number of references varies: refused then, above).
            let float_sum = ["avg_ref_len_sum", "avg_ref_len_exact"];
            let merged = m.save_totals(totals.as_ref());
            let whole_doc = document_stats(&whole_stats, key);
            let differ: Vec<&String> = whole_doc
                .as_object()
                .expect("stats object")
                .iter()
                .filter(|(f, v)| !float_sum.contains(&f.as_str()) && merged.get(f.as_str()) != Some(v))
                .map(|(f, _)| f)
                .collect();
            prop_assert!(
                differ.is_empty() && merged.as_object().map(|o| o.len()) == whole_doc.as_object().map(|o| o.len()),
                "{} statistics at {}: {:?} differ (`{}`)", key, k, differ, shell(&args)
            );
            let merged = Value::Object(score_object(&m.score(totals.as_ref()), width));
            prop_assert_eq!(&merged, &whole[key], "{} report at {} (`{}`)", key, k, shell(&args));
            let fields = summed_document_fields(key);
            if !fields.is_empty() {
                let mut sum = int_fields(document_stats(&left, key), fields);
                add_into(&mut sum, &int_fields(document_stats(&right, key), fields));
                prop_assert_eq!(
                    sum,
                    int_fields(document_stats(&whole_stats, key), fields),
                    "{} counts at {}", key, k
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases the random ones reach only rarely
// ---------------------------------------------------------------------------------------------

/// More lines than one batch holds (MAX_RECORDS = 2048 in src/input/reader.rs), written at once:
/// batches are cut because they are full, not because input ran dry. Identical at 1..8 threads.
#[test]
fn full_batches_are_identical_at_any_thread_count() {
    let mut input = String::new();
    for i in 0..5000 {
        let _ = writeln!(
            input,
            "w{} the cat {} sat\tthe w{} cat sat {}",
            i % 7,
            i % 13,
            i % 5,
            i % 3
        );
        if i % 977 == 0 {
            input.push_str("bad line without a tab\n");
        }
    }
    let args: Vec<String> = ["-f", "jsonl", "-m", "bleu,chrf", "--every", "1000"]
        .map(String::from)
        .to_vec();
    let with = |t: u32| {
        let mut a = args.clone();
        a.extend(["--threads".into(), t.to_string()]);
        a
    };
    let first = run_once(&with(1), input.as_bytes());
    check_rows(&args, input.as_bytes(), &first).expect("one record per line");
    for t in 2..=8 {
        assert!(
            run_once(&with(t), input.as_bytes()) == first,
            "--threads {t} differs from --threads 1"
        );
    }
    check_sums(&args, &first).expect("totals are sums");
}

/// A property that cannot fail is a defect: the checks above must reject wrong output. Feed
/// them deliberately wrong runs and make sure they complain.
#[test]
fn the_checks_reject_wrong_output() {
    let args: Vec<String> = ["-f", "jsonl", "-m", "bleu,chrf"]
        .map(String::from)
        .to_vec();
    let input = b"a b c\ta b c\nx y\tx z\n";
    let good = run_once(&args, input);
    assert!(check_rows(&args, input, &good).is_ok());
    assert!(check_sums(&args, &good).is_ok());
    // A missing row.
    let mut dropped = good.stdout.clone();
    let first_nl = dropped.iter().position(|&b| b == b'\n').unwrap();
    dropped.drain(..=first_nl);
    let bad = Run {
        stdout: dropped,
        ..good.clone()
    };
    assert!(check_rows(&args, input, &bad).is_err());
    // A corpus count that is not the sum.
    let text = String::from_utf8(good.stdout.clone()).unwrap();
    let last = text.lines().last().unwrap();
    let mut fin: Value = serde_json::from_str(last).unwrap();
    fin["bleu"]["sys_len"] = json!(fin["bleu"]["sys_len"].as_u64().unwrap() + 1);
    let tampered = text.replace(last, &fin.to_string());
    let bad = Run {
        stdout: tampered.into_bytes(),
        ..good.clone()
    };
    assert!(check_sums(&args, &bad).is_err());
    // The same for the other metrics: a tampered corpus count, a tampered row.
    let segs: Vec<(String, Vec<String>)> = vec![
        ("a b c d e f".into(), vec!["a b c d e g".into()]),
        ("x y".into(), vec!["x z".into()]),
    ];
    let args: Vec<String> = [
        "-m",
        "gleu,nist,mteval-bleu,multi-bleu,nltk-bleu",
        "-f",
        "jsonl",
    ]
    .map(String::from)
    .to_vec();
    let good = run_once(&args, &as_tsv(&segs));
    assert!(check_sums_of_every_metric(&args, &segs, &good).is_ok());
    let text = String::from_utf8(good.stdout.clone()).unwrap();
    for (from, to) in [
        ("\"matches\":15,\"total\":21", "\"matches\":16,\"total\":21"),
        (
            "\"hyp_len\":6,\"ref_len\":6}",
            "\"hyp_len\":6,\"ref_len\":7}",
        ),
    ] {
        assert!(text.contains(from), "{from} in {text}");
        let bad = Run {
            stdout: text.replacen(from, to, 1).into_bytes(),
            ..good.clone()
        };
        assert!(
            check_sums_of_every_metric(&args, &segs, &bad).is_err(),
            "{to}"
        );
    }
    assert_eq!(count_lines(b""), 0);
    assert_eq!(count_lines(b"\n"), 1);
    assert_eq!(count_lines(b"a\nb"), 2);
    assert_eq!(count_lines(b"a\r\nb\r\n"), 2);
}

// ---------------------------------------------------------------------------------------------
// Regressions (one per bug found by the properties above)
// ---------------------------------------------------------------------------------------------

/// Bug 1 (found by `failing_on_a_bad_line_is_deterministic` and
/// `output_is_identical_at_any_thread_count`): a blank line (spaces, a BOM) before the first JSON
/// line is reported as "no TAB: expected hypothesis<TAB>reference…" when it reaches the workers
/// in a batch of its own — sent before the format is detected, framed as TSV — but as "empty
/// line" when the JSON line is in the same batch. The diagnostic, and so stdout in JSONL, depends
/// on how the input arrives. Here the blank line is sent alone, and the rest 300 ms later.
#[test]
fn regression_blank_line_before_json_is_reported_the_same_at_any_batch_boundary() {
    let args: Vec<String> = ["-f", "jsonl", "-m", "bleu"].map(String::from).to_vec();
    for blank in [&b" "[..], b"\xef\xbb\xbf", b"\x0c"] {
        let mut input = blank.to_vec();
        input.push(b'\n');
        let first = input.len();
        input.extend_from_slice(b"{\"hyp\":\"a b\",\"ref\":\"a b\"}\n");
        let whole = run_once(&args, &input);
        let split = run_fed(
            &args,
            &input,
            &Feed {
                chunks: vec![first, input.len()],
                pause_us: vec![300_000],
            },
        );
        assert_eq!(whole.code, Some(0));
        assert!(
            split == whole,
            "blank line {:?}:\nwhole: {whole:?}\nsplit: {split:?}",
            BStr::new(blank)
        );
    }
}

/// Bug 2 (found while checking the fix of bug 1): a line holding only a vertical tab (U+000B) is
/// a blank line for framing ("empty line", like a line of spaces or a form feed), but not for
/// `--input auto`'s detection, which then picks TSV from it: every JSON line after it becomes a
/// bad line ("no TAB"). A blank first line must not decide the format, whichever blank it is.
#[test]
fn regression_vertical_tab_line_does_not_decide_the_input_format() {
    let args: Vec<String> = ["-f", "jsonl", "-m", "bleu"].map(String::from).to_vec();
    for blank in [&b" "[..], b"\x0c", b"\x0b", b"\xef\xbb\xbf"] {
        let mut input = blank.to_vec();
        input.extend_from_slice(b"\n{\"hyp\":\"a b\",\"ref\":\"a b\"}\n");
        let run = run_once(&args, &input);
        let records: Vec<Value> = std::str::from_utf8(&run.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records[0]["message"], "empty line", "{run:?}");
        assert_eq!(
            records[1]["type"],
            "segment",
            "blank line {:?} made the JSON line bad: {run:?}",
            BStr::new(blank)
        );
    }
}
