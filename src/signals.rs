//! Signals (SPEC §5). The handlers only record that a signal arrived (signal-hook's self-pipe);
//! a thread turns each into an [`Event`] for the merger, which acts on it between rows.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// The handlers [`install`] put in place.
pub struct Handlers {
    signals: Signals,
    stop: CaughtStop,
}

/// The number of the last SIGINT or SIGTERM caught, written by the handler itself.
///
/// A stop reaches the merger as an [`Event`] through the signals thread. A signal that arrives
/// as the input ends can find the run over before that thread is scheduled (seen on a busy
/// machine: status 0 after a SIGTERM, final report written); the run's status must not depend
/// on that. The scoring command checks this after the run.
#[derive(Clone, Default)]
pub struct CaughtStop(Arc<AtomicUsize>);

impl CaughtStop {
    /// The stop signal caught so far, whether or not its event was acted on yet.
    pub fn get(&self) -> Option<i32> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            signal => i32::try_from(signal).ok(),
        }
    }
}

/// Installs the handlers: from here on a signal is recorded, never the default action (which
/// for SIGHUP and SIGUSR1 is to terminate). The scoring command calls this first thing, so that
/// a signal arriving while options are parsed or dictionaries load has its documented effect
/// once the run starts.
pub fn install() -> io::Result<Handlers> {
    let stop = CaughtStop::default();
    for signal in [SIGINT, SIGTERM] {
        // Storing to an atomic is all the handler does: async-signal-safe.
        signal_hook::flag::register_usize(signal, Arc::clone(&stop.0), signal as usize)?;
    }
    Ok(Handlers {
        signals: Signals::new([SIGINT, SIGTERM, SIGHUP, SIGUSR1])?,
        stop,
    })
}

/// For `merge`, `compare` and `sacrebleu`, which have no running report: SIGUSR1 is recorded and
/// never acted on. Its default action is to terminate, and `pkill -USR1 bleu-stream`, aimed at
/// a scoring daemon's report, reaches every bleu-stream process of the user: a batch job
/// scoring next to the daemon must not die of it. SIGINT, SIGTERM and SIGHUP keep their default
/// action (these commands write nothing that a stop could leave half-replaced).
pub fn ignore_report_requests() -> io::Result<()> {
    signal_hook::flag::register(SIGUSR1, Arc::new(std::sync::atomic::AtomicBool::new(false)))
        .map(drop)
}

/// Starts the thread that forwards the signals recorded by `signals` as events. Signals that
/// arrived before (while the options were parsed) are turned into events here, before the
/// reader starts, so that their effect does not depend on which thread runs first. A second
/// SIGINT or SIGTERM while a stop is under way ends the process at once (status 128 + signal).
pub fn spawn(
    handlers: Handlers,
    reader: Arc<ReaderState>,
) -> io::Result<(Receiver<Event>, CaughtStop)> {
    let Handlers { mut signals, stop } = handlers;
    let (tx, rx) = unbounded();
    let mut stopping = false;
    for signal in signals.pending() {
        if let Some(event) = event(signal, &mut stopping, &reader) {
            let _ = tx.send(event);
        }
    }
    thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if let Some(event) = event(signal, &mut stopping, &reader) {
                    if tx.send(event).is_err() {
                        break;
                    }
                }
            }
        })?;
    Ok((rx, stop))
}

/// The event of `signal`; a stop also tells the reader to read no more.
fn event(signal: i32, stopping: &mut bool, reader: &ReaderState) -> Option<Event> {
    Some(match signal {
        SIGINT | SIGTERM if *stopping => std::process::exit(128 + signal),
        SIGINT | SIGTERM => {
            *stopping = true;
            reader.request_stop();
            Event::Stop(signal)
        }
        SIGUSR1 => Event::Report,
        SIGHUP => Event::Reopen,
        _ => return None,
    })
}
