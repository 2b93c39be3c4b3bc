//! Every document the feed serves, made once per change and shared by every reader.
//!
//! A source's own documents (its JSON, and a scoreboard's XML and CSV) are made from one state
//! of it by the first reader (a request, the SSE publisher, the file writer) that asks after
//! the state changed, and kept until the next change; the combined documents of named sources
//! are put together from those parts the same way. A made document ([`Doc`]) is its bytes
//! (shared, never copied per reader), a strong `ETag` (a hash of the bytes), a `Last-Modified`
//! and a gzip copy, made for the first reader that asks for gzip. A request costs a check of
//! the sources' versions and the headers of its answer, whatever the document's size.
//!
//! A document says its `age` when it was made. The poller changes its source's state on every
//! poll (`polled_at` moves), on every failed poll and once per interval without an answer, so a
//! document is made anew at least once per interval while the feed polls, and its `age` is never
//! more than one interval behind.

use std::hash::Hasher;
use std::io::Write as _;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use fly_accept_encoding::Encoding;
use headers::{ETag, HeaderMapExt, IfModifiedSince, IfNoneMatch};
use tokio::sync::watch;

use super::docs::{
    csv_line, scores_csv, scores_doc_of, scores_flat, scores_xml, transport_doc_of, xml_rows,
    Layers, Scores, SourceState, XML_HEAD, XML_TAIL,
};
use super::Shared;

pub(crate) const JSON: &str = "application/json";
const XML: &str = "application/xml; charset=utf-8";
const CSV: &str = "text/csv; charset=utf-8";

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One version of one document, as every reader gets it.
#[derive(Debug)]
pub(crate) struct Doc {
    body: Bytes,
    /// The gzip copy, made for the first reader that asks for it (`None`: it could not be
    /// made; the reader gets the document as it is).
    gzip: OnceLock<Option<Bytes>>,
    content_type: &'static str,
    /// The entity tags of the document as it is and of its gzip copy (another representation,
    /// so another tag).
    etag: (ETag, HeaderValue),
    etag_gzip: (ETag, HeaderValue),
    modified: SystemTime,
    last_modified: HeaderValue,
    /// No earlier version of this document was made in the same second: `If-Modified-Since`
    /// (whole seconds) can tell this version from the one before, so it may answer 304.
    dated: bool,
}

fn tag(text: String) -> (ETag, HeaderValue) {
    let value = HeaderValue::from_str(&text).expect("a quoted hex number is a header value");
    let etag = text.parse().expect("a quoted hex number is an entity tag");
    (etag, value)
}

fn whole_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

impl Doc {
    /// A document made at `now`; `previous` is the version it replaces.
    pub(crate) fn new(
        body: impl Into<Bytes>,
        content_type: &'static str,
        now: SystemTime,
        previous: Option<&Doc>,
    ) -> Doc {
        let body: Bytes = body.into();
        let mut hash = std::hash::DefaultHasher::new();
        hash.write(&body);
        let hash = hash.finish();
        Doc {
            body,
            gzip: OnceLock::new(),
            content_type,
            etag: tag(format!("\"{hash:016x}\"")),
            etag_gzip: tag(format!("\"{hash:016x}-gzip\"")),
            modified: now,
            last_modified: HeaderValue::from_str(&httpdate::fmt_http_date(now))
                .expect("an HTTP date is a header value"),
            dated: previous.is_none_or(|p| whole_seconds(p.modified) < whole_seconds(now)),
        }
    }

    /// The document's bytes.
    pub(crate) fn body(&self) -> &Bytes {
        &self.body
    }

