//! The media client: sends the calls of the endpoint table over one transport.
//!
//! Reads go to the primary only. Commands go through [`MediaClient::run`] or
//! [`MediaClient::command`]: the one place where a command leaves the client, and where it is
//! also queued for each mirror (see [`super::mirror`]) before the primary is sent it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::cooldown::{Cooldown, Pressed};
use super::endpoints::{non_empty, Call};
use super::mirror::{Mirror, MirrorStatus};
use super::models::{LayerState, Playlist};
use super::names::{NameKind, Names};
use super::sender::Sender;
use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::operation::Client;
use crate::transport::{Method, Request, Target, Transport};

struct Inner {
    /// The primary: its transport and fallback memory.
    sender: Sender,
    mirrors: Vec<Mirror>,
    /// Layers and playlists read for name lookups (see [`super::names`]).
    names: Names,
    /// The double-press guard (see [`super::cooldown`]).
    cooldown: Arc<Cooldown>,
}

/// A client of the media application (cheap to clone; clones share everything).
#[derive(Clone)]
pub struct MediaClient {
    inner: Arc<Inner>,
    /// Whether this handle's commands are checked against the cooldown (false: the handle of
    /// [`MediaClient::without_cooldown`]).
    guarded: bool,
}

impl std::fmt::Debug for MediaClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MediaClient({})", self.transport().base_url())
    }
}

