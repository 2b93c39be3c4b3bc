//! The media client: sends the calls of the endpoint table over one transport.
//!
//! Reads go through [`MediaClient::read`], commands through [`MediaClient::command`]: the one
//! place where a command leaves the client (and where more targets can be added).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;

use super::endpoints::Call;
use crate::error::{Error, Result};
use crate::transport::{Method, Request, Transport};

struct Inner {
    transport: Arc<Transport>,
    /// Set once `/blend/layer/{id}` answered 404 or 405 and `/layerBlend/layer/{id}` worked:
    /// later layer blend requests go to the field path directly.
    layer_blend_fallback: AtomicBool,
}

/// A client of the media application (cheap to clone; clones share everything).
#[derive(Clone)]
pub struct MediaClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MediaClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MediaClient({})", self.inner.transport.base_url())
    }
}

impl MediaClient {
    pub fn new(transport: Arc<Transport>) -> Self {
        MediaClient {
            inner: Arc::new(Inner {
                transport,
                layer_blend_fallback: AtomicBool::new(false),
            }),
        }
    }

    pub fn transport(&self) -> &Arc<Transport> {
        &self.inner.transport
    }

    /// True once the client uses `/layerBlend/layer/{id}` for layer blends.
    pub fn uses_layer_blend_fallback(&self) -> bool {
        self.inner.layer_blend_fallback.load(Ordering::Relaxed)
    }

    /// Send a call and decode its reply.
    pub async fn run<T>(&self, call: Call<T>) -> Result<T> {
        let (req, body) = self.exchange(&call).await?;
        (call.decode)(&body).map_err(|e| {
            Error::decode(req.method.as_str(), &self.transport().url_of(req), &body, e)
        })
    }

    /// Send the request of a call, or its field fallback where the documented path is
    /// refused with 404 or 405.
    async fn exchange<'c, T>(&self, call: &'c Call<T>) -> Result<(&'c Request, Bytes)> {
        let Some(fallback) = &call.fallback else {
            return Ok((&call.request, self.send(&call.request).await?));
        };
        if self.uses_layer_blend_fallback() {
            return Ok((fallback, self.send(fallback).await?));
        }
        match self.send(&call.request).await {
            Err(first) if matches!(first.status(), Some(404 | 405)) => {
                match self.send(fallback).await {
                    Ok(body) => {
                        log::info!(
                            "{} {} answered {}; {} works and is used from now on",
                            call.request.method.as_str(),
                            call.request.path,
                            first.status().unwrap_or_default(),
                            fallback.path
                        );
                        self.inner
                            .layer_blend_fallback
                            .store(true, Ordering::Relaxed);
                        Ok((fallback, body))
                    }
                    // Neither path exists: the documented path's error says more.
                    Err(second) if matches!(second.status(), Some(404 | 405)) => Err(first),
                    Err(second) => Err(second),
                }
            }
            other => Ok((&call.request, other?)),
        }
    }

    async fn send(&self, req: &Request) -> Result<Bytes> {
        match req.method {
            Method::Get => self.read(req).await,
            Method::Post => self.command(req).await,
        }
    }

    /// Send a read (GET) to the application.
    pub async fn read(&self, req: &Request) -> Result<Bytes> {
        self.transport().send(req).await
    }

    /// Send a command (POST) to the application; returns the body of its answer.
    pub async fn command(&self, req: &Request) -> Result<Bytes> {
        self.transport().send(req).await
    }

    /// Close the client: later calls fail with [`Error::Closed`].
    pub fn close(&self) {
        self.transport().close();
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
    use crate::media::endpoints::{BlendSpec, LAYER_BLEND, SET_LAYER_BLEND, SET_LAYER_OPACITY};
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
                crate::media::endpoints::LAYER_OPACITY
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
