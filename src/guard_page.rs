//! Test support: memory that ends exactly where an unmapped page begins, so that reading or
//! writing one byte past a slice faults instead of going unnoticed.
//!
//! The SIMD paths (`tokenize::split`, `input::tsv`) load whole blocks of 16 or 64 bytes and
//! stop at a slice's end only by masking the last load. A `Vec` in a test is followed by
//! other heap memory, so an over-read there returns garbage that a comparison may not even
//! see; at the end of a page followed by a `PROT_NONE` page it is a `SIGSEGV`.

use std::ptr::NonNull;

/// Pages mapped read/write followed by one `PROT_NONE` guard page.
pub(crate) struct GuardedTail {
    base: NonNull<u8>,
    /// Bytes mapped in all, guard page included.
    total: usize,
    /// Bytes before the guard page.
    room: usize,
}

impl GuardedTail {
    /// Room for at least `max_bytes` before the guard page.
    pub(crate) fn new(max_bytes: usize) -> GuardedTail {
        // SAFETY: `sysconf` takes no pointer.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).expect("page");
        let room = max_bytes.div_ceil(page).max(1) * page;
        let total = room + page;
        // SAFETY: a new anonymous private mapping (no pointer of ours is passed); checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap");
        let base = NonNull::new(base.cast::<u8>()).expect("mmap gave a null pointer");
        let tail = GuardedTail { base, total, room };
        // SAFETY: the last page of the mapping just made (unmapped by `tail`'s drop if this
        // fails).
        let guarded = unsafe { libc::mprotect(base.as_ptr().add(room).cast(), page, 0) };
        assert_eq!(guarded, 0, "mprotect");
        tail
    }

    /// `content` copied so that its last byte is the last one before the guard page.
    pub(crate) fn bytes(&mut self, content: &[u8]) -> &[u8] {
        assert!(content.len() <= self.room);
        // SAFETY: the `content.len()` bytes before the guard page are mapped read/write and
        // borrowed from `self` for the slice's lifetime.
        let tail = unsafe {
            std::slice::from_raw_parts_mut(
                self.base.as_ptr().add(self.room - content.len()),
                content.len(),
            )
        };
        tail.copy_from_slice(content);
        tail
    }

    /// `n` words, the last one ending at the guard page, each set to `fill`.
    pub(crate) fn words(&mut self, n: usize, fill: u32) -> &mut [u32] {
        assert!(4 * n <= self.room);
        // SAFETY: as in `bytes`; the guard page starts at a page boundary, so `room − 4n` is
        // 4-aligned (mmap returns page-aligned memory).
        let words = unsafe {
            std::slice::from_raw_parts_mut(
                self.base.as_ptr().add(self.room - 4 * n).cast::<u32>(),
                n,
            )
        };
        words.fill(fill);
        words
    }

    /// True when a read one byte past [`GuardedTail::bytes`] faults: a forked child reads it
    /// and must die of `SIGSEGV` (a harness whose guard did not hold would pass any test).
    pub(crate) fn faults_past_the_end(&mut self) -> bool {
        let end = self.bytes(b"x").as_ptr_range().end;
        // SAFETY: the child only reads (and faults, or exits without running any destructor);
        // the parent only waits for it.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0, "fork");
            if pid == 0 {
                let _ = std::ptr::read_volatile(end);
                libc::_exit(0);
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid, "waitpid");
            libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSEGV
        }
    }
}

impl Drop for GuardedTail {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, of `total` bytes, no longer borrowed.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.total) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_past_the_end_faults() {
        assert!(GuardedTail::new(100).faults_past_the_end());
    }
}
