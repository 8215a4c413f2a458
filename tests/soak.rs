//! Soak test (issue 5): 10 million generated segments through a pipe. Every row must arrive
//! once and in order, the final report must equal a one-shot run over the same data read from a
//! file, and memory must stay flat (resident size printed at 1 M and 10 M segments).
//!
//! It takes about a minute, so it is `#[ignore]`d in the default run; `.ci/run` runs it with
//! `cargo test --release -- --ignored soak`. `BLEU_STREAM_SOAK_SEGMENTS` changes the size.

use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Command, Stdio};
use std::thread;

use serde_json::Value;

use crate::util::BIN;

/// The input repeats with this (prime) period, so the row of line `i` must equal the row of
/// line `i % PERIOD`: any lost, duplicated or reordered row shows.
const PERIOD: usize = 997;

fn segment(i: usize) -> String {
    let k = i % PERIOD;
    let words = ["the", "cat", "sat", "on", "a", "mat", "dog", ",", "."];
    // The hypothesis is the reference with every fifth word replaced: scores vary and are not 0.
    let reference: Vec<&str> = (0..3 + k % 19)
        .map(|j| words[(k * 5 + j) % words.len()])
        .collect();
    let hyp: Vec<&str> = (0..4 + k % 17)
        .map(|j| match reference.get(j) {
            Some(w) if !(j + k).is_multiple_of(5) => w,
            _ => words[(k + j * 3) % words.len()],
        })
        .collect();
    format!("{} {k}\t{} {k}\n", hyp.join(" "), reference.join(" "))
}

fn rss_kib(pid: u32, field: &str) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn segments() -> usize {
    std::env::var("BLEU_STREAM_SOAK_SEGMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000)
}

#[test]
#[ignore = "takes about a minute; run with --ignored soak"]
fn soak_ten_million_segments_through_a_pipe() {
    let n = segments();
    let temp = crate::util::TempDir::new("soak");
    let dir = temp.path();
    let (streamed_report, file_report) = (dir.join("streamed.json"), dir.join("oneshot.json"));

    // The expected row of each residue, from a small run.
    let period: String = (0..PERIOD).map(segment).collect();
    let out = Command::new(BIN)
        .args(["-j", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(period.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let expected: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(expected.len(), PERIOD);
    assert!(
        expected
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 100
    );

    let mut child = Command::new(BIN)
        .args(["--report-file", streamed_report.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let mut w = BufWriter::with_capacity(1 << 20, stdin);
        for i in 0..n {
            w.write_all(segment(i).as_bytes()).unwrap();
        }
        w.flush().unwrap();
    });
    let mut rows = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap());
    let mut line = String::new();
    let mut rss_at_1m = None;
    for i in 0..n {
        line.clear();
        assert!(
            rows.read_line(&mut line).unwrap() > 0,
            "output ended after {i} rows"
        );
        assert_eq!(
            line.trim_end_matches('\n'),
            expected[i % PERIOD],
            "row {}",
            i + 1
        );
        if i + 1 == 1_000_000 {
            rss_at_1m = rss_kib(pid, "VmRSS:");
        }
    }
    // All rows are in; the input is not closed yet, so the process is still there to measure.
    let peak = rss_kib(pid, "VmHWM:");
    let rss_at_end = rss_kib(pid, "VmRSS:");
    writer.join().unwrap();
    line.clear();
    assert_eq!(
        rows.read_line(&mut line).unwrap(),
        0,
        "an extra row: {line}"
    );
    assert!(child.wait().unwrap().success());
    eprintln!(
        "soak: {n} segments, rows in order; RSS at 1M: {rss_at_1m:?} KiB, at {n}: {rss_at_end:?} \
         KiB, peak {peak:?} KiB"
    );
    if let Some(peak) = peak {
        assert!(
            peak < 50 * 1024,
            "peak resident size {peak} KiB is over 50 MiB"
        );
    }

    // One shot over the same data read from a file.
    let path = dir.join("input.tsv");
    let mut file = BufWriter::new(fs::File::create(&path).unwrap());
    for i in 0..n {
        file.write_all(segment(i).as_bytes()).unwrap();
    }
    file.flush().unwrap();
    drop(file);
    let status = Command::new(BIN)
        .args([
            "--corpus-only",
            "--report-file",
            file_report.to_str().unwrap(),
        ])
        .arg(&path)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let read = |p: &std::path::Path| -> Value {
        let mut v: Value = serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("tool");
        v
    };
    let (streamed, oneshot) = (read(&streamed_report), read(&file_report));
    assert_eq!(
        streamed, oneshot,
        "the streamed final report differs from the one-shot run"
    );
    assert_eq!(streamed["segments"].as_u64(), Some(n as u64));
    eprintln!(
        "soak: final report equals the one-shot run: {}",
        streamed["bleu"]["text"]
    );
}
