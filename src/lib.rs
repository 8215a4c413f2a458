//! bleu-stream: a fast, exact, streaming machine-translation metric scorer.
//!
//! The library holds everything; the binary (`src/main.rs`) only parses arguments and exits.
//! Layout, following the design card: [`input`] frames lines into segments, [`tokenize`] and
//! [`ngram`] turn text into n-gram ids, [`metric`] computes statistics and scores, [`pipeline`]
//! runs reader, workers and merger, [`output`] renders rows and reports, [`stats`] writes and
//! merges the statistics of shards, [`gate`] is `--fail-under`/`--fail-over`, [`cli`] and [`app`] wire the command line to all of it.

pub mod app;
pub mod cli;
pub mod command;
pub mod confidence;
pub mod diagnostic;
pub mod gate;
pub mod groups;
#[cfg(test)]
mod guard_page;
pub mod heap;
pub mod input;
pub mod metric;
pub mod ngram;
pub mod output;
pub mod pipeline;
pub mod signals;
pub mod significance;
pub mod stats;
pub mod stats_stream;
pub mod status;
pub mod stdio;
#[cfg(test)]
mod test_rng;
pub mod tokenize;
pub mod unicode;
