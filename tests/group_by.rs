//! `--group-by` (issue 20): per-group corpus scores in one pass. Every group's record must be,
//! bit for bit, the record of a separate run over that group's lines — for every metric and
//! thread count — in every kind of report, and `merge` of sharded grouped statistics must give
//! the same per-group numbers. Uses only generated input (no `../shared`).

use serde_json::{json, Value};

use crate::util::{Cmd, Output};

/// A deterministic stream of interleaved systems (JSON Lines with a `sys` field), two
/// references, with bad lines: a missing key (no group), and a bad hypothesis in group `s1`.
fn stream(lines: usize, systems: usize) -> Vec<String> {
    let words = [
        "the", "cat", "sat", "on", "a", "mat", "dog", "ran", "über", "straße", "東京", "is", "big",
        ",", ".", "not", "quite", "Mr.", "3.5", "O'Neil",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut out = Vec::new();
    for i in 0..lines {
        let mut sentence = |len: usize| {
            (0..len)
                .map(|_| words[next(words.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (hyp, r1, r2) = (
            sentence(3 + i % 9),
            sentence(4 + i % 7),
            sentence(2 + i % 11),
        );
        let sys = format!("s{}", i % systems);
        let line = match i {
            5 => json!({"hyp": hyp, "refs": [r1, r2]}),
            9 => json!({"sys": "s1", "hyp": 5, "refs": [r1, r2]}),
            _ if i % 4 == 3 => json!({"sys": i % systems, "hyp": hyp, "refs": [r1, r2]}),
            _ => json!({"sys": sys, "hyp": hyp, "refs": [r1, r2]}),
        };
        out.push(line.to_string());
    }
    out
}

fn jsonl_of(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The key of a line of [`stream`] as the JSON text a group record echoes, if it has one.
fn key_of(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).unwrap();
    v.get("sys").map(Value::to_string)
}

fn run(args: &[&str], stdin: &str) -> Output {
    let out = Cmd::new().args(args).stdin(stdin.to_owned()).run();
    out.assert_success();
    out
}

/// Without the fields that say which record it is.
fn body(mut record: Value) -> Value {
    let obj = record.as_object_mut().unwrap();
    for key in ["type", "final", "group"] {
        obj.remove(key);
    }
    record
}

/// Each group's record of a grouped run against a separate run over that group's lines.
fn check_groups_against_separate_runs(metric_args: &[&str], lines: &[String], threads: &[usize]) {
    let input = jsonl_of(lines);
    let mut keys: Vec<String> = Vec::new();
    for key in lines.iter().filter_map(|l| key_of(l)) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut expected = Vec::new();
    for key in &keys {
        let mine: Vec<String> = lines
            .iter()
            .filter(|l| key_of(l).as_ref() == Some(key))
            .cloned()
            .collect();
        let mut args = vec![
            "-f",
            "jsonl",
            "--corpus-only",
            "-j",
            "1",
            "--on-error",
            "skip",
        ];
        args.extend(metric_args);
        let out = run(&args, &jsonl_of(&mine));
        expected.push(body(out.jsonl().unwrap().remove(0)));
    }
    // Without --group-by, a line without a key is not bad: make it bad for the overall run.
    let overall = {
        let mut args = vec!["-f", "jsonl", "--corpus-only", "--on-error", "skip"];
        args.extend(metric_args);
        let keyed: Vec<String> = lines
            .iter()
            .map(|l| match key_of(l) {
                Some(_) => l.clone(),
                None => "{\"no hyp\": 1}".to_owned(),
            })
            .collect();
        run(&args, &jsonl_of(&keyed)).stdout_str()
    };
    let mut first: Option<String> = None;
    for &j in threads {
        let j = j.to_string();
        let mut args = vec![
            "-f",
            "jsonl",
            "--corpus-only",
            "--on-error",
            "skip",
            "--group-by",
            "sys",
            "-j",
            &j,
        ];
        args.extend(metric_args);
        let out = run(&args, &input);
        let stdout = out.stdout_str();
        let records = out.jsonl().unwrap();
        assert_eq!(records.len(), 1 + keys.len(), "{metric_args:?}: {stdout}");
        // The overall record is exactly the ungrouped run's.
        assert_eq!(
            stdout.lines().next().unwrap(),
            overall.trim_end(),
            "{metric_args:?}"
        );
        for ((record, key), want) in records[1..].iter().zip(&keys).zip(&expected) {
            assert_eq!(record["type"], "corpus");
            assert_eq!(record["final"], true);
            assert_eq!(record["group"].to_string(), *key, "{metric_args:?}");
            assert_eq!(
                body(record.clone()),
                *want,
                "{metric_args:?} -j {j}: group {key}"
            );
        }
        match &first {
            None => first = Some(stdout),
            Some(first) => assert_eq!(*first, stdout, "{metric_args:?}: -j {j} differs"),
        }
    }
}

#[test]
fn group_records_are_separate_runs_bit_for_bit_for_every_thread_count() {
    let lines = stream(240, 7);
    check_groups_against_separate_runs(&["-m", "bleu,chrf"], &lines, &[1, 2, 3, 4, 5, 6, 7, 8]);
}

#[test]
fn group_records_are_separate_runs_for_every_metric_and_some_options() {
    let lines = stream(150, 5);
    let cases: &[&[&str]] = &[
        &["-m", "ter"],
        &["-m", "nltk-bleu"],
        &["-m", "nist"],
        &["-m", "gleu,mteval-bleu,multi-bleu"],
        &["-m", "bleu", "--tokenize", "intl", "-l"],
        &["-m", "chrf", "--chrf-word-order", "2"],
        &["-m", "bleu,chrf", "--confidence", "--confidence-n", "200"],
    ];
    for case in cases {
        check_groups_against_separate_runs(case, &lines, &[1, 4]);
    }
}

#[test]
fn a_tsv_key_column_is_not_part_of_the_segment() {
    // Column 2 holds the key: a separate run over the lines without it scores the same.
    let lines = stream(60, 3);
    let mut grouped = String::new();
    let mut per_group: Vec<(String, String)> = Vec::new();
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap();
        let (Some(hyp), Some(sys)) = (v["hyp"].as_str(), v.get("sys")) else {
            continue;
        };
        let sys = sys.to_string().trim_matches('"').to_owned();
        let refs: Vec<&str> = v["refs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        grouped.push_str(&format!("{hyp}\t{sys}\t{}\n", refs.join("\t")));
        let plain = format!("{hyp}\t{}\n", refs.join("\t"));
        match per_group.iter_mut().find(|(k, _)| *k == sys) {
            Some((_, text)) => text.push_str(&plain),
            None => per_group.push((sys, plain)),
        }
    }
    let out = run(
        &[
            "-f",
            "jsonl",
            "--corpus-only",
            "--group-by",
            "col:2",
            "-m",
            "bleu,chrf",
        ],
        &grouped,
    );
    let records = out.jsonl().unwrap();
    assert_eq!(records.len(), 1 + per_group.len());
    for (record, (key, text)) in records[1..].iter().zip(&per_group) {
        assert_eq!(record["group"], json!(key));
        let separate = run(&["-f", "jsonl", "--corpus-only", "-m", "bleu,chrf"], text);
        assert_eq!(
            body(record.clone()),
            body(separate.jsonl().unwrap().remove(0))
        );
    }
    // The inferred number of references does not count the key column.
    assert_eq!(
        records[0]["bleu"]["signature"]
            .as_str()
            .unwrap()
            .split('|')
            .next(),
        Some("nrefs:2")
    );
}

#[test]
fn a_missing_key_is_a_bad_line_with_its_number() {
    let input = "{\"sys\":\"a\",\"hyp\":\"x y\",\"ref\":\"x y\"}\n{\"hyp\":\"x\",\"ref\":\"x\"}\n\
                 {\"sys\":null,\"hyp\":\"x\",\"ref\":\"x\"}\n";
    let out = Cmd::new().args(["--group-by", "sys"]).stdin(input).run();
    // Two bad lines of three: the rows, then an error (status 1).
    assert_eq!(out.code, Some(1), "{}", out.describe());
    let err = out.stderr_str();
    assert!(
        err.contains("warning: line 2: no \"sys\" field (--group-by sys)"),
        "{err}"
    );
    assert!(
        err.contains("warning: line 3: \"sys\" must be a string or a number"),
        "{err}"
    );
    // One row per line, the bad ones empty.
    assert_eq!(out.stdout_str(), "100.00\n\n\n");
    let out = Cmd::new()
        .args(["--group-by", "sys", "--on-error", "fail", "-f", "jsonl"])
        .stdin(input)
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    let records = out.jsonl().unwrap();
    assert_eq!(records[1]["type"], "error");
    assert_eq!(records[1]["line"], 2);
}

/// Regression (documents audit): keys were kept whatever their length, so 300 lines with
/// 4 MiB keys held 7 GiB. A key is at most 4,096 bytes of JSON text; a longer one makes a bad
/// line that names the limit (TSV and JSONL alike), and the key at the limit is a group.
#[test]
fn a_key_over_4096_bytes_is_a_bad_line() {
    // `"` + 4094 characters + `"`: 4,096 bytes of JSON text.
    let (fits, over) = ("k".repeat(4094), "k".repeat(4095));
    let input = format!("{fits}\tx y\tx y\n{over}\tx y\tx y\n");
    let out = Cmd::new()
        .args(["--group-by", "col:1", "-f", "jsonl"])
        .stdin(input)
        .run();
    out.assert_success();
    let records = out.jsonl().unwrap();
    assert_eq!(records[1]["type"], "error", "{}", records[1]);
    let err = out.stderr_str();
    assert!(
        err.contains(
            "line 2: a group key of 4097 bytes (as JSON text; at most 4096): a key names a \
             system, a language pair or a domain; is --group-by col:1 the right column?"
        ),
        "{err}"
    );
    let groups: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("group").is_some())
        .collect();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["group"].as_str(), Some(fits.as_str()));
    let line = format!("{{\"sys\":\"{over}\",\"hyp\":\"x\",\"ref\":\"x\"}}\n");
    let out = Cmd::new().args(["--group-by", "sys"]).stdin(line).run();
    assert!(
        out.stderr_str()
            .contains("line 1: a group key of 4097 bytes (as JSON text; at most 4096)"),
        "{}",
        out.describe()
    );
    assert!(
        out.stderr_str().contains("the right field?"),
        "{}",
        out.describe()
    );
}

#[test]
fn too_many_groups_stop_the_run_with_status_2() {
    let input = "{\"g\":1,\"hyp\":\"a\",\"ref\":\"a\"}\n{\"g\":2,\"hyp\":\"b\",\"ref\":\"b\"}\n\
                 {\"g\":1,\"hyp\":\"a\",\"ref\":\"a\"}\n{\"g\":3,\"hyp\":\"c\",\"ref\":\"c\"}\n\
                 {\"g\":1,\"hyp\":\"a\",\"ref\":\"a\"}\n";
    let out = Cmd::new()
        .args(["--group-by", "g", "--max-groups", "2", "-f", "jsonl"])
        .stdin(input)
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("error: line 4: group 3 would be group 3 but --max-groups is 2"),
        "{}",
        out.stderr_str()
    );
    let records = out.jsonl().unwrap();
    let rows = records.iter().filter(|r| r["type"] == "segment").count();
    assert_eq!(rows, 3, "the lines before the stop have their rows");
    let corpus: Vec<&Value> = records.iter().filter(|r| r["type"] == "corpus").collect();
    assert_eq!(corpus.len(), 3);
    assert_eq!(corpus[0]["segments"], 3);
    assert_eq!(
        (corpus[1]["group"].clone(), corpus[1]["segments"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(
        (corpus[2]["group"].clone(), corpus[2]["segments"].clone()),
        (json!(2), json!(1))
    );
}

#[test]
fn running_reports_carry_every_group_so_far() {
    let lines = stream(12, 3);
    let out = run(
        &[
            "-f",
            "jsonl",
            "--every",
            "4",
            "--group-by",
            "sys",
            "--on-error",
            "skip",
        ],
        &jsonl_of(&lines),
    );
    let records = out.jsonl().unwrap();
    let corpus: Vec<&Value> = records.iter().filter(|r| r["type"] == "corpus").collect();
    // At line 4: groups "s0", "s1", "s2"; line 4 has the number key 0 (i % 4 == 3).
    let groups = |from: usize, n: usize| -> Vec<String> {
        corpus[from..from + n]
            .iter()
            .map(|r| r["group"].to_string())
            .collect()
    };
    assert!(corpus[0].get("group").is_none());
    assert_eq!(groups(1, 4), ["\"s0\"", "\"s1\"", "\"s2\"", "0"]);
    assert_eq!(
        corpus.iter().filter(|r| r.get("group").is_none()).count(),
        4
    );
    assert_eq!(corpus.last().unwrap()["final"], true);
}

/// The text table shows a key bare unless it could be mistaken for another (then as its JSON
/// string), and Prometheus labels a number key with `group_type="number"`: the string "7" and
/// the number 7 are two groups and stay two rows and two series (regression, audit
/// 2026-11-26: both printed as `7`, and the `.prom` file repeated a label set).
#[test]
fn text_tables_and_prometheus_labels() {
    let input = "{\"g\":\"de-en\",\"hyp\":\"a b c\",\"ref\":\"a b c\"}\n\
                 {\"g\":\"a\\\"b\\\\c\\nd\",\"hyp\":\"a b\",\"ref\":\"a c\"}\n\
                 {\"g\":7,\"hyp\":\"a b\",\"ref\":\"a b\"}\n\
                 {\"g\":\"7\",\"hyp\":\"a b\",\"ref\":\"a c\"}\n\
                 {\"g\":\"\",\"hyp\":\"a b\",\"ref\":\"a b\"}\n";
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("m.prom");
    let out = Cmd::new()
        .args([
            "--corpus-only",
            "--group-by",
            "g",
            "-m",
            "bleu,chrf",
            "-w",
            "4",
        ])
        .arg("--prometheus")
        .arg(&prom)
        .stdin(input)
        .run();
    out.assert_success();
    let text = out.stdout_str();
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Group"))
        .collect();
    assert_eq!(
        table,
        [
            "Group         Metric     Score  Segments  Bad lines",
            "de-en         BLEU      0.0000         1          0",
            "de-en         chrF2   100.0000         1          0",
            "\"a\\\"b\\\\c\\nd\"  BLEU      0.0000         1          0",
            "\"a\\\"b\\\\c\\nd\"  chrF2    25.0000         1          0",
            "7             BLEU      0.0000         1          0",
            "7             chrF2   100.0000         1          0",
            "\"7\"           BLEU      0.0000         1          0",
            "\"7\"           chrF2    25.0000         1          0",
            "\"\"            BLEU      0.0000         1          0",
            "\"\"            chrF2   100.0000         1          0",
        ]
    );
    let metrics = std::fs::read_to_string(&prom).unwrap();
    assert!(
        metrics.contains("name=\"BLEU\",signature=\"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0\",group=\"a\\\"b\\\\c\\nd\"} 0.0\n"),
        "{metrics}"
    );
    assert!(metrics.contains("bleu_stream_group_segments_total{group=\"de-en\"} 1\n"));
    assert!(
        metrics.contains("bleu_stream_group_segments_total{group=\"7\",group_type=\"number\"} 1\n")
    );
    assert!(metrics.contains("bleu_stream_group_segments_total{group=\"7\"} 1\n"));
    // The empty key: Prometheus reads `group=""` as no label, the overall series (regression,
    // group audit).
    assert!(
        metrics.contains("bleu_stream_group_segments_total{group=\"\",group_type=\"empty\"} 1\n")
    );
    assert!(!metrics.contains("group=\"\"}"), "{metrics}");
    // No label set twice within a family.
    let samples: Vec<&str> = metrics
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.rsplit_once(' ').unwrap().0)
        .collect();
    let distinct: std::collections::HashSet<&&str> = samples.iter().collect();
    assert_eq!(distinct.len(), samples.len(), "{metrics}");
}

#[test]
fn sharded_groups_merge_to_one_runs_numbers() {
    let lines = stream(200, 9);
    let common = [
        "--input",
        "jsonl",
        "--group-by",
        "sys",
        "--on-error",
        "skip",
        "-m",
        "bleu,chrf,nist",
    ];
    let mut whole_args = vec!["-f", "jsonl", "--corpus-only"];
    whole_args.extend(common);
    let whole = run(&whole_args, &jsonl_of(&lines)).stdout_str();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, part) in [0..37, 37..37, 37..120, 120..200].into_iter().enumerate() {
        let mut args = vec!["--emit", "stats"];
        args.extend(common);
        let doc = run(&args, &jsonl_of(&lines[part]));
        let path = dir.path().join(format!("part-{i}.json"));
        std::fs::write(&path, doc.stdout_str()).unwrap();
        files.push(path);
    }
    let merged = Cmd::new().args(["merge", "-f", "jsonl"]).args(&files).run();
    merged.assert_success();
    assert_eq!(merged.stdout_str(), whole);
    // A tree: the merge of merges.
    let left = Cmd::new()
        .args(["merge", "--emit", "stats"])
        .args(&files[..2])
        .run();
    let right = Cmd::new()
        .args(["merge", "--emit", "stats"])
        .args(&files[2..])
        .run();
    let both = format!("{}{}", left.stdout_str(), right.stdout_str());
    let tree = Cmd::new()
        .args(["merge", "-f", "jsonl", "-"])
        .stdin(both)
        .run();
    tree.assert_success();
    assert_eq!(tree.stdout_str(), whole);
    // Grouped and ungrouped documents do not mix.
    let plain = run(
        &[
            "--emit",
            "stats",
            "--input",
            "jsonl",
            "-m",
            "bleu,chrf,nist",
        ],
        &jsonl_of(&lines[..5]),
    );
    let mixed = format!(
        "{}{}",
        std::fs::read_to_string(&files[0]).unwrap(),
        plain.stdout_str()
    );
    let out = Cmd::new().args(["merge", "-"]).stdin(mixed).run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str().contains("no --group-by"),
        "{}",
        out.stderr_str()
    );
}

#[test]
fn usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--group-by", "sys", "-r", "/dev/null", "/dev/null"],
            "not supported with -r",
        ),
        (
            &["--group-by", "col:1", "--input", "jsonl"],
            "names a TSV column",
        ),
        (
            &["--group-by", "sys", "--input", "tsv"],
            "names a JSONL field",
        ),
        (&["--group-by", "col:0"], "expected a column number"),
        (&["--max-groups", "5"], "--group-by"),
    ];
    for (args, message) in cases {
        let out = Cmd::new().args(*args).run();
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.describe());
        assert!(
            out.stderr_str().contains(message),
            "{args:?}: {}",
            out.stderr_str()
        );
    }
}

