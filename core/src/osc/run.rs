//! Running what the bridge received: one lane per sender address, which runs its messages one
//! after another in the order received; each message's passcode, action, command or read, its
//! record and its reply.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rosc::{OscMessage, OscPacket, OscType};
use serde_json::{json, Map, Value};
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, watch};
use tokio_util::task::TaskTracker;

use super::address::{self, Action, LayerRead, Read, PREFIX};
use super::guard::{Passcode, Rate};
use super::{lock, Limits, Options, Records, Stats, TARGET};
use crate::error::{Delivery, Error, Result};
use crate::media::models::Model;
use crate::media::table::{layer, workspace};
use crate::media::MediaClient;
use crate::score::Scoreboard;

/// A lane lives this long without a message before it ends.
const LANE_IDLE: Duration = Duration::from_secs(30);
/// Senders named in the "not allowed" log at most (each once); past that, no more lines.
const REFUSED_LOGGED: usize = 1024;

/// Where a message came from and where its reply goes.
#[derive(Clone)]
pub(super) struct From {
    pub transport: &'static str,
    pub peer: SocketAddr,
    /// A TCP connection's writer (SLIP frames); `None` for UDP (replies go to `peer`).
    pub tcp: Option<mpsc::Sender<Vec<u8>>>,
}

impl From {
    fn origin(&self) -> String {
        format!("osc {} {}", self.transport, self.peer)
    }
}

/// Messages to run, in order, at `at` (a bundle's time tag) or at once.
pub(super) struct Job {
    pub from: From,
    pub messages: Vec<OscMessage>,
    pub at: Option<SystemTime>,
}

/// What a message came to.
struct Outcome {
    status: &'static str,
    delivery: Delivery,
    data: Option<Value>,
    error: Option<String>,
}

impl Outcome {
    fn refused(e: impl ToString) -> Self {
        Outcome {
            status: "refused",
            delivery: Delivery::NotSent,
            data: None,
            error: Some(e.to_string()),
        }
    }

    fn of(result: Result<Option<Value>>) -> Self {
        match result {
            Ok(data) => Outcome {
                status: "ok",
                delivery: Delivery::Answered,
                data,
                error: None,
            },
            Err(e) => Outcome {
                status: if matches!(e, Error::InvalidInput(_)) {
                    "refused"
                } else {
                    "error"
                },
                delivery: e.delivery(),
                data: None,
                error: Some(e.to_string()),
            },
        }
    }
}

/// Everything the tasks of one running bridge share.
pub(super) struct Shared {
    pub media: MediaClient,
    pub scoreboard: Option<Scoreboard>,
    pub passcode: Option<Passcode>,
    pub reply: bool,
    pub confirm: bool,
    pub limits: Limits,
    pub allow: super::Allow,
    pub rate: Mutex<Rate>,
    /// Senders over their rate now (logged once per burst).
    pub limited: Mutex<std::collections::HashSet<IpAddr>>,
    refused_logged: Mutex<std::collections::HashSet<IpAddr>>,
    lanes: Mutex<HashMap<IpAddr, mpsc::Sender<Job>>>,
    timed: AtomicUsize,
    pub records: Arc<Records>,
    pub stats: Arc<Stats>,
    pub udp: std::sync::OnceLock<Arc<UdpSocket>>,
    pub tasks: TaskTracker,
    pub closing: watch::Sender<bool>,
}

impl Shared {
    pub fn new(
        o: &Options,
        media: MediaClient,
        scoreboard: Option<Scoreboard>,
        records: Arc<Records>,
        stats: Arc<Stats>,
    ) -> Result<Arc<Self>> {
        Ok(Arc::new(Shared {
            media,
            scoreboard,
            passcode: o.passcode.clone(),
            reply: o.reply,
            confirm: o.confirm,
            limits: o.limits.clone(),
            allow: o.allow.clone(),
            rate: Mutex::new(Rate::new(o.rate)?),
            limited: Mutex::default(),
            refused_logged: Mutex::default(),
            lanes: Mutex::default(),
            timed: AtomicUsize::new(0),
            records,
            stats,
            udp: std::sync::OnceLock::new(),
            tasks: TaskTracker::new(),
            closing: watch::channel(false).0,
        }))
    }

