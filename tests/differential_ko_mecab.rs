//! `-t ko-mecab` against sacreBLEU 2.6.0 itself on inputs nobody recorded: seeded random Korean
//! and mixed-script strings (Hangul syllables and words, conjoining and compatibility jamo,
//! Hanja, kana, digits, Latin, punctuation, emoji, ASCII and Unicode spaces, NUL). Each string's
//! tokenizer output is compared through the library; sentence BLEU (bits) of random pairs, the
//! corpus BLEU and the signature through the CLI. The Python side is
//! `tests/differential/ko_mecab.py`.
//!
//! `BLEU_STREAM_DIFF_SEED` fixes the seed (default: from the clock; always printed with the
//! case counts), `BLEU_STREAM_DIFF_CASES` the number of strings. Without the Python packages or
//! the dictionary the test says SKIPPED — except under CI (`CI` set), where `.ci/run` installs
//! them and their absence is a failure.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::conformance_ko_mecab::dictionary_or_skip;
use crate::util::{diff_seed, eprint_whole, parse_float_hex, Cmd};
use bleu_stream::tokenize::ko_mecab;

const SCRIPT: &str = "tests/differential/ko_mecab.py";
const DEFAULT_CASES: usize = 3000;

/// Runs the Python side on `input` (JSON lines); its output lines.
fn python(args: &[&str], input: &str) -> Result<Vec<String>, String> {
    let mut child = Command::new("python3")
        .arg(SCRIPT)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.as_bytes().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    writer.join().expect("writer").map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8(out.stdout)
        .map_err(|e| e.to_string())?
        .lines()
        .map(str::to_owned)
        .collect())
}

/// xorshift64*: reproducible from the seed on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn char_in(&mut self, lo: u32, hi: u32) -> char {
        let c = lo + (self.next() % u64::from(hi - lo + 1)) as u32;
        char::from_u32(c).unwrap_or('?')
    }
}

/// Common words and particles, so that dictionary entries (and the space penalty on particles
/// after a space) are exercised, not only unknown words.
const WORDS: [&str; 40] = [
    "안녕하세요",
    "한국어",
    "대한민국",
    "서울",
    "사람",
    "것",
    "수",
    "이",
    "가",
    "은",
    "는",
    "을",
    "를",
    "의",
    "에",
    "에서",
    "으로",
    "와",
    "과",
    "도",
    "만",
    "했다",
    "합니다",
    "있습니다",
    "없다",
    "하고",
    "그리고",
    "하지만",
    "학교",
    "선생님",
    "컴퓨터",
    "이외",
    "화학",
    "먹었다",
    "갔어요",
    "정부는",
    "2024년",
    "3월",
    "10%",
    "AI",
];

fn piece(rng: &mut Rng) -> String {
    match rng.below(20) {
        0..=5 => WORDS[rng.below(WORDS.len())].to_owned(),
        6..=9 => (0..1 + rng.below(4))
            .map(|_| rng.char_in(0xAC00, 0xD7A3))
            .collect(),
        10 => rng.char_in(0x1100, 0x11FF).to_string(),
        11 => rng.char_in(0x3131, 0x318E).to_string(),
        12 => (0..1 + rng.below(6))
            .map(|_| rng.char_in(0x30, 0x39))
            .collect(),
        13 => {
            (0..1 + rng.below(8))
                .map(|_| rng.char_in(0x61, 0x7A))
                .collect::<String>()
                + if rng.below(3) == 0 { "Ab" } else { "" }
        }
        14 => [
            ".", ",", "!", "?", "\"", "'", "(", ")", "-", "…", "“", "”", "·", "~", "%", "/",
        ][rng.below(16)]
        .to_owned(),
        15 => [
            " ", "  ", "\t", "\u{a0}", "\u{3000}", "\u{200b}", "\u{2003}", "\x0b", "\x0c", "\r",
        ][rng.below(10)]
        .to_owned(),
        16 => rng.char_in(0x4E00, 0x9FFF).to_string(),
        17 => rng.char_in(0x3041, 0x30FF).to_string(),
        18 => [
            "😀", "🇰🇷", "\u{ffff}", "\u{fffd}", "Ⅻ", "①", "１２", "ＡＢ", "é", "ß", "α", "Ж", "\0",
        ][rng.below(13)]
        .to_owned(),
        _ => " ".to_owned(),
    }
}

