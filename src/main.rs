//! `bleu-stream` — see `bleu-stream --help` and bleu-stream(1).

use std::process::ExitCode;

/// Runs before Rust's runtime reopens closed standard descriptors on `/dev/null`, to note which
/// were closed ([`bleu_stream::stdio`]): an ELF constructor, as the `ctor` crate makes them.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static RECORD_CLOSED_STDIO: extern "C" fn() = bleu_stream::stdio::record_closed;

fn main() -> ExitCode {
    bleu_stream::app::main()
}
