//! The subcommands besides scoring (which is [`crate::app`]): one file each.
//!
//! `bleu-stream merge …` and `bleu-stream compare …` are recognised by their first argument, so
//! the scoring command keeps its plain `bleu-stream [OPTIONS] [FILE]…` form (a file literally
//! named `merge` is read as `./merge`).

pub mod merge;

use std::process::ExitCode;

use crate::app::status;
use crate::output::diagnostic;

/// Parses a subcommand's arguments with clap, handling `--help` and usage errors like the
/// scoring command does.
pub fn parse<T: clap::Parser>(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<T, ExitCode> {
    match T::try_parse_from(args) {
        Ok(args) => Ok(args),
        Err(e) if e.use_stderr() => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            diagnostic(&format!("error: {}", text.trim_end()));
            Err(ExitCode::from(status::USAGE))
        }
        Err(e) => {
            let _ = e.print();
            Err(ExitCode::from(status::OK))
        }
    }
}
