//! Live mode (SPEC §5): running reports on SIGUSR1 and `--interval`, graceful SIGINT/SIGTERM,
//! SIGHUP reopening `--output`, the report files, `--follow` through rotations, and
//! backpressure. The binary is spawned and real signals are sent; waits are bounded by generous
//! deadlines and nothing asserts a duration.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{Cmd, BIN};

pub(crate) const DEADLINE: Duration = Duration::from_secs(20);

pub(crate) fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bleu-stream-live-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name} failed");
}

/// A running binary whose stdout lines arrive on a channel.
pub(crate) struct Live {
    pub(crate) child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

/// A test that fails while its process runs (a `--follow` one runs until told to stop) would
/// leave it running after the test binary exits: it is killed here.
impl Drop for Live {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Live {
    pub(crate) fn spawn(args: &[&str]) -> Live {
        Live::spawn_with(args, Stdio::piped())
    }

    /// With stderr going to `stderr` (a file that the test reads while the process runs).
    pub(crate) fn spawn_with(args: &[&str], stderr: Stdio) -> Live {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Live {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn write(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next stdout line, waiting at most the deadline.
    pub(crate) fn line(&self) -> String {
        self.lines
            .recv_timeout(DEADLINE)
            .expect("a line within the deadline")
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.line()).unwrap()
    }

    /// Waits for the exit; returns the status code and stderr.
    pub(crate) fn wait(mut self) -> (Option<i32>, String) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                if let Some(mut stderr) = self.child.stderr.take() {
                    stderr.read_to_string(&mut err).unwrap();
                }
                return (status.code(), err);
            }
            if start.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("the process did not exit within {DEADLINE:?}");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

pub(crate) fn segment(i: usize) -> String {
    format!("a b c {i}\ta b c {i}\n")
}

#[test]
fn sigusr1_writes_a_running_report_now() {
    let mut live = Live::spawn(&["-f", "jsonl"]);
    live.write(&segment(1));
    assert_eq!(live.json()["type"], "segment");
    signal(&live.child, "USR1");
    let report = live.json();
    assert_eq!(
        (report["type"].as_str(), report["final"].as_bool()),
        (Some("corpus"), Some(false))
    );
    assert_eq!(report["segments"], 1);
    live.write(&segment(2));
    assert_eq!(live.json()["line"], 2);
    drop(live.stdin.take());
    assert_eq!(live.json()["final"], true);
    assert_eq!(live.wait().0, Some(0));
}

#[test]
fn interval_reports_arrive_without_input() {
    let mut live = Live::spawn(&["-f", "jsonl", "--interval", "50ms"]);
    // No line is written: the timer alone produces reports.
    for _ in 0..2 {
        let report = live.json();
        assert_eq!(
            (report["type"].as_str(), report["segments"].as_u64()),
            (Some("corpus"), Some(0))
        );
    }
    live.write(&segment(1));
    let mut saw_segment = false;
    while !saw_segment {
        saw_segment = live.json()["type"] == "segment";
    }
    drop(live.stdin.take());
    assert_eq!(live.wait().0, Some(0));
}

#[test]
fn sigterm_and_sigint_finish_what_was_read() {
    for (name, code) in [("TERM", 143), ("INT", 130)] {
        let mut live = Live::spawn(&["-f", "jsonl"]);
        for i in 0..5 {
            live.write(&segment(i));
        }
        for i in 0..5 {
            assert_eq!(live.json()["line"], i + 1);
        }
        // stdin stays open: the stop must not wait for the end of the input.
        signal(&live.child, name);
        let report = live.json();
        assert_eq!(
            (report["final"].as_bool(), report["segments"].as_u64()),
            (Some(true), Some(5))
        );
        let (status, stderr) = live.wait();
        assert_eq!(status, Some(code), "SIG{name}: {stderr}");
    }
}

#[test]
fn second_sigint_exits_at_once() {
    // Nobody reads stdout: the merger blocks on a full pipe, so the first SIGINT cannot finish.
    let mut child = Command::new(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let text: String = (0..200_000).map(segment).collect();
        let _ = stdin.write_all(text.as_bytes());
        stdin
    });
    thread::sleep(Duration::from_millis(300));
    let status = |child: &mut Child| child.try_wait().unwrap();
    signal(&child, "INT");
    thread::sleep(Duration::from_millis(300));
    assert!(
        status(&mut child).is_none(),
        "still finishing after the first SIGINT"
    );
    signal(&child, "INT");
    let start = Instant::now();
    while status(&mut child).is_none() {
        assert!(
            start.elapsed() < DEADLINE,
            "a second SIGINT must end the process"
        );
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(status(&mut child).unwrap().code(), Some(130));
    drop(child.stdout.take());
    let _ = writer.join();
}

pub(crate) fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < DEADLINE, "waited too long for {what}");
        thread::sleep(Duration::from_millis(10));
    }
}

fn line_count(path: &Path) -> usize {
    fs::read_to_string(path).map_or(0, |s| s.lines().count())
}

#[test]
fn sighup_reopens_the_output_file() {
    let dir = tempdir("hup");
    let out = dir.join("rows.txt");
    let mut live = Live::spawn(&["--output", out.to_str().unwrap(), "--line-buffered"]);
    live.write(&segment(1));
    live.write(&segment(2));
    wait_for("two rows", || line_count(&out) == 2);
    let rotated = dir.join("rows.txt.1");
    fs::rename(&out, &rotated).unwrap();
    signal(&live.child, "HUP");
    // The row of a line written around the signal may land in either file; none may be lost.
    let mut written = 2;
    wait_for("a new output file", || {
        written += 1;
        live.write(&segment(written));
        thread::sleep(Duration::from_millis(20));
        out.exists()
    });
    live.write(&segment(written + 1));
    written += 1;
    drop(live.stdin.take());
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(0), "{stderr}");
    let (old, new) = (line_count(&rotated), line_count(&out));
    assert!(
        old >= 2 && new >= 1,
        "rows before/after the rotation: {old}/{new}"
    );
    assert_eq!(old + new, written, "every row is in one of the two files");
    assert!(live_lines_are_rows(&fs::read_to_string(&out).unwrap()));
}

