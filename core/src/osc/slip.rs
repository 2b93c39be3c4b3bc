//! OSC 1.1's stream framing: SLIP (RFC 1055) with double END bytes, as QLab and ETC Eos send
//! OSC over TCP. A small framer of its own, with a hard bound on a frame: slip-codec, the crate
//! at hand, bounds what one read adds to a frame rather than the frame (its tokio decoder keeps
//! a partial frame across reads and reserves room again at each), so a peer that never sends
//! END could grow it without end.

/// The frame delimiter.
pub const END: u8 = 0xC0;
/// The escape byte.
pub const ESC: u8 = 0xDB;
/// `ESC ESC_END` stands for an END byte in the data.
pub const ESC_END: u8 = 0xDC;
/// `ESC ESC_ESC` stands for an ESC byte in the data.
pub const ESC_ESC: u8 = 0xDD;

/// What the framer made of the bytes fed to it.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A whole frame, unescaped.
    Packet(Vec<u8>),
    /// A frame longer than the bound: its bytes were dropped as they came, up to its END.
    Oversized(usize),
    /// A frame with an ESC followed by something else than ESC_END or ESC_ESC: dropped.
    Malformed,
}

/// Splits a byte stream into frames of at most `max` bytes (once unescaped). Empty frames (two
/// ENDs in a row, as OSC 1.1 senders begin each frame) are skipped.
#[derive(Debug)]
pub struct Framer {
    max: usize,
    buf: Vec<u8>,
    escaped: bool,
    /// Bytes of the current frame dropped (past `max`), or `None` while it is within the bound.
    over: Option<usize>,
    bad: bool,
}

impl Framer {
    pub fn new(max: usize) -> Self {
        Framer {
            max,
            buf: Vec::new(),
            escaped: false,
            over: None,
            bad: false,
        }
    }

    /// Feed bytes read from the stream; every frame they end is pushed to `out`. The framer
    /// never holds more than `max` bytes, whatever it is fed.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        for &b in bytes {
            if b == END {
                self.end(out);
                continue;
            }
            let byte = if self.escaped {
                self.escaped = false;
                match b {
                    ESC_END => END,
                    ESC_ESC => ESC,
                    _ => {
                        self.bad = true;
                        continue;
                    }
                }
            } else if b == ESC {
                self.escaped = true;
                continue;
            } else {
                b
            };
            match &mut self.over {
                Some(n) => *n += 1,
                None if self.buf.len() >= self.max => {
                    self.over = Some(self.buf.len() + 1);
                    self.buf = Vec::new();
                }
                None => self.buf.push(byte),
            }
        }
    }

    fn end(&mut self, out: &mut Vec<Frame>) {
        let buf = std::mem::take(&mut self.buf);
        let bad = std::mem::take(&mut self.bad) || std::mem::take(&mut self.escaped);
        match self.over.take() {
            Some(n) => out.push(Frame::Oversized(n)),
            None if bad => out.push(Frame::Malformed),
            None if buf.is_empty() => {}
            None => out.push(Frame::Packet(buf)),
        }
    }

    /// Bytes held of an unfinished frame.
    pub fn held(&self) -> usize {
        self.buf.len()
    }
}

/// `data` as one SLIP frame, with an END before and after (OSC 1.1's double END).
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 2);
    out.push(END);
    for &b in data {
        match b {
            END => out.extend([ESC, ESC_END]),
            ESC => out.extend([ESC, ESC_ESC]),
            _ => out.push(b),
        }
    }
    out.push(END);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut f = Framer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.feed(c, &mut out);
        }
        out
    }

    #[test]
    fn frames_split_across_reads_and_escapes_are_undone() {
        let got = frames(
            64,
            &[
                &[END, 1, ESC],
                &[ESC_END, 2, ESC, ESC_ESC],
                &[3, END, END, 9, END],
            ],
        );
        assert_eq!(
            got,
            [
                Frame::Packet(vec![1, END, 2, ESC, 3]),
                Frame::Packet(vec![9])
            ]
        );
    }

    #[test]
    fn an_oversized_frame_is_dropped_and_the_next_one_is_read() {
        let mut f = Framer::new(4);
        let mut out = Vec::new();
        // 10 000 bytes without END: the framer holds at most the bound.
        for _ in 0..1000 {
            f.feed(&[7; 10], &mut out);
            assert!(f.held() <= 4);
        }
        f.feed(&[END, 1, 2, END], &mut out);
        assert_eq!(out, [Frame::Oversized(10_000), Frame::Packet(vec![1, 2])]);
    }

    #[test]
    fn a_bad_escape_spoils_only_its_frame() {
        let got = frames(64, &[&[END, 1, ESC, 5, 2, END, 3, END, ESC, END]]);
        assert_eq!(
            got,
            [Frame::Malformed, Frame::Packet(vec![3]), Frame::Malformed]
        );
    }

    proptest! {
        #[test]
        fn what_is_encoded_is_read_back_whatever_the_reads(
            packets in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..200), 1..6),
            cut in 1usize..50,
        ) {
            let stream: Vec<u8> = packets.iter().flat_map(|p| encode(p)).collect();
            let chunks: Vec<&[u8]> = stream.chunks(cut).collect();
            let got = frames(256, &chunks);
            let want: Vec<Frame> = packets.into_iter().map(Frame::Packet).collect();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn any_bytes_are_framed_within_the_bound(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let mut f = Framer::new(32);
            let mut out = Vec::new();
            f.feed(&bytes, &mut out);
            prop_assert!(f.held() <= 32);
            for frame in out {
                if let Frame::Packet(p) = frame {
                    prop_assert!(!p.is_empty() && p.len() <= 32);
                }
            }
        }
    }
}
