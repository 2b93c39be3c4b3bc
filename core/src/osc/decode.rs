//! The decoding path of the bridge, whole and free of any socket: a packet's bytes to its
//! messages, grouped by the time they run at. `rosc` decodes; what is done here is only what it
//! does not: a bound on how deep bundles nest (its decoder recurses once per level) and time
//! tags read without a panic.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rosc::{OscMessage, OscPacket, OscTime};

use super::MAX_DEPTH;

/// Messages to run at one time (`None`: at once), or refused with why.
pub type Group = (Result<Option<SystemTime>, String>, Vec<OscMessage>);

/// A packet's messages, grouped by the time they run at (a bundle's messages together, in
/// order), or why the packet cannot be read.
pub fn read(bytes: &[u8]) -> Result<Vec<Group>, String> {
    if depth(bytes) > MAX_DEPTH {
        return Err(format!("bundles nested deeper than {MAX_DEPTH}"));
    }
    let decoded = match rosc::decoder::decode_udp(bytes) {
        Ok(([], p)) => p,
        Ok((rest, _)) => return Err(format!("{} bytes after the packet", rest.len())),
        Err(e) => return Err(format!("not OSC ({e})")),
    };
    let mut out = Vec::new();
    groups(decoded, None, &mut out);
    out.retain(|(_, messages)| !messages.is_empty());
    Ok(out)
}

/// How deep bundles nest in `p` (0: a message), counted without decoding: the decoder
/// recurses once per level, so a packet nested deeper than [`MAX_DEPTH`] is refused before it.
pub fn depth(p: &[u8]) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(p, 1usize)];
    while let Some((p, d)) = stack.pop() {
        if !p.starts_with(b"#bundle\0") {
            continue;
        }
        deepest = deepest.max(d);
        if deepest > MAX_DEPTH {
            break;
        }
        let mut rest = p.get(16..).unwrap_or_default();
        while let Some(size) = rest.get(..4) {
            let n = u32::from_be_bytes(size.try_into().expect("4 bytes")) as usize;
            let Some(element) = rest.get(4..4usize.saturating_add(n)) else {
                break;
            };
            stack.push((element, d + 1));
            rest = &rest[4 + n..];
        }
    }
    deepest
}

/// OSC time tags count seconds from 1900; Unix time from 1970.
const NTP_TO_UNIX: u64 = 2_208_988_800;

/// A time tag as a time, `None` for "immediately" (`1`; `0` is read the same), or why it
/// cannot be one (before 1970). Computed here: rosc's conversion panics on such a tag.
pub fn tag_time(t: OscTime) -> Result<Option<SystemTime>, String> {
    if t.seconds == 0 && t.fractional <= 1 {
        return Ok(None);
    }
    let secs = u64::from(t.seconds)
        .checked_sub(NTP_TO_UNIX)
        .ok_or_else(|| {
            format!(
                "its time tag ({}, {}) is before 1970",
                t.seconds, t.fractional
            )
        })?;
    let nanos = ((u64::from(t.fractional) * 1_000_000_000) >> 32) as u32;
    Ok(Some(UNIX_EPOCH + Duration::new(secs, nanos)))
}

/// The messages of a packet, grouped by the time they run at (a bundle's messages together).
fn groups(p: OscPacket, at: Option<SystemTime>, out: &mut Vec<Group>) {
    match p {
        OscPacket::Message(m) => match out.last_mut() {
            Some((Ok(t), ms)) if *t == at => ms.push(m),
            _ => out.push((Ok(at), vec![m])),
        },
        OscPacket::Bundle(b) => {
            let when = match tag_time(b.timetag) {
                Ok(None) => Ok(at),
                Ok(Some(t)) => Ok(Some(t)),
                Err(why) => Err(why),
            };
            match when {
                Ok(t) => {
                    // A group of its own, even at the same time as the one before.
                    out.push((Ok(t), Vec::new()));
                    for element in b.content {
                        groups(element, t, out);
                    }
                }
                Err(why) => {
                    let mut ms = Vec::new();
                    flatten(OscPacket::Bundle(b), &mut ms);
                    out.push((Err(why), ms));
                }
            }
        }
    }
}

fn flatten(p: OscPacket, out: &mut Vec<OscMessage>) {
    match p {
        OscPacket::Message(m) => out.push(m),
        OscPacket::Bundle(b) => b.content.into_iter().for_each(|e| flatten(e, out)),
    }
}
