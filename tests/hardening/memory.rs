//! Point 3: memory is bounded for any line: peak resident size at most 8 x the longest line plus
//! 64 MiB, whatever the metric and the thread count (NIST's corpus-wide tables aside).

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

/// Pseudo-random words `w0`, `w1`, … below `vocabulary`, about one in eleven with a comma (which
/// chrF++ splits off as a word of its own).
fn word_stream(seed: u32, vocabulary: u32) -> impl Iterator<Item = String> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    std::iter::repeat_with(move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let comma = if x.is_multiple_of(11) { "," } else { "" };
        format!("w{}{comma}", x % vocabulary)
    })
}

/// Words of [`word_stream`] joined by spaces, at least `bytes` bytes.
fn words(bytes: usize, seed: u32, vocabulary: u32) -> String {
    let mut out = String::with_capacity(bytes + 16);
    for w in word_stream(seed, vocabulary) {
        if out.len() >= bytes {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&w);
    }
    out
}

/// Checks the peak of every metric on `lines` against the bound, printing the measures.
fn check_bound(what: &str, runs: &[&[&str]], lines: &[String]) {
    let longest = lines.iter().map(String::len).max().unwrap() as u64;
    let bound = 8 * longest + 64 * MIB;
    for args in runs {
        let peak = peak_rss(args, lines);
        eprintln!(
            "{} {what}, longest {} MiB: peak {} MiB",
            args.join(" "),
            longest / MIB,
            peak / MIB
        );
        assert!(
            peak <= bound,
            "{}: peak {} MiB over {} MiB",
            args.join(" "),
            peak / MIB,
            bound / MIB
        );
    }
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
    check_bound(
        "4 CJK lines",
        &[
            &["-j", "4", "-m", "bleu"],
            &["-j", "4", "-m", "nltk-bleu"],
            &["-j", "4", "-m", "gleu,multi-bleu"],
            &["-j", "4", "-m", "nist"],
            &["-j", "4", "-m", "mteval-bleu"],
            // Character n-grams in capped tables (issue 21's rewrite; 733 MB for 16 MB lines
            // before).
            &["-j", "4", "-m", "chrf"],
            &["-j", "4", "-m", "chrf", "--chrf-word-order", "2"],
            // The same tables (653 MB for four 16 MB lines before).
            &["-j", "4", "-m", "nltk-chrf"],
        ],
        &lines,
    );
}

#[test]
fn a_long_line_of_many_words_stays_within_the_bound() {
    // 8 MiB, about 1.2 million words: chrF++ took 145 MiB (over the 128 MiB bound) with its
    // word n-grams in the general index, nltk-chrf 540 MiB.
    let half = 4 * MIB as usize - 16;
    let distinct = format!(
        "{}\t{}",
        words(half, 1, 1_000_000),
        words(half, 2, 1_000_000)
    );
    check_bound(
        "a line of distinct words",
        &[
            &["-m", "chrf", "--chrf-word-order", "2"],
            &["-m", "nltk-chrf"],
        ],
        std::slice::from_ref(&distinct),
    );
    let repeated = format!("{}\t{}", words(half, 3, 8), words(half, 4, 8));
    check_bound(
        "a line of repeated words",
        &[
            &["-m", "chrf", "--chrf-word-order", "2"],
            &["-m", "nltk-chrf"],
        ],
        std::slice::from_ref(&repeated),
    );
}

/// The word n-grams of a segment over 64 KiB are counted another way than a sentence's
/// (`WordNgrams`): the scores are still sacreBLEU's and NLTK's, bit for bit.
#[test]
fn a_long_line_of_words_scores_as_the_reference_tools_do() {
    // Python: `CHRF(word_order=2).sentence_score(h, [r]).score` (sacreBLEU 2.6.0) and
    // `sentence_chrf(r, h)` (NLTK 3.10.4) on the words of `words(_, 1)` and `words(_, 2)`, 20,000
    // each (114,414 and 114,448 bytes).
    let (h, r) = (words_n(20_000, 1), words_n(20_000, 2));
    assert_eq!((h.len(), r.len()), (114_414, 114_448));
    let line = format!("{h}\t{r}\n");
    for (args, want) in [
        (
            &["-m", "chrf", "--chrf-word-order", "2"][..],
            72.00668867159578,
        ),
        // 3001 distinct words, 12-bit ids: eleven orders do not fit 128 bits, and the general
        // index counts them (sacreBLEU's `CHRF(word_order=11)`).
        (
            &["-m", "chrf", "--chrf-word-order", "11"][..],
            33.88793038454872,
        ),
        (&["-m", "nltk-chrf"][..], 0.8161935281366025),
    ] {
        let out = crate::util::Cmd::new()
            .args(args)
            .args(["-w", "17"])
            .stdin(line.clone())
            .run();
        let got: f64 = out.stdout_str().lines().next().unwrap().parse().unwrap();
        assert_eq!(
            got.to_bits(),
            f64::to_bits(want),
            "{args:?}: {}",
            out.describe()
        );
    }
}

/// The first `n` words of [`word_stream`] (vocabulary 3000) joined by spaces.
fn words_n(n: usize, seed: u32) -> String {
    word_stream(seed, 3000)
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
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

/// Character orders too long for 128-bit keys (CJK's 15-bit ids from order 9 on) went to the
/// general n-gram index, about 100 × the line (443 MB for a 4.2 MB line at order 20); on a huge
/// segment they are now counted by sorting n-gram positions.
#[test]
fn long_character_orders_on_a_long_line_stay_within_the_bound() {
    let s = cjk(512 * 1024, 9);
    let line = format!("{s}\t{s}");
    check_bound(
        "a CJK line, order 20",
        &[
            &["-m", "chrf", "--chrf-char-order", "20"],
            &["-m", "nltk-chrf", "--nltk-chrf-max-len", "20"],
        ],
        std::slice::from_ref(&line),
    );
}

/// Regression (input audit): with `-r`, `--max-line-bytes` bounded each file's line, and each
/// file's reader kept the buffer it grew for its longest line, so R files held R long lines:
/// five 16 MiB lines took 2.9 GiB. Now a segment's lines share the limit and a grown buffer
/// shrinks back once its line is read. Here 24 reference files each have one 2 MiB line, at
/// lines 1 to 24: without the shrink the readers end up holding about 24 × 2–4 MiB at once
/// (measured: 173 MiB peak without it, 80 MiB with it).
#[test]
fn parallel_files_hold_one_long_line_at_a_time() {
    let dir = crate::util::TempDir::new("parallel-rss");
    let n = 24;
    let long = words(2 * MIB as usize, 7, 1000);
    let mut args: Vec<String> = vec!["--max-line-bytes".into(), "3M".into()];
    for r in 0..n {
        let text: String = (0..n)
            .map(|line| match line == r {
                true => format!("{long}\n"),
                false => "a short reference\n".to_owned(),
            })
            .collect();
        args.push("-r".into());
        args.push(dir.file_str(&format!("r{r}"), &text));
    }
    let hyps: Vec<String> = (0..n).map(|_| "a short hypothesis".to_owned()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let peak = peak_rss(&args, &hyps);
    eprintln!(
        "-r with {n} files of one 2 MiB line each: peak {} MiB",
        peak / MIB
    );
    assert!(peak <= 120 * MIB, "peak {} MiB", peak / MIB);
}
