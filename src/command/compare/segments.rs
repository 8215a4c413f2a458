//! `compare`'s segments: read and scored by the scoring command's reader → workers → merger
//! ([`crate::pipeline::stages`]), into every system's per-segment statistics vectors.
//!
//! The reader reads the systems and the references in lockstep ([`Plan::Aligned`]); a worker
//! decodes a batch's records and computes every system's vectors for every metric ([`Scorer`]);
//! the merger appends them in input order ([`Collector`]). Unlike scoring, a bad line stops the
//! run with an error, since the systems must stay aligned segment by segment: the first error in
//! input order is the one reported, whichever thread found it.

use std::any::Any;
use std::borrow::Cow;
use std::io;

use super::{CompareArgs, Failure, Metric};
use crate::diagnostic::diagnostic;
use crate::input::reader::{Batch, LineReader, Plan, Source};
use crate::input::{decode, Segment, SegmentRefs, Utf8Policy};
use crate::pipeline::stages::{self, Merge, Work};
use crate::pipeline::{Control, LineLimit, TRAILING_RUN};
use crate::significance::Vectors;
use crate::status;

/// Every segment scored: per system and metric, the segments' vectors and the corpus totals
/// (for the report's name and signature).
pub struct Scored {
    /// Display names, the baseline first.
    pub names: Vec<String>,
    /// True when the systems came from -i files (named by path), false for TSV columns.
    pub from_files: bool,
    /// Number of segments.
    pub segments: usize,
    /// `vectors[s][k]`: system `s`, metric `k`.
    pub vectors: Vec<Vec<Vectors>>,
    /// `totals[s][k]`.
    pub totals: Vec<Vec<Box<dyn Any + Send>>>,
}

/// Opens the inputs and scores every segment on `threads` workers.
pub fn score(
    args: &CompareArgs,
    metrics: &[Metric],
    utf8: Utf8Policy,
    threads: usize,
) -> Result<Scored, Failure> {
    let from_files = !args.systems.is_empty();
    let system_sources: Vec<Source> = if from_files {
        args.systems.iter().map(|f| Source::from_arg(f)).collect()
    } else {
        vec![Source::from_arg(args.file.as_deref().unwrap_or("-"))]
    };
    let ref_sources: Vec<Source> = args.refs.iter().map(|f| Source::from_arg(f)).collect();
    let stdin_uses = system_sources
        .iter()
        .chain(&ref_sources)
        .filter(|s| **s == Source::Stdin)
        .count();
    if stdin_uses > 1 {
        return Err((
            status::USAGE,
            "standard input ('-') can be read only once".to_owned(),
        ));
    }
    let mut streams = Vec::new();
    for source in system_sources.iter().chain(&ref_sources) {
        let input = source.open().map_err(|m| (status::IO, m))?;
        streams.push(LineReader::new(input, source.name()).max_line(args.max_line_bytes));
    }
    let scorer = Scorer {
        metrics,
        utf8,
        from_files,
        system_streams: system_sources.len(),
        stream_names: streams.iter().map(|s| s.name().to_owned()).collect(),
        file_names: args.systems.clone(),
        line_limit: LineLimit::for_metrics(metrics.iter().map(|m| &*m.m), args.max_line_bytes),
    };
    let mut collector = Collector {
        metrics,
        from_files,
        tsv_name: scorer.stream_names[0].clone(),
        systems: from_files.then_some(args.systems.len()),
        segments: 0,
        vectors: Vec::new(),
        totals: Vec::new(),
        empty_runs: Vec::new(),
        failure: None,
    };
    let plan = Plan::Aligned { streams };
    let control = Control::default();
    stages::run(plan, &scorer, threads, &control, None, &mut collector)
        .map_err(|e| (status::IO, format!("reading: {e}")))?;
    if let Some(failure) = collector.failure {
        return Err(failure);
    }
    let systems = collector.systems.unwrap_or(1);
    let names: Vec<String> = if from_files {
        args.systems.clone()
    } else {
        std::iter::once("Baseline".to_owned())
            .chain((1..systems).map(|i| format!("System {i}")))
            .collect()
    };
    // As the scoring command warns about a trailing run of empty hypotheses (`watch.rs`): -i
    // files of different lengths are an error, but `paste` pads a shorter file's column with
    // empty fields, which would be compared as that system's output (found by the compare
    // audit: 50 missing lines of 200 gave "p = 0.0010" against the baseline, in silence).
    for (name, &(start, n)) in names.iter().zip(&collector.empty_runs) {
        if n >= TRAILING_RUN {
            diagnostic(&format!(
                "warning: {name}: the last {n} lines, from line {start} on, are empty: its \
                 file is probably shorter than the others (paste pads the shorter file with \
                 empty fields), and the comparison counts those lines as empty output; check \
                 with `wc -l`, or give the files with -i, which reports a length mismatch as \
                 an error"
            ));
        }
    }
    Ok(Scored {
        names,
        from_files,
        segments: collector.segments,
        vectors: collector.vectors,
        totals: collector.totals,
    })
}

