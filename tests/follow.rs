//! `--follow` (SPEC §5): a file read like `tail -F` through truncation, rewrite and
//! replacement; a file that does not exist yet; a FIFO read writer after writer; stops
//! (SIGTERM/SIGINT) while waiting anywhere; replacements that cannot be read; `--follow -`.
//! The binary is spawned and real signals are sent; waits are bounded by generous deadlines
//! and nothing asserts a duration.

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::live::{segment, signal, tempdir, wait_for, Live, DEADLINE};
use crate::util::Cmd;

#[test]
fn follow_reads_through_truncation_and_replacement() {
    let dir = tempdir("follow");
    let log = dir.join("decoder.log");
    fs::write(&log, segment(1)).unwrap();
    let live = Live::spawn(&["--follow", log.to_str().unwrap(), "-f", "jsonl"]);
    assert_eq!(live.json()["line"], 1);
    let append = |text: &str| {
        let mut f = fs::OpenOptions::new().append(true).open(&log).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    append(&segment(2));
    assert_eq!(live.json()["line"], 2);
    // copytruncate: the same file, emptied, then written again.
    fs::write(&log, "").unwrap();
    thread::sleep(Duration::from_millis(200));
    append(&segment(3));
    let restart = live.json();
    assert_eq!(restart["type"], "corpus");
    assert!(
        restart["note"].as_str().unwrap().contains("was truncated"),
        "{restart}"
    );
    assert_eq!(live.json()["line"], 3);
    // Replacement: a new file under the same name; a last line without newline in the old
    // file is a piece of a line its writer did not end: dropped, with a warning.
    append("x y\tx y");
    fs::rename(&log, dir.join("decoder.log.1")).unwrap();
    fs::write(&log, segment(5)).unwrap();
    let restart = live.json();
    assert!(
        restart["note"].as_str().unwrap().contains("was replaced"),
        "{restart}"
    );
    assert_eq!(live.json()["line"], 4);
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(
        (last["final"].as_bool(), last["segments"].as_u64()),
        (Some(true), Some(4))
    );
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143));
    assert!(
        stderr.contains(
            "decoder.log was replaced: a last line of 7 bytes without newline in the old \
             contents is dropped, not scored"
        ),
        "{stderr}"
    );
}