    /// The document as text (it is always UTF-8: JSON, XML or CSV made by the feed).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn gzip(&self) -> Option<&Bytes> {
        let made = self.gzip.get_or_init(|| {
            let out = Vec::with_capacity(self.body.len() / 4 + 64);
            let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            gz.write_all(&self.body).ok()?;
            gz.finish().ok().map(Bytes::from)
        });
        made.as_ref()
    }

    /// The answer to a `GET` (or `HEAD`) with `request`'s headers: `304 Not Modified` when the
    /// reader holds this version (`If-None-Match`, else `If-Modified-Since`), else the document,
    /// gzipped when the reader accepts gzip.
    pub(crate) fn answer(&self, request: &HeaderMap) -> Response {
        let gzip = accepts_gzip(request);
        let (etag, etag_value) = if gzip { &self.etag_gzip } else { &self.etag };
        // RFC 9110 13.2.2: If-Modified-Since is evaluated only without If-None-Match.
        let unchanged = match request.typed_get::<IfNoneMatch>() {
            Some(held) => !held.precondition_passes(etag),
            None => {
                self.dated
                    && (request.typed_get::<IfModifiedSince>())
                        .is_some_and(|since| !since.is_modified(self.modified))
            }
        };
        let mut r = if unchanged {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        } else {
            let zipped = self.gzip().filter(|_| gzip);
            let mut r = Response::new(Body::from(zipped.unwrap_or(&self.body).clone()));
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(self.content_type),
            );
            if zipped.is_some() {
                h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            } else if gzip {
                // No gzip copy after all: the document as it is, with its own tag.
                h.insert(header::ETAG, self.etag.1.clone());
            }
            r
        };
        let h = r.headers_mut();
        if !h.contains_key(header::ETAG) {
            h.insert(header::ETAG, etag_value.clone());
        }
        h.insert(header::LAST_MODIFIED, self.last_modified.clone());
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        // Readers may keep a copy, and ask whether it is still current each time.
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        r
    }
}

/// Whether the reader accepts gzip (`Accept-Encoding: gzip`, or `*`, with a weight above 0).
/// A header that does not parse is read as no `Accept-Encoding`: the document as it is.
fn accepts_gzip(request: &HeaderMap) -> bool {
    let (mut gzip, mut any) = (None, None);
    for item in fly_accept_encoding::encodings_iter(request) {
        match item {
            Ok((Some(Encoding::Gzip), q)) => gzip = Some(q),
            Ok((None, q)) => any = Some(q),
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    gzip.or(any).is_some_and(|q| q > 0.0)
}

/// A document's format, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Xml,
    Csv,
}

impl Format {
    pub(crate) fn of(ext: &str) -> Option<Format> {
        match ext {
            "json" => Some(Format::Json),
            "xml" => Some(Format::Xml),
            "csv" => Some(Format::Csv),
            _ => None,
        }
    }
}

/// A source's documents, made from one state of it.
#[derive(Debug)]
pub(crate) struct Parts {
    /// Its JSON document (`/transport/NAME.json`, `/scores/NAME.json`).
    pub(crate) json: Arc<Doc>,
    /// A scoreboard's flat documents.
    flat: Option<Flat>,
}

/// A scoreboard's `/scores/NAME.xml` and `/scores/NAME.csv`, and, with named sources, its
/// part of the combined `/scores.xml` and `/scores.csv` (each name prefixed with its own).
#[derive(Debug)]
struct Flat {
    xml: Arc<Doc>,
    csv: Arc<Doc>,
    xml_rows: String,
    csv_head: String,
    csv_row: String,
}

impl Parts {
    pub(crate) fn doc(&self, format: Format) -> Option<Arc<Doc>> {
        match (format, &self.flat) {
            (Format::Json, _) => Some(self.json.clone()),
            (Format::Xml, Some(f)) => Some(f.xml.clone()),
            (Format::Csv, Some(f)) => Some(f.csv.clone()),
            _ => None,
        }
    }
}

/// Who a source is, as its documents say it.
#[derive(Debug, Clone)]
pub(crate) struct Me {
    pub(crate) name: String,
    pub(crate) interval: Duration,
    /// Named sources: the parts of the combined flat documents are made too.
    pub(crate) venue: bool,
}

/// The data of a kind of source, and how its documents are made.
pub(crate) trait Render: Sized + Send + Sync + 'static {
    fn parts(state: &SourceState<Self>, me: &Me, now: SystemTime, prev: Option<&Parts>) -> Parts;
}

