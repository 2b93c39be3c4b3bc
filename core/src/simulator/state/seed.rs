//! Building the state from a workspace file, resolving every reference.

use super::*;
use crate::simulator::wire::{single, single_variables};
use crate::simulator::workspace::{FxRef, LayerSeed, Workspace};

/// Builds a [`Settings`] from the seed: JSON path, transition, duration, effects, preset.
type SettingsOf<'a> =
    dyn Fn(&str, Option<&FxRef>, f64, &[FxRef], Option<&String>) -> Result<Settings, String> + 'a;

/// Resolve a reference of the workspace file (a UUID or a name) in a catalogue; `at` is the
/// JSON path of the reference, `catalogue` the key of the list it names.
fn seed_ref<T>(
    at: &str,
    catalogue: &str,
    items: &[T],
    key: &str,
    keys: impl Fn(&T) -> [&str; 2],
) -> Result<usize, String> {
    lookup(items, key, &keys).ok_or_else(|| {
        format!(
            "at {at}: {key:?} is not in {catalogue} (expected one of: {})",
            names(items, |t| keys(t)[1])
        )
    })
}

fn seed_opt<T>(
    at: &str,
    catalogue: &str,
    items: &[T],
    key: Option<&String>,
    keys: impl Fn(&T) -> [&str; 2],
) -> Result<Option<usize>, String> {
    key.map(|k| seed_ref(at, catalogue, items, k, keys))
        .transpose()
}

/// An effect or transition of a layer or the workspace: a reference into its catalogue (a
/// copy of the entry) or an object of its own.
fn seed_fx(at: &str, catalogue: &str, items: &[Fx], r: &FxRef) -> Result<Fx, String> {
    match r {
        FxRef::Inline(fx) => Ok(fx.clone()),
        FxRef::Ref(key) => seed_ref(at, catalogue, items, key, fx_keys).map(|i| items[i].clone()),
    }
}

fn seed_effects(at: &str, effects: &[Fx], refs: &[FxRef]) -> Result<Vec<Fx>, String> {
    refs.iter()
        .enumerate()
        .map(|(i, r)| seed_fx(&format!("{at}[{i}]"), "effects", effects, r))
        .collect()
}

/// The workspace with every `Float` variable of its effects and transitions in single
/// precision, as the application keeps them.
fn in_single_precision(ws: &Workspace) -> Workspace {
    fn fx(f: &mut Fx) {
        single_variables(&mut f.variables);
    }
    fn fx_ref(r: &mut FxRef) {
        if let FxRef::Inline(f) = r {
            fx(f);
        }
    }
    let mut ws = ws.clone();
    ws.effects
        .iter_mut()
        .chain(&mut ws.transitions)
        .for_each(fx);
    for p in &mut ws.effect_presets {
        p.effects.iter_mut().flatten().for_each(fx_ref);
    }
    let w = &mut ws.workspace;
    w.effects
        .iter_mut()
        .chain(&mut w.transition)
        .for_each(fx_ref);
    for l in &mut ws.layers {
        l.effects
            .iter_mut()
            .chain(&mut l.transition)
            .for_each(fx_ref);
    }
    ws
}

