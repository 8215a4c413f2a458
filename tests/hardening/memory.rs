//! Point 3: memory is bounded for any line: peak resident size at most 8 x the longest line plus
//! 64 MiB, whatever the metric and the thread count (chrF++ and nltk-chrf excepted, see the
//! README).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::util::BIN;

const MIB: u64 = 1 << 20;

/// Runs `args` on `lines` and returns the child's peak resident size (VmHWM), read from /proc
/// once every row is out but before the input ends (a finished process has no /proc status).
fn peak_rss(args: &[&str], lines: &[String]) -> u64 {
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--line-buffered")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = {
        let lines = lines.to_vec();
        std::thread::spawn(move || {
            for l in &lines {
                stdin.write_all(l.as_bytes()).unwrap();
                stdin.write_all(b"\n").unwrap();
            }
            stdin
        })
    };
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut row = String::new();
    for _ in lines {
        row.clear();
        out.read_line(&mut row).unwrap();
        assert!(row.ends_with('\n'), "a row per line");
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    drop(feed.join().unwrap());
    child.wait().unwrap();
    kib * 1024
}

/// A pseudo-random CJK sentence of about `bytes` bytes (3 bytes a character).
fn cjk(bytes: usize, seed: u32) -> String {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..bytes / 3)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            char::from_u32(0x4e00 + x % 20_000).unwrap()
        })
        .collect()
}

#[test]
fn a_line_of_tabs_is_refused_not_held_as_millions_of_references() {
    // 2 MiB of TABs: two million empty references (an 8 MiB one took 2.7 GB).
    let line = "\t".repeat(2 * MIB as usize);
    let peak = peak_rss(&[], std::slice::from_ref(&line));
    assert!(
        peak <= 8 * line.len() as u64 + 64 * MIB,
        "peak {} MiB",
        peak / MIB
    );
    let out = crate::util::Cmd::new().stdin(line + "\n").run();
    assert!(
        out.stderr_str().contains("references: more than"),
        "{}",
        out.describe()
    );
}

#[test]
fn four_long_lines_with_four_threads_stay_within_the_bound() {
    let lines: Vec<String> = (0..4)
        .map(|i| {
            let s = cjk(2 * MIB as usize - 2, i);
            format!("{s}\t{s}")
        })
        .collect();
    let longest = lines.iter().map(String::len).max().unwrap() as u64;
    let bound = 8 * longest + 64 * MIB;
    for metrics in [
        "bleu",
        "nltk-bleu",
        "gleu,multi-bleu",
        "nist",
        "mteval-bleu",
        // Character n-grams in capped tables (issue 21's rewrite; 733 MB for 16 MB lines before).
        "chrf",
    ] {
        let peak = peak_rss(&["-j", "4", "-m", metrics], &lines);
        eprintln!(
            "-m {metrics} -j 4, 4 lines of {} MiB: peak {} MiB",
            longest / MIB,
            peak / MIB
        );
        assert!(
            peak <= bound,
            "-m {metrics}: peak {} MiB over {} MiB",
            peak / MIB,
            bound / MIB
        );
    }
}

/// TER kept ~550 bytes a hypothesis word (the beam rows of its matrix, 8-byte costs, and a boxed
/// key per distinct word): 542 MB for a 13.5 MB line of a million words. Now one row in 64 is
/// kept beyond 2^19 cells, rows hold only their beam columns, and words are ids into one string.
#[test]
fn ter_on_a_long_line_of_short_words_stays_within_the_bound() {
    let mut x: u32 = 12_345;
    let mut words = |n: usize, noise: bool| -> String {
        let mut out = String::with_capacity(2 * n);
        for k in 0..n {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if k > 0 {
                out.push(' ');
            }
            // Mostly the same word sequence on both sides (seeded alike), a few changed.
            let letter = if noise && x.is_multiple_of(50) {
                b'z'
            } else {
                b'a' + (k * 7 % 10) as u8
            };
            out.push(letter as char);
        }
        out
    };
    let n = 1_000_000;
    let line = format!("{}\t{}", words(n, false), words(n, true));
    let bound = 8 * line.len() as u64 + 64 * MIB;
    let peak = peak_rss(&["-j", "2", "-m", "ter"], std::slice::from_ref(&line));
    eprintln!(
        "-m ter, one line of {} MiB ({n} words a side): peak {} MiB",
        line.len() as u64 / MIB,
        peak / MIB
    );
    assert!(
        peak <= bound,
        "peak {} MiB over {} MiB",
        peak / MIB,
        bound / MIB
    );
}