/// The workers' side: decodes a batch's records and scores every system's output.
struct Scorer<'a> {
    metrics: &'a [Metric],
    utf8: Utf8Policy,
    /// -i files (one stream per system) rather than one TSV stream.
    from_files: bool,
    /// Streams of system outputs (the references' follow).
    system_streams: usize,
    stream_names: Vec<String>,
    /// The -i files, naming the systems in messages.
    file_names: Vec<String>,
    /// The line limit for many n-gram orders (`--max-line-bytes` divided, as for scoring).
    line_limit: Option<LineLimit>,
}

/// One batch scored: its good records (a prefix of the batch) and what stopped it, if anything.
struct Done {
    first_line: u64,
    /// Systems in each good record (TSV: its fields).
    systems: usize,
    /// Good records.
    good: usize,
    /// `vectors[s][k]` of the good records.
    vectors: Vec<Vec<Vectors>>,
    /// `stats[s][k]`: each metric's batch statistics ([`crate::metric::DynMetric::new_batch`]).
    stats: Vec<Vec<Box<dyn Any + Send>>>,
    /// `trailing_empty[s]`: how many of the good records, counted from the last, have an empty
    /// output of system `s` (all of them: `good`).
    trailing_empty: Vec<usize>,
    /// The record after the good ones, when it is bad or has another number of systems.
    stopped: Option<Stopped>,
    /// The input failed after this batch's records.
    fatal: Option<String>,
}

/// The record that ended a batch's good records.
struct Stopped {
    /// Its index in the batch.
    index: usize,
    /// Its number of systems.
    systems: usize,
    /// Why it is bad; `None` when it is fine, but has another number of systems than the
    /// batch's first record (the merger tells whether the first or this one is wrong).
    error: Option<String>,
}