impl Render for Layers {
    fn parts(state: &SourceState<Self>, me: &Me, now: SystemTime, prev: Option<&Parts>) -> Parts {
        let json = transport_doc_of(state, &me.name, me.interval, now).to_string();
        Parts {
            json: Arc::new(Doc::new(json, JSON, now, prev.map(|p| &*p.json))),
            flat: None,
        }
    }
}

impl Render for Scores {
    fn parts(state: &SourceState<Self>, me: &Me, now: SystemTime, prev: Option<&Parts>) -> Parts {
        let json = scores_doc_of(state, &me.name, me.interval, now).to_string();
        let flat = scores_flat(state, now);
        let prev_flat = prev.and_then(|p| p.flat.as_ref());
        let (xml_rows, csv_head, csv_row) = if me.venue {
            let prefix = format!("{}_", me.name);
            (
                xml_rows(&flat, &prefix),
                csv_line(flat.iter().map(|(k, _)| format!("{prefix}{k}"))),
                csv_line(flat.iter().map(|(_, v)| v)),
            )
        } else {
            Default::default()
        };
        Parts {
            json: Arc::new(Doc::new(json, JSON, now, prev.map(|p| &*p.json))),
            flat: Some(Flat {
                xml: Arc::new(Doc::new(
                    scores_xml(&flat),
                    XML,
                    now,
                    prev_flat.map(|f| &*f.xml),
                )),
                csv: Arc::new(Doc::new(
                    scores_csv(&flat),
                    CSV,
                    now,
                    prev_flat.map(|f| &*f.csv),
                )),
                xml_rows,
                csv_head,
                csv_row,
            }),
        }
    }
}

/// A receiver of a source's state.
type StateRx<T> = watch::Receiver<Arc<SourceState<T>>>;

/// A source's documents as of its latest state, made again only after the state changed.
pub(crate) struct Made<T> {
    me: Me,
    /// A receiver of the source's state of its own (what it has seen is what the parts were
    /// made from), and the parts.
    slot: Mutex<(StateRx<T>, Option<Arc<Parts>>)>,
}

impl<T: Render> Made<T> {
    pub(crate) fn new(me: Me, rx: StateRx<T>) -> Self {
        Made {
            me,
            slot: Mutex::new((rx, None)),
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.me.name
    }

    /// The documents of the source's latest state. Readers wait for one another only while
    /// the documents of a new state are being made (once per change).
    pub(crate) fn parts(&self) -> Arc<Parts> {
        let mut slot = lock(&self.slot);
        let (rx, parts) = &mut *slot;
        // A source that has ended (the feed stopping) keeps its last state: made again on each
        // ask, which only the writer's last write does.
        let changed = rx.has_changed().unwrap_or(true);
        if let Some(p) = parts.as_ref().filter(|_| !changed) {
            return p.clone();
        }
        let state = rx.borrow_and_update().clone();
        let made = Arc::new(T::parts(
            &state,
            &self.me,
            SystemTime::now(),
            parts.as_deref(),
        ));
        *parts = Some(made.clone());
        made
    }
}

/// What a combined document was last made from (the receivers, seen), and that document.
type CombinedSlot<T> = (Vec<StateRx<T>>, Option<Arc<Doc>>);

/// A combined document of named sources (`{"sources": {NAME: document}}`, or the flat
/// documents with every source's fields), put together from the sources' parts after any of
/// them changed.
pub(crate) struct Combined<T> {
    format: Format,
    made: Vec<Arc<Made<T>>>,
    slot: Mutex<CombinedSlot<T>>,
}

impl<T: Render> Combined<T> {
    /// The combined document of `made` (with their receivers), or `None` without sources.
    pub(crate) fn new(
        format: Format,
        made: Vec<Arc<Made<T>>>,
        rxs: Vec<StateRx<T>>,
    ) -> Option<Self> {
        (!made.is_empty()).then(|| Combined {
            format,
            made,
            slot: Mutex::new((rxs, None)),
        })
    }

