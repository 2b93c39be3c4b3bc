//! Looks: what a layer's look is made of, read into a [`Look`] ([`read`]) and put back
//! ([`apply`]), sending only what differs, in a safe order, each command confirmed.
//!
//! Read per layer: opacity, hidden, muted and the transition duration (`GET /data/layers`), the
//! layer blend (`GET /blend/layer/{id}` or its field path), the target set, the effects preset
//! and the transition (their per-layer reads: `None` is no target set, no preset, the master
//! transition). Not read back, so never in a look read from the application: the layer preset
//! (`GET /layerPreset/layer/{id}` lists the presets of the layer, not the one applied) and the
//! layer's effects (an effect posted replaces the current one: no set of effects can be put
//! back one by one). A look written by hand may name a `preset`: it cannot be compared, so it is
//! sent every time, first.
//!
//! A Standard blend carries an opacity beside the layer's; a look keeps one: [`apply`] sends
//! the look's `opacity` in a Standard blend too, so the two never disagree.
//!
//! The order of [`apply`]: hide and mute first (nothing shows or sounds half-set); then the
//! preset, target set, effects preset, transition and its duration; then the opacity; then the
//! layer blend (setting the opacity replaces a matte blend with Normal, so the blend comes after
//! it, and is sent again when the opacity is); unhide and unmute last, once the rest is set.

use std::sync::Arc;

use futures::future::try_join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::builders::Confirmable;
use super::client::MediaClient;
use super::endpoints::BlendSpec;
use super::models::LayerState;
use super::table::consts as ep;
use super::table::{both, layer as on_layer};
use crate::error::{Error, Result};
use crate::ident::Ident;

/// What a look leaves out because the API does not report it.
pub const NOT_READ_BACK: [&str; 2] = ["preset", "effects"];
/// The fields of a layer's look, in the order [`apply`] sends them (hide and mute first, their
/// opposites last: see the module).
pub const FIELDS: [&str; 10] = [
    "hidden",
    "muted",
    "preset",
    "target_set",
    "effect_preset",
    "transition",
    "transition_duration",
    "opacity",
    "blend",
    "name",
];
/// The format a look file carries.
pub const FORMAT: &str = "showctl.look/1";

/// A transition by name and UUID (`None` in a look: the master transition).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub name: Option<String>,
    pub uuid: Option<String>,
}

/// One layer's look. A layer is found by `uuid`, else by `name`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerLook {
    pub name: Option<String>,
    #[serde(default)]
    pub uuid: Option<String>,
    pub opacity: f64,
    pub hidden: bool,
    pub muted: bool,
    /// `{"type": ..., "base": {...}}`; `None`: not read (left as it is).
    #[serde(default)]
    pub blend: Option<Value>,
    pub target_set: Option<String>,
    pub effect_preset: Option<String>,
    pub transition: Option<Named>,
    pub transition_duration: f64,
    /// A layer preset (never read back: sent every time when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
}

/// The look of some layers of a workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Look {
    pub format: String,
    pub layers: Vec<LayerLook>,
    /// What the look leaves out because the API does not report it ([`NOT_READ_BACK`]).
    #[serde(default)]
    pub not_read_back: Vec<String>,
}