impl World {
    /// Build the state from a workspace file, resolving every reference (an error names the
    /// JSON path of the reference and what it could be).
    pub fn new(ws: &Workspace) -> Result<World, String> {
        let ws = &in_single_precision(ws);
        let now = Instant::now();
        let effect_presets = ws
            .effect_presets
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let at = format!("effectPresets[{i}].effects");
                Ok(EffectPreset {
                    uuid: p.uuid.clone(),
                    name: p.name.clone(),
                    effects: match &p.effects {
                        Some(refs) => Some(seed_effects(&at, &ws.effects, refs)?),
                        None => None,
                    },
                    extra: p.extra.clone(),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let settings = |at: &str,
                        transition: Option<&FxRef>,
                        duration: f64,
                        effects: &[FxRef],
                        preset: Option<&String>|
         -> Result<Settings, String> {
            Ok(Settings {
                effects: seed_effects(&format!("{at}.effects"), &ws.effects, effects)?,
                effect_preset: seed_opt(
                    &format!("{at}.effectPreset"),
                    "effectPresets",
                    &effect_presets,
                    preset,
                    preset_keys,
                )?,
                transition: transition
                    .map(|t| {
                        seed_fx(
                            &format!("{at}.transition"),
                            "transitions",
                            &ws.transitions,
                            t,
                        )
                    })
                    .transpose()?,
                transition_duration: single(duration.clamp(0.0, MAX_TRANSITION_DURATION)),
            })
        };
        let w = &ws.workspace;
        // Transport-state layers always carry a transition (the API document): without one in
        // the file, the workspace has the first of the catalogue.
        let first = ws.transitions.first().map(|t| FxRef::Inline(t.clone()));
        let workspace = settings(
            "workspace",
            w.transition.as_ref().or(first.as_ref()),
            w.transition_duration,
            &w.effects,
            w.effect_preset.as_ref(),
        )?;
        let mut layers = Vec::with_capacity(ws.layers.len());
        for (i, l) in ws.layers.iter().enumerate() {
            let at = format!("layers[{i}]");
            layers.push(Self::seed_layer(ws, l, &at, &settings, now)?);
        }
        for (i, p) in ws.layer_presets.iter().enumerate() {
            if let Some(m) = &p.blend_mode {
                let at = format!("layerPresets[{i}].blendMode");
                seed_ref(&at, "blendModes", &ws.blend_modes, m, blend_keys)?;
            }
        }
        let layer_keys = |l: &LayerSeed| [l.uuid.clone(), l.name.clone()];
        let find_layer = |at: &str, key: &str| -> Result<usize, String> {
            let keys: Vec<[String; 2]> = ws.layers.iter().map(layer_keys).collect();
            seed_ref(at, "layers", &keys, key, |k| [&k[0], &k[1]])
        };
        for p in ws.playlists.all() {
            for c in &p.items {
                if let Some(l) = &c.layer {
                    find_layer(&format!("the layer of cue {:?}", c.name), l)?;
                }
            }
        }
        let targeted_layer = match &w.target_layer {
            Some(l) => find_layer("workspace.targetLayer", l)?,
            None => 0,
        };
        let mut world = World {
            answers: ws.answers.clone(),
            playlists: ws.playlists.clone(),
            blend_modes: ws.blend_modes.clone(),
            layer_presets: ws.layer_presets.clone(),
            target_sets: ws.target_sets.clone(),
            effects: ws.effects.clone(),
            effect_presets,
            transitions: ws.transitions.clone(),
            layers,
            workspace,
            selected_layer: targeted_layer,
            targeted_layer,
            selected_playlist: None,
            scores: Scores::new(&ws.scoreboard)?,
        };
        world.selected_playlist = match &w.selected_playlist {
            Some(p) => Some(
                world
                    .playlist(p)
                    .map_err(|e| format!("at workspace.selectedPlaylist: {}", e.0))?
                    .uuid
                    .clone(),
            ),
            None => world.top_level().next().map(|p| p.uuid.clone()),
        };
        Ok(world)
    }

    pub(super) fn seed_layer(
        ws: &Workspace,
        l: &LayerSeed,
        at: &str,
        settings: &SettingsOf<'_>,
        now: Instant,
    ) -> Result<Layer, String> {
        let blend = l.layer_blend.as_ref();
        let blend_type = match blend {
            None => BLEND_TYPES[0],
            Some(b) => *BLEND_TYPES.iter().find(|t| **t == b.kind).ok_or_else(|| {
                format!(
                    "at {at}.layerBlend.type: expected one of {}, got {:?}",
                    BLEND_TYPES.join(", "),
                    b.kind
                )
            })?,
        };
        let base = blend.map(|b| b.base.clone());
        let from_base = base
            .as_ref()
            .and_then(|b| b.get("modeIndex"))
            .and_then(Value::as_u64)
            .map(|m| m as usize)
            .filter(|m| *m < ws.blend_modes.len());
        let blend_mode = match &l.blend_mode {
            Some(m) => seed_ref(
                &format!("{at}.blendMode"),
                "blendModes",
                &ws.blend_modes,
                m,
                blend_keys,
            )?,
            None => from_base.unwrap_or(0),
        };
        let inverted = base
            .as_ref()
            .and_then(|b| b.get("isInverted"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(Layer {
            uuid: l.uuid.clone(),
            name: l.name.clone(),
            hidden: l.is_hidden,
            muted: l.is_muted,
            opacity: single(l.opacity.clamp(0.0, 1.0)),
            blend_mode,
            blend_type,
            blend_base: base.unwrap_or_else(|| Self::fresh_base(blend_type)),
            inverted,
            target_set: seed_opt(
                &format!("{at}.targetSet"),
                "targetSets",
                &ws.target_sets,
                l.target_set.as_ref(),
                named_keys,
            )?,
            layer_preset: seed_opt(
                &format!("{at}.layerPreset"),
                "layerPresets",
                &ws.layer_presets,
                l.layer_preset.as_ref(),
                layer_preset_keys,
            )?,
            settings: settings(
                at,
                l.transition.as_ref(),
                l.transition_duration,
                &l.effects,
                l.effect_preset.as_ref(),
            )?,
            transport: l
                .transport
                .as_ref()
                .map_or_else(PlaybackClock::default, |t| PlaybackClock::seeded(t, now)),
            extra: l.extra.clone(),
        })
    }
}
