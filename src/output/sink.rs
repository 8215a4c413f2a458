//! Where the merger writes: stdout or `--output FILE` (rows, JSONL, `-b`, `--corpus-only`),
//! stderr (text reports, diagnostics), and the report files (`--report-file`, `--prometheus`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Stdout, Write};
use std::path::{Path, PathBuf};

use super::{jsonl, prometheus, report_file, text, BadLines, CorpusReport, Format, Mode};
use crate::diagnostic::diagnostic;

/// The main output stream: standard output, or a file that SIGHUP reopens.
pub enum OutputStream {
    Stdout(Stdout),
    /// `--output FILE`, opened for appending (like `>>`), so that after a rotation that
    /// truncates in place (`copytruncate`) writing goes on at the new end.
    File {
        path: PathBuf,
        file: File,
    },
    /// The reader of the output went away (`| head`): what is still written is dropped, so
    /// that the final report can still reach stderr.
    Closed,
}

impl OutputStream {
    /// Opens `--output FILE` (or stdout without one). A FIFO at FILE is waited on until it has
    /// a reader, or until `stopped` says a stop came (`Ok(None)`).
    pub fn open(
        path: Option<&Path>,
        stopped: impl Fn() -> bool,
    ) -> io::Result<Option<OutputStream>> {
        match path {
            None => Ok(Some(OutputStream::Stdout(io::stdout()))),
            Some(path) => loop {
                match append(path) {
                    Ok(file) => {
                        return Ok(Some(OutputStream::File {
                            file,
                            path: path.to_owned(),
                        }))
                    }
                    Err(e) if no_reader(&e) => {
                        if stopped() {
                            return Ok(None);
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                    Err(e) => return Err(e),
                }
            },
        }
    }
}

/// Opens `path` for appending, creating it. A FIFO is opened without waiting: opening one for
/// writing blocks until it has a reader, and a stop signal could not end that wait (found by
/// the streaming audit: SIGTERM was ignored). Without a reader the open fails with `ENXIO`
/// ([`no_reader`]), which the caller waits out its own way; once open, writes block as usual.
///
/// A symbolic link at `path` is followed only when it belongs to the user or to root (as
/// `/dev/stdout` does), as Linux's `protected_symlinks` follows links in sticky directories:
/// one that another user planted in a directory they can write (a shared log directory, the
/// systemd example's) would send the rows, appended with the user's rights, into any file the
/// user may write (safety audit: `-o` followed it, where the report files replace it).
fn append(path: &Path) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let open = |flags: i32| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .custom_flags(libc::O_NONBLOCK | flags)
            .open(path)
    };
    let file = match open(libc::O_NOFOLLOW) {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            let owner = std::fs::symlink_metadata(path)?.uid();
            // SAFETY: geteuid has no preconditions and cannot fail.
            let user = unsafe { libc::geteuid() };
            if owner != user && owner != 0 {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "a symbolic link of another user (uid {owner}): not followed (rows \
                         appended through a link planted in a shared directory would go into \
                         its target; give the target itself)"
                    ),
                ));
            }
            open(0)?
        }
        result => result?,
    };
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is the open descriptor `file` owns; F_GETFL/F_SETFL only read and set its
    // status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags == -1 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// The error of [`append`] on a FIFO that has no reader.
fn no_reader(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ENXIO)
}

impl Write for OutputStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            OutputStream::Stdout(_) if crate::stdio::stdout_closed() => Err(crate::stdio::closed()),
            OutputStream::Stdout(s) => s.write(buf),
            OutputStream::File { file, .. } => file.write(buf),
            OutputStream::Closed => Ok(buf.len()),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            OutputStream::Stdout(_) if crate::stdio::stdout_closed() => Err(crate::stdio::closed()),
            OutputStream::Stdout(s) => s.write_all(buf),
            OutputStream::File { file, .. } => file.write_all(buf),
            OutputStream::Closed => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            OutputStream::Stdout(_) if crate::stdio::stdout_closed() => Err(crate::stdio::closed()),
            OutputStream::Stdout(s) => s.flush(),
            OutputStream::File { file, .. } => file.flush(),
            OutputStream::Closed => Ok(()),
        }
    }
}

