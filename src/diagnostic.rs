//! Diagnostics on stderr, `bleu-stream: warning: …` / `bleu-stream: error: …`: the one place
//! that writes them, used by the reader, the pipeline, the outputs and the subcommands alike.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;

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

/// Writes `bytes` to stderr and says whether they got there. Rust's own `Stderr` reports
/// success on a closed stderr (`2>&-`, EBADF) by design; a report that could not be written
/// must not pass for written, so this writes through a duplicate of the descriptor, which
/// fails on a closed one.
pub fn write_stderr(bytes: &[u8]) -> io::Result<()> {
    let fd = io::stderr().as_fd().try_clone_to_owned()?;
    File::from(fd).write_all(bytes)
}
