//! A queue whose reader is woken through a socket: what an event loop that watches file
//! descriptors (an event loop's reader callback) takes work from without a thread hand-off per
//! item. A push onto an empty queue writes one byte to a socket pair; the reader watches the
//! other end and [`drain`](WakeQueue::drain)s every item at once, so a burst of pushes costs
//! it one wake-up.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};

pub struct WakeQueue<T> {
    items: Mutex<Vec<T>>,
    /// A wake-up byte is on its way and the reader has not started draining since.
    notified: AtomicBool,
    wake: UnixStream,
    wakeups: UnixStream,
}

impl<T> WakeQueue<T> {
    pub fn new() -> Result<Self> {
        let (wake, wakeups) = UnixStream::pair()
            .map_err(|e| Error::Internal(format!("cannot make a socket pair: {e}")))?;
        for s in [&wake, &wakeups] {
            s.set_nonblocking(true)
                .map_err(|e| Error::Internal(format!("socket pair: {e}")))?;
        }
        Ok(WakeQueue {
            items: Mutex::new(Vec::new()),
            notified: AtomicBool::new(false),
            wake,
            wakeups,
        })
    }

    /// The descriptor the reader watches: readable when there is something to drain.
    pub fn fd(&self) -> RawFd {
        self.wakeups.as_raw_fd()
    }

    pub fn push(&self, item: T) {
        self.items
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(item);
        if !self.notified.swap(true, Ordering::AcqRel) {
            // A full socket buffer means wake-ups are already pending: nothing is lost.
            let _ = (&self.wake).write(&[1]);
        }
    }

    /// Every item pushed so far, oldest first (the wake-up bytes read and discarded).
    pub fn drain(&self) -> Vec<T> {
        let mut sink = [0u8; 512];
        while matches!((&self.wakeups).read(&mut sink), Ok(n) if n > 0) {}
        self.notified.store(false, Ordering::Release);
        std::mem::take(&mut *self.items.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes waiting on the watched end (without draining the queue).
    fn waiting(q: &WakeQueue<u32>) -> usize {
        let mut buf = [0u8; 16];
        (&q.wakeups).read(&mut buf).unwrap_or(0)
    }

    #[test]
    fn a_burst_of_pushes_wakes_the_reader_once_and_drains_in_order() {
        let q = WakeQueue::new().unwrap();
        assert!(q.drain().is_empty());
        q.push(1);
        q.push(2);
        q.push(3);
        assert_eq!(waiting(&q), 1, "one wake-up byte for the burst");
        assert_eq!(q.drain(), vec![1, 2, 3]);
        assert!(q.drain().is_empty());
        q.push(4);
        assert_eq!(
            waiting(&q),
            1,
            "a push after a drain wakes the reader again"
        );
    }

    #[test]
    fn pushes_from_threads_are_all_drained() {
        let q = std::sync::Arc::new(WakeQueue::new().unwrap());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let q = q.clone();
                std::thread::spawn(move || (0..100).for_each(|i| q.push(t * 100 + i)))
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let mut all = q.drain();
        all.sort_unstable();
        assert_eq!(all, (0..400).collect::<Vec<_>>());
    }
}
