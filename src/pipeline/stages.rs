//! The three stages every command that reads segments runs: a **reader** thread frames input into
//! [`Batch`]es, **worker** threads turn each batch into a result ([`Work`]), and the **merger**
//! (the calling thread) receives the results and hands them on in input order ([`Merge`]).
//!
//! This module knows nothing of metrics, rows or reports: scoring ([`super::run`]) and `compare`
//! plug in what they do per batch and per result, as ripgrep's searcher drives a `Sink`. What is
//! shared is what must be right once: bounded channels (a slow merger slows the reader down
//! instead of growing buffers), batch recycling, one oversize batch at a time, restoring input
//! order, answering signals and the report timer while input pours in, and a graceful stop that
//! finishes exactly the lines already read ([`ReaderState`]).

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_channel::{bounded, never, select, tick, Receiver, Sender, TryRecvError};

use super::Control;
use crate::input::reader::{self, Batch, Plan, ReaderState};
use crate::signals::Event;

/// What the workers do with a batch.
pub trait Work: Sync {
    /// A worker's own state, kept from batch to batch (tokenizer and n-gram workspaces). A new
    /// one replaces it after an oversize batch, which grew it to a multiple of its longest line.
    type State: Send;
    /// What one batch gives the merger.
    type Done: Send;

    /// A fresh worker state.
    fn state(&self) -> Self::State;

    /// Records per batch at most: the memory a result holds scales with it, and results wait
    /// between the workers and the merger (a channel of `2 × threads`, and out of order at the
    /// merger while an earlier batch is still being scored).
    fn max_batch_records(&self) -> usize {
        reader::MAX_RECORDS
    }

    /// Turns a batch into its result. The batch may be emptied of what is moved into the result
    /// (its reader messages); its buffers are recycled after.
    fn batch(&self, state: &mut Self::State, batch: &mut Batch) -> Self::Done;
}

/// What the merger does with the results, in input order.
pub trait Merge<D> {
    /// The next batch's result. `Ok(false)` stops the run (the input is read no further).
    fn batch(&mut self, done: D) -> io::Result<bool>;