    /// Whether `peer` may send: else it is counted and logged (once per sender address).
    pub fn allowed(&self, peer: SocketAddr, transport: &str) -> bool {
        if self.allow.allows(peer.ip()) {
            return true;
        }
        Stats::add(&self.stats.not_allowed);
        let mut logged = lock(&self.refused_logged);
        if logged.len() < REFUSED_LOGGED && logged.insert(peer.ip()) {
            log::warn!(
                target: TARGET,
                "osc: {transport} from {} dropped unread: not an allowed sender (allow: {}); \
                 further packets from it are dropped without a line",
                peer.ip(),
                self.allow.describe().join(", ")
            );
        }
        false
    }

    /// Whether a packet from `peer` is within its rate: else it is counted and logged once per
    /// burst.
    pub fn admitted(&self, peer: SocketAddr) -> bool {
        let ip = peer.ip();
        if lock(&self.rate).admit(ip, Instant::now()) {
            lock(&self.limited).remove(&ip);
            return true;
        }
        Stats::add(&self.stats.over_rate);
        if lock(&self.limited).insert(ip) {
            log::warn!(
                target: TARGET,
                "osc: {ip} sends over its rate; its packets are dropped unread until it slows \
                 down (one line per burst)"
            );
        }
        false
    }

    /// A packet dropped before it could be read as messages: logged, recorded, counted.
    pub fn dropped(&self, from: &From, why: String, bytes: usize) {
        log::warn!(target: TARGET, "osc: {} from {} dropped: {why}", from.transport, from.peer);
        self.records.push(
            json!({
                "when": now_text(SystemTime::now()),
                "transport": from.transport,
                "sender": from.peer.to_string(),
                "status": "dropped",
                "delivery": Delivery::NotSent.as_str(),
                "error": why,
                "bytes": bytes,
            }),
            &self.stats,
        );
    }

    fn is_closing(&self) -> bool {
        *self.closing.borrow()
    }

    /// Queue `job` on its sender's lane (made when it has none), or run it at its time.
    pub fn dispatch(self: &Arc<Self>, job: Job) {
        if let Some(at) = job.at {
            if let Ok(wait) = at.duration_since(SystemTime::now()) {
                return self.later(job, wait);
            }
        }
        let ip = job.from.peer.ip();
        let mut lanes = lock(&self.lanes);
        if self.is_closing() {
            drop(lanes);
            return self.refuse_all(job, "the bridge stopped before running it");
        }
        if !lanes.contains_key(&ip) && lanes.len() >= self.limits.max_lanes {
            drop(lanes);
            let why = format!(
                "{} senders have commands queued already",
                self.limits.max_lanes
            );
            return self.refuse_all(job, &why);
        }
        let lane = lanes.entry(ip).or_insert_with(|| {
            let (tx, rx) = mpsc::channel(self.limits.queue);
            self.tasks.spawn(lane(self.clone(), ip, rx));
            tx
        });
        if let Err(e) = lane.try_send(job) {
            drop(lanes);
            let why = format!(
                "busy: {} messages from this sender are queued already",
                self.limits.queue
            );
            self.refuse_all(e.into_inner(), &why);
        }
    }

    /// Hold a timed bundle until its time, then queue it.
    fn later(self: &Arc<Self>, job: Job, wait: Duration) {
        if self.timed.fetch_add(1, Ordering::SeqCst) >= self.limits.max_timed {
            self.timed.fetch_sub(1, Ordering::SeqCst);
            let why = format!(
                "{} timed bundles are waiting already",
                self.limits.max_timed
            );
            return self.refuse_all(job, &why);
        }
        let shared = self.clone();
        let mut closing = self.closing.subscribe();
        self.tasks.spawn(async move {
            let stopped = tokio::select! {
                _ = tokio::time::sleep(wait) => false,
                _ = closing.wait_for(|c| *c) => true,
            };
            shared.timed.fetch_sub(1, Ordering::SeqCst);
            if stopped {
                return shared.refuse_all(job, "the bridge stopped before its time tag");
            }
            // Queued at its time: in order with what its sender sent by then.
            shared.dispatch(job);
        });
    }

