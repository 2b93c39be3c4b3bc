//! Confirmed commands. The application answers every command with 200 before it applies it,
//! so a careful client reads the matching value back a few times over about half a second
//! and only then calls the command done. [`confirmed`] does that for an [`Expect`]ation and
//! fails with [`Error::NotConfirmed`] (what was expected, what was read) when the value never
//! shows.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use serde_json::{json, Map, Value};

use super::builders::Confirmable;
use super::client::MediaClient;
use super::endpoints::{Call, Endpoint};
use super::expect::Expect;
use super::models::{Cue, TransportState};
use super::table::consts as ep;
use crate::error::{Delivery, Error, Result};
use crate::ident::Ident;

/// When the value is read back, after the command's 200, by default: five reads over half a
/// second ([`read_back`] of [`crate::transport::DEFAULT_CONFIRM_TIMEOUT`]).
pub const READ_BACK: [Duration; 5] = [
    Duration::from_millis(0),
    Duration::from_millis(125),
    Duration::from_millis(250),
    Duration::from_millis(375),
    Duration::from_millis(500),
];

/// When the value is read back over `over` (the client's `confirm_timeout`): five reads, evenly
/// spaced, the first at once and the last at `over`.
pub fn read_back(over: Duration) -> [Duration; 5] {
    std::array::from_fn(|i| over * i as u32 / 4)
}

/// One read-back: whether it matched, and what was read (as JSON, for the error).
struct Observed {
    matched: bool,
    actual: Value,
}

/// Numbers are compared as the application stores them: in single precision (it keeps an
/// opacity or a duration as a 32-bit float and prints it as a double, so 0.01 reads back
/// 0.0099999997764825821).
fn close(a: f64, b: f64) -> bool {
    a as f32 == b as f32
}

fn number_is(actual: f64, expected: f64) -> Observed {
    Observed {
        matched: close(actual, expected),
        actual: json!(actual),
    }
}

/// A thing read back by name or UUID (`None` read back and expected: matched).
fn named_is(read: Option<(Option<String>, Option<String>)>, expected: &Option<String>) -> Observed {
    let Some((name, uuid)) = read else {
        return Observed {
            matched: expected.is_none(),
            actual: Value::Null,
        };
    };
    let matched = expected.as_deref().is_some_and(|e| {
        name.as_deref() == Some(e) || uuid.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(e))
    });
    Observed {
        matched,
        actual: json!(name.or(uuid)),
    }
}

fn label(layer: &Option<Ident>) -> String {
    match layer {
        Some(l) => format!("layer {l}"),
        None => "the workspace".into(),
    }
}

/// `{"Main": x, ...}` for layers, keyed by name; a nameless layer by its index (`"3"`), and
/// each layer whose name is shared by another as `"name [index]"` (`"Clip [0]"`, `"Clip [2]"`),
/// so every layer is reported.
fn per_layer<'a>(layers: impl Iterator<Item = (usize, Option<&'a str>, Value)>) -> Value {
    let layers: Vec<_> = layers.collect();
    let shared = |name: &str| layers.iter().filter(|(_, n, _)| *n == Some(name)).count() > 1;
    let mut m = Map::new();
    for (i, name, v) in &layers {
        let mut key = match name {
            None => i.to_string(),
            Some(n) if shared(n) => format!("{n} [{i}]"),
            Some(n) => n.to_string(),
        };
        while m.contains_key(&key) {
            // A name that looks like another's key (a layer named "Clip [0]").
            key = format!("{key} [{i}]");
        }
        m.insert(key, v.clone());
    }
    Value::Object(m)
}

fn layer_name(t: &TransportState) -> Option<&str> {
    t.layer.as_ref().and_then(|l| l.name.as_deref())
}

fn plays(t: &TransportState, cue: &Cue) -> bool {
    let item = t.playing_item.as_deref();
    let same = match (&cue.uuid, item) {
        (Some(u), Some(i)) => i
            .uuid
            .as_deref()
            .is_some_and(|iu| iu.eq_ignore_ascii_case(u)),
        (None, Some(i)) => i.name.is_some() && i.name == cue.name,
        _ => false,
    };
    same && t.playing_media.is_some()
}

