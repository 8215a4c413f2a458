//! The commands: scoring ([`score`]), `merge`, `compare`, `--generate` ([`generate`]) and the
//! `sacrebleu` drop-in, one module each.
//!
//! `bleu-stream merge …`, `bleu-stream compare …` and `bleu-stream sacrebleu …` are recognised by
//! their first argument (the drop-in also by the program's name, `sacrebleu`, through a link), so
//! the scoring command keeps its plain `bleu-stream [OPTIONS] [FILE]…` form (a file literally
//! named `merge` is read as `./merge`).

pub mod compare;
pub mod generate;
pub mod merge;
pub mod sacrebleu;
pub mod score;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::diagnostic::{diagnostic, diagnostic_lines, io_message};
use crate::status;

/// Parses a subcommand's arguments with clap, handling `--help` and usage errors like the
/// scoring command does (a hyphen word as an option's value too: [`crate::cli::hyphen_values`]).
pub fn parse<T: clap::Parser>(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<T, ExitCode> {
    crate::cli::hyphen_values(T::command())
        .try_get_matches_from(args)
        .and_then(|m| T::from_arg_matches(&m))
        .map_err(clap_exit)
}

/// What a clap error means for the process: `--help`/`--version` printed (status 0, or as
/// [`finish_write`] says when standard output cannot take it: a help text lost to a full disk
/// must not look printed), or a usage error with the tool's `bleu-stream: error:` prefix
/// (status 2).
pub fn clap_exit(e: clap::Error) -> ExitCode {
    if e.use_stderr() {
        let text = e.render().to_string();
        let text = text.strip_prefix("error: ").unwrap_or(&text);
        let text = format!("error: {}", text.trim_end());
        // clap's layout keeps its lines, unless an argument quoted in it has a control
        // character: `--tokenize $'13a\nBLEU = 99.99'` would put a line of its own on stderr.
        let quoted_control =
            std::env::args_os().any(|a| a.to_string_lossy().chars().any(char::is_control));
        match quoted_control {
            true => diagnostic(&text),
            false => diagnostic_lines(&text),
        }
        ExitCode::from(status::USAGE)
    } else if crate::stdio::stdout_closed() {
        // `--help >&-`: clap's own writer would report success.
        ExitCode::from(finish_write(Err(crate::stdio::closed())))
    } else {
        let printed = e.print().and_then(|()| io::stdout().flush());
        ExitCode::from(finish_write(printed))
    }
}

/// The status of output that ended with `result`: status 1 with the `writing output` error when
/// it could not be written (a full disk), 0 when its reader went away (`| head -1`: not an error
/// worth a word, for a filter).
pub fn finish_write(result: io::Result<()>) -> u8 {
    match result {
        Ok(()) => status::OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => status::OK,
        Err(e) => {
            diagnostic(&format!("error: writing output: {}", io_message(&e)));
            status::IO
        }
    }
}