/// Regression (streaming audit): SIGHUP reopened `-o` by name without the start-up check that
/// an output is not an input. With the name turned into a link to the followed file, rows were
/// appended to the input and read back as bad lines, without end. The name is refused; the
/// rows go on to the file written before.
#[test]
fn sighup_does_not_reopen_the_output_onto_an_input() {
    let dir = tempdir("hup-input");
    let input = dir.join("in.tsv");
    let out = dir.join("rows.txt");
    fs::write(&input, segment(1)).unwrap();
    let live = Live::spawn(&[
        "--follow",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--line-buffered",
    ]);
    wait_for("the first row", || line_count(&out) == 1);
    let rotated = dir.join("rows.txt.1");
    fs::rename(&out, &rotated).unwrap();
    std::os::unix::fs::symlink(&input, &out).unwrap();
    signal(&live.child, "HUP");
    thread::sleep(Duration::from_millis(200));
    let mut file = fs::OpenOptions::new().append(true).open(&input).unwrap();
    file.write_all(segment(2).as_bytes()).unwrap();
    wait_for("the second row", || line_count(&rotated) == 2);
    thread::sleep(Duration::from_millis(200));
    signal(&live.child, "TERM");
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143), "{stderr}");
    assert!(stderr.contains("is now the input"), "{stderr}");
    assert!(stderr.contains("2 segments, 0 bad lines"), "{stderr}");
    assert_eq!(line_count(&input), 2, "no row was written into the input");
}

/// Regression (audit): when SIGHUP could not reopen `-o` (a directory put at its name), the
/// warning said just "Is a directory", not of which file. It names it now; the rows go on to
/// the file written before.
#[test]
fn sighup_names_the_output_it_could_not_reopen() {
    let dir = tempdir("hup-dir");
    let out = dir.join("rows.txt");
    let err = dir.join("stderr");
    let mut live = Live::spawn_with(
        &["--output", out.to_str().unwrap(), "--line-buffered"],
        Stdio::from(fs::File::create(&err).unwrap()),
    );
    live.write(&segment(1));
    wait_for("the first row", || line_count(&out) == 1);
    let rotated = dir.join("rows.txt.1");
    fs::rename(&out, &rotated).unwrap();
    fs::create_dir(&out).unwrap();
    signal(&live.child, "HUP");
    let said = format!(
        "bleu-stream: warning: reopening the output after SIGHUP: {}: Is a directory\n",
        out.display()
    );
    wait_for("the warning", || {
        fs::read_to_string(&err).is_ok_and(|e| e.contains(&said))
    });
    live.write(&segment(2));
    drop(live.stdin.take());
    let (status, _) = live.wait();
    assert_eq!(status, Some(0), "{}", fs::read_to_string(&err).unwrap());
    assert_eq!(line_count(&rotated), 2);
}