/// What a layer shows, for the error: the playing cue's name, or null when empty.
fn showing(t: &TransportState) -> Value {
    match (&t.playing_media, &t.playing_item) {
        (None, _) => Value::Null,
        (Some(_), Some(item)) => json!(item.name.clone().or(item.uuid.clone())),
        (Some(m), None) => json!(m.name.clone()),
    }
}

impl Expect {
    /// What is checked, for messages ("the opacity of layer 2").
    pub fn what(&self) -> String {
        match self {
            Expect::Opacity { layer, .. } => format!("the opacity of layer {layer}"),
            Expect::Flag { layer, flag, .. } => format!("{} of {}", flag.field(), label(layer)),
            Expect::Empty { layer } => format!("the media playing on {}", label(layer)),
            Expect::BlendMode { layer, .. } => format!("the blend mode of layer {layer}"),
            Expect::Blend { layer, .. } => format!("the blend of layer {layer}"),
            Expect::TargetSet { layer, .. } => format!("the target set of layer {layer}"),
            Expect::EffectPreset { layer, .. } => {
                format!("the effects preset of {}", label(layer))
            }
            Expect::Transition { layer, .. } => format!("the transition of {}", label(layer)),
            Expect::TransitionDuration { layer, .. } => {
                format!("the transition duration of {}", label(layer))
            }
            Expect::Playing { layer, .. } => format!("the cue playing on {}", label(layer)),
        }
    }

