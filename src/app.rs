//! The program: dispatches the command line to a subcommand (`merge`, `compare`, `sacrebleu`) or to the
//! scoring command, and turns its result into the exit status.

use std::process::ExitCode;

use crate::command;
use crate::diagnostic::diagnostic;
use crate::status;

/// Runs the command line and returns the exit status.
pub fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let invoked_as = argv
        .first()
        .map(std::path::Path::new)
        .and_then(|p| p.file_name());
    let sacrebleu = invoked_as.is_some_and(|n| n == "sacrebleu");
    if sacrebleu
        || argv
            .get(1)
            .is_some_and(|a| a == "merge" || a == "compare" || a == "sacrebleu")
    {
        if let Err(e) = crate::signals::ignore_report_requests() {
            diagnostic(&format!(
                "error: installing signal handlers: {}",
                crate::diagnostic::io_message(&e)
            ));
            return ExitCode::from(status::IO);
        }
    }
    if argv.get(1).is_some_and(|a| a == "merge") {
        crate::heap::tune();
        return command::merge::main(argv);
    }
    if argv.get(1).is_some_and(|a| a == "compare") {
        return command::compare::main(argv);
    }
    // sacreBLEU's command line: `bleu-stream sacrebleu …`, or this binary linked as `sacrebleu`.
    if sacrebleu {
        return command::sacrebleu::main(argv);
    }
    if argv.get(1).is_some_and(|a| a == "sacrebleu") {
        return command::sacrebleu::main(argv.into_iter().skip(1).collect());
    }
    // Before anything else: a signal that arrives while the options are parsed must not kill
    // the process (SIGHUP's and SIGUSR1's default action).
    let signals = match crate::signals::install() {
        Ok(signals) => signals,
        Err(e) => {
            diagnostic(&format!(
                "error: installing signal handlers: {}",
                crate::diagnostic::io_message(&e)
            ));
            return ExitCode::from(status::IO);
        }
    };
    crate::heap::tune();
    match crate::cli::parse(argv) {
        Ok(config) => match config.generate {
            Some(kind) => command::generate::run(kind),
            None => ExitCode::from(command::score::run(config, signals)),
        },
        Err(Ok(e)) => command::clap_exit(e),
        Err(Err(message)) => {
            diagnostic(&format!("error: {message}"));
            ExitCode::from(status::USAGE)
        }
    }
}
