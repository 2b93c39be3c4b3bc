//! A scripted HTTP/1.1 server on loopback for the core's tests: each connection gets the next
//! reply of the script (the last one repeats) and is closed after it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete answer.
    Status(u16, &'static str),
    /// Wait, then answer.
    Slow(Duration, u16, &'static str),
    /// Raw bytes, then close (a broken or truncated answer).
    Raw(&'static str),
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

pub async fn start(script: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let script = Arc::new(Mutex::new(VecDeque::from(script)));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (log, script) = (log.clone(), script.clone());
            tokio::spawn(async move {
                if let Some(req) = read_request(stream).await {
                    let (mut stream, seen) = req;
                    log.lock().unwrap().push(seen);
                    let reply = {
                        let mut s = script.lock().unwrap();
                        if s.len() > 1 {
                            s.pop_front().unwrap()
                        } else {
                            s.front().cloned().expect("an empty script")
                        }
                    };
                    let _ = write_reply(&mut stream, reply).await;
                }
            });
        }
    });
    Server { url, seen }
}

async fn read_request(mut stream: TcpStream) -> Option<(TcpStream, Seen)> {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let seen = Seen {
        method,
        target,
        headers,
        body,
    };
    Some((stream, seen))
}

async fn write_reply(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    let (status, body) = match reply {
        Reply::Raw(raw) => {
            stream.write_all(raw.as_bytes()).await?;
            return stream.shutdown().await;
        }
        Reply::Slow(delay, status, body) => {
            tokio::time::sleep(delay).await;
            (status, body)
        }
        Reply::Status(status, body) => (status, body),
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}