/// Everything the merger writes to.
pub struct Sink {
    pub out: BufWriter<OutputStream>,
    pub format: Format,
    pub mode: Mode,
    pub width: usize,
    /// Flush after every batch of rows (terminal or `--line-buffered`).
    pub line_buffered: bool,
    /// `--report-file`: the latest report as JSON, replaced atomically at every report.
    pub report_file: Option<PathBuf>,
    /// `--prometheus`: the latest report in the Prometheus text format, replaced atomically.
    pub prometheus: Option<PathBuf>,
    /// Reports that could not be written to stderr or to a report file: the scoring goes on (a
    /// closed stderr or a full disk must not stop a daemon), but the run then ends with status
    /// 1, not in silence (issue 19, point 6).
    pub reports_lost: u64,
    /// A gate (`--fail-under`, `--fail-over`) judges the final score: a final report without
    /// one is not printed (the command says why and fails), as `merge` prints none, so that
    /// one run and a merge of its shards write the same bytes.
    pub gated: bool,
    /// How the run's bad lines are judged: with [`BadLines::Fail`], a final report of more bad
    /// lines than segments is not a score either (the command fails, `CorpusReport::mostly_bad`).
    pub bad_lines: BadLines,
    /// The run failed (a read error, a bad line under `--on-error fail`): its final report
    /// covers the lines before, and is no score for `-b` (a gate still prints it: its status
    /// says the run failed).
    pub run_failed: bool,
    /// The inputs `-o` must never be (names, with device and inode), and `--follow`'s path,
    /// whose file may change: SIGHUP reopens `-o` by name, and what the name leads to then is
    /// checked as the start-up checks it.
    pub inputs: Vec<(String, Option<(u64, u64)>)>,
    pub follow: Option<PathBuf>,
}

impl Sink {
    /// A sink writing to `out`, with no report files.
    pub fn new(out: OutputStream, format: Format, mode: Mode, width: usize) -> Sink {
        Sink {
            out: BufWriter::with_capacity(64 * 1024, out),
            format,
            mode,
            width,
            line_buffered: false,
            inputs: Vec::new(),
            follow: None,
            report_file: None,
            prometheus: None,
            reports_lost: 0,
            gated: false,
            bad_lines: BadLines::Counted,
            run_failed: false,
        }
    }

    /// Writes a text report to stderr, counting a failure.
    fn report_to_stderr(&mut self, text: &str) {
        if crate::diagnostic::write_stderr(text.as_bytes()).is_err() {
            self.reports_lost += 1;
        }
    }

    /// The output's reader went away: drop what is still buffered or written from now on.
    pub fn close_output(&mut self) {
        let closed = BufWriter::new(OutputStream::Closed);
        // Dropping the old writer tries to flush it once more; that error is ignored.
        drop(std::mem::replace(&mut self.out, closed));
    }

    /// A final report that `-b` does not print ([`Sink::report`]).
    fn withholds(&self, report: &CorpusReport) -> bool {
        self.run_failed || !report.has_scores() || (self.bad_lines.judged() && report.mostly_bad())
    }