/// Regression (streaming audit): `-o` naming a FIFO without a reader blocked in `open`, where
/// SIGINT and SIGTERM were not acted on. The wait ends on a stop, with 128 + the signal; a
/// reader that comes gets the rows.
#[test]
fn a_stop_ends_the_wait_for_a_reader_of_an_output_fifo() {
    let dir = tempdir("out-fifo");
    let fifo = dir.join("rows.fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let live = Live::spawn(&["-o", fifo.to_str().unwrap()]);
    thread::sleep(Duration::from_millis(200));
    signal(&live.child, "TERM");
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143), "{stderr}");
    assert!(stderr.contains("waited for a reader"), "{stderr}");
    // With a reader, the rows arrive through the FIFO.
    let mut live = Live::spawn(&["-o", fifo.to_str().unwrap()]);
    let reader = {
        let fifo = fifo.clone();
        thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    live.write(&segment(1));
    drop(live.stdin.take());
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(reader.join().unwrap(), "100.00\n");
}

/// Regression (streaming audit): a SIGTERM caught while a write waited for a slow reader of
/// stdout, who then went away, ended the run with status 0 ("output closed") instead of 143.
#[test]
fn a_stop_before_the_reader_of_stdout_leaves_is_still_a_stop() {
    let dir = tempdir("stop-blocked");
    let input = dir.join("in.tsv");
    let text: String = (0..200_000).map(segment).collect();
    fs::write(&input, text).unwrap();
    let mut child = Command::new(BIN)
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Nobody reads: the pipe fills and the merger's write waits.
    thread::sleep(Duration::from_millis(300));
    signal(&child, "TERM");
    thread::sleep(Duration::from_millis(200));
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
}

fn live_lines_are_rows(text: &str) -> bool {
    text.lines().all(|l| l == "100.00")
}

#[test]
fn report_files_are_replaced_at_every_report() {
    let dir = tempdir("reports");
    let json = dir.join("report.json");
    let prom = dir.join("bleu.prom");
    let mut live = Live::spawn(&[
        "--report-file",
        json.to_str().unwrap(),
        "--prometheus",
        prom.to_str().unwrap(),
        "--every",
        "2",
    ]);
    for i in 0..3 {
        live.write(&segment(i));
    }
    wait_for("a report after 2 lines", || json.exists() && prom.exists());
    let report: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        (report["segments"].as_u64(), report["final"].as_bool()),
        (Some(2), Some(false))
    );
    drop(live.stdin.take());
    assert_eq!(live.wait().0, Some(0));
    let report: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        (report["segments"].as_u64(), report["final"].as_bool()),
        (Some(3), Some(true))
    );
    // No temporary file is left behind.
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
    check_exposition(&fs::read_to_string(&prom).unwrap());
}

/// Parses the exposition with the Python `prometheus_client` parser. CI installs it; elsewhere
/// the check is skipped with a message when the module is missing.
fn check_exposition(text: &str) {
    const PARSE: &str = r#"
import sys
from prometheus_client.parser import text_string_to_metric_families
samples = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        samples[s.name] = (family.type, s.labels, s.value)
kind, labels, value = samples["bleu_stream_score"]
assert kind == "gauge" and labels["metric"] == "bleu" and labels["name"] == "BLEU", samples
assert labels["signature"].startswith("nrefs:1|case:mixed"), labels
assert abs(value - 100.0) < 1e-9, value
assert samples["bleu_stream_segments_total"][0] == "counter" and samples["bleu_stream_segments_total"][2] == 3
assert samples["bleu_stream_bad_lines_total"][2] == 0
assert samples["bleu_stream_final"][2] == 1
print("prometheus exposition parsed:", len(samples), "samples")
"#;
    parse_with_prometheus_client("exposition", PARSE, &[], text);
}