    pub(crate) fn doc(&self) -> Arc<Doc> {
        let mut slot = lock(&self.slot);
        let (rxs, doc) = &mut *slot;
        let changed = rxs.iter().any(|r| r.has_changed().unwrap_or(true));
        if let Some(d) = doc.as_ref().filter(|_| !changed) {
            return d.clone();
        }
        // Seen first, then the parts: a change after this point is seen by the next reader.
        for r in rxs.iter_mut() {
            r.mark_unchanged();
        }
        let parts: Vec<Arc<Parts>> = self.made.iter().map(|m| m.parts()).collect();
        let made = Arc::new(self.put_together(&parts, doc.as_deref()));
        *doc = Some(made.clone());
        made
    }

    fn put_together(&self, parts: &[Arc<Parts>], prev: Option<&Doc>) -> Doc {
        let now = SystemTime::now();
        let flats = || parts.iter().filter_map(|p| p.flat.as_ref());
        match self.format {
            Format::Json => {
                let mut out = Vec::from(&b"{\"sources\":{"[..]);
                for (i, (m, p)) in self.made.iter().zip(parts).enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    let name = serde_json::Value::from(m.name()).to_string();
                    out.extend_from_slice(name.as_bytes());
                    out.push(b':');
                    out.extend_from_slice(p.json.body());
                }
                out.extend_from_slice(b"}}");
                Doc::new(out, JSON, now, prev)
            }
            Format::Xml => {
                let rows: String = flats().map(|f| f.xml_rows.as_str()).collect();
                Doc::new(format!("{XML_HEAD}{rows}{XML_TAIL}"), XML, now, prev)
            }
            Format::Csv => {
                let head: Vec<&str> = flats().map(|f| f.csv_head.as_str()).collect();
                let row: Vec<&str> = flats().map(|f| f.csv_row.as_str()).collect();
                let text = format!("{}\r\n{}\r\n", head.join(","), row.join(","));
                Doc::new(text, CSV, now, prev)
            }
        }
    }
}

impl Shared {
    /// `/transport.json`: the media source's document, or with named sources every media
    /// source's by name (`{"sources": {NAME: document}}`); `None` without media sources.
    pub(crate) fn transport_doc(&self) -> Option<Arc<Doc>> {
        if self.venue {
            return self.all_transport.as_ref().map(Combined::doc);
        }
        self.media.first().map(|f| f.made.parts().json.clone())
    }

    /// `/scores.json`, `/scores.xml`, `/scores.csv`: as [`Shared::transport_doc`], for the
    /// scoreboards; the flat documents of named sources prefix each field with its source's
    /// name (`court1_team1_score`).
    pub(crate) fn scores_doc(&self, format: Format) -> Option<Arc<Doc>> {
        if self.venue {
            let all = self.all_scores.iter().find(|c| c.format == format)?;
            return Some(all.doc());
        }
        self.scores.first()?.made.parts().doc(format)
    }

    /// One named media source's document (`/transport/NAME.json`).
    pub(crate) fn transport_named(&self, name: &str) -> Option<Arc<Doc>> {
        let f = self.media.iter().find(|f| f.name == name)?;
        Some(f.made.parts().json.clone())
    }