    /// Every message of `job` refused with `why` (nothing sent).
    pub fn refuse_all(&self, job: Job, why: &str) {
        for m in job.messages {
            let args = self.visible_args(&m.args).1;
            self.finish(
                &job.from,
                &m.addr,
                args,
                job.at,
                Instant::now(),
                Outcome::refused(why),
            );
        }
    }

    /// The arguments as recorded (the passcode taken off), and whether the passcode was right
    /// (true without one).
    fn visible_args<'a>(&self, args: &'a [OscType]) -> (bool, &'a [OscType]) {
        let Some(p) = &self.passcode else {
            return (true, args);
        };
        match args.first() {
            Some(OscType::String(given)) if p.matches(given) => (true, &args[1..]),
            // A wrong passcode may be a near miss of the right one: nothing of it is shown.
            _ => (false, &[]),
        }
    }

    /// Run one message: its passcode, its action, the command or read; then its record and
    /// reply.
    async fn run(&self, from: &From, m: OscMessage, at: Option<SystemTime>) {
        let started = Instant::now();
        let (passcode_ok, args) = self.visible_args(&m.args);
        let outcome = if !passcode_ok {
            Outcome::refused("wrong or missing passcode (the first argument)")
        } else {
            match address::action(&m.addr, args, self.confirm) {
                Err(e) => Outcome::refused(e),
                Ok(action) => {
                    let sent = self.act(action);
                    Outcome::of(crate::journal::on_behalf_of(from.origin(), sent).await)
                }
            }
        };
        self.finish(from, &m.addr, args, at, started, outcome);
    }

    async fn act(&self, action: Action) -> Result<Option<Value>> {
        match action {
            Action::Command(c) => {
                Stats::add(&self.stats.commands);
                (*c).send(&self.media).await.map(|()| None)
            }
            Action::Read(r) => {
                Stats::add(&self.stats.reads);
                self.read(r).await.map(Some)
            }
        }
    }

    async fn read(&self, r: Read) -> Result<Value> {
        let raw = |m: &dyn RawOf| Value::Object(m.raw_json());
        let m = &self.media;
        Ok(match r {
            Read::Scores => {
                let Some(board) = &self.scoreboard else {
                    return Err(Error::invalid(
                        "/showctl/scores: the bridge was given no scoreboard",
                    ));
                };
                Value::Object(board.scores().await?.raw().clone())
            }
            Read::Layers => {
                let list = m.run(workspace::layers()?).await?;
                Value::Array(list.0.iter().map(|l| raw(l.as_ref())).collect())
            }
            Read::Transport => {
                let all = m.run(workspace::transport_state()?).await?;
                Value::Array(all.iter().map(|t| raw(t.as_ref())).collect())
            }
            Read::TransitionDuration => {
                json!(m.run(workspace::workspace_transition_duration()?).await?)
            }
            Read::Layer(id, what) => match what {
                LayerRead::State => raw(&m.run(layer::state(&id)?).await?),
                LayerRead::Transport => raw(&m.run(layer::transport_state(&id)?).await?),
                LayerRead::Remaining => {
                    json!(m.run(layer::transport_state(&id)?).await?.time_remaining)
                }
                LayerRead::Opacity => json!(m.run(layer::opacity(&id)?).await?),
                LayerRead::TransitionDuration => {
                    json!(m.run(layer::transition_duration(&id)?).await?)
                }
            },
        })
    }

    /// Count, record and reply to a message that came to `outcome`.
    fn finish(
        &self,
        from: &From,
        addr: &str,
        args: &[OscType],
        at: Option<SystemTime>,
        started: Instant,
        o: Outcome,
    ) {
        Stats::add(match o.status {
            "ok" => &self.stats.ok,
            "refused" => &self.stats.refused,
            _ => &self.stats.failed,
        });
        if o.status == "refused" {
            log::warn!(
                target: TARGET,
                "osc: {addr:?} from {} refused: {}",
                from.peer,
                // Its text may hold the address or arguments as sent: escaped for a terminal.
                o.error.as_deref().unwrap_or_default().escape_debug()
            );
        }
        let mut reply = Map::new();
        reply.insert("address".into(), json!(addr));
        reply.insert("status".into(), json!(o.status));
        reply.insert("delivery".into(), json!(o.delivery.as_str()));
        if let Some(d) = &o.data {
            reply.insert("data".into(), d.clone());
        }
        if let Some(e) = &o.error {
            reply.insert("error".into(), json!(e));
        }
        let mut record = Map::new();
        record.insert("when".into(), json!(now_text(SystemTime::now())));
        record.insert("transport".into(), json!(from.transport));
        record.insert("sender".into(), json!(from.peer.to_string()));
        record.insert(
            "args".into(),
            Value::Array(args.iter().map(address::arg_json).collect()),
        );
        if let Some(at) = at {
            record.insert("time_tag".into(), json!(now_text(at)));
        }
        record.extend(reply.clone());
        let ms = started.elapsed().as_secs_f64() * 1e3;
        record.insert("elapsed_ms".into(), json!((ms * 1e3).round() / 1e3));
        self.records.push(Value::Object(record), &self.stats);
        // Never a reply to a reply, nor outside the bridge's addresses: two bridges (or a desk
        // that echoes) would answer each other without end.
        if self.reply && (addr == PREFIX || addr.starts_with(&format!("{PREFIX}/"))) {
            self.send_reply(from, addr, Value::Object(reply));
        }
    }

    fn send_reply(&self, from: &From, addr: &str, body: Value) {
        let message = |body: &Value| {
            OscPacket::Message(OscMessage {
                addr: format!("/reply{addr}"),
                args: vec![OscType::String(body.to_string())],
            })
        };
        let mut bytes = rosc::encoder::encode(&message(&body)).unwrap_or_default();
        if bytes.len() > self.limits.max_reply() {
            let mut cut = body;
            cut["data"] = Value::Null;
            cut["error"] = json!(format!(
                "the value read is {} bytes, over the {} a reply carries",
                bytes.len(),
                self.limits.max_reply()
            ));
            bytes = rosc::encoder::encode(&message(&cut)).unwrap_or_default();
        }
        match (&from.tcp, self.udp.get()) {
            (Some(tcp), _) => {
                // A connection whose writer is full (a peer that does not read) loses the reply.
                let _ = tcp.try_send(super::slip::encode(&bytes));
            }
            (None, Some(udp)) => {
                let _ = udp.try_send_to(&bytes, from.peer);
            }
            (None, None) => {}
        }
    }
}