/// Runs `script` (Python, `prometheus_client` imported by it) with `args`, the exposition
/// `text` on its stdin, and asserts that it succeeds. Without the module the check is skipped
/// with a message naming `what`, except in CI, which must have it.
fn parse_with_prometheus_client(what: &str, script: &str, args: &[&str], text: &str) {
    let has_module = Command::new("python3")
        .args(["-c", "import prometheus_client"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_module {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the prometheus_client module (pip install prometheus_client)"
        );
        eprintln!("SKIPPED: Prometheus {what} parse (python3 module prometheus_client missing)");
        return;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "prometheus_client rejected the exposition: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn slow_consumer_applies_backpressure() {
    // Nobody reads stdout for a while: the writer must be held back (bounded buffers), not
    // absorbed into growing memory.
    let mut child = Command::new(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, written) = mpsc::channel();
    let writer = thread::spawn(move || {
        let chunk: String = (0..10_000).map(segment).collect();
        let mut total = 0usize;
        for _ in 0..200 {
            if stdin.write_all(chunk.as_bytes()).is_err() {
                break;
            }
            total += chunk.len();
            let _ = tx.send(total);
        }
    });
    thread::sleep(Duration::from_millis(1500));
    let accepted = written.try_iter().last().unwrap_or(0);
    let rss_kib = fs::read_to_string(format!("/proc/{}/status", child.id()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        });
    let total = 200 * (0..10_000).map(|i| segment(i).len()).sum::<usize>();
    eprintln!("backpressure: {accepted} of {total} bytes accepted while stdout was not read; RSS {rss_kib:?} KiB");
    assert!(
        accepted < total / 4,
        "input kept flowing although nobody read the output"
    );
    if let Some(kib) = rss_kib {
        assert!(kib < 64 * 1024, "memory grew to {kib} KiB");
    }
    // Now read everything: every row arrives.
    let mut rows = 0usize;
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 {
        rows += 1;
        line.clear();
    }
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(rows, 200 * 10_000);
}

#[test]
fn regression_early_stop_with_live_input_exits() {
    // --on-error fail stops at a bad line while stdin stays open: the workers must not keep the
    // process alive waiting for input the reader will never send.
    let mut live = Live::spawn(&["--on-error", "fail"]);
    live.write("a b\ta b\nbad line\n");
    assert_eq!(live.line(), "100.00");
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("line 2: no TAB"), "{stderr}");
}

/// The read offset of file descriptor `fd` of process `pid` (`pos:` in /proc/PID/fdinfo/FD).
fn read_offset(pid: u32, fd: &str) -> u64 {
    let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("pos:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The descriptor of process `pid` open on `path`, if any.
fn fd_of(pid: u32, path: &Path) -> Option<String> {
    let path = fs::canonicalize(path).unwrap();
    fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|entry| fs::read_link(entry.path()).is_ok_and(|target| target == path))
        .map(|entry| entry.file_name().into_string().unwrap())
}

/// Waits until the read offset of `fd` stops moving (the reader is held back by the stalled
/// output); returns it.
fn settled_offset(pid: u32, fd: &str) -> u64 {
    let start = Instant::now();
    let mut last = read_offset(pid, fd);
    let mut since = Instant::now();
    loop {
        thread::sleep(Duration::from_millis(20));
        let now = read_offset(pid, fd);
        if now != last {
            (last, since) = (now, Instant::now());
        } else if since.elapsed() > Duration::from_millis(300) {
            return now;
        }
        assert!(start.elapsed() < DEADLINE, "the reader never settled");
    }
}

/// Stops a run whose reader is held back by a stalled stdout in the middle of its read buffer,
/// and checks that every complete line read (the first `pos` bytes of `data`) got its row, and
/// no other line.
fn stop_with_stalled_output(mut child: Child, data: &[u8], fd: &str) {
    let pid = child.id();
    let before = settled_offset(pid, fd);
    assert!(
        before > 0 && before < data.len() as u64,
        "the reader must be held back mid-input (offset {before} of {})",
        data.len()
    );
    signal(&child, "TERM");
    // Give the reader time to read on, if it wrongly would; the output is still not read.
    thread::sleep(Duration::from_millis(300));
    let pos = read_offset(pid, fd);
    assert_eq!(pos, before, "no read after SIGTERM");
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    let complete = data[..pos as usize].iter().filter(|&&b| b == b'\n').count();
    let records: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rows: Vec<&Value> = records.iter().filter(|r| r["type"] == "segment").collect();
    eprintln!(
        "stopped with {pos} of {} bytes read: {complete} complete lines, {} rows",
        data.len(),
        rows.len()
    );
    assert_eq!(rows.len(), complete, "one row per complete line read");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["line"], i + 1);
    }
    let last = records.last().unwrap();
    assert_eq!(last["final"], true, "{last}");
    assert_eq!(last["segments"], complete, "{last}");
    assert_eq!(last["bad_lines"], 0, "{last}");
}

