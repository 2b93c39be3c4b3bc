//! The one tokio runtime of the process, rebuilt after `fork()`: a child must not inherit a
//! runtime whose worker threads did not survive the fork.

use std::sync::{Arc, Mutex};

use tokio::runtime::Runtime;

static RUNTIME: Mutex<Option<(u32, Arc<Runtime>)>> = Mutex::new(None);

fn build() -> Runtime {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 8);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("showctl-io")
        .enable_all()
        .build()
        .expect("showctl: cannot start the tokio runtime")
}

/// The runtime of this process (built on first use, and again in a forked child).
pub fn get() -> Arc<Runtime> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
    match slot.as_ref() {
        Some((owner, rt)) if *owner == pid => rt.clone(),
        _ => {
            if let Some((_, dead)) = slot.take() {
                // The parent's worker threads do not exist here; dropping the runtime would
                // wait for them forever. Leak it instead (one per fork).
                std::mem::forget(dead);
            }
            let rt = Arc::new(build());
            *slot = Some((pid, rt.clone()));
            rt
        }
    }
}

/// True when called from a thread that is driving the runtime (where blocking on it would
/// deadlock).
pub fn inside_runtime() -> bool {
    tokio::runtime::Handle::try_current().is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_runtime_twice() {
        let a = super::get();
        let b = super::get();
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert_eq!(a.block_on(async { 1 + 1 }), 2);
    }
}