    /// One named scoreboard's documents (`/scores/NAME.json`, `.xml`, `.csv`).
    pub(crate) fn scores_named(&self, name: &str, format: Format) -> Option<Arc<Doc>> {
        let f = self.scores.iter().find(|f| f.name == name)?;
        f.made.parts().doc(format)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn gunzip(b: &[u8]) -> Vec<u8> {
        use std::io::Read as _;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(b)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    async fn bytes(r: Response) -> Bytes {
        axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap()
    }

    #[test]
    fn etag_and_gzip_answers() {
        crate::runtime::get().block_on(async {
            let doc = Doc::new(&b"{\"a\":1}"[..], JSON, SystemTime::now(), None);
            let plain = doc.answer(&HeaderMap::new());
            assert_eq!(plain.status(), StatusCode::OK);
            let etag = plain.headers()[header::ETAG].to_str().unwrap().to_string();
            assert_eq!(plain.headers()[header::VARY], "accept-encoding");
            assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
            assert_eq!(&bytes(plain).await[..], b"{\"a\":1}");

            let again = doc.answer(&request(&[("if-none-match", &etag)]));
            assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
            assert!(bytes(again).await.is_empty());
            let other = doc.answer(&request(&[("if-none-match", "\"0\"")]));
            assert_eq!(other.status(), StatusCode::OK);

            let zipped = doc.answer(&request(&[("accept-encoding", "gzip, deflate, br")]));
            assert_eq!(zipped.headers()[header::CONTENT_ENCODING], "gzip");
            let gz_tag = zipped.headers()[header::ETAG].to_str().unwrap().to_string();
            assert_ne!(gz_tag, etag, "the gzip copy is another representation");
            assert_eq!(gunzip(&bytes(zipped).await), b"{\"a\":1}");
            let held = request(&[("accept-encoding", "gzip"), ("if-none-match", &gz_tag)]);
            assert_eq!(doc.answer(&held).status(), StatusCode::NOT_MODIFIED);
            // The same copy, not another, for every reader.
            assert!(std::ptr::eq(doc.gzip().unwrap(), doc.gzip().unwrap()));

            for refused in ["gzip;q=0", "identity", "br", "*;q=0", "gzip;q=nope"] {
                let r = doc.answer(&request(&[("accept-encoding", refused)]));
                assert!(
                    r.headers().get(header::CONTENT_ENCODING).is_none(),
                    "{refused}"
                );
            }
            let any = doc.answer(&request(&[("accept-encoding", "*")]));
            assert_eq!(any.headers()[header::CONTENT_ENCODING], "gzip");
        });
    }

    #[test]
    fn if_modified_since_answers_304_only_when_the_second_tells_versions_apart() {
        let t0 = UNIX_EPOCH + Duration::from_millis(1_800_000_000_200);
        let first = Doc::new(&b"1"[..], JSON, t0, None);
        let since = |d: &Doc| {
            let lm = d.last_modified.to_str().unwrap().to_string();
            d.answer(&request(&[("if-modified-since", &lm)])).status()
        };
        assert_eq!(since(&first), StatusCode::NOT_MODIFIED);
        // A second version within the same second: a reader holding the first one sends the
        // same date, so the date cannot say which one it holds.
        let second = Doc::new(
            &b"2"[..],
            JSON,
            t0 + Duration::from_millis(500),
            Some(&first),
        );
        assert_eq!(second.last_modified, first.last_modified);
        assert_eq!(since(&second), StatusCode::OK);
        let third = Doc::new(&b"3"[..], JSON, t0 + Duration::from_secs(1), Some(&second));
        assert_eq!(since(&third), StatusCode::NOT_MODIFIED);
        let earlier = httpdate::fmt_http_date(t0);
        let r = third.answer(&request(&[("if-modified-since", &earlier)]));
        assert_eq!(r.status(), StatusCode::OK);
        // If-None-Match decides when both are sent.
        let r = third.answer(&request(&[
            ("if-modified-since", third.last_modified.to_str().unwrap()),
            ("if-none-match", "\"other\""),
        ]));
        assert_eq!(r.status(), StatusCode::OK);
    }
}