impl MediaClient {
    /// True when both are the same client (clones share everything).
    pub fn same(&self, other: &MediaClient) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// An identity of the client, the same for all its clones (for hashing).
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }
    pub fn new(transport: Arc<Transport>) -> Self {
        Self::build(transport, Vec::new())
    }

    fn build(transport: Arc<Transport>, mirrors: Vec<Mirror>) -> Self {
        MediaClient {
            inner: Arc::new(Inner {
                sender: Sender::new(transport),
                mirrors,
                names: Names::default(),
                cooldown: Arc::default(),
            }),
            guarded: true,
        }
    }

    /// Set the cooldown (`None`: off): see [`super::cooldown`]. Shared by every clone.
    pub fn set_cooldown(&self, window: Option<Duration>) {
        self.inner.cooldown.set(window);
    }

    /// The cooldown, or `None` when it is off.
    pub fn cooldown(&self) -> Option<Duration> {
        self.inner.cooldown.get()
    }

    /// The same client (sharing everything) whose commands pass the cooldown on purpose; they
    /// still start it, so a guarded press of the same command right after is refused.
    pub fn without_cooldown(&self) -> MediaClient {
        MediaClient {
            inner: self.inner.clone(),
            guarded: false,
        }
    }

    /// Whether this handle's commands are checked against the cooldown.
    pub fn guarded(&self) -> bool {
        self.guarded
    }

    /// Check a command against the cooldown before it is sent (see [`Cooldown::press`]).
    pub fn press(&self, request: &Request) -> Result<Option<Pressed>> {
        let url = || self.transport().url_of(request);
        self.inner.cooldown.press(request, url, self.guarded)
    }

    /// A client whose commands also go to each of `mirrors` (sharing the primary's options).
    /// A mirror that repeats the primary's URL or another mirror's is refused.
    pub fn with_mirrors(transport: Arc<Transport>, mirrors: Vec<Target>) -> Result<Self> {
        Self::with_mirror_queues(transport, mirrors, super::mirror::QUEUE)
    }

    /// [`MediaClient::with_mirrors`] with each mirror's queue holding `capacity` commands.
    pub fn with_mirror_queues(
        transport: Arc<Transport>,
        mirrors: Vec<Target>,
        capacity: usize,
    ) -> Result<Self> {
        let mut seen = vec![transport.base_url().to_string()];
        let mut built = Vec::with_capacity(mirrors.len());
        for (i, target) in mirrors.into_iter().enumerate() {
            let base = target.base().to_string();
            if seen.contains(&base) {
                return Err(Error::invalid(format!(
                    "mirrors[{i}]: {base} is already {}",
                    if seen[0] == base {
                        "the primary"
                    } else {
                        "a mirror"
                    }
                )));
            }
            seen.push(base);
            built.push(Mirror::with_capacity(
                Sender::new(Arc::new(transport.with_target(target)?)),
                capacity,
            ));
        }
        Ok(Self::build(transport, built))
    }

    pub fn transport(&self) -> &Arc<Transport> {
        self.inner.sender.transport()
    }

    /// True once the client uses `/layerBlend/layer/{id}` for layer blends.
    pub fn uses_layer_blend_fallback(&self) -> bool {
        self.inner.sender.uses_layer_blend_fallback()
    }

    /// Forget the lists kept for name lookups; the next lookup reads them again.
    pub fn refresh(&self) {
        self.inner.names.refresh();
    }

    /// The state of the one layer named `name` (or with that UUID).
    pub async fn resolve_layer(&self, name: &str) -> Result<Arc<LayerState>> {
        self.inner
            .names
            .resolve_layer(&self.inner.sender, name)
            .await
    }

    /// The one playlist named `name` (or with that UUID), anywhere in the tree.
    pub async fn resolve_playlist(&self, name: &str) -> Result<Arc<Playlist>> {
        self.inner
            .names
            .resolve_playlist(&self.inner.sender, name)
            .await
    }

    /// The UUID of the one layer, playlist or cue named `name` (only among `kind` if given).
    pub async fn by_name(&self, name: &str, kind: Option<NameKind>) -> Result<String> {
        self.inner
            .names
            .by_name(&self.inner.sender, name, kind)
            .await
    }

    /// [`Self::resolve_layer`] as the identifier of the layer by its UUID (a layer named with
    /// digits only is reached this way); an empty `name` is refused now, before anything is sent.
    pub fn layer_named(
        &self,
        name: String,
    ) -> Result<impl Future<Output = Result<Ident>> + Send + 'static> {
        let (client, name) = (self.clone(), non_empty(name, "name")?);
        Ok(async move {
            let layer = client.resolve_layer(&name).await?;
            Ok(Ident::Name(layer.uuid.clone().unwrap_or_default()))
        })
    }

    /// [`Self::resolve_playlist`], an empty `name` refused now.
    pub fn playlist_named(
        &self,
        name: String,
    ) -> Result<impl Future<Output = Result<Arc<Playlist>>> + Send + 'static> {
        let (client, name) = (self.clone(), non_empty(name, "name")?);
        Ok(async move { client.resolve_playlist(&name).await })
    }

    /// [`Self::by_name`], an empty `name` or an unknown `kind` ("layer", "playlist", "cue")
    /// refused now.
    pub fn uuid_named(
        &self,
        name: String,
        kind: Option<&str>,
    ) -> Result<impl Future<Output = Result<String>> + Send + 'static> {
        let name = non_empty(name, "name")?;
        let kind = kind.map(NameKind::parse).transpose()?;
        let client = self.clone();
        Ok(async move { client.by_name(&name, kind).await })
    }

    /// What each mirror did so far, in the order they were given.
    pub fn mirror_status(&self) -> Vec<MirrorStatus> {
        self.inner.mirrors.iter().map(Mirror::status).collect()
    }

    /// Send a call and decode its reply. A command is queued for the mirrors first.
    pub async fn run<T>(&self, call: Call<T>) -> Result<T> {
        if call.request.method == Method::Post {
            // A command sent outside an operation's record (a raw request) gets its own.
            return crate::journal::record(crate::journal::RAW, false, async {
                self.mirror(&call.request, call.fallback.as_ref())?;
                self.inner.sender.call(call).await
            })
            .await;
        }
        self.inner.sender.call(call).await
    }

    /// Queue a command for every mirror (nothing once the client is closed).
    fn mirror(&self, request: &Request, fallback: Option<&Request>) -> Result<()> {
        if self.transport().is_closed() {
            return Err(Error::Closed);
        }
        for m in &self.inner.mirrors {
            m.submit(request, fallback);
        }
        Ok(())
    }

    /// Send a read (GET) to the application.
    pub async fn read(&self, req: &Request) -> Result<Bytes> {
        self.transport().send(req).await
    }

    /// Send a command (POST) to the application and queue it for the mirrors; returns the body
    /// of the primary's answer.
    pub async fn command(&self, req: &Request) -> Result<Bytes> {
        crate::journal::record(crate::journal::RAW, false, async {
            self.mirror(req, None)?;
            self.transport().send(req).await
        })
        .await
    }

    /// True when a mirror still has commands queued or in flight.
    pub fn mirrors_busy(&self) -> bool {
        self.inner.mirrors.iter().any(|m| m.pending() > 0)
    }

    /// Close the client: later calls fail with [`Error::Closed`]. Mirrors are closed at once;
    /// what they still had queued fails (see [`MediaClient::shutdown`] to let them finish).
    pub fn close(&self) {
        self.transport().close();
        for m in &self.inner.mirrors {
            m.close();
        }
    }

    /// Close the client after giving the mirrors up to the client's timeout to send what they
    /// still have queued (a command given just before closing still reaches them); what is
    /// left after that is dropped and counted.
    pub async fn shutdown(&self) {
        self.transport().close();
        let drain = |within: Duration| {
            let deadline = tokio::time::Instant::now() + within;
            futures::future::join_all(self.inner.mirrors.iter().map(move |m| m.drain(deadline)))
        };
        drain(self.transport().timeout()).await;
        self.close();
        // Dropping what is left takes no I/O: only wait for the workers to count it.
        drain(Duration::from_secs(1)).await;
    }
}

/// The client the core's generic calls run on ([`Client`]).
impl Client for MediaClient {
    fn run<T: Send + 'static>(&self, call: Call<T>) -> impl Future<Output = Result<T>> + Send {
        MediaClient::run(self, call)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use axum::http::{StatusCode, Uri};
    use axum::routing::any;
    use axum::Router;

    use super::*;
    use crate::ident::Ident;
    use crate::media::endpoints::BlendSpec;
    use crate::media::table::consts::{LAYER_BLEND, SET_LAYER_BLEND, SET_LAYER_OPACITY};
    use crate::transport::Config;

