//! Giving freed memory back to the system after a large reply (`malloc_trim` on glibc): a
//! decoded large body leaves its memory in the allocator's arenas otherwise.

use std::sync::atomic::{AtomicBool, Ordering};

/// Bodies at least this large give their decoding memory back to the system once freed.
pub const RELEASE_AFTER: usize = 1024 * 1024;

/// Set when a large reply was decoded: its result is freed later, by its user (through the
/// binding, when the objects are collected), so the next request gives that memory back too.
static RELEASE_PENDING: AtomicBool = AtomicBool::new(false);

/// Give memory freed by the allocator back to the system (glibc keeps freed small blocks in
/// its arenas: after decoding a large reply, hundreds of MB would otherwise stay resident),
/// now and again at the start of the next request.
pub fn release_memory() {
    RELEASE_PENDING.store(true, Ordering::Relaxed);
    trim();
}

/// At the start of a request: give back what the result of an earlier large reply held.
pub fn release_pending_memory() {
    if RELEASE_PENDING.swap(false, Ordering::Relaxed) {
        trim();
    }
}

fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}
