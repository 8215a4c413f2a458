//! Signals (SPEC §5). The handlers only record that a signal arrived (signal-hook's self-pipe);
//! a thread turns each into an [`Event`] for the merger, which acts on it between rows.

use std::io;
use std::sync::Arc;
use std::thread;

use crossbeam_channel::{unbounded, Receiver};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1};
use signal_hook::iterator::Signals;

use crate::input::reader::ReaderState;

/// What the merger is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// SIGINT or SIGTERM: read no more, finish every line already read, write the final report,
    /// exit with 128 + the signal number.
    Stop(i32),
    /// SIGUSR1: write a running report now (like `dd`).
    Report,
    /// SIGHUP: reopen `--output`, `--report-file` and `--prometheus` (log rotation).
    Reopen,
}

/// Installs the handlers and starts the thread that forwards signals as events. A second SIGINT
/// or SIGTERM while a stop is under way ends the process at once (status 128 + signal).
pub fn spawn(reader: Arc<ReaderState>) -> io::Result<Receiver<Event>> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP, SIGUSR1])?;
    let (tx, rx) = unbounded();
    thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut stopping = false;
            for signal in signals.forever() {
                let event = match signal {
                    SIGINT | SIGTERM if stopping => std::process::exit(128 + signal),
                    SIGINT | SIGTERM => {
                        stopping = true;
                        reader.request_stop();
                        Event::Stop(signal)
                    }
                    SIGUSR1 => Event::Report,
                    SIGHUP => Event::Reopen,
                    _ => continue,
                };
                if tx.send(event).is_err() {
                    break;
                }
            }
        })?;
    Ok(rx)
}
