//! Heap tuning: memory freed after a huge line goes back to the system.
//!
//! glibc's `malloc` serves a big allocation with its own `mmap` (returned to the system when
//! freed) only up to a threshold that it raises, up to 32 MiB, each time such a block is freed;
//! after one huge line, the next huge line's buffers come from the heap of whichever worker
//! thread scores it, and stay there after they are freed. Four 16 MB lines scored by four
//! workers one after the other thus kept four lines' worth of freed memory: 232 MB peak for
//! `-m bleu -j 4`, 139 MB with the threshold fixed (issue 19, point 3). Fixing it at 256 KiB
//! (the batch size: everyday buffers stay below it) keeps that growth off.

/// Fixes glibc's mmap threshold (see the module documentation). Elsewhere, nothing to do.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// `M_MMAP_THRESHOLD` of glibc's `<malloc.h>`.
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        // SAFETY: `mallopt` only sets an allocator parameter; glibc documents it as callable
        // at any time, and it takes no pointer.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 256 * 1024);
        }
    }
}
