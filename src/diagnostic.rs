//! Diagnostics on stderr, `bleu-stream: warning: …` / `bleu-stream: error: …`: the one place
//! that writes them, used by the reader, the pipeline, the outputs and the subcommands alike.

use std::io::{self, Write};

/// Writes `bleu-stream: <text>` to stderr in one write, ignoring failure (a closed stderr must
/// neither stop the scoring nor panic, as `eprintln!` would).
pub fn diagnostic(text: &str) {
    let line = format!("bleu-stream: {text}\n");
    let _ = io::stderr().write_all(line.as_bytes());
}

/// `io::Error` text without Rust's " (os error N)" suffix.
pub fn io_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}
