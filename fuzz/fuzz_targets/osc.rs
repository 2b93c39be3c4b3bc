//! The OSC bridge's decoding path (rosc's decoder behind the bridge's depth bound and time
//! tags, then the address space) on arbitrary packets.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::osc_packet(data));
