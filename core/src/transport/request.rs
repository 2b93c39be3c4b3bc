//! One request as the core sends it: its method, its path below the `/api/0` prefix, its
//! query and JSON body, and the reply cap of its endpoint.

use crate::error::{Error, Result};

/// HTTP method of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "GET" => Ok(Method::Get),
            "POST" => Ok(Method::Post),
            other => Err(Error::invalid(format!(
                "method: the applications accept GET and POST only, got {other:?}"
            ))),
        }
    }
}

/// One request, relative to the `/api/0` prefix. `path` is already encoded (see `ident`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub query: Vec<(String, String)>,
    /// Serialized JSON body, sent with `Content-Type: application/json`.
    pub body: Option<Vec<u8>>,
    /// The largest reply this request's endpoint can give (below the client's `max_body`): a
    /// longer one is refused as soon as it is seen, never read whole.
    pub max_reply: Option<usize>,
}

impl Request {
    pub fn get(path: impl Into<String>) -> Self {
        Request {
            method: Method::Get,
            path: path.into(),
            query: Vec::new(),
            body: None,
            max_reply: None,
        }
    }
    pub fn post(path: impl Into<String>) -> Self {
        Request {
            method: Method::Post,
            path: path.into(),
            query: Vec::new(),
            body: None,
            max_reply: None,
        }
    }
    pub fn query(mut self, key: &str, value: impl Into<String>) -> Self {
        self.query.push((key.to_string(), value.into()));
        self
    }
    pub fn json(mut self, body: &serde_json::Value) -> Self {
        self.body = Some(serde_json::to_vec(body).expect("a JSON value always serializes"));
        self
    }
    /// The path and query as sent (for logs and error messages).
    pub fn path_and_query(&self) -> String {
        let mut s = self.path.clone();
        if !self.query.is_empty() {
            s.push('?');
            let q: Vec<String> = self
                .query
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}={}",
                        crate::ident::encode_segment(k),
                        crate::ident::encode_segment(v)
                    )
                })
                .collect();
            s.push_str(&q.join("&"));
        }
        s
    }
}