impl Limits {
    /// The largest reply sent: one UDP datagram.
    fn max_reply(&self) -> usize {
        65_000
    }
}

/// The wire object of a model, whatever its type.
trait RawOf {
    fn raw_json(&self) -> Map<String, Value>;
}

impl<M: Model> RawOf for M {
    fn raw_json(&self) -> Map<String, Value> {
        self.raw().clone()
    }
}

/// A time as RFC 3339 in UTC, to the microsecond.
fn now_text(at: SystemTime) -> String {
    let at = time::OffsetDateTime::from(at);
    let at = at.replace_nanosecond(at.microsecond() * 1000).unwrap_or(at);
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// One sender's lane: its messages, one after another, in the order queued. It ends after
/// [`LANE_IDLE`] without any (leaving the map while holding its lock, so nothing is queued on
/// it after), or when the bridge stops (refusing what is still queued).
async fn lane(shared: Arc<Shared>, ip: IpAddr, mut rx: mpsc::Receiver<Job>) {
    let mut closing = shared.closing.subscribe();
    loop {
        let job = tokio::select! {
            biased;
            _ = closing.wait_for(|c| *c) => None,
            job = tokio::time::timeout(LANE_IDLE, rx.recv()) => match job {
                Ok(job) => job,
                Err(_) => {
                    let mut lanes = lock(&shared.lanes);
                    if rx.is_empty() {
                        lanes.remove(&ip);
                        return;
                    }
                    continue;
                }
            },
        };
        let Some(job) = job else { break };
        for m in job.messages {
            shared.run(&job.from, m, job.at).await;
        }
    }
    rx.close();
    while let Ok(job) = rx.try_recv() {
        shared.refuse_all(job, "the bridge stopped before running it");
    }
}