fn line(rng: &mut Rng) -> String {
    let n = match rng.below(10) {
        0 => rng.below(3),
        1..=7 => 1 + rng.below(15),
        _ => 15 + rng.below(60),
    };
    (0..n).map(|_| piece(rng)).collect()
}

#[test]
fn differential_ko_mecab_against_sacrebleu() {
    if let Err(why) = python(&["--check"], "") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install the ko-mecab tools: {why}"
        );
        eprint_whole(&format!(
            "SKIPPED: ko-mecab differential test: {}\n",
            why.trim()
        ));
        return;
    }
    let Some(model) = dictionary_or_skip("ko-mecab differential test") else {
        return;
    };
    let seed = diff_seed();
    let cases: usize = std::env::var("BLEU_STREAM_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let texts: Vec<String> = (0..cases).map(|_| line(&mut rng)).collect();
    let pairs: Vec<(String, String)> = (0..cases / 10)
        .map(|_| (line(&mut rng), line(&mut rng)))
        .collect();
    let mut input = String::new();
    for t in &texts {
        input.push_str(&json!({ "text": t }).to_string());
        input.push('\n');
    }
    for (h, r) in &pairs {
        input.push_str(&json!({ "hyp": h, "refs": [r] }).to_string());
        input.push('\n');
    }
    let replay = format!("(replay: BLEU_STREAM_DIFF_SEED={seed} BLEU_STREAM_DIFF_CASES={cases})");
    let want = python(&[], &input).unwrap_or_else(|e| panic!("sacreBLEU failed {replay}: {e}"));
    assert_eq!(want.len(), texts.len() + pairs.len() + 1, "{replay}");

    // Tokenizer output, through the library.
    let mut scratch = ko_mecab::Scratch::default();
    let mut bad = Vec::new();
    for (t, w) in texts.iter().zip(&want) {
        let w: Value = serde_json::from_str(w).expect("driver JSON");
        model.tokenize_into(t, &mut scratch);
        if scratch.text != w["output"].as_str().expect("output") {
            bad.push(format!(
                "{t:?}\n  sacreBLEU   {:?}\n  bleu-stream {:?}",
                w["output"], scratch.text
            ));
        }
    }

    // Sentence and corpus BLEU, through the CLI.
    let mut cli_input = String::new();
    for (h, r) in &pairs {
        cli_input.push_str(&json!({ "hyp": h, "refs": [r] }).to_string());
        cli_input.push('\n');
    }
    let out = Cmd::new()
        .args([
            "-t", "ko-mecab", "--input", "jsonl", "-f", "jsonl", "-j", "2",
        ])
        .stdin(cli_input.into_bytes())
        .run();
    let rows = out
        .jsonl()
        .unwrap_or_else(|e| panic!("{} {replay}: {e}", out.describe()));
    assert_eq!(rows.len(), pairs.len() + 1, "{replay}: {}", out.describe());
    for (i, row) in rows[..pairs.len()].iter().enumerate() {
        let w: Value = serde_json::from_str(&want[texts.len() + i]).expect("driver JSON");
        let want_score = parse_float_hex(w["score_hex"].as_str().expect("hex")).expect("hex float");
        let got = row["bleu"]["score"].as_f64().unwrap_or(f64::NAN);
        if got.to_bits() != want_score.to_bits() {
            bad.push(format!(
                "pair {i} {:?}: sentence BLEU {want_score} vs {got}",
                pairs[i]
            ));
        }
    }
    let w: Value = serde_json::from_str(want.last().expect("corpus")).expect("driver JSON");
    let corpus = &rows[pairs.len()]["bleu"];
    let want_corpus = parse_float_hex(w["corpus_hex"].as_str().expect("hex")).expect("hex float");
    if corpus["score"].as_f64().map(f64::to_bits) != Some(want_corpus.to_bits()) {
        bad.push(format!("corpus BLEU {want_corpus} vs {}", corpus["score"]));
    }
    if corpus["signature"] != w["signature"] {
        bad.push(format!(
            "signature {} vs {}",
            w["signature"], corpus["signature"]
        ));
    }
    eprint_whole(&format!(
        "ko-mecab differential (seed {seed}): {} strings, {} sentence pairs + 1 corpus vs sacreBLEU: {} differences\n",
        texts.len(),
        pairs.len(),
        bad.len()
    ));
    assert!(
        bad.is_empty(),
        "{replay}\n{}",
        bad.iter().take(15).cloned().collect::<Vec<_>>().join("\n")
    );
}