fn many_lines(count: usize) -> Vec<u8> {
    // Short lines: a 128 KiB read holds several batches' worth.
    (0..count).map(segment).collect::<String>().into_bytes()
}

#[test]
fn sigterm_finishes_every_complete_line_in_the_read_buffer() {
    let dir = tempdir("stop-buffer");
    let input = dir.join("input.tsv");
    let data = many_lines(200_000);
    fs::write(&input, &data).unwrap();
    for threads in ["1", "3"] {
        // Nobody reads stdout: the reader stops in the middle of a read buffer.
        let child = Command::new(BIN)
            .args(["-f", "jsonl", "-j", threads])
            .stdin(fs::File::open(&input).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        stop_with_stalled_output(child, &data, "0");
    }
}

#[test]
fn sigterm_finishes_every_complete_line_read_from_a_followed_file() {
    let dir = tempdir("stop-follow");
    let log = dir.join("decoder.log");
    let mut data = many_lines(200_000);
    // A last line still being written is not read yet.
    data.extend_from_slice(b"a b c\ta b");
    fs::write(&log, &data).unwrap();
    for threads in ["1", "3"] {
        let child = Command::new(BIN)
            .args([
                "-f",
                "jsonl",
                "-j",
                threads,
                "--follow",
                log.to_str().unwrap(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader thread opens the file.
        let mut fd = None;
        wait_for("the followed file to be opened", || {
            fd = fd_of(child.id(), &log);
            fd.is_some()
        });
        stop_with_stalled_output(child, &data, &fd.unwrap());
    }
}

// --- prometheus weights ---

/// `--prometheus` with `-m nltk-bleu` and several `--weights`: `bleu_stream_score` keeps its one
/// sample per metric (for nltk-bleu the first weight set, as before), and
/// `bleu_stream_nltk_bleu_score` has one sample per distinct weight set, labelled
/// `weights="…"` as given, each equal to that set's score in the JSON report. Parsed with the
/// Python `prometheus_client` parser (skipped with a message when the module is missing,
/// required under CI).
#[test]
fn prometheus_gauge_per_weight_set() {
    const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
want = json.loads(sys.argv[1])
families = {f.name: f for f in text_string_to_metric_families(sys.stdin.read())}
score = families["bleu_stream_score"]
assert score.type == "gauge", score.type
main = {s.labels["metric"]: s for s in score.samples}
assert set(main) == {"nltk-bleu", "bleu"}, main
assert set(main["nltk-bleu"].labels) == {"metric", "name", "signature"}, main
assert main["nltk-bleu"].value == want["scores"][0], main
weighted = families["bleu_stream_nltk_bleu_score"]
assert weighted.type == "gauge", weighted.type
got = [(s.labels["weights"], s.value) for s in weighted.samples]
assert got == [tuple(x) for x in want["sets"]], (got, want["sets"])
for s in weighted.samples:
    assert s.labels["metric"] == "nltk-bleu" and s.labels["name"] == "NLTK-BLEU", s
    assert s.labels["signature"] == want["signature"], s
print("prometheus weights: %d weight-set samples parsed" % len(got))
"#;
    let dir = tempdir("prometheus-weights");
    let input = "the cat sat on the mat\tthe cat sat on a mat\n\
                 a b c d\ta b d c\n\
                 it is raining today\tit rains today\n";
    for weights in [
        &["0.5,0.5", "0.25,0.25,0.25,0.25", "1,0,0", "0.5,0.5"][..],
        &["0.25,0.25,0.25,0.25"][..],
    ] {
        let prom = dir.join("bleu.prom");
        let mut args = vec!["-m", "nltk-bleu,bleu", "--corpus-only", "-f", "jsonl"];
        for w in weights {
            args.extend(["--weights", w]);
        }
        let out = Cmd::new()
            .args(&args)
            .args(["--prometheus", prom.to_str().unwrap()])
            .stdin(input)
            .run();
        assert!(out.success(), "{}", out.describe());
        let report = out.jsonl().unwrap().pop().unwrap();
        let nltk = &report["nltk-bleu"];
        let scores: Vec<f64> = match &nltk["score"] {
            Value::Array(list) => list.iter().map(|v| v.as_f64().unwrap()).collect(),
            v => vec![v.as_f64().unwrap()],
        };
        assert_eq!(scores.len(), weights.len(), "{nltk}");
        // Each distinct set once, in --weights order.
        let mut sets: Vec<(&str, f64)> = Vec::new();
        for (w, &x) in weights.iter().zip(&scores) {
            if sets.iter().all(|(s, _)| s != w) {
                sets.push((w, x));
            }
        }
        let text = fs::read_to_string(&prom).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("bleu_stream_nltk_bleu_score{"))
            .collect();
        assert_eq!(lines.len(), sets.len(), "{text}");
        for ((w, _), line) in sets.iter().zip(&lines) {
            assert!(line.contains(&format!(",weights=\"{w}\"}} ")), "{line}");
        }
        // The single-set gauge is the one it always was.
        let first = format!(
            "bleu_stream_score{{metric=\"nltk-bleu\",name=\"NLTK-BLEU\",signature=\"{}\"}} {:?}\n",
            nltk["signature"].as_str().unwrap(),
            scores[0]
        );
        assert!(text.contains(&first), "{first}\n{text}");
        let want = serde_json::json!({
            "scores": scores,
            "sets": sets,
            "signature": nltk["signature"],
        });
        parse_with_prometheus_client("weights", PARSE, &[&want.to_string()], &text);
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Regression: under `--input auto` a first line of only a TAB waited for the next non-blank
/// line to decide the format, so its row depended on where the reader's batch ended (scored
/// when sent alone, "wrong number of fields" when batched with `a<TAB>b<TAB>c`).
#[test]
fn a_first_line_of_only_a_tab_frames_the_same_in_any_batch() {
    let args = ["-f", "jsonl", "--on-error", "warn"];
    let at_once = Cmd::new()
        .args(args)
        .stdin("\t\na\tb\tc\n")
        .run()
        .assert_success()
        .stdout_str();
    let mut live = Live::spawn(&args);
    live.write("\t\n");
    let first = live.line();
    live.write("a\tb\tc\n");
    let second = live.line();
    drop(live.stdin.take());
    let last = live.line();
    assert_eq!(live.wait().0, Some(0));
    assert_eq!(at_once, format!("{first}\n{second}\n{last}\n"));
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["type"], "segment", "{first}");
    let second: Value = serde_json::from_str(&second).unwrap();
    assert_eq!(second["type"], "error", "{second}");
}

/// Signals from the first millisecond (issue 19): a SIGHUP or SIGUSR1 that arrives while the
/// options are still being parsed (slowed down here by 60,000 arguments; the build before the fix died of SIGUSR1) does not kill the
/// process (their default action), and a SIGTERM then stops the run as documented: the lines
/// already read are scored, the final report is written, status 143.
#[test]
fn signals_during_start_up_have_their_documented_effect() {
    let many: Vec<String> = (0..60_000).map(|_| "--weights=1".to_owned()).collect();
    for (name, code) in [("USR1", Some(0)), ("HUP", Some(0)), ("TERM", Some(143))] {
        let mut child = Command::new(BIN)
            .args(&many)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Nothing can catch a signal before the program's first instruction: wait until the
        // handlers are in place (/proc's SigCgt), which happens before the options are parsed,
        // then signal while they are. (Sleeping 20 ms instead lost the race on a busy machine.)
        let bit = match name {
            "HUP" => 1,
            "USR1" => 10,
            _ => 15,
        };
        wait_until_caught(&child, bit);
        signal(&child, name);
        let mut stdin = child.stdin.take().unwrap();
        // A SIGTERM before the input ends: whatever is read is still scored.
        let _ = stdin.write_all(b"a b c\ta b c\n");
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), code, "SIG{name}: {err}");
        assert!(err.contains("final report"), "SIG{name}: {err}");
        // SIGUSR1's effect is a running report, even when it came before the run.
        assert_eq!(
            err.contains("running report"),
            name == "USR1",
            "SIG{name}: {err}"
        );
    }
}

/// Waits until `child` catches signal number `bit` (its /proc SigCgt mask): from then on a
/// signal sent has the effect its handler gives it, not the default action.
fn wait_until_caught(child: &Child, bit: u32) {
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let caught = || -> bool {
        let Ok(text) = fs::read_to_string(&status) else {
            return false;
        };
        let mask = text
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
            .unwrap_or(0);
        mask & (1 << (bit - 1)) != 0
    };
    while !caught() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no handler for signal {bit}"
        );
        thread::sleep(Duration::from_micros(200));
    }
}

