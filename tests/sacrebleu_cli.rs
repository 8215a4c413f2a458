//! `bleu-stream sacrebleu …` (issue 18, part A): the same standard output, exit status and —
//! where sacreBLEU writes no Python traceback — standard error as `sacrebleu` 2.6.0.
//!
//! * Per feature, self-contained: the 75 command lines of `tests/data/sacrebleu_cli/cases.jsonl`
//!   (recorded from the real `sacrebleu` by `generate.py` in that folder, on 40-line WMT22
//!   excerpts), grouped by the feature they exercise; plus the link trick (a link named
//!   `sacrebleu` to the binary).
//! * Conformance: the 37 command lines of `../shared/vectors/sacrebleu/cli/cli_outputs.jsonl`,
//!   byte for byte (stdout, stderr, status; stderr may add the one documented line after a
//!   length mismatch); prints `conformance sacrebleu-cli: N/37 identical`.
//! * Differential: seeded random argument combinations over WMT22 files, run through the real
//!   `sacrebleu` and through the drop-in; prints the seed and case count
//!   (`BLEU_STREAM_SACRECLI_SEED`, `BLEU_STREAM_SACRECLI_CASES` to replay or widen). Skipped
//!   without sacreBLEU 2.6.0 or `../shared`, except under CI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::util::{
    eprint_whole, read_jsonl, sacrebleu_vectors, shared_or_skip, wmt22_dir, Cmd, Output, TempDir,
    BIN,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sacrebleu_cli")
}