    /// The value expected, as JSON (a trigger's is completed once the cue is known).
    fn expected(&self, cue: Option<&Cue>) -> Value {
        match self {
            Expect::Opacity { value, .. } => json!(value),
            Expect::Flag { value, .. } => json!(value),
            Expect::Empty { .. } => Value::Null,
            Expect::BlendMode { name, .. } => json!(name),
            Expect::Blend { blend, .. } => json!({"type": blend.r#type, "base": blend.base}),
            Expect::TargetSet { name, .. } | Expect::EffectPreset { name, .. } => json!(name),
            Expect::Transition { uuid, .. } => json!(uuid),
            Expect::TransitionDuration { seconds, .. } => json!(seconds),
            Expect::Playing { .. } => json!(cue.and_then(|c| c.name.clone().or(c.uuid.clone()))),
        }
    }

    /// For a trigger: the cue it plays, read from the playlist (its UUID is what
    /// `playingItem` will carry, whatever the cue was addressed by).
    async fn cue(&self, client: &MediaClient) -> Result<Option<Cue>> {
        let Expect::Playing { playlist, cue, .. } = self else {
            return Ok(None);
        };
        match cue {
            Some(c) => Ok(Some(client.run(ep::CUE.at(&[playlist, c])?).await?)),
            None => {
                let p = client.run(ep::PLAYLIST.at(&[playlist])?).await?;
                let first = p.items.first().ok_or_else(|| {
                    Error::Lookup(format!("the playlist {playlist} has no cue to trigger"))
                })?;
                Ok(Some((**first).clone()))
            }
        }
    }

    async fn observe(&self, client: &MediaClient, cue: Option<&Cue>) -> Result<Observed> {
        Ok(match self {
            Expect::Opacity { layer, value } => {
                number_is(client.run(ep::LAYER_OPACITY.at(&[layer])?).await?, *value)
            }
            Expect::Flag {
                layer: Some(layer),
                flag,
                value,
            } => {
                let read = flag.of(&client.run(ep::LAYER_STATE.at(&[layer])?).await?);
                Observed {
                    matched: read == Some(*value),
                    actual: json!(read),
                }
            }
            Expect::Flag {
                layer: None,
                flag,
                value,
            } => {
                let layers = client.run(ep::LAYERS.at(&[])?).await?;
                Observed {
                    matched: layers.0.iter().all(|l| flag.of(l) == Some(*value)),
                    actual: per_layer(
                        layers
                            .0
                            .iter()
                            .enumerate()
                            .map(|(i, l)| (i, l.name.as_deref(), json!(flag.of(l)))),
                    ),
                }
            }
            Expect::Empty { layer: Some(layer) } => {
                let t = client.run(ep::LAYER_TRANSPORT_STATE.at(&[layer])?).await?;
                Observed {
                    matched: t.playing_media.is_none(),
                    actual: showing(&t),
                }
            }
            Expect::Empty { layer: None } => {
                let all = client.run(ep::TRANSPORT_STATES.at(&[])?).await?;
                Observed {
                    matched: all.iter().all(|t| t.playing_media.is_none()),
                    actual: per_layer(
                        all.iter()
                            .enumerate()
                            .map(|(i, t)| (i, layer_name(t), showing(t))),
                    ),
                }
            }
            Expect::BlendMode { layer, name } => {
                let read = client.run(ep::LAYER_BLEND_MODE.at(&[layer])?).await?;
                Observed {
                    matched: read.name.as_deref() == Some(name),
                    actual: json!(read.name),
                }
            }
            Expect::Blend { layer, blend } => {
                let read = client.run(ep::LAYER_BLEND.at(&[layer])?).await?;
                let base = read.base.as_object();
                let fields_match = blend.base.iter().all(|(k, sent)| {
                    let got = base.and_then(|b| b.get(k));
                    match (sent.as_f64(), got.and_then(Value::as_f64)) {
                        (Some(a), Some(b)) if !sent.is_boolean() => close(a, b),
                        _ => got == Some(sent),
                    }
                });
                Observed {
                    matched: read.r#type.as_deref() == Some(&blend.r#type) && fields_match,
                    actual: json!({"type": read.r#type, "base": read.base}),
                }
            }
            Expect::TargetSet { layer, name } => {
                let read = client.run(ep::LAYER_TARGET_SET.at(&[layer])?).await?;
                named_is(read.map(|t| (t.name, t.uuid)), name)
            }
            Expect::EffectPreset { layer, name } => {
                let read = layer_or_workspace(
                    client,
                    layer,
                    &ep::LAYER_EFFECT_PRESET,
                    &ep::WORKSPACE_EFFECT_PRESET,
                )
                .await?;
                named_is(read.map(|p| (p.name, p.uuid)), name)
            }
            Expect::Transition { layer, uuid } => {
                let read = layer_or_workspace(
                    client,
                    layer,
                    &ep::LAYER_TRANSITION,
                    &ep::WORKSPACE_TRANSITION,
                )
                .await?;
                named_is(read.map(|t| (t.name, t.uuid)), uuid)
            }
            Expect::TransitionDuration { layer, seconds } => {
                let read = layer_or_workspace(
                    client,
                    layer,
                    &ep::LAYER_TRANSITION_DURATION,
                    &ep::WORKSPACE_TRANSITION_DURATION,
                )
                .await?;
                number_is(read, *seconds)
            }
            Expect::Playing { layer, .. } => {
                let cue = cue.ok_or_else(|| Error::Internal("no cue to confirm".into()))?;
                match layer {
                    Some(l) => {
                        let t = client.run(ep::LAYER_TRANSPORT_STATE.at(&[l])?).await?;
                        Observed {
                            matched: plays(&t, cue),
                            actual: showing(&t),
                        }
                    }
                    None => {
                        let all: Vec<Arc<TransportState>> =
                            client.run(ep::TRANSPORT_STATES.at(&[])?).await?;
                        Observed {
                            matched: all.iter().any(|t| plays(t, cue)),
                            actual: per_layer(
                                all.iter()
                                    .enumerate()
                                    .map(|(i, t)| (i, layer_name(t), showing(t))),
                            ),
                        }
                    }
                }
            }
        })
    }
}

/// Read from the layer, or from the workspace for `None`.
async fn layer_or_workspace<T>(
    client: &MediaClient,
    layer: &Option<Ident>,
    on_layer: &Endpoint<(), T>,
    workspace: &Endpoint<(), T>,
) -> Result<T> {
    match layer {
        Some(l) => client.run(on_layer.at(&[l])?).await,
        None => client.run(workspace.at(&[])?).await,
    }
}

/// When a confirmed call must end: `timeout × (retries + 1)` plus the backoff from its start
/// (the bound of every call), or `confirm_timeout` after its command's answer when that is
/// later. The read-back window and every read in it (a trigger's cue lookup too) share it.
fn deadline(client: &MediaClient, started: Instant, answered: Instant) -> Instant {
    let transport = client.transport();
    (started + transport.call_bound()).max(answered + transport.confirm_timeout())
}

/// Send `call`, then read back until `expect` shows, at the times of [`read_back`] over the
/// client's `confirm_timeout`, every read within the call's one [`deadline`]. A read that
/// fails is tried again at the next time; if the last one fails, the error says so. The
/// command's own failure is returned as it is, at once.
pub async fn confirmed(client: &MediaClient, call: Call<()>, expect: &Expect) -> Result<()> {
    let method = call.request.method.as_str();
    let url = client.transport().url_of(&call.request);
    let started = Instant::now();
    // The cue (a trigger's) is read while the command goes, within the call's bound.
    let bound = started + client.transport().call_bound();
    let mut sending = std::pin::pin!(client.run(call));
    let mut lookup = std::pin::pin!(tokio::time::timeout_at(bound, expect.cue(client)));
    let (sent, cue) = until_sent(sending.as_mut(), lookup.as_mut()).await;
    sent?;
    let deadline = deadline(client, started, Instant::now());
    // (Still going: bounded by `bound`, which is not after the deadline.)
    let cue = match cue {
        Some(cue) => cue,
        None => lookup.await,
    };
    let cue = cue.unwrap_or_else(|_| Err(cut(client, started, deadline)));
    let expected = expect.expected(cue.as_ref().ok().and_then(Option::as_ref));
    let mut last: Result<Value> = Ok(Value::Null);
    let schedule = read_back(client.transport().confirm_timeout());
    let mut reads = 0;
    match &cue {
        Ok(cue) => {
            let start = Instant::now();
            for at in schedule {
                if start + at > deadline {
                    break;
                }
                tokio::time::sleep_until(start + at).await;
                let Ok(observed) =
                    tokio::time::timeout_at(deadline, expect.observe(client, cue.as_ref())).await
                else {
                    last = Err(cut(client, started, deadline));
                    break;
                };
                reads += 1;
                if let Ok(o) = &observed {
                    crate::journal::read(&o.actual);
                    let _ = READ.try_with(|r| {
                        *r.lock().unwrap_or_else(|p| p.into_inner()) = Some(o.actual.clone())
                    });
                }
                match observed {
                    Ok(o) if o.matched => return Ok(()),
                    Ok(o) => last = Ok(o.actual),
                    Err(e @ (Error::Closed | Error::InvalidInput(_))) => return Err(e),
                    Err(e) => last = Err(e),
                }
            }
        }
        Err(e) => last = Err(e.clone()),
    }
    let what = expect.what();
    let (actual, mut message) = match last {
        Ok(actual) => {
            let message = format!(
                "{method} {url} was answered 200, but {what} read back {actual}, not {expected} \
                 ({reads} reads over {:.1} s)",
                schedule[schedule.len() - 1].as_secs_f64()
            );
            (actual, message)
        }
        Err(e) => (
            Value::Null,
            format!("{method} {url} was answered 200, but {what} could not be read back: {e}"),
        ),
    };
    if let (Expect::Playing { layer: Some(_), .. }, Ok(Some(cue))) = (expect, &cue) {
        if let Ok(more) = tokio::time::timeout_at(deadline, elsewhere(client, cue)).await {
            message.push_str(&more);
        }
    }
    Err(Error::NotConfirmed {
        method: method.to_string(),
        url,
        message,
        expected: Box::new(expected),
        actual: Box::new(actual),
    })
}

/// Run the command `sent` and the lookup `cue` together until the command is done: its
/// result, and the lookup's when it finished first (`None`: still going, or dropped because
/// the command failed, whose error is the call's at once).
async fn until_sent<S: Future, C: Future>(
    mut sent: Pin<&mut S>,
    mut cue: Pin<&mut C>,
) -> (S::Output, Option<C::Output>) {
    let mut looked_up = None;
    loop {
        tokio::select! {
            out = sent.as_mut() => return (out, looked_up),
            c = cue.as_mut(), if looked_up.is_none() => looked_up = Some(c),
        }
    }
}

/// The error of a read cut off by the call's deadline.
fn cut(client: &MediaClient, started: Instant, deadline: Instant) -> Error {
    let after = deadline.saturating_duration_since(started).as_secs_f64();
    let transport = client.transport();
    Error::Timeout {
        method: "GET".into(),
        url: transport.base_url().to_string(),
        message: format!(
            "no answer by the call's deadline, {after:.3}s after the command started \
             (timeout × (retries + 1) plus the backoff, or confirm_timeout={:.3}s after the \
             command's answer)",
            transport.confirm_timeout().as_secs_f64()
        ),
        delivery: Delivery::SentNoAnswer,
    }
}

/// For a trigger on a layer that did not show the cue: where it plays instead, when it does
/// (read once more, from the whole workspace). In the field the application ignores the layer
/// of `/trigger/layer/{l}/...`: a cue plays on its own configured layer, and an untargeted one
/// on the layer last selected with `target=true`. Empty when it plays nowhere or the read fails.
async fn elsewhere(client: &MediaClient, cue: &Cue) -> String {
    let Ok(call) = ep::TRANSPORT_STATES.at(&[]) else {
        return String::new();
    };
    let Ok(all) = client.run(call).await else {
        return String::new();
    };
    let on: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(_, t)| plays(t, cue))
        .map(|(i, t)| match layer_name(t) {
            Some(n) => format!("{n:?}"),
            None => i.to_string(),
        })
        .collect();
    if on.is_empty() {
        return String::new();
    }
    format!(
        "; the cue plays on layer {} instead: the application plays a cue on its own \
         configured layer (an untargeted cue on the layer selected with target=True), whatever \
         layer the trigger names",
        on.join(", ")
    )
}

tokio::task_local! {
    /// The last value read back by the confirmed command running inside [`reading`].
    static READ: Arc<std::sync::Mutex<Option<Value>>>;
}

/// Run the command `fut` and return, with its outcome, the last value it read back
/// (`confirm=True`; `None` for a command not read back).
pub async fn reading(fut: impl std::future::Future<Output = Result<()>>) -> Result<Option<Value>> {
    let read = Arc::new(std::sync::Mutex::new(None));
    READ.scope(read.clone(), fut).await?;
    let value = read.lock().unwrap_or_else(|p| p.into_inner()).take();
    Ok(value)
}

/// Send `call`, confirmed when an expectation is given.
pub async fn send(client: &MediaClient, call: Call<()>, expect: Option<&Expect>) -> Result<()> {
    match expect {
        Some(e) => confirmed(client, call, e).await,
        None => client.run(call).await,
    }
}

impl Confirmable {
    /// Send the command, and read back when asked to ([`confirmed`]); its record: see
    /// [`crate::journal`].
    /// A command identical to one answered within the client's cooldown is refused first
    /// ([`super::cooldown`]).
    pub async fn send(self, client: &MediaClient) -> Result<()> {
        let pressed = client.press(&self.call.request)?;
        let read_back = self.expect.is_some();
        let sent = async move {
            match &self.expect {
                Some(expect) => confirmed(client, self.call, expect).await,
                None => client.run(self.call).await,
            }
        };
        let out = crate::journal::record(self.operation, read_back, sent).await;
        if let Some(p) = pressed {
            p.finish(&out);
        }
        out
    }
}

#[cfg(test)]
mod tests;
