//! The feed: one process polls the media application and/or the scoreboard and serves what it
//! saw to any number of readers (clocks, graphics, scripts) over HTTP, Server-Sent Events and
//! files, so that nothing else needs to poll the show machine.
//!
//! One poller task per application keeps the latest state in a `tokio::sync::watch` channel;
//! readers only ever clone what is in it (no reader holds a lock the poller waits for), and what
//! each poll found is rendered once and broadcast to every SSE client as one message through one
//! bounded ring. A client that falls more than [`SSE_BUFFER`] polls behind is dropped, with a
//! last `end` event saying why.

mod cache;
mod docs;
mod files;
mod given;
mod http;
mod upstream;

use cache::{Combined, Format, Made, Me, Render};
use upstream::{run_source, MediaSource, ScoreSource, Source};

#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;

pub use docs::{
    iso, layer_json, scores_csv, scores_doc, scores_doc_of, scores_flat, scores_xml, transport_doc,
    transport_doc_of, Layers, Scores, SourceState,
};
pub use given::{Serving, SharedOptions, SourceArg, SOURCE_KEYS};
pub use upstream::FEED_REPLY;

use crate::error::{Error, Result};
use crate::media::MediaClient;
use crate::runtime;
use crate::score::Scoreboard;
use crate::serve::{self, Limits};
use crate::transport::{Config, Transport};

/// Messages (one per poll that found something) an SSE client may fall behind before it is
/// dropped.
pub const SSE_BUFFER: usize = 64;

/// How long `stop()` waits for a file write under way (with `write`) before it returns anyway,
/// so a stalled disk cannot hang the caller. A write still stuck then is logged.
pub const WRITE_GRACE: Duration = Duration::from_secs(2);

pub use crate::venue::Kind;

/// One polled application: its name (unique in the feed), its kind, and how to reach it (its
/// own URL, key and TLS options).
#[derive(Debug, Clone)]
pub struct SourceSpec {
    pub name: String,
    pub kind: Kind,
    pub config: Config,
    /// Its own time between polls (`None`: the feed's).
    pub interval: Option<Duration>,
}

impl SourceSpec {
    /// A source named after its kind (`media`, `scoreboard`).
    pub fn new(kind: Kind, config: Config) -> Self {
        SourceSpec {
            name: kind.as_str().to_string(),
            kind,
            config,
            interval: None,
        }
    }

    /// A source of a venue, with its name, options and interval.
    pub fn of_venue(source: &crate::venue::Source) -> Self {
        SourceSpec {
            name: source.name.clone(),
            kind: source.kind,
            config: source.config.clone(),
            interval: Some(source.interval),
        }
    }
}

/// What a feed polls and where it serves.
#[derive(Debug, Clone)]
pub struct Options {
    /// The applications polled: at least one.
    pub sources: Vec<SourceSpec>,
    /// Named sources (a venue): each source also has its own documents
    /// (`/scores/NAME.json`…), and `/scores.json` / `/transport.json` list every source of
    /// their kind by name. Without it (at most one source of each kind), the documents keep
    /// the one-source shape.
    pub venue: bool,
    /// Time between polls (of a source without its own).
    pub interval: Duration,
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// Write the documents into this directory on each change.
    pub write: Option<PathBuf>,
    /// The bounds of the feed's connections (header timeout, connection cap: `crate::serve`).
    pub limits: Limits,
}

/// The feed's time between polls when not given (seconds).
pub const DEFAULT_INTERVAL: f64 = 0.5;

/// Refuse what does not go with a venue (`venue=`: `from_file`, or `sources=`): the options
/// `given` beside it by name, each source's own there; `interval` only beside `sources=`
/// (where it is every source's default).
pub fn check_beside_venue(from_file: bool, interval: bool, given: &[(&str, bool)]) -> Result<()> {
    if interval && from_file {
        return Err(Error::invalid(
            "interval: not with venue= (set it in the file's [defaults] or per source); \
             beside sources= it is the default of every source",
        ));
    }
    match given.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(Error::invalid(format!(
            "{name}: not with a venue (venue= or sources=): each source's options are \
             set in the venue, per source or in its [defaults]"
        ))),
        None => Ok(()),
    }
}

impl Options {
    /// The first source of a kind, if any.
    pub fn source(&self, kind: Kind) -> Option<&SourceSpec> {
        self.sources.iter().find(|s| s.kind == kind)
    }

