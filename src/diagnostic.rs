//! Diagnostics on stderr, `bleu-stream: warning: …` / `bleu-stream: error: …`: the one place
//! that writes them, used by the reader, the pipeline, the outputs and the subcommands alike.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;

/// Writes `bleu-stream: <text>` to stderr in one write, ignoring failure (a closed stderr must
/// neither stop the scoring nor panic, as `eprintln!` would). Control characters and
/// bidirectional overrides are [`escaped`] here, for every message: a file name or a value
/// quoted in one (`$'no\e[31mfile'`) must not drive the terminal (found by the input audit:
/// only `merge` escaped them), nor, with a line feed, start a line of its own that a log
/// scraper would take for a report's (`$'x\nBLEU = 99.99'`, found by the output audit): a
/// diagnostic is one line.
pub fn diagnostic(text: &str) {
    let mut line = String::from("bleu-stream: ");
    line.push_str(&escaped(text));
    line.push('\n');
    let _ = io::stderr().write_all(line.as_bytes());
}

/// [`diagnostic`] for a text of several lines that the program itself laid out (clap's usage
/// errors): each line escaped, the line breaks kept.
pub fn diagnostic_lines(text: &str) {
    let mut line = String::from("bleu-stream: ");
    for (i, part) in text.split('\n').enumerate() {
        if i > 0 {
            line.push('\n');
        }
        line.push_str(&escaped(part));
    }
    line.push('\n');
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
    // Closed at start-up, then reopened on /dev/null by Rust's runtime ([`crate::stdio`]).
    if crate::stdio::stderr_closed() {
        return Err(crate::stdio::closed());
    }
    let fd = io::stderr().as_fd().try_clone_to_owned()?;
    File::from(fd).write_all(bytes)
}

/// A character that must not reach a terminal raw: a control character, or a bidirectional
/// embedding, override or isolate (U+202A–U+202E, U+2066–U+2069), which would reorder what
/// follows it on the line.
pub fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character (and every bidirectional override, which reorders what a
/// terminal shows) escaped as `\u{…}`: diagnostics that quote a file's contents (a metric key of
/// a stats document, say) must not let the file drive the terminal.
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_and_bidi_overrides_are_escaped() {
        assert_eq!(super::escaped("a b: c"), "a b: c");
        assert_eq!(
            super::escaped("x\u{1b}[2J\n\u{202e}y\u{7f}"),
            "x\\u{1b}[2J\\u{a}\\u{202e}y\\u{7f}"
        );
    }
}
