//! The text of a body or a URL as an error message shows it: an excerpt cut on a character
//! boundary, a URL capped, an HTML page by its title, and a cause chain joined.

/// Longest part of a response body kept in an error (bytes of UTF-8, cut on a char boundary).
pub const BODY_EXCERPT: usize = 512;

/// The first [`BODY_EXCERPT`] bytes of a body as text, lossy, cut on a character boundary;
/// a longer body ends with `… (N more bytes)`.
pub fn excerpt(body: &[u8]) -> String {
    if body.len() <= BODY_EXCERPT {
        return String::from_utf8_lossy(body).into_owned();
    }
    // Only the head is decoded: a huge body is never copied whole into an error.
    let mut end = BODY_EXCERPT;
    while end > 0 && (body[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    format!(
        "{}… ({} more bytes)",
        String::from_utf8_lossy(&body[..end]),
        body.len() - end
    )
}

/// Longest URL shown in an error message (a request to a huge name says how much was cut).
pub const URL_SHOWN: usize = 256;

/// A URL as shown in an error message: at most [`URL_SHOWN`] bytes, then `… (N more bytes)`.
pub fn shown_url(url: &str) -> String {
    capped(url, URL_SHOWN, "bytes")
}

/// `text` cut to at most `max` bytes on a character boundary; what was cut is counted.
pub fn capped(text: &str, max: usize, unit: &str) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more {unit})", &text[..end], text.len() - end)
}

/// True when a body is an HTML page (a web server's error page, a documentation site).
pub fn is_html(body: &str) -> bool {
    let head: String = body
        .trim_start()
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html") || head.starts_with("<head")
}

/// A body as shown in an error message: an HTML page becomes `HTML page "<title>"` (its
/// markup says nothing useful on one line); other text is trimmed with whitespace runs folded.
/// The full excerpt stays in the error's `body`.
pub fn body_summary(body: &str) -> String {
    if is_html(body) {
        return match html_title(body) {
            Some(title) => format!("HTML page {title:?}"),
            None => "an HTML page".to_string(),
        };
    }
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of the first `<title>` (or else `<h1>`) element of an HTML page, whitespace folded.
fn html_title(body: &str) -> Option<String> {
    let lower = body.to_ascii_lowercase();
    ["title", "h1"].iter().find_map(|tag| {
        let open = lower.find(&format!("<{tag}"))?;
        let start = open + lower[open..].find('>')? + 1;
        let end = start + lower[start..].find(&format!("</{tag}"))?;
        let text = body[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        (!text.is_empty()).then_some(text)
    })
}

/// The whole `source()` chain of an error, joined with ": " (a library's top message alone says
/// little: "error sending request" hides "connection refused").
pub fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut cur = err.source();
    while let Some(e) = cur {
        let s = e.to_string();
        if !out.contains(&s) {
            out.push_str(": ");
            out.push_str(&s);
        }
        cur = e.source();
    }
    out
}
