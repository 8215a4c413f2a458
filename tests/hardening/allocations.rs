//! Memory whose size is known before it is allocated is checked first: a request past a
//! documented bound is a message, not an abort on a failed allocation (which lost every row
//! and printed a Rust backtrace). Found by the source-level audit of 2026-11-27; each test runs
//! under a 2 GiB address-space limit, so that a regression fails fast instead of taking the
//! machine's memory.

use crate::util::{assert_refused, Cmd, Output, TempDir, BIN};

/// Runs the binary with `args` and `stdin` under `ulimit -v` (2 GiB).
fn limited(args: &[&str], stdin: &str) -> Output {
    Cmd::program("sh")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .stdin(stdin)
        .run()
}

/// No abort: not the allocator's message, not Rust's abort status.
fn no_abort(out: &Output) {
    assert!(
        !out.stderr_str().contains("memory allocation") && out.code != Some(134),
        "{}",
        out.describe()
    );
}

/// The drop-in's `--num-refs N` made N reference lists before reading a line: 24 GB for a
/// billion, and an abort. Now the streams exist once a line fills them, and a line with too
/// few fields says so, as sacreBLEU does given the memory.
#[test]
fn sacrebleu_num_refs_allocates_nothing_before_the_lines() {
    let dir = TempDir::new("alloc-num-refs");
    let r = dir.file_str("r.txt", "a b c\n");
    let empty = dir.file_str("empty.txt", "");
    let out = limited(&["sacrebleu", &r, "--num-refs", "1000000000"], "a b c\n");
    no_abort(&out);
    assert_eq!(out.code, Some(17), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("FATAL: line 1: expected 1000000000 fields, but found 1."),
        "{}",
        out.describe()
    );
    // No reference line at all: the length check, as with a few streams.
    let out = limited(
        &["sacrebleu", &empty, "--num-refs", "1000000000"],
        "a b c\n",
    );
    no_abort(&out);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("System and reference streams have different lengths."),
        "{}",
        out.describe()
    );
    // Tab-separated references still fill every stream.
    let tsv = dir.file_str("r2.tsv", "a b c d e\ta b c d f\n");
    let out = limited(&["sacrebleu", &tsv, "--num-refs", "2", "-b"], "a b c d e\n");
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.0\n");
}

/// The drop-in takes any chrF order, as sacreBLEU does, but its statistics (3 counts per order
/// per segment) are checked against 1 GiB before scoring: `--chrf-char-order 100000000`
/// aborted on a 4 GiB allocation.
#[test]
fn sacrebleu_chrf_orders_past_the_statistics_budget_are_refused() {
    let dir = TempDir::new("alloc-chrf-orders");
    let r = dir.file_str("r.txt", "a b c\n");
    for option in ["--chrf-char-order", "--chrf-word-order"] {
        let out = limited(
            &["sacrebleu", &r, "-m", "chrf", option, "100000000"],
            "a b c\n",
        );
        no_abort(&out);
        assert_refused(
            &out,
            1,
            &[option, "100000000", "1024 MiB", "use fewer orders"],
        );
    }
    // Large but within it: scored.
    let out = limited(
        &[
            "sacrebleu",
            &r,
            "-m",
            "chrf",
            "--chrf-char-order",
            "100000",
            "-b",
        ],
        "a b c\n",
    );
    out.assert_success();
}

/// `compare` keeps every resample's score of every system: `--paired-bs-n 10000000` with 1,001
/// systems asked for 80 GB and aborted. Past 1 GiB it is a usage error naming the product.
#[test]
fn compare_resamples_past_the_budget_are_refused() {
    let dir = TempDir::new("alloc-compare");
    let r = dir.file_str("r.txt", "a b c\n");
    let systems = dir.file_str("sys.tsv", &(vec!["a b c"; 1001].join("\t") + "\n"));
    let out = limited(
        &["compare", "-r", &r, "--paired-bs-n", "10000000", &systems],
        "",
    );
    no_abort(&out);
    assert_refused(
        &out,
        2,
        &[
            "--paired-bs-n 10000000 with 1001 systems",
            "more than 1 GiB",
        ],
    );
    // The same resamples with two systems fit (160 MB).
    let two = dir.file_str("two.tsv", "a b c\ta b d\n");
    let out = limited(
        &[
            "compare",
            "-r",
            &r,
            "--paired-bs-n",
            "10000000",
            "-j",
            "2",
            &two,
        ],
        "",
    );
    no_abort(&out);
}

/// `--confidence=streaming` allocates its replicates before the first line; only groups were
/// held to 1 GiB, so one run of chrF at orders 64 + 64 with a million replicates took 3 GB,
/// and with BLEU at order 64 too aborted.
#[test]
fn streaming_replicates_past_the_budget_are_refused() {
    let input = "g\tthe cat sat\tthe cat sat\ng\ta b\ta b\n";
    let base = [
        "--corpus-only",
        "--confidence=streaming",
        "--confidence-n",
        "1000000",
    ];
    let orders = [
        "-m",
        "bleu,chrf",
        "--max-ngram-order",
        "64",
        "--chrf-char-order",
        "64",
        "--chrf-word-order",
        "64",
    ];
    // With `--group-by`, refused before the run's own replicates are allocated too.
    for group_by in [&["--refs", "2"][..], &["--group-by", "col:1"]] {
        let args = [&base[..], &orders, group_by].concat();
        let out = limited(&args, input);
        no_abort(&out);
        // (A warning about the line limit of these orders comes first.)
        assert_eq!(out.code, Some(2), "{}", out.describe());
        assert!(
            out.stderr_str().contains(
                "error: --confidence=streaming keeps 1000000 replicates of 514 sums with these \
                 metrics, 3921 MiB, more than 1 GiB"
            ),
            "{}",
            out.describe()
        );
    }
    // A million replicates of BLEU's 10 sums (80 MB) still run.
    let out = limited(&[&base[..], &["--group-by", "col:1"]].concat(), input);
    out.assert_success();
}

/// The drop-in's resampling draws are asked of the allocator as NumPy asks `malloc`: under a
/// memory limit below the machine's memory (`ulimit -v`, a cgroup), an array past it is NumPy's
/// `MemoryError` (status 1), not an abort; the physical-memory check alone let it through.
#[test]
fn sacrebleu_draws_past_a_memory_limit_are_numpy_s_memory_error() {
    let dir = TempDir::new("alloc-draws");
    let lines: String = (0..10).map(|i| format!("a b c d {i}\n")).collect();
    let r = dir.file_str("r.txt", &lines);
    let h = dir.file_str("h.txt", &lines);
    // 40,000,000 resamples × 10 segments × 8 bytes: 2.98 GiB, past the 2 GiB limit.
    let out = limited(
        &["sacrebleu", &r, "-i", &h, "-ci", "-cin", "40000000", "-b"],
        "",
    );
    no_abort(&out);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(
        out.stderr_str().contains(
            "_ArrayMemoryError: Unable to allocate 2.98 GiB for an array with shape (40000000, 10) \
             and data type int64"
        ),
        "{}",
        out.describe()
    );
}