    /// No result is ready: the merger may wait now, so what it wrote must reach its reader.
    fn idle(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// An event from [`Control::events`] (a signal).
    fn event(&mut self, _event: Event) -> io::Result<()> {
        Ok(())
    }

    /// The `interval` timer of [`run`] fired.
    fn tick(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// A graceful stop was asked for: the run ends as soon as every batch read is merged.
    fn stopping(&self) -> bool {
        false
    }
}

/// Runs reader → `threads` workers → merger over `plan`. Returns when the input is exhausted,
/// the merger stops ([`Merge::batch`] is `Ok(false)`, or an `io::Error`, which is returned), or
/// a stop was requested and every batch read is merged. The workers have ended on return; the
/// reader thread is not joined: after an early stop it may sit in a blocking read of a live
/// stdin, which must not keep the process alive. It ends when its channel is closed.
pub fn run<W: Work, M: Merge<W::Done>>(
    plan: Plan,
    work: &W,
    threads: usize,
    control: &Control,
    interval: Option<Duration>,
    merge: &mut M,
) -> io::Result<()> {
    let threads = threads.max(1);
    let (batch_tx, batch_rx) = bounded::<Batch>(threads * 2);
    let (done_tx, done_rx) = bounded::<(u64, W::Done)>(threads * 2);
    // Emptied batches go back to the reader: room for every batch that can be in flight.
    let (recycle_tx, recycle_rx) = bounded::<Batch>(threads * 4 + 2);
    let state = Arc::clone(&control.reader);
    let max_records = work.max_batch_records();
    thread::Builder::new()
        .name("reader".into())
        .spawn(move || reader::run(plan, max_records, batch_tx, recycle_rx, state))?;
    // Closed when the merger is done: workers waiting for a batch that a reader blocked on live
    // input will never send must end too, or the scope below would never return.
    let (quit_tx, quit_rx) = bounded::<()>(0);
    thread::scope(|scope| {
        for i in 0..threads {
            let (rx, tx, quit) = (batch_rx.clone(), done_tx.clone(), quit_rx.clone());
            let recycle = recycle_tx.clone();
            let reader = &*control.reader;
            thread::Builder::new()
                .name(format!("worker-{i}"))
                .spawn_scoped(scope, move || worker(work, rx, tx, recycle, quit, reader))
                .expect("spawning a worker thread");
        }
        drop((batch_rx, done_tx, quit_rx, recycle_tx));
        let result = merger(done_rx, control, interval, merge);
        drop(quit_tx);
        result
    })
}

/// Runs `work` on batches until the channel closes. After an oversize batch (one at a time, see
/// [`ReaderState`]) the worker drops its state, which grew to a multiple of the line, and tells
/// the reader it may send the next one (issue 19, point 3).
fn worker<W: Work>(
    work: &W,
    rx: Receiver<Batch>,
    tx: Sender<(u64, W::Done)>,
    recycle: Sender<Batch>,
    quit: Receiver<()>,
    reader: &ReaderState,
) {
    let mut state = work.state();
    loop {
        let mut batch = select! {
            recv(rx) -> batch => match batch {
                Ok(batch) => batch,
                Err(_) => return,
            },
            recv(quit) -> _ => return,
        };
        let seq = batch.seq;
        let done = work.batch(&mut state, &mut batch);
        if batch.oversize {
            state = work.state();
            // The batch's own buffers go too (`recycle` keeps only small ones).
            drop(batch);
            reader.oversize_done();
        } else if let Some(empty) = batch.recycle() {
            // Never waits: a full channel or a reader gone just drops the batch.
            let _ = recycle.try_send(empty);
        }
        if tx.send((seq, done)).is_err() {
            return;
        }
    }
}

/// Receives results, puts them in order and hands them to `merge` until the input ends or the
/// run stops, answering events (signals) and the `interval` timer in between.
fn merger<D, M: Merge<D>>(
    rx: Receiver<(u64, D)>,
    control: &Control,
    interval: Option<Duration>,
    merge: &mut M,
) -> io::Result<()> {
    let mut pending: BTreeMap<u64, D> = BTreeMap::new();
    let mut next = 0u64;
    let ticker = interval.map_or_else(never, tick);
    let mut events = control.events.clone();
    loop {
        // Events first, so that a signal is answered promptly even while input pours in.
        while let Ok(event) = events.try_recv() {
            merge.event(event)?;
        }
        if ticker.try_recv().is_ok() {
            merge.tick()?;
        }
        let done = match rx.try_recv() {
            Ok(done) => Some(done),
            Err(TryRecvError::Disconnected) => return Ok(()),
            Err(TryRecvError::Empty) => {
                // Nothing more is ready: whatever was written must reach the reader now (live
                // input), so flush before waiting.
                merge.idle()?;
                // Stopping, and every line read has been merged: done.
                if merge.stopping() && control.reader.caught_up(next) {
                    return Ok(());
                }
                let wait = if merge.stopping() {
                    Duration::from_millis(5)
                } else {
                    Duration::from_secs(3600)
                };
                select! {
                    recv(rx) -> msg => match msg {
                        Ok(done) => Some(done),
                        Err(_) => return Ok(()),
                    },
                    recv(events) -> event => {
                        match event {
                            Ok(event) => merge.event(event)?,
                            Err(_) => events = never(),
                        }
                        None
                    },
                    recv(ticker) -> _ => {
                        merge.tick()?;
                        None
                    },
                    default(wait) => None,
                }
            }
        };
        if let Some((seq, done)) = done {
            pending.insert(seq, done);
            while let Some(done) = pending.remove(&next) {
                next += 1;
                if !merge.batch(done)? {
                    return Ok(());
                }
            }
        }
    }
}
