//! Signals (SPEC §5). The handlers only record that a signal arrived (signal-hook's self-pipe);
//! a thread turns each into an [`Event`] for the merger, which acts on it between rows.

use std::ffi::c_int;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

/// Whether a running report asked for by SIGUSR1 is pending: its [`Event::Report`] was sent
/// and the merger has not begun to write it yet.
///
/// Why: the channel of events is unbounded, and the merger answers it between rows; while it
/// waits (stdout blocked by a slow reader, a report file being synced) SIGUSR1s queued one
/// event each (audit: 3,000 signals, 3,000 reports with two fsyncs each once the reader came
/// back; a storm of 6,513 signals over 4 s made a 5 s run take 13.7 s). A report pending
/// absorbs the requests that come before the merger serves it: the report it writes then
/// covers everything read before each of them, which is all SIGUSR1 promises. The merger
/// calls [`ReportRequests::serve`] before it computes the report, so a signal that arrives
/// while the report is written sends a new event and gets a report of its own.
#[derive(Clone, Default)]
pub struct ReportRequests(Arc<AtomicBool>);

impl ReportRequests {
    /// Records a request; true when none was pending (then an event must be sent).
    pub fn ask(&self) -> bool {
        !self.0.swap(true, Ordering::SeqCst)
    }

    /// The merger is about to write the report that answers every request pending.
    pub fn serve(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
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
///
/// The four signals are blocked while the handlers are registered (see
/// [`with_signals_blocked`]): one that arrives meanwhile waits, and is delivered once every
/// handler is in place.
pub fn install() -> io::Result<Handlers> {
    const HANDLED: [c_int; 4] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1];
    with_signals_blocked(&HANDLED, || {
        let stop = CaughtStop::default();
        for signal in [SIGINT, SIGTERM] {
            // Storing to an atomic is all the handler does: async-signal-safe.
            signal_hook::flag::register_usize(signal, Arc::clone(&stop.0), signal as usize)?;
        }
        Ok(Handlers {
            signals: Signals::new(HANDLED)?,
            stop,
        })
    })?
}

/// Runs `f` with `signals` blocked in the calling thread, then restores the thread's mask, at
/// which point a signal that arrived meanwhile is delivered.
///
/// Why: signal-hook-registry installs its handler (`sigaction`) before it publishes the actions
/// the handler runs; a signal caught in between finds no action and runs the previous
/// disposition instead, which for SIG_DFL it skips (signal-hook-registry 1.4, `register_
/// unchecked_impl` and `Prev::execute`). So a SIGTERM sent once /proc shows it caught could
/// vanish: the run ended with status 0 (seen once in CI, in
/// `live::signals_during_start_up_have_their_documented_effect`). Blocked, it waits instead.
///
/// Called before any other thread exists, so a signal sent to the process has no other thread
/// to be delivered to and stays pending.
fn with_signals_blocked<T>(signals: &[c_int], f: impl FnOnce() -> T) -> io::Result<T> {
    // SAFETY: `sigset_t` is plain data that `sigemptyset` initialises; `pthread_sigmask` only
    // reads `set` and writes `previous`, both valid for the call.
    let previous = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &signal in signals {
            libc::sigaddset(&mut set, signal);
        }
        let mut previous: libc::sigset_t = std::mem::zeroed();
        match libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut previous) {
            0 => previous,
            error => return Err(io::Error::from_raw_os_error(error)),
        }
    };
    let result = f();
    // SAFETY: as above; `previous` is the mask `pthread_sigmask` returned.
    match unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut()) } {
        0 => Ok(result),
        error => Err(io::Error::from_raw_os_error(error)),
    }
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
) -> io::Result<(Receiver<Event>, CaughtStop, ReportRequests)> {
    let Handlers { mut signals, stop } = handlers;
    let (tx, rx) = unbounded();
    let mut stopping = false;
    let requests = ReportRequests::default();
    for signal in signals.pending() {
        if let Some(event) = event(signal, &mut stopping, &reader, &requests) {
            let _ = tx.send(event);
        }
    }
    let pending = requests.clone();
    thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if let Some(event) = event(signal, &mut stopping, &reader, &pending) {
                    if tx.send(event).is_err() {
                        break;
                    }
                }
            }
        })?;
    Ok((rx, stop, requests))
}

/// The event of `signal`; a stop also tells the reader to read no more. A SIGUSR1 while a
/// report is pending has none ([`ReportRequests`]).
fn event(
    signal: i32,
    stopping: &mut bool,
    reader: &ReaderState,
    requests: &ReportRequests,
) -> Option<Event> {
    Some(match signal {
        SIGINT | SIGTERM if *stopping => std::process::exit(128 + signal),
        SIGINT | SIGTERM => {
            *stopping = true;
            reader.request_stop();
            Event::Stop(signal)
        }
        SIGUSR1 if requests.ask() => Event::Report,
        SIGUSR1 => return None,
        SIGHUP => Event::Reopen,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// Regression (CI, `live::signals_during_start_up_have_their_documented_effect`): a signal
    /// that arrives while handlers are being registered is delivered once they are, not lost.
    /// SIGWINCH stands in for the handled signals: its default action is to do nothing, so
    /// without the block the signal raised here, before its handler exists, is simply gone and
    /// the assertion fails (SIGTERM's default would end the test process instead).
    /// Report requests that come while one is pending are absorbed by it (audit: 3,000
    /// SIGUSR1s queued 3,000 reports); one that comes once the merger serves it is new.
    #[test]
    fn report_requests_pending_are_merged() {
        let reader = ReaderState::default();
        let requests = ReportRequests::default();
        let mut stopping = false;
        let mut events = || event(SIGUSR1, &mut stopping, &reader, &requests);
        assert_eq!(events(), Some(Event::Report));
        for _ in 0..1000 {
            assert_eq!(events(), None);
        }
        requests.serve();
        assert_eq!(events(), Some(Event::Report));
        assert_eq!(events(), None);
    }

    #[test]
    fn a_signal_raised_while_handlers_are_registered_is_delivered_after() {
        let seen = Arc::new(AtomicBool::new(false));
        let registered = with_signals_blocked(&[libc::SIGWINCH], || {
            // SAFETY: `raise` sends the signal to this thread; it is blocked, so it waits.
            assert_eq!(unsafe { libc::raise(libc::SIGWINCH) }, 0);
            assert!(!seen.load(Ordering::SeqCst), "delivered while blocked");
            signal_hook::flag::register(libc::SIGWINCH, Arc::clone(&seen))
        })
        .unwrap();
        let id = registered.unwrap();
        assert!(seen.load(Ordering::SeqCst), "the blocked signal was lost");
        signal_hook::low_level::unregister(id);
    }
}