    /// A loopback server answering `status_of(path)`, logging `METHOD path body`.
    async fn server(status_of: fn(&str) -> u16) -> (String, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        let app = Router::new().fallback(any(
            move |method: axum::http::Method, uri: Uri, body: String| {
                let seen = seen.clone();
                async move {
                    seen.lock()
                        .unwrap()
                        .push(format!("{method} {} {body}", uri.path()));
                    let status = StatusCode::from_u16(status_of(uri.path())).unwrap();
                    let reply = if uri.path().contains("lend/layer") && method == "GET" {
                        r#"{"layerBlend":{"type":"White Matte","base":{}}}"#
                    } else {
                        ""
                    };
                    (status, reply)
                }
            },
        ));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (url, log)
    }

    fn client(url: &str) -> MediaClient {
        MediaClient::new(Arc::new(Transport::new(&Config::new(url)).unwrap()))
    }

    fn blend() -> BlendSpec {
        BlendSpec::from_value("blend", &serde_json::json!({"type": "White Matte"})).unwrap()
    }

    #[tokio::test]
    async fn layer_blend_falls_back_on_404_and_remembers() {
        let (url, log) = server(|p| {
            if p.starts_with("/api/0/blend/") {
                404
            } else {
                200
            }
        })
        .await;
        let c = client(&url);
        let layer = Ident::Index(2);
        c.run(SET_LAYER_BLEND.with(&[&layer], "blend", blend()).unwrap())
            .await
            .unwrap();
        assert!(c.uses_layer_blend_fallback());
        let got = c.run(LAYER_BLEND.at(&[&layer]).unwrap()).await.unwrap();
        assert_eq!(got.r#type.as_deref(), Some("White Matte"));
        // A clone shares what the client learned.
        c.clone()
            .run(SET_LAYER_BLEND.with(&[&layer], "blend", blend()).unwrap())
            .await
            .unwrap();
        let body = r#"{"type":"White Matte","base":{}}"#;
        assert_eq!(
            *log.lock().unwrap(),
            [
                format!("POST /api/0/blend/layer/2 {body}"),
                format!("POST /api/0/layerBlend/layer/2 {body}"),
                "GET /api/0/layerBlend/layer/2 ".to_string(),
                format!("POST /api/0/layerBlend/layer/2 {body}"),
            ]
        );
    }

    #[tokio::test]
    async fn layer_blend_falls_back_on_405_only_when_needed() {
        let (url, log) = server(|p| {
            if p.starts_with("/api/0/blend/") {
                405
            } else {
                200
            }
        })
        .await;
        let c = client(&url);
        c.run(LAYER_BLEND.at(&[&Ident::Index(0)]).unwrap())
            .await
            .unwrap();
        assert!(c.uses_layer_blend_fallback());
        assert_eq!(log.lock().unwrap().len(), 2);

        let (url, log) = server(|_| 200).await;
        let c = client(&url);
        c.run(LAYER_BLEND.at(&[&Ident::Index(0)]).unwrap())
            .await
            .unwrap();
        assert!(!c.uses_layer_blend_fallback());
        assert_eq!(*log.lock().unwrap(), ["GET /api/0/blend/layer/0 "]);
    }

    #[tokio::test]
    async fn errors_of_the_fallback() {
        // Both paths missing: the documented path's 404 is reported.
        let (url, _) = server(|_| 404).await;
        let c = client(&url);
        let err = c
            .run(
                SET_LAYER_BLEND
                    .with(&[&Ident::Index(0)], "blend", blend())
                    .unwrap(),
            )
            .await
            .unwrap_err();
        assert!(err.to_string().contains("/api/0/blend/layer/0"), "{err}");
        assert!(!c.uses_layer_blend_fallback());
        // The field path exists but refuses the layer: its 400 is reported.
        let (url, _) = server(|p| if p.contains("/blend/") { 404 } else { 400 }).await;
        let err = client(&url)
            .run(
                SET_LAYER_BLEND
                    .with(&[&Ident::Index(9)], "blend", blend())
                    .unwrap(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(400));
        // Other endpoints never fall back.
        let (url, log) = server(|_| 404).await;
        let err = client(&url)
            .run(
                SET_LAYER_OPACITY
                    .with(&[&Ident::Index(0)], "value", 0.5)
                    .unwrap(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(404));
        assert_eq!(log.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn an_empty_command_reply_is_not_parsed_and_a_bad_read_is_a_decode_error() {
        let (url, _) = server(|_| 200).await;
        let c = client(&url);
        c.run(
            SET_LAYER_OPACITY
                .with(&[&Ident::Index(0)], "value", 1.0)
                .unwrap(),
        )
        .await
        .unwrap();
        let err = c
            .run(
                crate::media::table::consts::LAYER_OPACITY
                    .at(&[&Ident::Index(0)])
                    .unwrap(),
            )
            .await
            .unwrap_err();
        match err {
            Error::Decode { url, .. } => assert!(url.ends_with("/api/0/opacity/layer/0")),
            other => panic!("{other:?}"),
        }
    }
}