/// `pkill -USR1 bleu-stream` asks a scoring daemon for a running report, and reaches every
/// bleu-stream process of the user. `merge`, `compare` and `sacrebleu` have no running report;
/// SIGUSR1's default action killed them (status 138 and no output): it is ignored now.
#[test]
fn batch_commands_ignore_sigusr1() {
    let dir = tempdir("usr1");
    let reference = dir.join("ref.txt");
    fs::write(&reference, "a b c d e\nf g h\n").unwrap();
    let reference = reference.to_str().unwrap();
    let stats = Cmd::new()
        .args(["--emit", "stats"])
        .stdin("a b c d\ta b c d e\nf g\tf g h\n")
        .run();
    assert_eq!(stats.code, Some(0), "{}", stats.describe());
    for (args, input, says) in [
        (vec!["merge", "-b"], stats.stdout_str(), ""),
        (
            vec!["compare", "-r", reference],
            "a b c d\ta b c\nf g\tf g h\n".to_owned(),
            "BLEU",
        ),
        (
            vec!["sacrebleu", reference, "-b"],
            "a b c d\nf g\n".to_owned(),
            "",
        ),
    ] {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_until_caught(&child, 10);
        signal(&child, "USR1");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !stdout.is_empty() && stdout.contains(says),
            "{args:?}: {stdout}"
        );
    }
}