/// Runs `bleu-stream sacrebleu ARGV` in `dir` with `NO_COLOR=1` and the record's environment.
fn run(
    dir: &Path,
    argv: &[String],
    stdin: Option<&str>,
    env: &serde_json::Map<String, Value>,
) -> Output {
    let mut cmd = Cmd::new();
    cmd.arg("sacrebleu")
        .args(argv)
        .current_dir(dir)
        .env("NO_COLOR", "1");
    cmd.env_remove("SACREBLEU_SEED")
        .env_remove("SACREBLEU_FORMAT");
    for (k, v) in env {
        cmd.env(k, v.as_str().expect("string env value"));
    }
    if let Some(f) = stdin {
        cmd.stdin(std::fs::read(dir.join(f)).expect("read the stdin file"));
    }
    cmd.run()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

/// What differs between our run and the recorded one, if anything.
fn difference(rec: &Value, out: &Output, stdout_key: &str, status_key: &str) -> Option<String> {
    let want_out = rec[stdout_key].as_str().unwrap_or("");
    let want_status = rec[status_key].as_i64().unwrap_or(-1);
    let got_status = out.code.map_or(-1, i64::from);
    let mut why = Vec::new();
    if out.stdout_str() != want_out {
        why.push(format!(
            "stdout:\n--- sacrebleu\n{want_out}--- ours\n{}",
            out.stdout_str()
        ));
    }
    if got_status != want_status {
        why.push(format!("status {got_status}, sacrebleu {want_status}"));
    }
    if let Some(want_err) = rec["stderr"].as_str() {
        let got_err = out.stderr_str();
        // The one documented addition: after sacreBLEU's "different lengths" message, a line
        // naming the files and their line counts (and nothing else).
        let (got_err, hint) = match got_err.split_once("bleu-stream: ") {
            Some((before, hint)) if want_err.contains("have different lengths") => {
                (before.to_owned(), Some(hint.to_owned()))
            }
            _ => (got_err, None),
        };
        if got_err != want_err {
            why.push(format!(
                "stderr:\n--- sacrebleu\n{want_err}--- ours\n{got_err}"
            ));
        }
        if let Some(hint) = hint {
            if !hint.contains("lines and") || hint.matches('\n').count() != 1 {
                why.push(format!(
                    "the length hint is not one line naming counts: {hint}"
                ));
            }
        }
    }
    (!why.is_empty()).then(|| why.join("\n"))
}

/// Replays the recorded cases of one feature.
fn replay(feature: &str) {
    let dir = fixtures();
    let cases: Vec<Value> = read_jsonl(&dir.join("cases.jsonl"))
        .into_iter()
        .filter(|c| c["feature"] == feature)
        .collect();
    assert!(!cases.is_empty(), "no recorded case for {feature}");
    let mut failures = Vec::new();
    for c in &cases {
        let argv = strings(&c["argv"]);
        let out = run(
            &dir,
            &argv,
            c["stdin"].as_str(),
            c["env"].as_object().expect("env"),
        );
        if let Some(why) = difference(c, &out, "stdout", "status") {
            failures.push(format!("sacrebleu {}\n{why}", argv.join(" ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} {feature} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn sacrebleu_output_formats_widths_and_metric_options() {
    replay("output");
}

#[test]
fn sacrebleu_references_num_refs_and_language_pairs() {
    replay("references");
}

#[test]
fn sacrebleu_argparse_spellings_and_usage_errors() {
    replay("parsing");
}

#[test]
fn sacrebleu_error_exits() {
    replay("errors");
}

#[test]
fn sacrebleu_sentence_level() {
    replay("sentence");
}

#[test]
fn sacrebleu_several_systems() {
    replay("systems");
}

#[test]
fn sacrebleu_confidence_intervals_with_numpy_s_generator() {
    replay("confidence");
}

#[test]
fn sacrebleu_paired_tests_with_numpy_s_generator() {
    replay("paired");
}

/// `-t NAME -l SRC-TGT` reads the references from sacreBLEU's cache (`SACREBLEU=cache`, filled by
/// sacreBLEU itself in `generate.py`): a WMT XML test set, the per-pair reference override of
/// wmt22 cs-en (reference B), a two-reference text test set, concatenated test sets, and the
/// errors of unknown test sets and language pairs.
#[test]
fn sacrebleu_test_sets_from_the_cache() {
    replay("testset");
}

/// A test set sacreBLEU would download: an error that says how to fetch it, no download, no
/// score.
#[test]
fn sacrebleu_test_set_not_in_the_cache_is_an_error_that_says_how_to_fetch_it() {
    let dir = fixtures();
    let out = Cmd::new()
        .args(["sacrebleu", "-t", "wmt22", "-l", "en-ja"])
        .current_dir(&dir)
        .env("SACREBLEU", "cache")
        .stdin(std::fs::read(dir.join("sysA.txt")).unwrap())
        .run();
    assert_eq!(out.code, Some(1));
    assert_eq!(out.stdout_str(), "");
    let err = out.stderr_str();
    assert!(
        err.contains("cache/wmt22/wmt22.en-ja.src does not exist")
            && err.contains("sacrebleu -t wmt22 -l en-ja --echo src"),
        "{err}"
    );
}

/// A tokenizer whose model or dictionary is missing or unreadable ends the drop-in with status 1
/// and one line saying what to install or where to put it (sacreBLEU raises): no panic, no
/// score, and no `--spm-model`/`--mecab-dic`, which this command line does not have.
/// Regression: it panicked while scoring (status 101 and a backtrace).
#[test]
fn sacrebleu_tokenizer_without_its_model_is_an_error_not_a_panic() {
    let dir = TempDir::new("sacrecli-models");
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(broken.join("models")).unwrap();
    std::fs::write(broken.join("models/flores200sacrebleuspm"), b"not a model").unwrap();
    let missing = dir.path().join("missing");
    let hyp = std::fs::read(fixtures().join("sysA.txt")).unwrap();
    let refs = fixtures().join("refA.txt");
    // (tokenizer, variable, its value, what the message says)
    let cases = [
        ("flores101", "SACREBLEU", &missing, "put the file there\n"),
        ("spBLEU-1K", "SACREBLEU", &missing, "put the file there\n"),
        (
            "flores200",
            "SACREBLEU",
            &broken,
            "is not a usable SentencePiece model",
        ),
        (
            "ja-mecab",
            "BLEU_STREAM_MECAB_DIC",
            &missing,
            "BLEU_STREAM_MECAB_DIC=DIR\n",
        ),
    ];
    for (tok, var, value, says) in cases {
        let out = Cmd::new()
            .arg("sacrebleu")
            .arg(&refs)
            .args(["-tok", tok])
            .env(var, value)
            .stdin(hyp.clone())
            .run();
        let err = out.stderr_str();
        assert_eq!(out.code, Some(1), "{tok}: {}", out.describe());
        assert_eq!(out.stdout_str(), "", "{tok}");
        assert!(
            err.starts_with("bleu-stream: error: ") && err.lines().count() == 1,
            "{tok}: {err}"
        );
        assert!(err.contains(says), "{tok}: {err}");
        // sacreBLEU's option, not the main command's `-t` (in sacreBLEU the test set).
        assert!(
            err.starts_with(&format!("bleu-stream: error: -tok {tok}")),
            "{tok}: {err}"
        );
        assert!(
            !err.contains("--spm-model") && !err.contains("--mecab-dic"),
            "{tok}: {err}"
        );
    }
}

/// Regression (drop-in audit, 2026-11-27): `sacrebleu ... | head -1` ends sacreBLEU by SIGPIPE
/// (`sacrebleu.py` restores its default action), which `set -o pipefail` sees as 141; the
/// drop-in exited 0. The main command keeps a filter's quiet 0 (README, "| head").
#[test]
fn sacrebleu_ends_by_sigpipe_when_its_reader_goes_away() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = fixtures();
    // The hypotheses come on stdin, written only once stdout's reader is gone: the program
    // cannot write before it (no race with a busy machine).
    let run = |args: &[&str], input: &str| {
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn bleu-stream");
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().expect("stdin");
        // (The main command may stop reading once its output is gone: no error here.)
        let _ = stdin.write_all(&std::fs::read(dir.join(input)).expect("read the input"));
        drop(stdin);
        child.wait().expect("wait")
    };
    for args in [
        &["sacrebleu", "refA.txt", "-sl"][..],
        &["sacrebleu", "refA.txt", "-m", "chrf", "-b"],
    ] {
        let status = run(args, "sysA.txt");
        assert_eq!(status.signal(), Some(13), "{args:?}: {status:?}");
    }
    let main = run(&["-w", "1"], "sysAB.tsv");
    assert_eq!(main.code(), Some(0), "{main:?}");
}

/// `ln -s $(which bleu-stream) sacrebleu`: the program name selects the drop-in.
#[test]
fn a_link_named_sacrebleu_is_the_drop_in() {
    let dir =
        std::env::temp_dir().join(format!("bleu-stream-sacrecli-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let link = dir.join("sacrebleu");
    std::os::unix::fs::symlink(BIN, &link).expect("symlink");
    let refs = fixtures().join("refA.txt");
    let hyp = std::fs::read(fixtures().join("sysA.txt")).expect("read");
    let out = Cmd::program(&link)
        .arg(&refs)
        .arg("-b")
        .stdin(hyp.clone())
        .run();
    let direct = Cmd::new()
        .arg("sacrebleu")
        .arg(&refs)
        .arg("-b")
        .stdin(hyp)
        .run();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.success(), "{}", out.describe());
    assert_eq!(out.stdout_str(), direct.stdout_str());
    assert_eq!(out.stdout_str(), "43.4\n");
    let version = Cmd::new().args(["sacrebleu", "-V"]).run();
    assert_eq!(version.stdout_str(), "sacrebleu 2.6.0\n");
}

/// The 37 recorded `sacrebleu` invocations of `../shared`, byte for byte.
#[test]
fn conformance_sacrebleu_cli_drop_in() {
    let Some(shared) = shared_or_skip("conformance sacrebleu-cli") else {
        return;
    };
    let vectors = sacrebleu_vectors(&shared).join("cli");
    let records = read_jsonl(&vectors.join("cli_outputs.jsonl"));
    let inputs = vectors.join("inputs");
    let mut failures = Vec::new();
    for rec in &records {
        let argv = strings(&rec["argv"]);
        let env = rec["env"].as_object().cloned().unwrap_or_default();
        let out = run(&inputs, &argv[1..], rec["stdin_file"].as_str(), &env);
        if let Some(why) = difference(rec, &out, "stdout", "returncode") {
            failures.push(format!("{}\n{why}", argv.join(" ")));
        }
    }
    eprint_whole(&format!(
        "conformance sacrebleu-cli: {}/{} identical\n",
        records.len() - failures.len(),
        records.len()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// Differential test against the real sacrebleu
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (SplitMix64) for picking arguments.
struct Pick(u64);

impl Pick {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn one<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().filter(|s| !s.is_empty()).map(|s| {
        s.parse()
            .unwrap_or_else(|_| panic!("{name}={s} is not a number"))
    })
}

/// Whether the real `sacrebleu` 2.6.0 command can be run.
fn sacrebleu_command() -> Result<(), String> {
    match Command::new("sacrebleu").arg("--version").output() {
        Ok(o) if String::from_utf8_lossy(&o.stdout).trim() == "sacrebleu 2.6.0" => Ok(()),
        Ok(o) => Err(format!(
            "`sacrebleu --version` says {:?}",
            String::from_utf8_lossy(&o.stdout).trim()
        )),
        Err(e) => Err(format!("cannot run sacrebleu: {e}")),
    }
}

/// One random command line over a WMT22 pair: its argv and the file feeding stdin, if any.
/// The files are the first 40–400 lines of the WMT22 files, copied into `work` under their
/// relative names (sacreBLEU's TER on whole files takes seconds per system).
fn random_case(p: &mut Pick, dir: &Path, work: &Path) -> (Vec<String>, Option<String>) {
    let pairs = [
        (
            "en-de",
            &["A", "B"][..],
            &["Online-A", "Online-B", "Lan-Bridge"][..],
        ),
        (
            "de-en",
            &["A", "B"][..],
            &["Online-A", "Online-B", "Online-G"][..],
        ),
        ("en-zh", &["A"][..], &["Online-A", "Online-B"][..]),
    ];
    let (pair, refs, systems) = pairs[p.below(pairs.len())];
    let tgt = &pair[3..];
    let mut argv: Vec<String> = Vec::new();
    let nrefs = 1 + p.below(refs.len());
    for r in &refs[..nrefs] {
        argv.push(format!("references/generaltest2022.{pair}.ref.{r}.{tgt}"));
    }
    let sys = |s: &str| format!("system-outputs/generaltest2022.{pair}.hyp.{s}.{tgt}");
    let nsys = if p.chance(35) {
        2 + p.below(systems.len() - 1)
    } else {
        1
    };
    let mut stdin = None;
    if nsys == 1 && p.chance(40) {
        stdin = Some(sys(systems[p.below(systems.len())]));
    } else {
        argv.push("-i".into());
        for s in &systems[..nsys] {
            argv.push(sys(s));
        }
    }
    let mut metrics = vec!["bleu", "chrf", "ter"];
    let k = 1 + p.below(3);
    let mut chosen = Vec::new();
    for _ in 0..k {
        chosen.push(metrics.remove(p.below(metrics.len())));
    }
    // TER is slow on whole WMT22 files: keep it to small tests.
    if !(chosen.len() == 1 && chosen[0] == "bleu") || p.chance(50) {
        argv.push("-m".into());
        argv.extend(chosen.iter().map(|s| s.to_string()));
    }
    let sentence = nsys == 1 && chosen.len() == 1 && p.chance(15);
    if sentence {
        argv.push(p.one(&["-sl", "--sentence-level"]).into());
    }
    if p.chance(40) {
        argv.extend(["-f".into(), p.one(&["json", "text", "latex"]).into()]);
    }
    if p.chance(30) {
        argv.push(p.one(&["-b", "--score-only", "--score"]).into());
    }
    if p.chance(30) {
        argv.extend(["-w".into(), p.one(&["0", "2", "3", "4"]).into()]);
    }
    if p.chance(20) {
        argv.push(p.one(&["-sh", "--short"]).into());
    }
    if p.chance(20) {
        argv.push("-lc".into());
    }
    if p.chance(25) {
        argv.extend([
            "-tok".into(),
            p.one(&["13a", "intl", "zh", "char", "none"]).into(),
        ]);
    }
    if p.chance(20) {
        argv.extend(["-l".into(), format!("xx-{tgt}")]);
    }
    if p.chance(20) {
        argv.extend([
            "-s".into(),
            p.one(&["exp", "floor", "add-k", "none"]).into(),
        ]);
        if p.chance(50) {
            argv.extend(["-sv".into(), p.one(&["0.5", "2", "0.01"]).into()]);
        }
    }
    if chosen.contains(&"chrf") && p.chance(40) {
        argv.push(
            p.one(&[
                "--chrf-lowercase",
                "--chrf-whitespace",
                "--chrf-eps-smoothing",
            ])
            .into(),
        );
        if p.chance(50) {
            argv.extend(["-cw".into(), p.one(&["1", "2"]).into()]);
        }
        // sacreBLEU squares a negative beta, and fails on a corpus chrF of no order at all.
        if p.chance(25) {
            argv.extend(["--chrf-beta".into(), p.one(&["-1", "0", "3"]).into()]);
        }
        if p.chance(10) {
            argv.extend(["-cc".into(), "0".into()]);
        }
    }
    if chosen.contains(&"ter") && p.chance(40) {
        argv.push(
            p.one(&[
                "--ter-case-sensitive",
                "--ter-normalized",
                "--ter-no-punct",
                "--ter-asian-support",
            ])
            .into(),
        );
    }
    if !sentence && nsys == 1 && p.chance(25) {
        argv.extend([
            "--confidence".into(),
            "-cin".into(),
            p.one(&["50", "200"]).into(),
        ]);
    }
    if nsys > 1 && p.chance(50) {
        if p.chance(50) {
            argv.extend([
                "--paired-bs".into(),
                "-pbsn".into(),
                p.one(&["50", "200"]).into(),
            ]);
        } else {
            argv.extend([
                "--paired-ar".into(),
                "-parn".into(),
                p.one(&["50", "300"]).into(),
            ]);
        }
    }
    let lines = 40 + p.below(361);
    let _ = std::fs::remove_dir_all(work);
    for sub in ["references", "system-outputs"] {
        std::fs::create_dir_all(work.join(sub)).expect("create the case directory");
    }
    let files = argv
        .iter()
        .chain(stdin.iter())
        .filter(|a| a.starts_with("references/") || a.starts_with("system-outputs/"));
    for f in files {
        let text = std::fs::read_to_string(dir.join(f)).expect("read a WMT22 file");
        let head: String = text.split_inclusive('\n').take(lines).collect();
        std::fs::write(work.join(f), head).expect("write a case file");
    }
    (argv, stdin)
}

#[test]
fn differential_sacrebleu_cli_against_the_real_sacrebleu() {
    if let Err(why) = sacrebleu_command() {
        if std::env::var_os("CI").is_some() {
            panic!("differential sacrebleu-cli: sacreBLEU 2.6.0 is needed under CI ({why}); .ci/run installs it");
        }
        eprint_whole(&format!("SKIPPED: differential sacrebleu-cli: {why}\n"));
        return;
    }
    let Some(shared) = shared_or_skip("differential sacrebleu-cli (WMT22 files)") else {
        return;
    };
    let dir = wmt22_dir(&shared);
    let seed = env_number("BLEU_STREAM_SACRECLI_SEED").unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock")
            .as_nanos() as u64
            % 1_000_000_007
    });
    let cases = env_number("BLEU_STREAM_SACRECLI_CASES").unwrap_or(24) as usize;
    eprint_whole(&format!(
        "differential sacrebleu-cli: seed {seed}, {cases} cases\n"
    ));
    let mut pick = Pick(seed);
    let mut failures = Vec::new();
    let work =
        std::env::temp_dir().join(format!("bleu-stream-sacrecli-diff-{}", std::process::id()));
    for _ in 0..cases {
        let (argv, stdin) = random_case(&mut pick, &dir, &work);
        let dir = work.as_path();
        let mut theirs = Command::new("sacrebleu");
        theirs
            .args(&argv)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env_remove("SACREBLEU_SEED")
            .env_remove("SACREBLEU_FORMAT");
        theirs.stdin(match &stdin {
            Some(f) => std::process::Stdio::from(
                std::fs::File::open(dir.join(f)).expect("open stdin file"),
            ),
            None => std::process::Stdio::null(),
        });
        let theirs = theirs.output().expect("run sacrebleu");
        let traceback = String::from_utf8_lossy(&theirs.stderr).contains("Traceback");
        let rec = serde_json::json!({
            "stdout": String::from_utf8_lossy(&theirs.stdout),
            "status": theirs.status.code().unwrap_or(-1),
            "stderr": if traceback { Value::Null } else { Value::from(String::from_utf8_lossy(&theirs.stderr).into_owned()) },
        });
        let ours = run(dir, &argv, stdin.as_deref(), &serde_json::Map::new());
        if let Some(why) = difference(&rec, &ours, "stdout", "status") {
            failures.push(format!(
                "sacrebleu {}{}\n{why}",
                argv.join(" "),
                stdin.map(|f| format!(" < {f}")).unwrap_or_default()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprint_whole(&format!(
        "differential sacrebleu-cli: seed {seed}: {}/{cases} identical\n",
        cases - failures.len()
    ));
    assert!(
        failures.is_empty(),
        "seed {seed}:\n{}",
        failures.join("\n\n")
    );
}

/// Files of different lengths: sacreBLEU's message, status 1, then one line naming each file
/// and its line count (regression, drop-in audit: the message said neither).
#[test]
fn different_lengths_name_the_files_and_counts() {
    let dir = TempDir::new("sacrecli-lengths");
    let r = dir.file_str("ref.txt", "a\nb\nc\n");
    let h = dir.file_str("hyp.txt", "a\nb\n");
    let out = Cmd::new().args(["sacrebleu", &r, "-i", &h]).run();
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert_eq!(out.stdout_str(), "");
    assert_eq!(
        out.stderr_str(),
        format!(
            "sacreBLEU: System and reference streams have different lengths.\n\
             bleu-stream: '{h}' has 2 lines and '{r}' 3: every system line pairs with the line \
             of each reference at the same number (a line missing or extra, or a truncated \
             file?)\n"
        )
    );
}

/// sacrebleu.py strips a `-nr N` reference line as a whole before splitting it at TABs, and the
/// first line of several systems on stdin likewise: those fields keep their trailing white
/// space, which chrF with `--chrf-whitespace` counts. The drop-in used to strip every field
/// (the main command's chrF rule). Scores recorded with sacreBLEU 2.6.0's CLI:
/// `sacrebleu refs.tsv -nr 2 -i hyp.txt -m chrf --chrf-whitespace -b` → 55.6, and
/// `sacrebleu ref.txt -m chrf --chrf-whitespace < systems.tsv` → 83.3 and 100.0.
#[test]
fn sacrebleu_strips_lines_not_fields_as_sacrebleu_py_does() {
    let dir = TempDir::new("sacrecli-strip");
    dir.file("refs.tsv", "a \tb\n");
    dir.file("hyp.txt", "a\n");
    dir.file("ref.txt", "a\n");
    let out = Cmd::new()
        .args(["sacrebleu", "refs.tsv", "-nr", "2", "-i", "hyp.txt"])
        .args(["-m", "chrf", "--chrf-whitespace", "-b"])
        .current_dir(dir.path())
        .run();
    assert_eq!(out.stdout_str(), "55.6\n", "{}", out.describe());
    let out = Cmd::new()
        .args(["sacrebleu", "ref.txt", "-m", "chrf", "--chrf-whitespace"])
        .current_dir(dir.path())
        .stdin("a \ta\n")
        .run();
    let scores: Vec<Value> = serde_json::from_str(&out.stdout_str()).expect("JSON");
    let chrf: Vec<&str> = scores
        .iter()
        .map(|s| s["chrF2"].as_str().unwrap())
        .collect();
    assert_eq!(chrf, ["83.3", "100.0"], "{}", out.describe());
}