/// Regression (audit 2026-11-26): a copytruncate rotation while the follower is behind the
/// writer (here held back by a consumer that does not read its rows yet) went unnoticed: the
/// reader read on from its old offset into the new file, losing the new file's start (11,374 of
/// 200,000 lines in the audit's run), cutting a line and reporting no restart. Now every row of
/// the new file comes after the old file's rows read and the restart, and a warning says that
/// the old file's unread rest is lost.
#[test]
fn follow_notices_a_rewrite_while_behind_the_writer() {
    let dir = tempdir("behind");
    let log = dir.join("l.log");
    let (old, new) = (100_000, 50_000);
    let text = |f: &dyn Fn(usize) -> String, n| (0..n).map(f).collect::<String>();
    fs::write(&log, text(&|i| format!("old {i}\told {i}\n"), old)).unwrap();
    let mut child = Command::new(crate::util::BIN)
        .args(["-j", "1", "--follow", log.to_str().unwrap(), "-f", "jsonl"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // After its first row nobody reads the rows for a while: the reader stops when the pipe
    // and the queues are full, far from the end of the file. Then the file is truncated and
    // written again, longer than the reader's position.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    thread::sleep(Duration::from_millis(300));
    fs::write(&log, text(&|i| format!("new line {i}\tzzz {i}\n"), new)).unwrap();
    let (tx, rx) = mpsc::channel();
    tx.send(serde_json::from_str::<serde_json::Value>(&first).unwrap())
        .unwrap();
    thread::spawn(move || {
        for line in std::io::BufRead::lines(stdout) {
            let value: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    // Old rows match every hypothesis word (hypothesis = reference), new ones one of three.
    let (mut old_rows, mut new_rows, mut restarts) = (0, 0, Vec::new());
    while new_rows < new {
        let row = rx.recv_timeout(DEADLINE).unwrap_or_else(|_| {
            panic!("{old_rows} old and {new_rows} new rows, restarts {restarts:?}")
        });
        match row["type"].as_str() {
            Some("segment") if row["bleu"]["counts"][0] == row["bleu"]["totals"][0] => {
                assert!(
                    restarts.is_empty() && new_rows == 0,
                    "an old row after a new: {row}"
                );
                old_rows += 1;
            }
            Some("segment") => {
                assert_eq!(
                    restarts.len(),
                    1,
                    "a new row before the restart: {row} {restarts:?}"
                );
                new_rows += 1;
            }
            _ => restarts.push(row),
        }
    }
    assert!(old_rows > 0 && old_rows < old, "{old_rows} old rows");
    assert_eq!(restarts[0]["segments"], old_rows, "{}", restarts[0]);
    assert!(
        restarts[0]["note"]
            .as_str()
            .unwrap()
            .contains("was truncated"),
        "{}",
        restarts[0]
    );
    signal(&child, "TERM");
    let last = rx.recv_timeout(DEADLINE).unwrap();
    assert_eq!(
        (last["final"].as_bool(), last["segments"].as_u64()),
        (Some(true), Some((old_rows + new) as u64))
    );
    assert_eq!(child.wait().unwrap().code(), Some(143));
    // What was read of the old file and what is lost are said: its unread rest, and the piece
    // of a line read before (a line of it, not an error record or a cut line in the rows).
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains("l.log was rewritten before it was read to its end: what was not read yet of the old contents is lost"),
        "{stderr}"
    );
}

#[test]
fn follow_notices_a_rewrite_that_regrows_past_the_read_position() {
    // The file is rewritten (truncated and written again, longer than before) within one poll:
    // its size never shrinks where the reader can see it, but the bytes before the read
    // position change.
    let dir = tempdir("rewrite");
    let log = dir.join("l.log");
    fs::write(&log, "a b c 0\ta b c 0\n").unwrap();
    let live = Live::spawn(&["--follow", log.to_str().unwrap(), "-f", "jsonl"]);
    assert_eq!(live.json()["line"], 1);
    thread::sleep(Duration::from_millis(300));
    let text: String = (100..110)
        .map(|i| format!("a b c {i}\ta b c {i}\n"))
        .collect();
    fs::write(&log, text).unwrap();
    let restart = live.json();
    assert_eq!(restart["type"], "corpus", "{restart}");
    assert!(
        restart["note"].as_str().unwrap().contains("was truncated"),
        "{restart}"
    );
    for line in 2..=11 {
        let row = live.json();
        assert_eq!(
            (row["type"].as_str(), row["line"].as_u64()),
            (Some("segment"), Some(line))
        );
        assert_eq!(
            row["bleu"]["counts"],
            serde_json::json!([4, 3, 2, 1]),
            "{row}"
        );
    }
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(
        (
            last["final"].as_bool(),
            last["segments"].as_u64(),
            last["bad_lines"].as_u64()
        ),
        (Some(true), Some(11), Some(0))
    );
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143));
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn follow_waits_for_a_file_that_does_not_exist_yet() {
    let dir = tempdir("appear");
    let log = dir.join("later.log");
    let name = log.to_str().unwrap();
    let warning = format!("bleu-stream: warning: {name}: waiting for it to appear\n");
    // The file appears: it is read from its start.
    let mut live = Live::spawn(&["--follow", name, "-f", "jsonl"]);
    thread::sleep(Duration::from_millis(300));
    assert!(live.child.try_wait().unwrap().is_none(), "still waiting");
    fs::write(&log, segment(1)).unwrap();
    assert_eq!(live.json()["line"], 1);
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(
        (last["final"].as_bool(), last["segments"].as_u64()),
        (Some(true), Some(1))
    );
    drop(live.stdin.take());
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143), "{stderr}");
    assert_eq!(
        stderr.matches("waiting for it to appear").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.starts_with(&warning), "{stderr}");
    // Stopped while still waiting: a normal end, a final report of nothing.
    fs::remove_file(&log).unwrap();
    for (name_, code) in [("TERM", 143), ("INT", 130)] {
        let live = Live::spawn(&["--follow", name, "-f", "jsonl"]);
        thread::sleep(Duration::from_millis(200));
        signal(&live.child, name_);
        let last = live.json();
        assert_eq!(
            (last["final"].as_bool(), last["segments"].as_u64()),
            (Some(true), Some(0))
        );
        let (status, stderr) = live.wait();
        assert_eq!(status, Some(code), "{stderr}");
        assert_eq!(stderr, warning);
    }
}

// --- FIFOs and odd files (issue 19, point 5) ---

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("running mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Opens `fifo` for writing, which waits until bleu-stream has opened it for reading; kills
/// `live` and fails if that does not happen within the deadline.
fn open_writer(fifo: &Path, live: &mut Live) -> File {
    let (tx, rx) = mpsc::channel();
    let path = fifo.to_owned();
    thread::spawn(move || {
        let _ = tx.send(fs::OpenOptions::new().write(true).open(path));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(file) => file.unwrap(),
        Err(_) => {
            let _ = live.child.kill();
            panic!("bleu-stream did not open the FIFO for reading within {DEADLINE:?}");
        }
    }
}

/// The next rows are the segments of `lines`, in order.
fn expect_segments(live: &mut Live, lines: impl IntoIterator<Item = u64>) {
    for line in lines {
        let row = live.json();
        assert_eq!(
            (row["type"].as_str(), row["line"].as_u64()),
            (Some("segment"), Some(line)),
            "{row}"
        );
    }
}

fn write(file: &mut File, text: &str) {
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
}

/// Regression (issue 19, point 5): a followed FIFO used to be read like a regular file: a last
/// line without newline was held back once its writer closed the FIFO, behind an open that
/// waited for the next writer. Every line is scored, in order, as it arrives; when the writer
/// closes the FIFO its last line counts without newline; the next writer's lines continue the
/// stream (no restart report), however many arrive at once.
#[test]
fn follow_fifo_scores_every_line_writer_after_writer() {
    let dir = tempdir("fifo");
    let fifo = dir.join("hyp-ref.fifo");
    mkfifo(&fifo);
    for threads in ["1", "3"] {
        let args = [
            "--follow",
            fifo.to_str().unwrap(),
            "-f",
            "jsonl",
            "-j",
            threads,
        ];
        let mut live = Live::spawn(&args);
        let mut writer = open_writer(&fifo, &mut live);
        write(&mut writer, &segment(1));
        assert_eq!(live.json()["line"], 1);
        // A line written in two parts is one line.
        write(&mut writer, "a b c 2\ta b");
        thread::sleep(Duration::from_millis(100));
        write(&mut writer, " c 2\n");
        let row = live.json();
        assert_eq!(row["line"], 2);
        assert_eq!(row["bleu"]["counts"], serde_json::json!([4, 3, 2, 1]));
        // The writer closes the FIFO after a last line without newline: it is complete.
        write(&mut writer, "a b c 3\ta b c 3");
        drop(writer);
        let row = live.json();
        assert_eq!(
            (row["line"].as_u64(), &row["bleu"]["counts"]),
            (Some(3), &serde_json::json!([4, 3, 2, 1])),
            "{row}"
        );
        // The next writer: 5,000 lines at once, every one in order.
        let mut writer = open_writer(&fifo, &mut live);
        let text: String = (4..5004).map(segment).collect();
        write(&mut writer, &text);
        drop(writer);
        expect_segments(&mut live, 4..5004);
        signal(&live.child, "TERM");
        let last = live.json();
        assert_eq!(
            (last["final"].as_bool(), last["segments"].as_u64()),
            (Some(true), Some(5003))
        );
        let (status, stderr) = live.wait();
        assert_eq!(status, Some(143), "{stderr}");
        assert_eq!(stderr, "");
    }
}

/// Regression (streaming audit): a writer that opened the FIFO right after the previous one
/// closed it, wrote a line without newline and closed it too, did so while bleu-stream waited a
/// poll before reopening: its bytes stayed in the pipe and were read with the next writer's,
/// its line glued to that writer's first one (a bad line: 3 fields). Each writer's last line
/// counts when it closes.
#[test]
fn follow_fifo_keeps_the_line_of_a_writer_right_after_another() {
    let dir = tempdir("fifo-quick");
    let fifo = dir.join("hyp-ref.fifo");
    mkfifo(&fifo);
    let mut live = Live::spawn(&["--follow", fifo.to_str().unwrap(), "-f", "jsonl"]);
    let mut writer = open_writer(&fifo, &mut live);
    let first: String = (1..=50).map(segment).collect();
    write(&mut writer, &first);
    drop(writer);
    let mut writer = open_writer(&fifo, &mut live);
    write(&mut writer, "a b c 51\ta b c 51");
    drop(writer);
    thread::sleep(Duration::from_millis(300));
    let mut writer = open_writer(&fifo, &mut live);
    write(&mut writer, &segment(52));
    drop(writer);
    expect_segments(&mut live, 1..=52);
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(last["segments"].as_u64(), Some(52), "{last}");
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143), "{stderr}");
}

/// Regression (issue 19, point 5): SIGTERM/SIGINT used to be ignored by a follower of a FIFO
/// that no writer had opened (the open waited in the main thread, before the signal thread
/// started, and later in the reader, not counted as waiting). Stopped while waiting for a
/// writer, or while the writer is idle: every line read is scored, the final report is written
/// and the status is 128 + the signal. A line whose newline has not come yet is not read (the
/// writer may still be writing it, as documented).
#[test]
fn follow_fifo_stops_on_sigterm_and_sigint_while_waiting() {
    let dir = tempdir("fifo-stop");
    let fifo = dir.join("hyp-ref.fifo");
    mkfifo(&fifo);
    let name = fifo.to_str().unwrap();
    for (sig, code) in [("TERM", 143), ("INT", 130)] {
        // No writer yet: whether the signal comes before or during the wait, it ends the run.
        let live = Live::spawn(&["--follow", name, "-f", "jsonl"]);
        thread::sleep(Duration::from_millis(200));
        signal(&live.child, sig);
        let last = live.json();
        assert_eq!(
            (last["final"].as_bool(), last["segments"].as_u64()),
            (Some(true), Some(0))
        );
        let (status, stderr) = live.wait();
        assert_eq!((status, stderr.as_str()), (Some(code), ""));
        // A writer that wrote two lines and the start of a third, then went quiet.
        let mut live = Live::spawn(&["--follow", name, "-f", "jsonl"]);
        let mut writer = open_writer(&fifo, &mut live);
        write(
            &mut writer,
            &format!("{}{}a b c 3\ta b", segment(1), segment(2)),
        );
        assert_eq!(live.json()["line"], 1);
        assert_eq!(live.json()["line"], 2);
        signal(&live.child, sig);
        let last = live.json();
        assert_eq!(
            (last["final"].as_bool(), last["segments"].as_u64()),
            (Some(true), Some(2))
        );
        let (status, stderr) = live.wait();
        assert_eq!((status, stderr.as_str()), (Some(code), ""));
    }
}

/// Regression (issue 19, point 5): a followed file replaced by something that cannot be read
/// used to be waited on in silence (or, for a directory, to end the run with a read error).
/// Each failure is said once on stderr, with the path, while the follower waits for a readable
/// file under the name; that one is read from its start after a report marking the restart.
#[test]
fn follow_reports_an_unreadable_replacement_once_and_waits_for_a_readable_one() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir("unreadable");
    let log = dir.join("decoder.log");
    let name = log.to_str().unwrap();
    fs::write(&log, segment(1)).unwrap();
    let err_path = dir.join("stderr");
    let err_file = File::create(&err_path).unwrap();
    let live = Live::spawn_with(&["--follow", name, "-f", "jsonl"], Stdio::from(err_file));
    assert_eq!(live.json()["line"], 1);
    let stderr = || fs::read_to_string(&err_path).unwrap();
    let said_once = |what: &str| {
        let warning = format!("bleu-stream: warning: {name}: {what}\n");
        wait_for(&warning, || stderr().contains(&warning));
        // Many more polls (every 20 ms) without a second warning.
        thread::sleep(Duration::from_millis(300));
        assert_eq!(stderr().matches(&warning).count(), 1, "{}", stderr());
    };
    let waiting = |what: &str| format!("{what}: waiting for a readable file under that name");
    // A symbolic link to itself, renamed over the name: unreadable even by root. The name
    // cannot even be looked up: nothing says the old file is finished, it is read on.
    let link = dir.join("link");
    std::os::unix::fs::symlink("decoder.log", &link).unwrap();
    fs::rename(&link, &log).unwrap();
    said_once(
        "Too many levels of symbolic links: cannot check the name; reading on from the file \
         already open",
    );
    // A file without read permission, where permissions hold (not for root).
    let locked = dir.join("locked");
    fs::write(&locked, segment(9)).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if File::open(&locked).is_ok() {
        eprintln!(
            "SKIPPED: a file with mode 000 is readable here (running as root): the unreadable \
             replacement is tested with a symbolic link loop and a directory only"
        );
    } else {
        fs::rename(&locked, &log).unwrap();
        said_once(&waiting("Permission denied"));
    }
    // A directory (a file cannot be replaced by one in one step: the name is missing between).
    fs::remove_file(&log).unwrap();
    fs::create_dir(&log).unwrap();
    said_once(&waiting("Is a directory"));
    // Readable again.
    fs::remove_dir(&log).unwrap();
    let fresh = dir.join("fresh");
    fs::write(&fresh, segment(2)).unwrap();
    fs::rename(&fresh, &log).unwrap();
    let restart = live.json();
    assert_eq!(restart["type"], "corpus", "{restart}");
    assert!(
        restart["note"].as_str().unwrap().contains("was replaced"),
        "{restart}"
    );
    assert_eq!(live.json()["line"], 2);
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(
        (last["final"].as_bool(), last["segments"].as_u64()),
        (Some(true), Some(2))
    );
    assert_eq!(live.wait().0, Some(143));
    let prefix = format!("bleu-stream: warning: {name}: ");
    for line in stderr().lines() {
        assert!(line.starts_with(&prefix), "{}", stderr());
    }
}

