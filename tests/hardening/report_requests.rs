//! SIGUSR1 requests merge while one waits (audit F8): with standard output blocked, 3,000
//! SIGUSR1s queued 3,000 events, and once the reader came back 3,000 running reports were
//! written (with report files, two fsyncs each): a storm of signals made a 5 s run take
//! 13.7 s. A report pending absorbs the requests that come before it is written.

use std::fs;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::BIN;

const SIGNALS: usize = 200;

/// The merger (the main thread) blocks writing rows to a standard output nobody reads; 200
/// SIGUSR1s are sent while it is blocked, then the output is read. Every request is answered
/// by the report written once the merger moves again (or by one it was writing): a handful of
/// running reports, not one per signal. Nothing here depends on timing: the merger stays
/// blocked until the test reads, whatever the load.
#[test]
fn report_requests_merge_while_the_output_is_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    // 200,000 rows of 7 bytes: far more than a pipe holds.
    fs::write(&input, "a b c d\ta b c d\n".repeat(200_000)).unwrap();
    let stderr = dir.path().join("stderr");
    let mut child = Command::new(BIN)
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let fd = stdout.as_raw_fd();
    // SAFETY: F_GETPIPE_SZ only reads the pipe's capacity.
    let capacity = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    assert!(capacity > 0);
    let wchan = format!("/proc/{}/wchan", child.id());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut queued: libc::c_int = 0;
        // SAFETY: FIONREAD writes the number of bytes in the pipe to `queued`.
        assert_eq!(unsafe { libc::ioctl(fd, libc::FIONREAD, &mut queued) }, 0);
        let blocked = fs::read_to_string(&wchan).is_ok_and(|w| w.trim() == "pipe_write");
        // Full (within a page, which a short write may leave unused): the next write waits.
        if blocked || queued >= capacity - 4096 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "stdout never filled ({queued} bytes)"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    for _ in 0..SIGNALS {
        // SAFETY: kill sends SIGUSR1 to the child, which handles it.
        assert_eq!(
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGUSR1) },
            0
        );
        // Spaced, so that the kernel does not merge them: each reaches the signals thread.
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut rows = Vec::new();
    stdout.read_to_end(&mut rows).unwrap();
    let status = child.wait().unwrap();
    let said = fs::read_to_string(&stderr).unwrap();
    assert!(status.success(), "{status:?}: {said}");
    assert_eq!(rows.iter().filter(|&&b| b == b'\n').count(), 200_000);
    let reports = said.matches(" running report: ").count();
    assert!(
        (1..=10).contains(&reports),
        "{reports} running reports for {SIGNALS} signals sent while blocked"
    );
}
