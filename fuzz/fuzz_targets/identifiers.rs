//! The identifier encoder, `request()`'s path and params, and key scrubbing on arbitrary
//! text: the input is split on NUL bytes into a name (also used as a path) and params.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let name = parts.next().unwrap_or_default();
    harness::ident(name);
    let rest: Vec<&str> = parts.collect();
    let params: Vec<(String, String)> = rest
        .chunks(2)
        .map(|kv| (kv[0].to_string(), kv.get(1).unwrap_or(&"").to_string()))
        .collect();
    harness::raw_request(name, &params);
    if let Some(key) = rest.first() {
        harness::scrub(key, name.as_bytes());
    }
    if let Ok(i) = name.trim().parse::<i64>() {
        harness::index(i);
    }
});
