//! Every reply decoder on arbitrary bytes (seeded with the recorded replies).
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|body: &[u8]| harness::decode_all(body));
