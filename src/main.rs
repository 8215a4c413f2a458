//! `bleu-stream` — see `bleu-stream --help` and bleu-stream(1).

use std::process::ExitCode;

fn main() -> ExitCode {
    bleu_stream::app::main()
}