impl Look {
    /// From its JSON (a dict or a file's text), checked: the format, every field of every
    /// layer, the ranges (a refusal names the field).
    pub fn from_value(v: Value) -> Result<Look> {
        let look: Look = serde_path_to_error::deserialize(v)
            .map_err(|e| Error::invalid(format!("look: {}: {}", e.path(), e.inner())))?;
        if look.format != FORMAT {
            return Err(Error::invalid(format!(
                "look: format must be {FORMAT:?}, got {:?}",
                look.format
            )));
        }
        for (i, l) in look.layers.iter().enumerate() {
            let at = |f: &str| format!("layers[{i}].{f}");
            if l.name.is_none() && l.uuid.is_none() {
                return Err(Error::invalid(format!(
                    "look: layers[{i}] has no name or uuid"
                )));
            }
            super::endpoints::number_in(l.opacity, &at("opacity"), 0.0, 1.0)?;
            super::endpoints::number_in(
                l.transition_duration,
                &at("transition_duration"),
                0.0,
                5.0,
            )?;
            if let Some(b) = &l.blend {
                BlendSpec::from_value(&at("blend"), b)?;
            }
        }
        Ok(look)
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

fn address(state: &LayerState, index: usize) -> Ident {
    match &state.uuid {
        Some(u) => Ident::Name(u.clone()),
        None => Ident::Index(index as i64),
    }
}

/// Whether `state` is the layer `id` names (an index, or its name or UUID).
fn named(state: &LayerState, index: usize, id: &Ident) -> bool {
    match id {
        Ident::Index(i) => *i == index as i64,
        Ident::Name(n) => {
            state.name.as_deref() == Some(n.as_str())
                || state
                    .uuid
                    .as_deref()
                    .is_some_and(|u| u.eq_ignore_ascii_case(n))
        }
    }
}

/// Read the look of `layers` (each an index, a name or a UUID; `None`: every layer). A layer
/// named that is not in the workspace: `NameLookupError` naming it.
pub async fn read(client: &MediaClient, layers: Option<&[Ident]>) -> Result<Look> {
    let all = client.run(ep::LAYERS.at(&[])?).await?.0;
    let picked: Vec<(usize, Arc<LayerState>)> = match layers {
        None => all.iter().cloned().enumerate().collect(),
        Some(ids) => {
            let mut out = Vec::new();
            for id in ids {
                let found = all.iter().enumerate().find(|(i, s)| named(s, *i, id));
                match found {
                    Some((i, s)) => out.push((i, s.clone())),
                    None => {
                        return Err(Error::Lookup(format!(
                            "layers: no layer {id} in the workspace"
                        )))
                    }
                }
            }
            out
        }
    };
    let looks = picked
        .iter()
        .map(|(i, s)| layer_look(client, s, address(s, *i)));
    Ok(Look {
        format: FORMAT.into(),
        layers: try_join_all(looks).await?,
        not_read_back: NOT_READ_BACK.iter().map(|s| s.to_string()).collect(),
    })
}

async fn layer_look(client: &MediaClient, s: &LayerState, id: Ident) -> Result<LayerLook> {
    let ids = [&id];
    let (blend, target, preset, transition) = tokio::try_join!(
        client.run(ep::LAYER_BLEND.at(&ids)?),
        client.run(ep::LAYER_TARGET_SET.at(&ids)?),
        client.run(ep::LAYER_EFFECT_PRESET.at(&ids)?),
        client.run(ep::LAYER_TRANSITION.at(&ids)?),
    )?;
    let blend = BlendSpec::from_model("blend", &blend)
        .ok()
        .map(|b| serde_json::json!({"type": b.r#type, "base": Value::Object(b.base)}));
    Ok(LayerLook {
        name: s.name.clone(),
        uuid: s.uuid.clone(),
        opacity: s.opacity.unwrap_or(1.0),
        hidden: s.is_hidden.unwrap_or(false),
        muted: s.is_muted.unwrap_or(false),
        blend,
        target_set: target.and_then(|t| t.name.clone()),
        effect_preset: preset.and_then(|p| p.name.clone()),
        transition: transition.map(|t| Named {
            name: t.name.clone(),
            uuid: t.uuid.clone(),
        }),
        transition_duration: s.transition_duration.unwrap_or(0.0),
        preset: None,
    })
}

/// Numbers as the application keeps them (single precision).
fn same_number(a: f64, b: f64) -> bool {
    a as f32 == b as f32
}

fn same_json(want: &Value, have: &Value) -> bool {
    match (want, have) {
        (Value::Number(a), Value::Number(b)) => match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) => same_number(a, b),
            _ => a == b,
        },
        _ => want == have,
    }
}

/// Whether the blend read is the one wanted: the same type and every base field wanted.
fn same_blend(want: &Value, have: Option<&Value>) -> bool {
    let Some(have) = have else { return false };
    let base = |v: &Value| {
        v.get("base")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    want.get("type") == have.get("type")
        && base(want)
            .iter()
            .all(|(k, v)| base(have).get(k).is_some_and(|h| same_json(v, h)))
}

/// The names a workspace has for what a look refers to by name.
struct Catalogue {
    target_sets: Vec<String>,
    effect_presets: Vec<String>,
    transitions: Vec<(Option<String>, Option<String>)>,
}

async fn catalogue(client: &MediaClient) -> Result<Catalogue> {
    let (t, e, tr) = tokio::try_join!(
        client.run(ep::TARGET_SETS.at(&[])?),
        client.run(ep::EFFECT_PRESETS.at(&[])?),
        client.run(ep::TRANSITIONS.at(&[])?),
    )?;
    Ok(Catalogue {
        target_sets: t.iter().filter_map(|x| x.name.clone()).collect(),
        effect_presets: e.iter().filter_map(|x| x.name.clone()).collect(),
        transitions: tr
            .iter()
            .map(|x| (x.name.clone(), x.uuid.clone()))
            .collect(),
    })
}

/// A step of the plan: its phase (the order) and its command.
type Planned = (u8, Confirmable);

/// What to send to make `have` into `want` (only what differs, of the fields in `only`), each
/// with its phase; `missing` collects what the workspace does not have.
fn plan(
    want: &LayerLook,
    have: &LayerLook,
    id: &Ident,
    only: &dyn Fn(&str) -> bool,
    cat: &Catalogue,
    missing: &mut Vec<String>,
) -> Result<Vec<Planned>> {
    let label = want.name.clone().or(want.uuid.clone()).unwrap_or_default();
    let mut out: Vec<Planned> = Vec::new();
    if only("hidden") && want.hidden != have.hidden {
        let (phase, c) = if want.hidden {
            (0, both::hide(Some(id), true)?)
        } else {
            (9, both::unhide(Some(id), true)?)
        };
        out.push((phase, c));
    }
    if only("muted") && want.muted != have.muted {
        let (phase, c) = if want.muted {
            (0, both::mute(Some(id), true)?)
        } else {
            (9, both::unmute(Some(id), true)?)
        };
        out.push((phase, c));
    }
    if let (true, Some(p)) = (only("preset"), &want.preset) {
        out.push((1, on_layer::apply_preset(id, p.clone())?));
    }
    if only("target_set") && want.target_set != have.target_set {
        if let Some(t) = &want.target_set {
            if !cat.target_sets.contains(t) {
                missing.push(format!("layer {label:?}: target set {t:?}"));
            }
        }
        out.push((
            2,
            on_layer::set_target_set(id, want.target_set.clone(), true)?,
        ));
    }
    if only("effect_preset") && want.effect_preset != have.effect_preset {
        if let Some(p) = &want.effect_preset {
            if !cat.effect_presets.contains(p) {
                missing.push(format!("layer {label:?}: effects preset {p:?}"));
            }
        }
        out.push((
            3,
            on_layer::set_effect_preset(id, want.effect_preset.clone(), true)?,
        ));
    }
    let uuid_of = |n: &Named| n.uuid.clone().or(n.name.clone()).unwrap_or_default();
    if only("transition")
        && want.transition.as_ref().map(uuid_of) != have.transition.as_ref().map(uuid_of)
    {
        let uuid = match &want.transition {
            None => None,
            Some(t) => {
                // The workspace's own UUID for the transition of that name (another show file
                // has other UUIDs), else the UUID as saved.
                let here = cat.transitions.iter().find(|(n, u)| {
                    (t.name.is_some() && *n == t.name) || (t.uuid.is_some() && *u == t.uuid)
                });
                match here {
                    Some((_, Some(u))) => Some(u.clone()),
                    _ => {
                        let what = t.name.clone().or(t.uuid.clone()).unwrap_or_default();
                        missing.push(format!("layer {label:?}: transition {what:?}"));
                        None
                    }
                }
            }
        };
        out.push((4, on_layer::set_transition(id, uuid, true)?));
    }
    if only("transition_duration")
        && !same_number(want.transition_duration, have.transition_duration)
    {
        out.push((
            5,
            on_layer::set_transition_duration(id, want.transition_duration, true)?,
        ));
    }
    let opacity = only("opacity") && !same_number(want.opacity, have.opacity);
    if opacity {
        out.push((6, on_layer::set_opacity(id, want.opacity, true)?));
    }
    if let (true, Some(b)) = (only("blend"), &want.blend) {
        // A Standard blend carries an opacity: the look's, so the two never disagree.
        let mut b = b.clone();
        let standard = b.get("type").and_then(Value::as_str) == Some("Standard");
        if let (true, Some(base)) = (standard, b.get_mut("base").and_then(Value::as_object_mut)) {
            if base.contains_key("opacity") {
                base.insert("opacity".into(), serde_json::json!(want.opacity));
            }
        }
        let b = &b;
        // Setting the opacity replaces a matte blend with Normal: send the blend after it.
        let matte = !standard;
        if !same_blend(b, have.blend.as_ref()) || (opacity && matte) {
            out.push((
                7,
                on_layer::set_blend(id, BlendSpec::from_value("blend", b)?, true)?,
            ));
        }
    }
    Ok(out)
}

/// Make the workspace look like `look` (only the fields in `only`, of [`FIELDS`]; `None`: all):
/// read what is there, send only what differs, in the order of the module's documentation,
/// each command confirmed, one after the other. Before anything is sent: every layer of the
/// look must be in the workspace (by UUID, else by name), and every target set, effects preset
/// and transition it names, else `NameLookupError` lists all that is missing. The first
/// failing command ends it with its error (what was sent before stays applied). Returns the
/// commands sent.
pub async fn apply(
    client: &MediaClient,
    look: &Look,
    only: Option<&[String]>,
) -> Result<Vec<Confirmable>> {
    if let Some(o) = only {
        if let Some(bad) = o
            .iter()
            .find(|f| !FIELDS.contains(&f.as_str()) || *f == "name")
        {
            return Err(Error::invalid(format!(
                "only: {bad:?} is not a field of a look; the fields are {}",
                FIELDS[..9].join(", ")
            )));
        }
    }
    let wanted = |f: &str| only.is_none_or(|o| o.iter().any(|x| x == f));
    let all = client.run(ep::LAYERS.at(&[])?).await?.0;
    let mut missing = Vec::new();
    let mut found_layers = Vec::new();
    for l in &look.layers {
        let found = all.iter().enumerate().find(|(_, s)| {
            l.uuid.is_some()
                && s.uuid.as_deref().map(str::to_ascii_lowercase)
                    == l.uuid.as_deref().map(str::to_ascii_lowercase)
        });
        let found = found.or_else(|| {
            all.iter()
                .enumerate()
                .find(|(_, s)| l.name.is_some() && s.name == l.name)
        });
        match found {
            Some((i, s)) => found_layers.push((l, address(s, i), s.clone())),
            None => missing.push(format!(
                "layer {:?}",
                l.name.clone().or(l.uuid.clone()).unwrap_or_default()
            )),
        }
    }
    let have = try_join_all(
        found_layers
            .iter()
            .map(|(_, id, state)| layer_look(client, state, id.clone())),
    )
    .await?;
    let cat = catalogue(client).await?;
    let mut planned = Vec::new();
    for ((want, id, _), have) in found_layers.iter().zip(&have) {
        planned.extend(plan(want, have, id, &wanted, &cat, &mut missing)?);
    }
    if !missing.is_empty() {
        return Err(lookup(&missing));
    }
    planned.sort_by_key(|(phase, _)| *phase); // stable: layers keep their order in a phase
    let mut sent = Vec::new();
    for (_, c) in planned {
        c.clone().send(client).await?;
        sent.push(c);
    }
    Ok(sent)
}

fn lookup(missing: &[String]) -> Error {
    Error::Lookup(format!(
        "the look names what this workspace does not have (nothing was sent): {}",
        missing.join("; ")
    ))
}