impl Scorer<'_> {
    /// The display name of system `s` in messages: its file, or its TSV column's name.
    fn system_name(&self, s: usize) -> Cow<'_, str> {
        match (self.from_files, s) {
            (true, _) => Cow::Borrowed(&self.file_names[s]),
            (false, 0) => Cow::Borrowed("Baseline"),
            (false, _) => Cow::Owned(format!("System {s}")),
        }
    }

    /// Decodes a record: the systems' outputs and the references, or the first error in the
    /// order the fields are read (systems, then references).
    fn decode<'b>(
        &self,
        line: u64,
        systems: &[&'b [u8]],
        refs: &[&'b [u8]],
    ) -> Result<(Vec<Cow<'b, str>>, SegmentRefs<'b>), String> {
        let outputs = systems
            .iter()
            .enumerate()
            .map(|(s, field)| {
                decode(field, self.utf8).map_err(|e| match self.from_files {
                    true => format!("{}: line {line}: {e}", self.stream_names[s]),
                    false => format!(
                        "{}: line {line}: field {}: {e}",
                        self.stream_names[0],
                        s + 1
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let refs = refs
            .iter()
            .enumerate()
            .map(|(r, field)| {
                decode(field, self.utf8).map_err(|e| {
                    let name = &self.stream_names[self.system_streams + r];
                    format!("{name}: line {line}: {e}")
                })
            })
            .collect::<Result<SegmentRefs<'b>, _>>()?;
        Ok((outputs, refs))
    }
}

impl Work for Scorer<'_> {
    /// Per metric its workspace, and a vector's scratch.
    type State = (Vec<Box<dyn Any + Send>>, Vec<u64>);
    type Done = Done;

    fn state(&self) -> Self::State {
        let workspaces = self.metrics.iter().map(|m| m.m.new_workspace()).collect();
        (workspaces, Vec::new())
    }

    fn max_batch_records(&self) -> usize {
        crate::metric::smallest_batch(self.metrics.iter().map(|m| &*m.m))
    }

    fn batch(&self, state: &mut Self::State, batch: &mut Batch) -> Done {
        let (workspaces, vector) = state;
        let n = batch.len();
        let mut done = Done {
            first_line: batch.first_line,
            systems: 0,
            good: 0,
            vectors: Vec::new(),
            stats: Vec::new(),
            trailing_empty: Vec::new(),
            stopped: None,
            fatal: batch.fatal.take(),
        };
        let mut fields = Vec::new();
        let mut columns = Vec::new();
        for i in 0..n {
            let line = batch.first_line + i as u64;
            batch.fields(i, &mut fields);
            let (systems, refs) = if self.from_files {
                fields.split_at(self.system_streams)
            } else {
                columns.clear();
                columns.extend(fields[0].split(|&b| b == b'\t'));
                (&columns[..], &fields[1..])
            };
            if i == 0 {
                done.systems = systems.len();
                done.vectors = (0..systems.len())
                    .map(|_| self.metrics.iter().map(|m| Vectors::new(m.width)).collect())
                    .collect();
                done.stats = (0..systems.len())
                    .map(|_| self.metrics.iter().map(|m| m.m.new_batch(n)).collect())
                    .collect();
                done.trailing_empty = vec![0; systems.len()];
            }
            let stop = |error| {
                Some(Stopped {
                    index: i,
                    systems: systems.len(),
                    error,
                })
            };
            if systems.len() != done.systems {
                done.stopped = stop(None);
                break;
            }
            // A line the reader marked bad (over a line length limit, which compare does not
            // set) is bad here too.
            if let Some((_, message)) = batch.bad.iter().find(|(r, _)| *r == i) {
                done.stopped = stop(Some(format!("line {line}: {message}")));
                break;
            }
            if let Some(limit) = &self.line_limit {
                if let Err(message) = limit.check(&fields, "--max-line-bytes") {
                    done.stopped = stop(Some(format!("line {line}: {message}")));
                    break;
                }
            }
            let (outputs, refs) = match self.decode(line, systems, refs) {
                Ok(decoded) => decoded,
                Err(message) => {
                    done.stopped = stop(Some(message));
                    break;
                }
            };
            let mut segment = Segment {
                hyp: Cow::Borrowed(""),
                refs,
                id: None,
                exact: false,
            };
            let mut failed = None;
            'systems: for (s, output) in outputs.into_iter().enumerate() {
                done.trailing_empty[s] = match output.is_empty() {
                    true => done.trailing_empty[s] + 1,
                    false => 0,
                };
                segment.hyp = output;
                for (k, metric) in self.metrics.iter().enumerate() {
                    let m = &metric.m;
                    let stats = done.stats[s][k].as_mut();
                    m.push_stats(&segment, workspaces[k].as_mut(), stats);
                    vector.resize(metric.width, 0);
                    m.batch_vector(&*stats, i, vector);
                    if let Err(e) = done.vectors[s][k].push(vector) {
                        failed = Some(format!("{}: line {line}: {e}", self.system_name(s)));
                        break 'systems;
                    }
                }
            }
            if let Some(message) = failed {
                done.stopped = stop(Some(message));
                break;
            }
            done.good += 1;
        }
        done
    }
}

/// The merger's side: appends every batch's vectors in input order, stopping at the first
/// error.
struct Collector<'a> {
    metrics: &'a [Metric],
    from_files: bool,
    /// The TSV stream's name, for messages.
    tsv_name: String,
    /// The number of systems, once known (TSV: line 1's fields).
    systems: Option<usize>,
    segments: usize,
    vectors: Vec<Vec<Vectors>>,
    totals: Vec<Vec<Box<dyn Any + Send>>>,
    /// Per TSV column (none for -i files), the run of empty outputs the segments so far end
    /// with: its first line and its length.
    empty_runs: Vec<(u64, u64)>,
    /// What stopped the run.
    failure: Option<Failure>,
}

impl Collector<'_> {
    /// Checks that a TSV record at `line` has as many systems as line 1 (which must have two at
    /// least), before its fields are looked at.
    fn check_systems(&mut self, line: u64, systems: usize) -> Result<(), String> {
        let name = &self.tsv_name;
        match self.systems {
            None if systems < 2 => Err(format!(
                "{name}: line {line}: one field; compare needs the baseline and at least one \
                 system, TAB-separated (base<TAB>sys1<TAB>…), or -i BASE SYS1 …"
            )),
            None => {
                self.systems = Some(systems);
                Ok(())
            }
            Some(n) if n == systems => Ok(()),
            Some(n) => Err(format!(
                "{name}: line {line}: {systems} field{}, but line 1 has {n} (one per system; a \
                 TAB inside a sentence?)",
                if systems == 1 { "" } else { "s" },
            )),
        }
    }

    /// One batch: its good records, then what stopped it or the input.
    fn merge(&mut self, done: &mut Done) -> Result<(), Failure> {
        if done.good > 0 {
            self.add(done).map_err(|m| (status::USAGE, m))?;
        }
        if let Some(stopped) = &done.stopped {
            let line = done.first_line + stopped.index as u64;
            if !self.from_files {
                self.check_systems(line, stopped.systems)
                    .map_err(|m| (status::USAGE, m))?;
            }
            // A record with another number of systems than its batch's first has another
            // number than line 1 too: `check_systems` said so above.
            let message = stopped.error.clone().unwrap_or_else(|| {
                format!(
                    "line {line}: another number of systems than line {}",
                    done.first_line
                )
            });
            return Err((status::USAGE, message));
        }
        match done.fatal.take() {
            Some(message) => Err((status::IO, message)),
            None => Ok(()),
        }
    }

    fn add(&mut self, done: &Done) -> Result<(), String> {
        if !self.from_files {
            self.check_systems(done.first_line, done.systems)?;
        }
        if self.vectors.is_empty() {
            self.vectors = (0..done.systems)
                .map(|_| self.metrics.iter().map(|m| Vectors::new(m.width)).collect())
                .collect();
            self.totals = (0..done.systems)
                .map(|_| self.metrics.iter().map(|m| m.m.new_totals()).collect())
                .collect();
        }
        for (s, per_metric) in done.vectors.iter().enumerate() {
            for (k, v) in per_metric.iter().enumerate() {
                self.vectors[s][k].extend_from(v)?;
                let (m, stats) = (&self.metrics[k].m, done.stats[s][k].as_ref());
                for i in 0..done.good {
                    m.accumulate(self.totals[s][k].as_mut(), stats, i);
                }
            }
        }
        // Only TSV columns: -i files that end in empty lines are as long as the others (a
        // length mismatch is an error there), and those lines are the system's output.
        let runs = match self.from_files {
            true => &mut self.empty_runs[..0],
            false => {
                self.empty_runs.resize(done.systems, (0, 0));
                &mut self.empty_runs[..]
            }
        };
        for (run, &t) in runs.iter_mut().zip(&done.trailing_empty) {
            let (t, good) = (t as u64, done.good as u64);
            *run = match (t == good, *run) {
                // The batch continues a run.
                (true, (start, n)) if n > 0 => (start, n + t),
                _ => (done.first_line + good - t, t),
            };
        }
        self.segments += done.good;
        Ok(())
    }
}

impl Merge<Done> for Collector<'_> {
    fn batch(&mut self, done: &mut Done) -> io::Result<bool> {
        match self.merge(done) {
            Ok(()) => Ok(true),
            Err(failure) => {
                self.failure = Some(failure);
                Ok(false)
            }
        }
    }
}