/// `merge` kept every group of its documents whatever their number: a stats file of millions of
/// tiny groups grew memory with the file (issue 19 point 2). It has the scoring command's
/// `--max-groups` now (default 10,000): one more is an error naming the file and the document.
#[test]
fn merge_caps_the_number_of_groups() {
    let input = "{\"g\":1,\"hyp\":\"a\",\"ref\":\"a\"}\n{\"g\":2,\"hyp\":\"b\",\"ref\":\"b\"}\n\
                 {\"g\":3,\"hyp\":\"c\",\"ref\":\"c\"}\n";
    let stats = Cmd::new()
        .args(["--group-by", "g", "--emit", "stats"])
        .stdin(input)
        .run();
    assert_eq!(stats.code, Some(0), "{}", stats.describe());
    let out = Cmd::new()
        .args(["merge", "--max-groups", "2"])
        .stdin(stats.stdout.clone())
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    let err = out.stderr_str();
    assert!(
        err.contains("<stdin>: document 1:")
            && err.contains("group 3 would be group 3 but --max-groups is 2"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let out = Cmd::new()
        .args(["merge", "--max-groups", "3", "-f", "jsonl"])
        .stdin(stats.stdout.clone())
        .run();
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert_eq!(
        out.jsonl().unwrap().len(),
        4,
        "the overall record and 3 groups"
    );
    // The scoring command's range and messages (`cli::count`).
    for (bad, says) in [
        ("0", "0 is not in 1..=100000000"),
        ("100000001", "100000001 is not in 1..=100000000"),
        ("-1", "-1 is not in 1..=100000000"),
        ("x", "'x' is not a whole number"),
    ] {
        let out = Cmd::new()
            .args(["merge", "--max-groups", bad])
            .stdin(stats.stdout.clone())
            .run();
        assert_eq!(out.code, Some(2), "{bad}: {}", out.describe());
        assert!(out.stderr_str().contains(says), "{bad}: {}", out.describe());
    }
}

/// Key diagnostics name the input line only (audit 2026-11-26: `line 4: "system": number out
/// of range at line 1 column 7`, a position inside the value), and `col:1` over plain
/// `hyp<TAB>ref` lines says that taking the key out left no reference, not sacreBLEU's
/// reference-file hint about lines without a TAB.
#[test]
fn key_diagnostics_say_what_is_wrong_with_the_line() {
    let stderr = |by: &str, input: &str| {
        Cmd::new()
            .args(["--group-by", by, "-b"])
            .stdin(input)
            .run()
            .stderr_str()
    };
    let err = stderr(
        "system",
        "{\"system\":\"a\",\"hyp\":\"a\",\"ref\":\"a\"}\n\
         {\"system\":1.5e400,\"hyp\":\"a\",\"ref\":\"a\"}\n",
    );
    assert!(
        err.contains("line 2: \"system\": 1.5e400: number out of range\n"),
        "{err}"
    );
    assert!(!err.contains("column"), "{err}");
    let err = stderr("col:1", "a b\ta b\n");
    assert!(
        err.contains("line 1: only 2 fields: --group-by col:1 takes column 1 out as the key"),
        "{err}"
    );
    assert!(!err.contains("-r ref.txt"), "{err}");
    // The wrong form of --group-by for the input (group audit: "empty line" for every JSON
    // record under col:1, each whole line a group; "invalid JSON" with no hint for TSV under
    // a field name).
    let err = stderr("col:1", "{\"system\":\"a\",\"hyp\":\"a\",\"ref\":\"a\"}\n");
    assert!(
        err.contains(
            "line 1: one field: --group-by col:1 reads TSV, and this line looks like a JSON \
             record (a JSONL field is --group-by NAME)"
        ),
        "{err}"
    );
    let err = stderr("col:1", "sysA\n");
    assert!(
        err.contains("line 1: one field: --group-by col:1 expects a key column"),
        "{err}"
    );
    assert!(
        !err.contains("empty line") && !err.contains("-r ref.txt"),
        "{err}"
    );
    let err = stderr("system", "a\tb\tc\n");
    assert!(
        err.contains("--group-by system reads JSON Lines (a TSV column is --group-by col:N)"),
        "{err}"
    );
}

/// A byte order mark starting a TSV line is not part of a first-column key (regression, group
/// audit: `\u{feff}sysA` became a group of its own beside `sysA`, the two shown alike).
#[test]
fn a_byte_order_mark_is_not_part_of_the_key() {
    let out = run(
        &["--group-by", "col:1", "-f", "jsonl", "--corpus-only"],
        "\u{feff}sysA\ta b c\ta b c\nsysA\ta b\ta b\n",
    );
    let records = out.jsonl().unwrap();
    let groups: Vec<&Value> = records.iter().filter_map(|r| r.get("group")).collect();
    assert_eq!(groups, [&json!("sysA")], "{}", out.describe());
    assert!(!out.stderr_str().contains("warning"), "{}", out.describe());
}

/// A first line of only a key and a hypothesis is bad, and does not fix the number of fields
/// of the lines after it (regression, group audit: every good line then failed with "3 fields
/// but line 1 has 2").
#[test]
fn a_key_and_hypothesis_line_does_not_fix_the_number_of_fields() {
    let out = Cmd::new()
        .args(["--group-by", "col:1", "-b"])
        .stdin("k\thyp only\nk\ta b\ta b\nk\tx\tx\n")
        .run();
    out.assert_success();
    let err = out.stderr_str();
    assert!(err.contains("line 1: only 2 fields"), "{err}");
    assert!(!err.contains("line 2") && !err.contains("line 3"), "{err}");
    assert!(
        err.contains("1 bad line") || !err.contains("error"),
        "{err}"
    );
    // The later lines are framed by the first with a reference: a stray TAB is still caught.
    let out = Cmd::new()
        .args(["--group-by", "col:1", "-b"])
        .stdin("k\thyp only\nk\ta b\ta b\nk\tx\ty\tz\n")
        .run();
    assert!(
        out.stderr_str()
            .contains("line 3: 3 fields but line 2 has 2"),
        "{}",
        out.describe()
    );
}

/// Regression (output audit): with several `--weights` sets, the Prometheus file had each
/// group's first set only (in `bleu_stream_score`); every set of every group now has a sample
/// in the metric's own family, equal to the group's JSONL scores.
#[test]
fn prometheus_has_every_weight_set_of_every_group() {
    let input = "{\"system\":\"a\",\"hyp\":\"the cat sat on the mat\",\"ref\":\"the cat sat on a mat\"}\n\
                 {\"system\":\"b\",\"hyp\":\"a dog ran in the park\",\"ref\":\"the dog ran in a park\"}\n";
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("g.prom");
    let out = Cmd::new()
        .args([
            "--group-by",
            "system",
            "-m",
            "nltk-bleu",
            "--corpus-only",
            "-f",
            "jsonl",
        ])
        .args(["--weights", "0.5,0.5", "--weights", "0.25,0.25,0.25,0.25"])
        .arg("--prometheus")
        .arg(&prom)
        .stdin(input)
        .run();
    out.assert_success();
    let text = std::fs::read_to_string(&prom).unwrap();
    let records = out.jsonl().unwrap();
    let mut checked = 0;
    for r in records.iter().filter(|r| r.get("group").is_some()) {
        let group = r["group"].as_str().unwrap();
        let scores = r["nltk-bleu"]["score"].as_array().unwrap();
        for (weights, want) in ["0.5,0.5", "0.25,0.25,0.25,0.25"].iter().zip(scores) {
            let labels = format!("weights=\"{weights}\",group=\"{group}\"}} ");
            let line = text
                .lines()
                .find(|l| l.starts_with("bleu_stream_nltk_bleu_score{") && l.contains(&labels))
                .unwrap_or_else(|| panic!("no sample for {labels} in:\n{text}"));
            let value: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
            assert_eq!(value, want.as_f64().unwrap(), "{line}");
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "{text}");
}