    /// Writes a report where it belongs for the mode and format, and to the report files.
    pub fn report(&mut self, report: &CorpusReport) -> io::Result<()> {
        match (self.mode, self.format, report.is_final) {
            // No segment, an undefined score, mostly bad lines or a failed run: nothing that
            // could pass for a score (the command says why and fails). A gate keeps the report
            // of a failed or mostly bad run, which says what was read: only `-b`'s bare number
            // would pass for the input's score.
            (Mode::ScoreOnly, _, true) if self.withholds(report) => {}
            (_, _, true) if self.gated && !report.has_scores() => {}
            (Mode::ScoreOnly, Format::Jsonl, true) => {
                let mut buf = Vec::new();
                jsonl::scores_record(report, &mut buf);
                self.out.write_all(&buf)?;
            }
            (Mode::ScoreOnly, Format::Text, true) => {
                for m in &report.metrics {
                    // sacreBLEU -b --confidence: `34.8 (μ = 34.7 ± 3.0)`.
                    writeln!(self.out, "{}", text::score_only(m, self.width))?;
                }
            }
            // The merger writes the stats document itself; only the report files get the
            // final report.
            (Mode::Stats, _, true) => {}
            // `-b` and `--emit stats` keep stdout for the final result: running reports go
            // to stderr.
            (Mode::ScoreOnly | Mode::Stats, _, false) => {
                self.report_to_stderr(&text::report(report, self.width));
            }
            (_, Format::Jsonl, _) => {
                let mut buf = Vec::new();
                jsonl::corpus_record(report, self.width, &mut buf);
                jsonl::group_records(report, self.width, &mut buf);
                self.out.write_all(&buf)?;
            }
            (Mode::CorpusOnly, Format::Text, true) => {
                self.out
                    .write_all(text::report(report, self.width).as_bytes())?;
            }
            (_, Format::Text, _) => {
                // Text reports never mix with rows on stdout. A closed stderr does not stop
                // the scoring.
                self.out.flush()?;
                self.report_to_stderr(&text::report(report, self.width));
            }
        }
        if let Some(path) = &self.report_file {
            let mut buf = Vec::new();
            jsonl::corpus_record(report, self.width, &mut buf);
            jsonl::group_records(report, self.width, &mut buf);
            if !replace_file(path, &buf, report.is_final) {
                self.reports_lost += 1;
            }
        }
        if let Some(path) = &self.prometheus {
            if !replace_file(path, prometheus::render(report).as_bytes(), report.is_final) {
                self.reports_lost += 1;
            }
        }
        Ok(())
    }

    /// SIGHUP: flushes and reopens `--output` (the report files are replaced at every report
    /// anyway, so they follow a rotation by themselves). A name that now leads to an input
    /// (a symlink to the followed file, say) is not taken: the rows written there would be read
    /// back as input, without end (found by the streaming audit); the rows go on to the file
    /// opened before, and the error says why.
    pub fn reopen(&mut self) -> io::Result<()> {
        self.out.flush()?;
        let (inputs, follow) = (&self.inputs, &self.follow);
        if let OutputStream::File { path, file } = self.out.get_mut() {
            let new = append(path).map_err(|e| {
                if no_reader(&e) {
                    io::Error::other(format!(
                        "{} is a FIFO without a reader: not reopened (rows go on to the file \
                         written before)",
                        path.display()
                    ))
                } else {
                    // The path, which the error alone does not carry (audit: the warning
                    // said just "Is a directory").
                    io::Error::new(
                        e.kind(),
                        format!("{}: {}", path.display(), crate::diagnostic::io_message(&e)),
                    )
                }
            })?;
            let id = report_file::open_file_id(&new);
            let followed = follow
                .as_ref()
                .map(|p| (p.display().to_string(), report_file::file_id(p)));
            let clash = inputs
                .iter()
                .chain(&followed)
                .find(|(_, input)| id.is_some() && *input == id);
            if let Some((name, _)) = clash {
                return Err(io::Error::other(format!(
                    "{} is now the input {name}: not reopened (rows go on to the file written \
                     before)",
                    path.display()
                )));
            }
            *file = new;
        }
        Ok(())
    }
}

/// Replaces a report file (see [`report_file`]); false if it could not. A running report's
/// failure is a warning: it must not stop the scoring (the caller counts the report as lost,
/// and the exit status says so). The final report's is an error: nothing comes after it.
fn replace_file(path: &Path, contents: &[u8], is_final: bool) -> bool {
    match report_file::replace(path, contents) {
        Ok(()) => true,
        Err(e) => {
            diagnostic(&format!(
                "{}: cannot write {}: {}",
                if is_final { "error" } else { "warning" },
                path.display(),
                crate::diagnostic::io_message(&e)
            ));
            false
        }
    }
}
