//! Standard output and error that were closed when the program started (`>&-`, `2>&-`).
//!
//! Rust's runtime reopens a closed descriptor 0, 1 or 2 on `/dev/null` before `main` (so that a
//! file opened later cannot take its number and receive the output), and its `Stdout` and
//! `Stderr` treat `EBADF` as success. So with stdout closed, `-b`'s score, a shard's stats
//! document or the rows went nowhere with status 0 (found by the output audit), where GNU tools
//! fail with "Bad file descriptor". The binary records which descriptors were closed before
//! the runtime reopened them ([`record_closed`], run from an ELF constructor in `main.rs`), and
//! writes to them fail as writes to a closed descriptor do.

use std::io;
use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `fd` is set when descriptor `fd` (1 or 2) was closed at start-up.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Records which of stdout and stderr are closed. Called once, before Rust's runtime starts
/// (it needs nothing of it: two `fcntl` calls and an atomic store).
pub extern "C" fn record_closed() {
    let mut closed = 0;
    for fd in [1, 2] {
        // SAFETY: F_GETFD reads a descriptor's flags; on a descriptor that is not open it
        // fails with EBADF and changes nothing.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            closed |= 1 << fd;
        }
    }
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

/// Standard output was closed when the program started.
pub fn stdout_closed() -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & (1 << 1) != 0
}

/// Standard error was closed when the program started.
pub fn stderr_closed() -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & (1 << 2) != 0
}

/// The error of a write to a descriptor that was closed at start-up ("Bad file descriptor").
pub fn closed() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}