    /// The time between polls of `source`.
    pub fn interval_of(&self, source: &SourceSpec) -> Duration {
        source.interval.unwrap_or(self.interval)
    }

    /// `/sources.json`: every source, its kind and the paths of its own documents (media
    /// players first, then scoreboards, each in the order given).
    pub fn sources_json(&self) -> Value {
        let entry = |s: &SourceSpec| {
            let name = &s.name;
            let docs: Vec<String> = match s.kind {
                Kind::Media => vec![format!("transport/{name}.json")],
                Kind::Scoreboard => ["json", "xml", "csv"]
                    .iter()
                    .map(|ext| format!("scores/{name}.{ext}"))
                    .collect(),
            };
            serde_json::json!({"name": name, "kind": s.kind.as_str(), "documents": docs})
        };
        let of = |kind: Kind| self.sources.iter().filter(move |s| s.kind == kind);
        let list: Vec<Value> = of(Kind::Media)
            .chain(of(Kind::Scoreboard))
            .map(entry)
            .collect();
        serde_json::json!({ "sources": list })
    }
}

/// What one poll published, rendered once and shared by every SSE client: one message per poll
/// however many changes it found, so a burst takes one place in the ring.
#[derive(Debug)]
pub struct Message {
    pub seq: u64,
    /// SSE events (name, data), in order.
    pub events: Vec<(&'static str, String)>,
}

/// The SSE events one poll publishes, gathered before they go out as one [`Message`].
#[derive(Debug, Default)]
struct Batch(Vec<(&'static str, String)>);

impl Batch {
    fn push(&mut self, event: &'static str, data: &Value) {
        self.0.push((event, data.to_string()));
    }

    /// An event whose data is a document as made (its text).
    fn push_text(&mut self, event: &'static str, data: String) {
        self.0.push((event, data));
    }

    /// An event of one source: its data (an object) names the source (`"source": NAME`).
    fn push_of(&mut self, event: &'static str, source: &str, data: &Value) {
        match data {
            Value::Object(m) if !m.contains_key("source") => {
                let mut m = m.clone();
                m.insert("source".into(), Value::String(source.to_string()));
                self.push(event, &Value::Object(m));
            }
            _ => self.push(event, data),
        }
    }
}

/// One source's latest state as the server and the writer read it: its name, the receiving end
/// of its poller's channel and its documents, made once per change.
#[derive(Clone)]
pub(crate) struct Fed<T> {
    pub(crate) name: String,
    pub(crate) rx: watch::Receiver<Arc<SourceState<T>>>,
    pub(crate) made: Arc<Made<T>>,
}

/// What the poller tasks, the server and the file writer share.
pub(crate) struct Shared {
    /// The shortest poll interval of the sources (the SSE watchdog's tick).
    interval: Duration,
    /// Named sources: per-source documents, and combined ones listing every source by name.
    pub(crate) venue: bool,
    pub(crate) media: Vec<Fed<Layers>>,
    pub(crate) scores: Vec<Fed<Scores>>,
    bus: broadcast::Sender<Arc<Message>>,
    published: AtomicU64,
    /// SSE clients connected now.
    clients: watch::Sender<usize>,
    /// Set when the feed stops: every SSE stream ends with a last event saying so.
    closing: watch::Sender<bool>,
    /// `/sources.json`, rendered once ([`Options::sources_json`]).
    pub(crate) sources: String,
    pub(crate) sources_doc: Arc<cache::Doc>,
    /// Named sources: the combined `/transport.json`, and `/scores.json`, `.xml` and `.csv`.
    all_transport: Option<Combined<Layers>>,
    all_scores: Vec<Combined<Scores>>,
}

impl Shared {
    /// Send what one poll found to every SSE client, as one message.
    fn publish(&self, batch: Batch) {
        if batch.0.is_empty() {
            return;
        }
        let seq = self.published.fetch_add(1, Ordering::SeqCst) + 1;
        // No subscriber is not an error: nobody listens yet.
        let _ = self.bus.send(Arc::new(Message {
            seq,
            events: batch.0,
        }));
    }

    pub(crate) fn published(&self) -> u64 {
        self.published.load(Ordering::SeqCst)
    }

    /// The sources, for the `venue` event and `/sources.json`: name, kind and documents.
    /// Every source has answered once, failed, or gone unanswered for two intervals.
    async fn settled(&self) {
        for f in &self.media {
            let _ = f.rx.clone().wait_for(|s| settled(s)).await;
        }
        for f in &self.scores {
            let _ = f.rx.clone().wait_for(|s| settled(s)).await;
        }
    }
}

struct Running {
    server: serve::Running,
    tasks: Vec<JoinHandle<()>>,
    /// The file writer (with `--write`): it ends with the sources, not aborted, so a file being
    /// written is finished first.
    writer: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
}

/// A feed: build it, `start()` it, open `url()`.
pub struct Feed {
    options: Options,
    running: Mutex<Option<Running>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Feed {
    /// Check the options (nothing is polled or bound yet).
    pub fn new(mut options: Options) -> Result<Self> {
        if options.sources.is_empty() {
            return Err(Error::invalid(
                "media, scoreboard: give the URL of at least one application to poll",
            ));
        }
        crate::poll::watch_interval(options.interval.as_secs_f64())?;
        for (i, source) in options.sources.iter().enumerate() {
            if options.sources[..i].iter().any(|s| s.name == source.name) {
                return Err(Error::invalid(format!(
                    "{}: a source of that name is given twice",
                    source.name
                )));
            }
        }
        for source in &mut options.sources {
            // The next poll is the retry; a retry inside a poll only delays the stale mark.
            source.config.retries = 0;
            crate::transport::normalize_base(&source.config.url)
                .map_err(|e| named(&source.name, e))?;
            if let Some(i) = source.interval {
                crate::poll::watch_interval(i.as_secs_f64()).map_err(|e| named(&source.name, e))?;
            }
            // The name is part of URLs and file names.
            crate::venue::check_name(&source.name).map_err(Error::invalid)?;
        }
        if !options.venue {
            for kind in [Kind::Media, Kind::Scoreboard] {
                let of_kind = options.sources.iter().filter(|s| s.kind == kind).count();
                if of_kind > 1 {
                    return Err(Error::invalid(format!(
                        "{}: {of_kind} {} applications given; name them as a venue \
                         (sources=...) to poll more than one",
                        kind.as_str(),
                        kind.as_str()
                    )));
                }
            }
        }
        serve::check_host(&options.host).map_err(Error::invalid)?;
        Ok(Feed {
            options,
            running: Mutex::new(None),
        })
    }

    /// Start polling and serving (a no-op when running); returns the address listened on.
    /// It returns at once: [`Feed::wait_ready`] waits for the first answers.
    pub fn start(&self) -> Result<SocketAddr> {
        let mut running = lock(&self.running);
        if let Some(r) = running.as_ref() {
            if !r.server.in_forked_child() {
                return Ok(r.server.addr());
            }
            // A forked child's copy of the parent's feed: abandon it and start afresh.
            abandon(running.take().expect("checked"));
        }
        let o = &self.options;
        let transport = |s: &SourceSpec| {
            Transport::new(&s.config)
                .map(Arc::new)
                .map_err(|e| named(&s.name, e))
        };
        // Every client first, so a bad option fails start() before anything listens.
        let mut media = Vec::new();
        let mut boards = Vec::new();
        for s in &o.sources {
            let me = (s.name.clone(), o.interval_of(s));
            match s.kind {
                Kind::Media => media.push((MediaSource(MediaClient::new(transport(s)?)), me)),
                Kind::Scoreboard => boards.push((ScoreSource(Scoreboard::new(transport(s)?)), me)),
            }
        }
        if let Some(dir) = &o.write {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::invalid(format!("write: cannot create {}: {e}", dir.display()))
            })?;
        }
        let listener = serve::bind(&o.host, o.port).map_err(Error::invalid)?;
        let rt = runtime::get();
        let _entered = rt.enter();

        let media: Vec<_> = media
            .into_iter()
            .map(|(src, me)| channel(src, me, o.venue))
            .collect();
        let boards: Vec<_> = boards
            .into_iter()
            .map(|(src, me)| channel(src, me, o.venue))
            .collect();
        let shortest = (o.sources.iter().map(|s| o.interval_of(s)).min()).unwrap_or(o.interval);
        let fed_media: Vec<Fed<Layers>> = media.iter().map(|(_, _, _, fed)| fed.clone()).collect();
        let fed_scores: Vec<Fed<Scores>> =
            boards.iter().map(|(_, _, _, fed)| fed.clone()).collect();
        let sources = o.sources_json().to_string();
        let (all_transport, all_scores) = if o.venue {
            let transport = combined(Format::Json, &fed_media);
            let formats = [Format::Json, Format::Xml, Format::Csv];
            let scores = formats.iter().filter_map(|f| combined(*f, &fed_scores));
            (transport, scores.collect())
        } else {
            (None, Vec::new())
        };
        let shared = Arc::new(Shared {
            interval: shortest,
            venue: o.venue,
            media: fed_media,
            scores: fed_scores,
            bus: broadcast::channel(SSE_BUFFER).0,
            published: AtomicU64::new(0),
            clients: watch::channel(0).0,
            closing: watch::channel(false).0,
            sources_doc: Arc::new(cache::Doc::new(
                sources.clone(),
                cache::JSON,
                SystemTime::now(),
                None,
            )),
            sources,
            all_transport,
            all_scores,
        });
        let server = http::start(rt.handle(), listener, shared.clone(), o.limits.clone())
            .map_err(|e| Error::invalid(format!("host: cannot listen on {}: {e}", o.host)))?;
        let mut tasks = Vec::new();
        for (src, me, tx, fed) in media {
            tasks.push(rt.spawn(run_source(src, me, tx, fed.made, shared.clone())));
        }
        for (src, me, tx, fed) in boards {
            tasks.push(rt.spawn(run_source(src, me, tx, fed.made, shared.clone())));
        }
        let writer = (o.write.as_ref())
            .map(|dir| rt.spawn(files::write_on_change(dir.clone(), shared.clone())));
        let addr = server.addr();
        *running = Some(Running {
            server,
            tasks,
            writer,
            shared,
        });
        Ok(addr)
    }

    /// Wait until every source has answered once or failed (or gone unanswered for two
    /// intervals: it is then stale, with why), for at most `timeout`. Returns whether every
    /// source was settled in time (true when stopped).
    pub async fn wait_ready(&self, timeout: Duration) -> bool {
        let Some(shared) = lock(&self.running).as_ref().map(|r| r.shared.clone()) else {
            return true;
        };
        tokio::time::timeout(timeout, shared.settled())
            .await
            .is_ok()
    }

    /// Stop polling and serving, closing every connection (every SSE stream first gets a last
    /// `end` event); returns once the port is free and the file being written (with `write`)
    /// is in place, or after [`WRITE_GRACE`] if that write is stuck. In a child of `fork()`,
    /// returns at once and leaves the parent's feed alone.
    pub async fn stop(&self) {
        let running = lock(&self.running).take();
        if let Some(r) = running {
            if r.server.in_forked_child() {
                abandon(r);
                return;
            }
            for t in &r.tasks {
                t.abort();
            }
            let _ = r.shared.closing.send(true);
            r.server.stop().await;
            for t in r.tasks {
                let _ = t.await;
            }
            // The sources have ended: the writer writes what they left and returns.
            if let (Some(writer), Some(dir)) = (r.writer, &self.options.write) {
                if tokio::time::timeout(WRITE_GRACE, writer).await.is_err() {
                    log::warn!(
                        "feed: stopped with a file write into {} still under way after {} s; \
                         a temporary file may be left there",
                        dir.display(),
                        WRITE_GRACE.as_secs()
                    );
                }
            }
        }
    }

    pub fn addr(&self) -> Option<SocketAddr> {
        lock(&self.running)
            .as_ref()
            .filter(|r| !r.server.in_forked_child())
            .map(|r| r.server.addr())
    }

    /// The port listened on (the requested one until started).
    pub fn port(&self) -> u16 {
        self.addr().map_or(self.options.port, |a| a.port())
    }

    /// `http://host:port/` while running.
    pub fn url(&self) -> Option<String> {
        self.addr().map(|a| format!("http://{a}/"))
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// How long `start()` waits for the first answers: `given` seconds (0 to 3600), else the
    /// longest request timeout of the sources.
    pub fn ready_timeout(&self, given: Option<f64>) -> Result<Duration> {
        match given {
            Some(t) if (0.0..=3600.0).contains(&t) => Ok(Duration::from_secs_f64(t)),
            Some(t) => Err(Error::invalid(format!(
                "timeout: must be a number of seconds from 0 to 3600, got {t}"
            ))),
            None => Ok(self
                .options
                .sources
                .iter()
                .map(|s| s.config.timeout)
                .max()
                .unwrap_or_default()),
        }
    }

    /// `Feed(url='…', media='…')` while running, else `Feed(media='…', running=False)`.
    pub fn describe(&self) -> String {
        let sources: Vec<String> = (self.options.sources.iter())
            .map(|s| format!("{}='{}'", s.name, s.config.url))
            .collect();
        match self.url() {
            Some(url) => format!("Feed(url='{url}', {})", sources.join(", ")),
            None => format!("Feed({}, running=False)", sources.join(", ")),
        }
    }

    #[cfg(test)]
    fn shared(&self) -> Arc<Shared> {
        lock(&self.running)
            .as_ref()
            .expect("running")
            .shared
            .clone()
    }

    /// SSE clients connected now (0 when stopped).
    pub fn sse_clients(&self) -> usize {
        lock(&self.running)
            .as_ref()
            .map_or(0, |r| *r.shared.clients.borrow())
    }

    /// A receiver of the number of SSE clients, to wait for a change.
    pub fn sse_clients_watch(&self) -> Option<watch::Receiver<usize>> {
        Some(lock(&self.running).as_ref()?.shared.clients.subscribe())
    }

    /// The `/transport.json` document now, as served (`None` when stopped or without a media
    /// URL).
    pub fn transport(&self) -> Option<Value> {
        let shared = lock(&self.running).as_ref()?.shared.clone();
        parsed(&*shared.transport_doc()?)
    }

    /// The `/scores.json` document now, as served (`None` when stopped or without a scoreboard
    /// URL).
    pub fn scores(&self) -> Option<Value> {
        let shared = lock(&self.running).as_ref()?.shared.clone();
        parsed(&*shared.scores_doc(Format::Json)?)
    }
}

/// A JSON document the feed made, read back.
fn parsed(doc: &cache::Doc) -> Option<Value> {
    serde_json::from_slice(doc.body()).ok()
}

/// The combined document of named sources of one kind, in `format`; `None` without sources.
fn combined<T: Render>(format: Format, fed: &[Fed<T>]) -> Option<Combined<T>> {
    let made = fed.iter().map(|f| f.made.clone()).collect();
    Combined::new(format, made, fed.iter().map(|f| f.rx.clone()).collect())
}

/// A forked child's copy of a running feed: its tasks belong to the parent's runtime, which has
/// no threads here; nothing of it is aborted or woken (see `serve::Running`).
fn abandon(r: Running) {
    let Running {
        server,
        tasks,
        writer,
        shared,
    } = r;
    drop(server); // abandons itself in a child
    std::mem::forget((tasks, writer, shared));
}

/// An argument error of a source, named after it (`media: url: ...`).
fn named(name: &str, e: Error) -> Error {
    match e {
        Error::InvalidInput(m) => Error::invalid(format!("{name}: {m}")),
        other => other,
    }
}

/// A source's channel, starting with the state before its first answer.
#[allow(clippy::type_complexity)]
fn channel<S: Source>(
    src: S,
    me: (String, Duration),
    venue: bool,
) -> (
    S,
    (String, Duration),
    watch::Sender<Arc<SourceState<S::Data>>>,
    Fed<S::Data>,
) {
    let (tx, rx) = watch::channel(Arc::new(waiting(src.url())));
    let made = Made::new(
        Me {
            name: me.0.clone(),
            interval: me.1,
            venue,
        },
        rx.clone(),
    );
    let fed = Fed {
        name: me.0.clone(),
        rx,
        made: Arc::new(made),
    };
    (src, me, tx, fed)
}

/// Whether a source answered once, or failed (or went unanswered long enough to be stale).
fn settled<T>(s: &SourceState<T>) -> bool {
    s.polled_at.is_some() || s.stale_since.is_some()
}

/// A source's state before its first answer: the documents say why there is no data yet.
fn waiting<T>(url: String) -> SourceState<T> {
    let mut state = SourceState::new(url);
    state.error = Some(format!("waiting for the first answer from {}", state.url));
    state
}

impl Drop for Feed {
    fn drop(&mut self) {
        if let Some(r) = lock(&self.running).take() {
            if r.server.in_forked_child() {
                abandon(r);
                return;
            }
            for t in &r.tasks {
                t.abort();
            }
            let _ = r.shared.closing.send(true);
            // Dropping the server stops the accept loop, which closes the connections. The file
            // writer ends with the sources, once the write under way (if any) is done.
        }
    }
}