/// `--follow -` is refused like GNU `tail -F -` ("cannot follow '-' by name"), with what to do
/// instead; a directory to follow is an error at once, not a read error later.
#[test]
fn follow_stdin_is_a_usage_error_and_a_directory_an_error() {
    let out = Cmd::new().args(["--follow", "-"]).stdin("a\ta\n").run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    let err = out.stderr_str();
    assert!(
        err.starts_with("bleu-stream: error: --follow -: standard input cannot be followed")
            && err.contains("without --follow"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let dir = tempdir("follow-dir");
    let out = Cmd::new()
        .args(["--follow", dir.to_str().unwrap()])
        .stdin("")
        .run();
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert_eq!(
        out.stderr_str(),
        format!("bleu-stream: error: {}: Is a directory\n", dir.display())
    );
}

/// Regression (audit F1): a copytruncate rotation that left the file shorter than the read
/// position, while the reader was behind the writer (held back here by a consumer that does
/// not read its rows yet), lost the unread rest of the old contents in silence (171,000 of
/// 200,000 lines in the audit's run) and scored the piece of a line at the edge of the read
/// buffer as a line: a read past the end of a truncated file returns nothing, which looked like
/// the end of the data. The loss is said, with the bytes never read, and the piece dropped.
#[test]
fn follow_warns_of_a_truncation_that_catches_the_reader_behind() {
    let dir = tempdir("truncated-behind");
    let log = dir.join("l.log");
    let old = 200_000;
    let text: String = (0..old).map(|i| format!("old {i}\told {i}\n")).collect();
    fs::write(&log, &text).unwrap();
    let mut child = Command::new(crate::util::BIN)
        .args(["-j", "1", "--follow", log.to_str().unwrap(), "-f", "jsonl"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    // The reader stops when the pipe and the queues are full, far from the end of the file;
    // then the file is emptied and gets one line: shorter than the read position.
    thread::sleep(Duration::from_millis(300));
    fs::write(&log, "").unwrap();
    fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(b"x y\tx y\n")
        .unwrap();
    let (tx, rx) = mpsc::channel();
    tx.send(serde_json::from_str::<serde_json::Value>(&first).unwrap())
        .unwrap();
    thread::spawn(move || {
        for line in std::io::BufRead::lines(stdout) {
            let value: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    // Every row is a whole line (hypothesis = reference: every n-gram matches): old lines, the
    // restart, the new line.
    let (mut rows, mut restart) = (0, None);
    loop {
        let row = rx
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("{rows} rows"));
        match row["type"].as_str() {
            Some("segment") => {
                assert_eq!(
                    row["bleu"]["counts"], row["bleu"]["totals"],
                    "a piece of a line scored: {row}"
                );
                rows += 1;
                if restart.is_some() {
                    break;
                }
            }
            _ => restart = Some(row),
        }
    }
    assert!(rows < old, "{rows} rows: the reader was not behind");
    let restart = restart.unwrap();
    assert!(
        restart["note"]
            .as_str()
            .unwrap()
            .contains("l.log was truncated"),
        "{restart}"
    );
    signal(&child, "TERM");
    let last = rx.recv_timeout(DEADLINE).unwrap();
    assert_eq!(
        (last["segments"].as_u64(), last["bad_lines"].as_u64()),
        (Some(rows as u64), Some(0)),
        "{last}"
    );
    assert_eq!(child.wait().unwrap().code(), Some(143));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains(
            "l.log was rewritten before it was read to its end: what was not read yet of the \
             old contents is lost ("
        ) && stderr.contains(" bytes or more)"),
        "{stderr}"
    );
}

/// Regression (audit F2): after a `create` rotation (the log renamed, a new one created), the
/// old file was read once when the swap was noticed: what its writer added after that (before
/// it reopened the name) was lost, and its half-written last line was scored as a whole line.
/// Like GNU `tail -F`, the old file is read on until it has been quiet for a while; a line its
/// writer never ends is dropped, with a warning.
#[test]
fn follow_reads_a_replaced_file_on_and_drops_its_unended_line() {
    let dir = tempdir("replaced-late");
    let log = dir.join("l.log");
    fs::write(&log, "").unwrap();
    let live = Live::spawn(&["--follow", log.to_str().unwrap(), "-f", "jsonl"]);
    let mut writer = fs::OpenOptions::new().append(true).open(&log).unwrap();
    write(&mut writer, "a b\ta b\n");
    assert_eq!(live.json()["line"], 1);
    write(&mut writer, "half a\thalf");
    fs::rename(&log, dir.join("l.log.1")).unwrap();
    fs::write(&log, "").unwrap();
    // The follower notices the new file (it checks every 20 ms) before the writer ends its
    // line in the old one and adds another.
    thread::sleep(Duration::from_millis(200));
    write(&mut writer, " a\nc d\tc d\ne f\te");
    drop(writer);
    for line in [1, 2] {
        let row = live.json();
        assert_eq!(row["line"], line + 1, "{row}");
        assert_eq!(row["bleu"]["counts"], row["bleu"]["totals"], "{row}");
    }
    fs::write(&log, segment(4)).unwrap();
    let restart = live.json();
    assert!(
        restart["note"]
            .as_str()
            .unwrap()
            .contains("l.log was replaced"),
        "{restart}"
    );
    assert_eq!(live.json()["line"], 4);
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(
        (last["segments"].as_u64(), last["bad_lines"].as_u64()),
        (Some(4), Some(0)),
        "{last}"
    );
    let (status, stderr) = live.wait();
    assert_eq!(status, Some(143));
    assert!(
        stderr.contains(
            "l.log was replaced: a last line of 5 bytes without newline in the old contents is \
             dropped, not scored"
        ),
        "{stderr}"
    );
}

/// Regression (audit F3): a followed FIFO replaced after its last writer closed it was never
/// read again: the reopen waited, in a blocking open, for a writer of the old FIFO. A new
/// FIFO's writer waited for ever; a regular file was never read.
#[test]
fn follow_fifo_replaced_by_a_fifo_or_a_file_is_read() {
    let dir = tempdir("fifo-replaced");
    let fifo = dir.join("hyp-ref");
    mkfifo(&fifo);
    let mut live = Live::spawn(&["--follow", fifo.to_str().unwrap(), "-f", "jsonl"]);
    let mut writer = open_writer(&fifo, &mut live);
    write(&mut writer, &segment(1));
    drop(writer);
    assert_eq!(live.json()["line"], 1);
    // A new FIFO: its writer's open waits until bleu-stream opens it for reading.
    fs::remove_file(&fifo).unwrap();
    mkfifo(&fifo);
    let mut writer = open_writer(&fifo, &mut live);
    write(&mut writer, &segment(2));
    drop(writer);
    // A regular file.
    let file = dir.join("file");
    fs::write(&file, segment(3)).unwrap();
    fs::rename(&file, &fifo).unwrap();
    for line in [2, 3] {
        let restart = live.json();
        assert!(
            restart["note"].as_str().unwrap().contains("was replaced"),
            "{restart}"
        );
        assert_eq!(live.json()["line"], line);
    }
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(last["segments"].as_u64(), Some(3), "{last}");
    let (status, stderr) = live.wait();
    assert_eq!((status, stderr.as_str()), (Some(143), ""));
}

/// Regression (audit F5): a name that could not be looked up for a moment (a directory on the
/// way not searchable, or here no directory) counted as a replacement, and once it worked
/// again the same file was read again from its start: every line counted twice. The open file
/// is read on, with one warning.
#[test]
fn follow_reads_on_when_the_name_cannot_be_looked_up_for_a_while() {
    let dir = tempdir("lookup");
    let sub = dir.join("dx");
    fs::create_dir(&sub).unwrap();
    let log = sub.join("log");
    fs::write(&log, format!("{}{}", segment(1), segment(2))).unwrap();
    let err_path = dir.join("stderr");
    let err_file = File::create(&err_path).unwrap();
    let mut live = Live::spawn_with(
        &["--follow", log.to_str().unwrap(), "-f", "jsonl"],
        Stdio::from(err_file),
    );
    expect_segments(&mut live, 1..=2);
    // dx/log fails with "Not a directory" while dx is a file.
    let moved = dir.join("dx.real");
    fs::rename(&sub, &moved).unwrap();
    fs::write(&sub, "").unwrap();
    let stderr = || fs::read_to_string(&err_path).unwrap();
    wait_for("the warning", || stderr().contains("Not a directory"));
    fs::remove_file(&sub).unwrap();
    fs::rename(&moved, &sub).unwrap();
    fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(segment(3).as_bytes())
        .unwrap();
    expect_segments(&mut live, [3]);
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(last["segments"].as_u64(), Some(3), "{last}");
    assert_eq!(live.wait().0, Some(143));
    assert_eq!(
        stderr(),
        format!(
            "bleu-stream: warning: {}: Not a directory: cannot check the name; reading on from \
             the file already open\n",
            log.display()
        )
    );
}

/// Whether process `pid` has the file with inode `ino` open (Linux: `/proc/PID/fd`).
fn has_open(pid: u32, ino: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
        fds.flatten()
            .any(|fd| fs::metadata(fd.path()).is_ok_and(|m| m.ino() == ino))
    })
}

/// Regression (review of the 1 s read-on after a replacement): a file put under the name and
/// rotated away again while the old one was still being read on was never opened: its lines
/// were lost without a word. It is opened when seen, and read after the old one.
#[test]
fn follow_reads_a_file_rotated_away_while_the_old_one_is_read_on() {
    use std::os::unix::fs::MetadataExt;
    use std::time::Instant;
    let dir = tempdir("rotated-twice");
    let log = dir.join("r.log");
    fs::write(&log, segment(1)).unwrap();
    let live = Live::spawn(&["--follow", log.to_str().unwrap(), "-f", "jsonl"]);
    let first = live.json();
    assert_eq!(first["line"], 1);
    let mut old = fs::OpenOptions::new().append(true).open(&log).unwrap();
    fs::rename(&log, dir.join("r.log.1")).unwrap();
    fs::write(&log, segment(2)).unwrap();
    let second = fs::metadata(&log).unwrap().ino();
    // The old file's writer goes on writing, so the old file is read on; the second file must
    // be opened meanwhile (before, it was opened only once the old one had been quiet for a
    // second)...
    let (start, mut old_lines) = (Instant::now(), 1);
    while !has_open(live.child.id(), second) {
        assert!(start.elapsed() < DEADLINE, "the second file was not opened");
        write(&mut old, &segment(1));
        old_lines += 1;
        thread::sleep(Duration::from_millis(50));
    }
    drop(old);
    // ... so that rotating it away at once loses nothing.
    fs::rename(&log, dir.join("r.log.2")).unwrap();
    fs::write(&log, segment(3)).unwrap();
    let (mut rows, mut restarts) = (vec![first], 0);
    while rows.len() < old_lines + 2 {
        let record = live.json();
        match record["note"].as_str() {
            Some(note) if note.contains("r.log was replaced") => restarts += 1,
            _ if record["type"] == "segment" => rows.push(record),
            _ => {}
        }
    }
    assert_eq!(restarts, 2);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["line"], i + 1, "{row}");
        assert_eq!(row["bleu"]["counts"], row["bleu"]["totals"], "{row}");
    }
    signal(&live.child, "TERM");
    let last = live.json();
    assert_eq!(
        (last["segments"].as_u64(), last["bad_lines"].as_u64()),
        (Some(old_lines as u64 + 2), Some(0)),
        "{last}"
    );
    let (status, _) = live.wait();
    assert_eq!(status, Some(143));
}
