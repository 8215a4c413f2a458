//! Exit statuses, documented in the man page; every command returns one of these.

/// Success.
pub const OK: u8 = 0;
/// Input could not be read or output could not be written.
pub const IO: u8 = 1;
/// Usage error, or a bad line under `--on-error fail`.
pub const USAGE: u8 = 2;
/// The final score is below `--fail-under` or above `--fail-over`.
pub const FAIL_UNDER: u8 = 3;
