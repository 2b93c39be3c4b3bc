use super::*;

#[test]
fn a_result_was_answered_when_it_succeeded_else_as_far_as_its_error_got() {
    assert_eq!(Delivery::of(&Ok(())), Delivery::Answered);
    assert_eq!(Delivery::of::<()>(&Err(Error::Closed)), Delivery::NotSent);
    assert_eq!(
        Delivery::of::<()>(&Err(Error::Internal("x".into()))),
        Delivery::SentNoAnswer
    );
}

#[test]
fn api_404_explains_the_likely_causes() {
    let e = Error::api(404, "GET", "http://h:1/api/0/x", b"nope");
    let msg = e.to_string();
    assert!(msg.contains("404 Not Found for GET http://h:1/api/0/x"));
    assert!(msg.contains("documentation port"));
    assert!(msg.contains("body: nope"));
    assert_eq!(e.status(), Some(404));
}

#[test]
fn a_panic_in_a_future_becomes_an_internal_error() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let r: Result<()> = rt.block_on(guarded(async { panic!("boom") }));
    match r {
        Err(Error::Internal(m)) => {
            assert_eq!(m, "internal error in showctl (please report): boom")
        }
        other => panic!("{other:?}"),
    }
    let ok: Result<u8> = rt.block_on(guarded(async { Ok(3) }));
    assert_eq!(ok.unwrap(), 3);
}

#[test]
fn excerpt_cuts_on_a_char_boundary() {
    let body = "é".repeat(600);
    let e = excerpt(body.as_bytes());
    let (head, cut) = e.split_once("… (").unwrap();
    assert!(head.len() <= BODY_EXCERPT);
    assert_eq!(cut, format!("{} more bytes)", body.len() - head.len()));
}

#[test]
fn html_bodies_are_summarised_by_title() {
    let page = "<!DOCTYPE html>\n<html><head><title>404 -\n Not Found</title></head>\
                <body><h1>Oops</h1></body></html>";
    let e = Error::api(404, "GET", "http://h:1/api/0/x", page.as_bytes());
    let msg = e.to_string();
    assert!(
        msg.ends_with("; body: HTML page \"404 - Not Found\""),
        "{msg}"
    );
    match e {
        Error::Api { body, .. } => assert_eq!(body, page),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        body_summary("<html><body><h1> Server\tError </h1></body></html>"),
        "HTML page \"Server Error\""
    );
    assert_eq!(body_summary("<html><body>x</body></html>"), "an HTML page");
    assert_eq!(body_summary("  not\n  found \n"), "not found");
    assert!(!is_html("{\"a\": \"<html>\"}"));
}

#[test]
fn decode_of_an_html_page_hints_at_the_documentation_port() {
    let e = Error::decode("GET", "u", b"<html><title>API docs</title></html>", "bad");
    let msg = e.to_string();
    assert!(msg.contains("HTML page \"API docs\""), "{msg}");
    assert!(msg.contains("documentation port"), "{msg}");
    let empty = Error::decode("GET", "u", b"", "EOF").to_string();
    assert!(empty.ends_with("the body was empty"), "{empty}");
}

#[test]
fn messages_per_status() {
    for (status, hint) in [
        (400, "rejected the request"),
        (401, "check the API key"),
        (403, "reserved for administrators"),
        (405, "does not accept this method"),
        (500, "server-side problem"),
        (502, "server-side problem"),
        (503, "temporarily unavailable"),
        (302, "redirect"),
    ] {
        let msg = Error::api(status, "GET", "u", b"").to_string();
        assert!(msg.contains(hint), "{status}: {msg}");
        assert!(!msg.contains("body:"), "{status}: {msg}");
    }
}

#[test]
fn chain_joins_sources_and_skips_repeats() {
    #[derive(Debug, thiserror::Error)]
    #[error("{msg}")]
    struct Layer {
        msg: &'static str,
        #[source]
        source: Option<Box<Layer>>,
    }
    let l = |msg, source| Layer { msg, source };
    let err = l(
        "error sending request",
        Some(Box::new(l(
            "client error (Connect): connection refused",
            Some(Box::new(l("connection refused", None))),
        ))),
    );
    assert_eq!(
        chain(&err),
        "error sending request: client error (Connect): connection refused"
    );
}

#[test]
fn one_table_gives_kind_reason_and_hint() {
    assert_eq!(meaning(404).kind, StatusKind::NotFound);
    assert_eq!(meaning(503).kind, StatusKind::ServiceUnavailable);
    assert_eq!(meaning(502).kind, StatusKind::Server);
    assert_eq!(meaning(599).reason, "Error");
    assert_eq!(meaning(418).kind, StatusKind::Other);
    assert_eq!(reason_phrase(405), "Method Not Allowed");
    assert!(meaning(418).hint.is_none());
}

#[test]
fn the_cause_is_read_from_the_source_chain() {
    use std::io::{Error as Io, ErrorKind};
    #[derive(Debug, thiserror::Error)]
    #[error("error sending request")]
    struct Outer(#[source] Io);
    let refused = Outer(Io::new(ErrorKind::ConnectionRefused, "whatever the text"));
    assert_eq!(cause(&refused), Cause::Refused);
    let reset = Outer(Io::from(ErrorKind::ConnectionReset));
    assert_eq!(cause(&reset), Cause::Dropped);
    let tls = rustls::Error::InvalidCertificate(rustls::CertificateError::Expired);
    let wrapped = Outer(Io::new(ErrorKind::InvalidData, tls));
    assert_eq!(cause(&wrapped), Cause::Certificate);
    // The words alone are not a cause.
    let words = Outer(Io::other("certificate refused, connection reset"));
    assert_eq!(cause(&words), Cause::Other);
}

#[test]
fn retryable_set() {
    assert!(Error::api(503, "GET", "u", b"").is_retryable());
    assert!(Error::api(500, "GET", "u", b"").is_retryable());
    assert!(!Error::api(502, "GET", "u", b"").is_retryable());
    assert!(!Error::api(404, "GET", "u", b"").is_retryable());
}