/// `-o` follows a symbolic link only when it belongs to the user or to root (`/dev/stdout`),
/// as Linux's `protected_symlinks` does in sticky directories: a link another user planted in
/// a shared log directory made the rows go into its target (safety audit). The report files
/// replace a link instead (their own tests).
#[test]
fn output_follows_only_the_user_s_or_root_s_symlinks() {
    let dir = tempdir("output-symlink");
    let target = dir.join("target.txt");
    fs::write(&target, "kept\n").unwrap();
    let own = dir.join("own.lnk");
    std::os::unix::fs::symlink(&target, &own).unwrap();
    let out = Cmd::new()
        .args(["-o", own.to_str().unwrap()])
        .stdin("a b\ta b\n")
        .run();
    out.assert_success();
    assert_eq!(fs::read_to_string(&target).unwrap(), "kept\n100.00\n");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED (part): a link of another user needs root to make (lchown)");
        return;
    }
    let planted = dir.join("planted.lnk");
    std::os::unix::fs::symlink(&target, &planted).unwrap();
    std::os::unix::fs::lchown(&planted, Some(65534), Some(65534)).unwrap();
    let out = Cmd::new()
        .args(["-o", planted.to_str().unwrap()])
        .stdin("a b\ta b\n")
        .run();
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("a symbolic link of another user (uid 65534): not followed"),
        "{}",
        out.stderr_str()
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "kept\n100.00\n");
}
