//! How far an attempt got ([`Progress`]), as the exchange goes: set by the exchange (see
//! [`super::http1`]) and read when it fails or its time runs out, it says whether the request
//! went out ([`Delivery`]).

use std::sync::atomic::{AtomicU8, Ordering};

use crate::error::Delivery;

/// How far an attempt got, as the exchange goes (read when it fails or its time runs out).
#[derive(Default)]
pub(super) struct Progress(AtomicU8);

/// The stages of an attempt, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum Stage {
    /// Waiting for a free connection (`max_connections`).
    Waiting = 0,
    /// Resolving and connecting.
    Connecting = 1,
    /// Writing the request.
    Writing = 2,
    /// The request written, no byte of the answer yet.
    Sent = 3,
    /// Part of the answer arrived, not its status line.
    Started = 4,
    /// A final status line arrived: the application acted on the request.
    Answered = 5,
}

/// Set beside the stage once a copy of the request went out on a connection that then failed
/// unanswered and it is sent again: whatever happens next, it may have been read.
const SENT_BEFORE: u8 = 0x80;

impl Progress {
    pub(super) fn set(&self, stage: Stage) {
        let before = self.0.load(Ordering::Relaxed) & SENT_BEFORE;
        self.0.store(before | stage as u8, Ordering::Relaxed);
    }

    pub(super) fn stage(&self) -> Stage {
        match self.0.load(Ordering::Relaxed) & !SENT_BEFORE {
            0 => Stage::Waiting,
            1 => Stage::Connecting,
            2 => Stage::Writing,
            3 => Stage::Sent,
            4 => Stage::Started,
            _ => Stage::Answered,
        }
    }

    /// The request goes out again on a new connection (see `Transport::exchange_own`).
    pub(super) fn send_again(&self) {
        self.0
            .store(SENT_BEFORE | Stage::Connecting as u8, Ordering::Relaxed);
    }

    /// Whether the request went out, as far as the attempt got.
    pub(super) fn delivery(&self) -> Delivery {
        let here = match self.stage() {
            Stage::Waiting | Stage::Connecting => Delivery::NotSent,
            Stage::Writing | Stage::Sent | Stage::Started => Delivery::SentNoAnswer,
            Stage::Answered => Delivery::Answered,
        };
        if self.0.load(Ordering::Relaxed) & SENT_BEFORE != 0 {
            here.max(Delivery::SentNoAnswer)
        } else {
            here
        }
    }
}
