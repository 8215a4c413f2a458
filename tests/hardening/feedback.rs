//! Outputs fed back into the input (audit F4): an output that is an input is refused before
//! anything is written (status 2), also when the file to follow does not exist yet, and when
//! the output is standard output redirected onto an input, as GNU `cat` refuses ("input file
//! is output file"). Without the refusal each row written was read back and scored again: a
//! loop that fills the disk.

use std::fs;
use std::os::unix::fs::symlink;
use std::time::Duration;

use crate::util::{assert_refused, Cmd, BIN};

const INPUT: &str = "a b c d\ta b c d\n";

/// Bounded: before the fix these runs never ended (they waited for the followed file, or
/// scored their own rows for ever).
const LIMIT: Duration = Duration::from_secs(10);

/// `--follow log -o log` with no `log` yet: refused, and nothing created (audit: once a line was
/// appended, the run wrote rows into its own input, about 50 a second, for ever). The same for
/// the report files, which it read back as JSON lines, and for an `-o` that is a dangling
/// link to the file to follow.
#[test]
fn an_output_that_is_a_file_to_follow_not_there_yet_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    symlink("log", dir.path().join("link")).unwrap();
    for (flag, path) in [
        ("-o", "log"),
        ("-o", "./log"),
        ("-o", "link"),
        ("--report-file", "log"),
        ("--prometheus", "log"),
    ] {
        let out = Cmd::new()
            .args(["--follow", "log", flag, path, "--interval", "100ms"])
            .current_dir(dir.path())
            .timeout(LIMIT)
            .run();
        assert_refused(&out, 2, &["is the same file as the input log"]);
        assert!(!dir.path().join("log").exists(), "{flag} {path}: created");
    }
}

/// Standard output redirected onto an input: `bleu-stream f >> f`, `bleu-stream < f >> f`,
/// `-r` a reference file that is standard output, `--follow log >> log` (even an empty `log`):
/// refused, the file untouched (audit: `bleu-stream self.tsv >> self.tsv` grew a 200,000-line
/// file to 99.7 MB in 10 s). `f > f` truncated `f` first: nothing is read again, so it is not
/// refused, as `cat f > f` is not.
#[test]
fn standard_output_onto_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (script, name) in [
        ("'{BIN}' f >> f", "f"),
        ("'{BIN}' < f >> f", "<stdin>"),
        ("'{BIN}' - < f 1<> f", "<stdin>"),
        ("'{BIN}' -r f < g >> f", "f"),
        ("'{BIN}' --follow f >> f", "f"),
        ("'{BIN}' --follow e >> e", "e"),
        // The file empty when the run starts (the shell truncated it), then written with the
        // rows of the files before it (review: `*.tsv > scores.tsv` grew to 24 MB in 3 s).
        ("'{BIN}' g e >> e", "e"),
        ("'{BIN}' f e > e", "e"),
    ] {
        fs::write(dir.path().join("f"), INPUT).unwrap();
        fs::write(dir.path().join("g"), "a b c d\n").unwrap();
        fs::write(dir.path().join("e"), "").unwrap();
        let script = script.replace("{BIN}", BIN);
        let out = sh(dir.path(), &script);
        assert_eq!(out.code, Some(2), "{script}: {}", out.describe());
        let said = format!("bleu-stream: error: {name}: standard output is this input");
        assert!(
            out.stderr_str().starts_with(&said),
            "{script}: {}",
            out.describe()
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("f")).unwrap(),
            INPUT,
            "{script}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("e")).unwrap(),
            "",
            "{script}"
        );
    }
    // Truncated by the shell: the input is lost already, and the run says why it is empty.
    let script = format!("'{BIN}' f > f");
    let out = sh(dir.path(), &script);
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str()
            .starts_with("bleu-stream: error: f: standard output is this input"),
        "{}",
        out.describe()
    );
    // Standard error onto the file to follow: each running report would be read back.
    fs::write(dir.path().join("e"), "").unwrap();
    let script = format!("'{BIN}' --follow e --every 1 2>> e; echo \"status $?\"");
    let out = sh(dir.path(), &script);
    assert_eq!(out.stdout_str(), "status 2\n", "{}", out.describe());
    assert!(
        fs::read_to_string(dir.path().join("e"))
            .unwrap()
            .starts_with("bleu-stream: error: e: standard error is this input"),
        "{}",
        out.describe()
    );
    // Standard input is not read with --follow: the same file as standard output is no input
    // (review: refused as `<stdin>` before).
    fs::write(dir.path().join("f"), INPUT).unwrap();
    let script = format!("timeout -s TERM 1 '{BIN}' --follow g < f >> f; echo \"status $?\"");
    let out = sh(dir.path(), &script);
    assert_eq!(out.stdout_str(), "status 124\n", "{}", out.describe());
    assert!(
        !out.stderr_str().contains("is this input"),
        "{}",
        out.describe()
    );
    // Nor for -o (refused as the same file as `<stdin>` before).
    let script = format!("timeout -s TERM 1 '{BIN}' --follow g -o f < f; echo \"status $?\"");
    let out = sh(dir.path(), &script);
    assert_eq!(out.stdout_str(), "status 124\n", "{}", out.describe());
}

/// `sh -c script` in `dir`, within the time limit.
fn sh(dir: &std::path::Path, script: &str) -> crate::util::Output {
    Cmd::program("sh")
        .args(["-c", script])
        .current_dir(dir)
        .timeout(LIMIT)
        .run()
}
