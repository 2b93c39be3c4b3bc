//! The operations of the media API, each declared once: its name (the method's; its `_async`
//! twin is named after it), its scope (its group), its identifiers and argument (the argument's
//! kind names its conversion and check), its endpoint(s) (wire method, path, body form and
//! reply decoder), the call it builds when that is not the plain one, its read-back check for
//! `confirm=True`, and its one-line doc.
//!
//! `operation_table!` (`showctl_macros`, whose documentation has the grammar) reads the table
//! once and makes, here: the endpoint constants (`consts`, which the client's modules read
//! with), one core builder per operation (`workspace`, `layer`, `both`) and `operations()`. The
//! table sits above what its entries use (the body forms and decoders of [`super::endpoints`],
//! the argument kinds, [`super::builders`]' `Confirmable`, [`super::expect`]) and below the
//! client, which uses its constants. The binding is handed the same table through
//! `media_operations!` (below) and makes its methods, their `_async` twins and its `Command`
//! constructors from it. The groups:
//!
//! - `workspace_reads`, `layer_reads`: `name(ids) -> Reply { ENDPOINT: Type = expr; }`;
//! - `workspace_commands`, `layer_commands`: `name(ids, arg: Kind) { ENDPOINT: ... }`, then
//!   `confirm { expectation }` when the command can be read back;
//! - `both_commands`: `name(layer) { workspace endpoint; layer endpoint }`, where `layer` is
//!   `None` for the workspace.
//!
//! In the layer groups the first identifier is the layer. An argument with a default is
//! written `name: Type = default` (`target: bool = false`). `=> { call }` replaces the plain
//! call (`ENDPOINT.with(ids, "arg", arg)`).

use serde_json::{Map, Value};

use super::builders::prelude::*;
use super::builders::{either, tree};
use super::endpoints::*;
use super::expect::{Expect, Flag};
use crate::error::Result;
use crate::ident::Ident;

/// The table, handed to a generator: `media_operations!(showctl_macros::operation_table)` below
/// makes the core's part; the binding hands it to its own generator
/// (`showctl_macros::binding_methods`) with a head naming its classes
/// (`media_operations!(generator { head })`).
#[macro_export]
macro_rules! media_operations {
    ($($generator:ident)::+ $({ $($head:tt)* })?) => {
        $($generator)::+! {
            $($($head)*)?

            workspace_reads {
                /// GET /data/playlists: the root of the playlist tree.
                playlists() -> PlaylistTree {
                    PLAYLISTS: Endpoint<(), Playlist> = get("/data/playlists", one);
                } => { tree(PLAYLISTS.at(&[])) }

                /// GET /data/playlist/{id}: one playlist (index -1 is the video input playlist).
                playlist(id) -> PlaylistTree {
                    PLAYLIST: Endpoint<(), Playlist> = get("/data/playlist/{playlist:id}", one);
                } => { tree(PLAYLIST.at(&[id])) }

                /// GET /data/playlist/{p}/cue/{c}: a cue summary.
                cue(playlist_id, cue_id) -> Cue {
                    CUE: Endpoint<(), Cue> =
                        get("/data/playlist/{playlist:playlist_id}/cue/{cue:cue_id}", one)
                        .capped(OBJECT_REPLY);
                }

                /// GET /data/layers: the state of every layer (a `LayerList`).
                layers() -> LayerList {
                    LAYERS: Endpoint<(), LayerList> = get("/data/layers", layers);
                }

                /// GET /blendMode: the blend modes.
                blend_modes() -> Vec<Arc<BlendMode>> {
                    BLEND_MODES: Endpoint<(), Vec<Arc<BlendMode>>> = get("/blendMode", list)
                        .capped(LIST_REPLY);
                }

                /// GET /layerPreset: the layer presets.
                layer_presets() -> Vec<Arc<LayerPreset>> {
                    LAYER_PRESETS: Endpoint<(), Vec<Arc<LayerPreset>>> = get("/layerPreset", list)
                        .capped(LIST_REPLY);
                }

                /// GET /targetSet: the target sets.
                target_sets() -> Vec<Arc<TargetSet>> {
                    TARGET_SETS: Endpoint<(), Vec<Arc<TargetSet>>> = get("/targetSet", list)
                        .capped(LIST_REPLY);
                }

                /// GET /effects: all available effects.
                effects() -> Vec<Arc<Effect>> {
                    EFFECTS: Endpoint<(), Vec<Arc<Effect>>> = get("/effects", list)
                        .capped(LIST_REPLY);
                }

                /// GET /effects/workspace: the effects active on the workspace.
                workspace_effects() -> Vec<Arc<Effect>> {
                    WORKSPACE_EFFECTS: Endpoint<(), Vec<Arc<Effect>>> =
                        get("/effects/workspace", list)
                        .capped(LIST_REPLY);
                }

                /// GET /effectsPreset: the effects presets.
                effect_presets() -> Vec<Arc<EffectPreset>> {
                    EFFECT_PRESETS: Endpoint<(), Vec<Arc<EffectPreset>>> =
                        get("/effectsPreset", list)
                        .capped(LIST_REPLY);
                }

                /// GET /effectsPreset/workspace: the workspace's effects preset, or None.
                workspace_effect_preset()
                    -> Option<EffectPreset>
                {
                    WORKSPACE_EFFECT_PRESET: Endpoint<(), Option<EffectPreset>> =
                        get("/effectsPreset/workspace", maybe)
                        .capped(OBJECT_REPLY);
                }

                /// GET /transition: the transitions.
                transitions() -> Vec<Arc<Transition>> {
                    TRANSITIONS: Endpoint<(), Vec<Arc<Transition>>> = get("/transition", list)
                        .capped(LIST_REPLY);
                }

                /// GET /transition/workspace: the workspace transition, or None.
                workspace_transition() -> Option<Transition> {
                    WORKSPACE_TRANSITION: Endpoint<(), Option<Transition>> =
                        get("/transition/workspace", maybe)
                        .capped(OBJECT_REPLY);
                }

                /// GET /transitionDuration/workspace: seconds.
                workspace_transition_duration()
                    -> f64
                {
                    WORKSPACE_TRANSITION_DURATION: Endpoint<(), f64> =
                        get("/transitionDuration/workspace", transition_duration)
                        .capped(NUMBER_REPLY);
                }

                /// GET /transportState/workspace: the transport state of every layer.
                transport_state() -> Vec<Arc<TransportState>> {
                    TRANSPORT_STATES: Endpoint<(), Vec<Arc<TransportState>>> =
                        get("/transportState/workspace", list)
                        .capped(LIST_REPLY);
                }
            }

            layer_reads {
                /// GET /data/layer/{id}: the layer's state.
                state(layer) -> LayerState {
                    LAYER_STATE: Endpoint<(), LayerState> = get("/data/layer/{layer:id}", one)
                        .capped(OBJECT_REPLY);
                }

                /// GET /opacity/layer/{id}: the opacity, 0.0 to 1.0.
                opacity(layer) -> f64 {
                    LAYER_OPACITY: Endpoint<(), f64> = get("/opacity/layer/{layer:id}", opacity)
                        .capped(NUMBER_REPLY);
                }

                /// GET /blendMode/layer/{id}: the layer's blend mode.
                blend_mode(layer) -> BlendMode {
                    LAYER_BLEND_MODE: Endpoint<(), BlendMode> =
                        get("/blendMode/layer/{layer:id}", one)
                        .capped(OBJECT_REPLY);
                }

                /// GET /blend/layer/{id} (or /layerBlend/layer/{id} where /blend answers 404 or
                /// 405): the layer blend.
                blend(layer) -> LayerBlend {
                    LAYER_BLEND: Endpoint<(), LayerBlend> = Endpoint {
                        fallback: Some("/layerBlend/layer/{layer:id}"),
                        ..get("/blend/layer/{layer:id}", one).capped(OBJECT_REPLY)
                    };
                }

                /// GET /layerPreset/layer/{id}: the layer presets of the layer.
                presets(layer) -> Vec<Arc<LayerPreset>> {
                    LAYER_LAYER_PRESETS: Endpoint<(), Vec<Arc<LayerPreset>>> =
                        get("/layerPreset/layer/{layer:id}", list)
                        .capped(LIST_REPLY);
                }

                /// GET /targetSet/layer/{id}: the layer's target set, or None.
                target_set(layer) -> Option<TargetSet> {
                    LAYER_TARGET_SET: Endpoint<(), Option<TargetSet>> =
                        get("/targetSet/layer/{layer:id}", maybe)
                        .capped(OBJECT_REPLY);
                }

                /// GET /effects/layer/{id}: the effects of the layer.
                effects(layer) -> Vec<Arc<Effect>> {
                    LAYER_EFFECTS: Endpoint<(), Vec<Arc<Effect>>> =
                        get("/effects/layer/{layer:id}", list)
                        .capped(LIST_REPLY);
                }

                /// GET /effectsPreset/layer/{id}: the layer's effects preset, or None.
                effect_preset(layer) -> Option<EffectPreset> {
                    LAYER_EFFECT_PRESET: Endpoint<(), Option<EffectPreset>> =
                        get("/effectsPreset/layer/{layer:id}", maybe)
                        .capped(OBJECT_REPLY);
                }

                /// GET /transition/layer/{id}: the layer's transition, or None (the master is
                /// used).
                transition(layer) -> Option<Transition> {
                    LAYER_TRANSITION: Endpoint<(), Option<Transition>> =
                        get("/transition/layer/{layer:id}", maybe)
                        .capped(OBJECT_REPLY);
                }

                /// GET /transitionDuration/layer/{id}: seconds.
                transition_duration(layer) -> f64 {
                    LAYER_TRANSITION_DURATION: Endpoint<(), f64> =
                        get("/transitionDuration/layer/{layer:id}", transition_duration)
                        .capped(NUMBER_REPLY);
                }

                /// GET /transportState/layer/{id}: the layer's transport state.
                transport_state(layer) -> TransportState {
                    LAYER_TRANSPORT_STATE: Endpoint<(), TransportState> =
                        get("/transportState/layer/{layer:id}", transport_one)
                        .capped(OBJECT_REPLY);
                }
            }

            workspace_commands {
                /// POST /select/playlist/{id} (the index counts top-level playlists only).
                select_playlist(id) {
                    SELECT_PLAYLIST: Endpoint<(), ()> = post0("/select/playlist/{playlist:id}");
                }

                /// POST /trigger/cue/{id}: a cue of the selected playlist. In the field the
                /// application takes an index here (a name is answered with 400).
                trigger_cue(id) {
                    TRIGGER_CUE: Endpoint<(), ()> = post0("/trigger/cue/{cue:id}");
                }

                /// POST /trigger/playlist/{id}: the first cue of the playlist. `confirm=True`:
                /// read back until some layer plays that cue (its `playingItem`, with
                /// `playingMedia`).
                trigger_playlist(id) {
                    TRIGGER_PLAYLIST: Endpoint<(), ()> = post0("/trigger/playlist/{playlist:id}");
                } confirm {
                    Expect::Playing { layer: None, playlist: id.clone(), cue: None }
                }

                /// POST /trigger/playlist/{p}/cue/{c}. `confirm=True`: read back until some
                /// layer plays the cue.
                trigger_playlist_cue(playlist_id, cue_id) {
                    TRIGGER_PLAYLIST_CUE: Endpoint<(), ()> =
                        post0("/trigger/playlist/{playlist:playlist_id}/cue/{cue:cue_id}");
                } confirm {
                    Expect::Playing {
                        layer: None,
                        playlist: playlist_id.clone(),
                        cue: Some(cue_id.clone()),
                    }
                }

                /// POST /effects/workspace with {"effect": {...}}: an `Effect` (its uuid, name,
                /// enabled and variables) or a dict with a "uuid".
                set_workspace_effect(effect: EffectArg) {
                    SET_WORKSPACE_EFFECT: Endpoint<Map<String, Value>, ()> =
                        post("/effects/workspace", effect_body);
                }

                /// POST /effectsPreset/workspace with {"value": uuid} ({"value": null} for
                /// None): an `EffectPreset` or its UUID. `confirm=True`: read back until the
                /// workspace has that preset (or none).
                set_workspace_effect_preset(uuid_or_none: OrNone<UuidOf<EffectPreset>>)
                {
                    SET_WORKSPACE_EFFECT_PRESET: Endpoint<Option<String>, ()> =
                        post("/effectsPreset/workspace", value_or_null_body);
                } confirm {
                    Expect::EffectPreset { layer: None, name: uuid_or_none.clone() }
                }

                /// POST /transition/workspace with {"value": uuid}: a `Transition` or its UUID.
                /// `confirm=True`: read back until the workspace has that transition.
                set_workspace_transition(transition: UuidOf<Transition>)
                {
                    SET_WORKSPACE_TRANSITION: Endpoint<String, ()> =
                        post("/transition/workspace", value_body);
                } confirm {
                    Expect::Transition { layer: None, uuid: Some(transition.clone()) }
                }

                /// POST /transitionDuration/workspace with {"value": seconds}, 0.0 to 5.0.
                /// `confirm=True`: read back until the duration shows.
                set_workspace_transition_duration(seconds: Number)
                {
                    SET_WORKSPACE_TRANSITION_DURATION: Endpoint<f64, ()> =
                        post("/transitionDuration/workspace", duration_body);
                } confirm {
                    Expect::TransitionDuration { layer: None, seconds }
                }
            }

            layer_commands {
                /// POST /select/layer/{id}?target=true|false: select the layer for the preview
                /// and layer options; with `target=True` it is also targeted.
                select(layer, target: bool = false) {
                    SELECT_LAYER: Endpoint<bool, ()> = post("/select/layer/{layer:id}", target_query);
                }

                /// POST /trigger/layer/{id}/playlist/{p}/cue/{c}: a cue on this layer. In the
                /// field the application ignores the layer and plays the cue on its own
                /// configured layer (an untargeted cue on the layer selected with
                /// `target=True`). `confirm=True`: read back until this layer plays the cue (its
                /// `playingItem` is the cue and `playingMedia` is present); when it plays on
                /// another layer instead, `NotConfirmedError` says which.
                trigger(layer, playlist_id, cue_id) {
                    TRIGGER_LAYER: Endpoint<(), ()> = post0(
                        "/trigger/layer/{layer:id}/playlist/{playlist:playlist_id}/cue/{cue:cue_id}"
                    );
                } confirm {
                    Expect::Playing {
                        layer: Some(layer.clone()),
                        playlist: playlist_id.clone(),
                        cue: Some(cue_id.clone()),
                    }
                }

                /// POST /opacity/layer/{id} with {"value": value}; 0.0 to 1.0 (the application
                /// would clamp silently, so anything else is refused). `confirm=True`: read back
                /// until the opacity is the value (in single precision, as the application keeps
                /// it).
                set_opacity(layer, value: Number) {
                    SET_LAYER_OPACITY: Endpoint<f64, ()> =
                        post("/opacity/layer/{layer:id}", opacity_body);
                } confirm {
                    Expect::Opacity { layer: layer.clone(), value }
                }

                /// POST /blendMode/layer/{id} with {"value": name}: a name or a `BlendMode`.
                /// `confirm=True`: read back until the layer has that blend mode.
                set_blend_mode(layer, name: NameOf<BlendMode>) {
                    SET_LAYER_BLEND_MODE: Endpoint<String, ()> =
                        post("/blendMode/layer/{layer:id}", value_body);
                } confirm {
                    Expect::BlendMode { layer: layer.clone(), name: name.clone() }
                }

                /// POST /blend/layer/{id} with {"type": ..., "base": {...}}: a `LayerBlend` or a
                /// dict, checked against the layer blend table (Standard: modeIndex, opacity,
                /// name; Alpha Matte and Luma Matte: isInverted; White Matte: nothing). Where
                /// /blend answers 404 or 405, /layerBlend/layer/{id} is used, and remembered by
                /// the client. `confirm=True`: read back until the blend shows.
                set_blend(layer, blend: BlendArg) {
                    SET_LAYER_BLEND: Endpoint<BlendSpec, ()> = Endpoint {
                        fallback: Some("/layerBlend/layer/{layer:id}"),
                        ..post("/blend/layer/{layer:id}", blend_body)
                    };
                } confirm {
                    Expect::Blend { layer: layer.clone(), blend: blend.clone() }
                }

                /// POST /layerPreset/layer/{id} with {"value": name}: a name or a `LayerPreset`.
                apply_preset(layer, name: NameOf<LayerPreset>) {
                    APPLY_LAYER_PRESET: Endpoint<String, ()> =
                        post("/layerPreset/layer/{layer:id}", value_body);
                }

                /// POST /targetSet/layer/{id} with {"value": name}: a name or a `TargetSet`;
                /// None sends no body (no target set). `confirm=True`: read back until the
                /// layer has that target set (or none).
                set_target_set(layer, name_or_none: OrNone<NameOf<TargetSet>>)
                {
                    SET_LAYER_TARGET_SET: Endpoint<Option<String>, ()> =
                        post("/targetSet/layer/{layer:id}", value_or_no_body);
                } confirm {
                    Expect::TargetSet { layer: layer.clone(), name: name_or_none.clone() }
                }

                /// POST /effects/layer/{id} with {"effect": {...}}: an `Effect` or a dict with a
                /// "uuid".
                set_effect(layer, effect: EffectArg) {
                    SET_LAYER_EFFECT: Endpoint<Map<String, Value>, ()> =
                        post("/effects/layer/{layer:id}", effect_body);
                }

                /// POST /effectsPreset/layer/{id} with {"value": name} ({"value": null} for
                /// None): a name or an `EffectPreset`. `confirm=True`: read back until the layer
                /// has that preset (or none).
                set_effect_preset(layer, name_or_none: OrNone<NameOf<EffectPreset>>)
                {
                    SET_LAYER_EFFECT_PRESET: Endpoint<Option<String>, ()> =
                        post("/effectsPreset/layer/{layer:id}", value_or_null_body);
                } confirm {
                    Expect::EffectPreset { layer: Some(layer.clone()), name: name_or_none.clone() }
                }

                /// POST /transition/layer/{id} with {"value": uuid}: a `Transition` or its
                /// UUID; None sends {"value": null}, which returns the layer to the master
                /// transition. `confirm=True`: read back until the layer has that transition.
                set_transition(layer, transition_or_none: OrNone<UuidOf<Transition>>)
                {
                    SET_LAYER_TRANSITION: Endpoint<Option<String>, ()> =
                        post("/transition/layer/{layer:id}", value_or_null_body);
                } confirm {
                    Expect::Transition {
                        layer: Some(layer.clone()),
                        uuid: transition_or_none.clone(),
                    }
                }

                /// POST /transitionDuration/layer/{id} with {"value": seconds}, 0.0 to 5.0.
                /// `confirm=True`: read back until the duration shows.
                set_transition_duration(layer, seconds: Number)
                {
                    SET_LAYER_TRANSITION_DURATION: Endpoint<f64, ()> =
                        post("/transitionDuration/layer/{layer:id}", duration_body);
                } confirm {
                    Expect::TransitionDuration { layer: Some(layer.clone()), seconds }
                }

                /// Move the playhead (observed in the field, 3.3+; not in the API document):
                /// `seconds` ≥ 0 from the start (POST /goToStart/layer/{id}?offset=S), below 0
                /// from the end (POST /goToEnd/layer/{id}?offset=|S|); -0.0 is the very end.
                go_to(layer, seconds: Number) {
                    GO_TO_START: Endpoint<f64, ()> =
                        post("/goToStart/layer/{layer:id}", offset_query);
                    GO_TO_END: Endpoint<f64, ()> = post("/goToEnd/layer/{layer:id}", offset_query);
                } => { super::go_to(layer, seconds) }

                /// Skip forwards (seconds > 0) or backwards (seconds < 0) (observed in the
                /// field, 3.3+; not in the API document):
                /// POST /skip/layer/{id}?forwards=true|false&offset=|S|.
                skip(layer, seconds: Number) {
                    SKIP: Endpoint<f64, ()> = post("/skip/layer/{layer:id}", skip_query);
                }
            }

            both_commands {
                /// POST /clear/workspace or /clear/layer/{id}. `confirm=True`: read back until
                /// nothing plays (`playingMedia` absent) on the layer, or on any layer.
                clear(layer) {
                    CLEAR_WORKSPACE: Endpoint<(), ()> = post0("/clear/workspace");
                    CLEAR_LAYER: Endpoint<(), ()> = post0("/clear/layer/{layer:id}");
                } confirm {
                    Expect::Empty { layer: layer.cloned() }
                }

                /// POST /mute/workspace or /mute/layer/{id}. `confirm=True`: read back until
                /// the layer (every layer) is muted.
                mute(layer) {
                    MUTE_WORKSPACE: Endpoint<(), ()> = post0("/mute/workspace");
                    MUTE_LAYER: Endpoint<(), ()> = post0("/mute/layer/{layer:id}");
                } confirm {
                    Expect::Flag { layer: layer.cloned(), flag: Flag::Muted, value: true }
                }

                /// POST /unmute/workspace or /unmute/layer/{id}. `confirm=True`: read back until
                /// the layer (every layer) is not muted.
                unmute(layer) {
                    UNMUTE_WORKSPACE: Endpoint<(), ()> = post0("/unmute/workspace");
                    UNMUTE_LAYER: Endpoint<(), ()> = post0("/unmute/layer/{layer:id}");
                } confirm {
                    Expect::Flag { layer: layer.cloned(), flag: Flag::Muted, value: false }
                }

                /// POST /hide/workspace or /hide/layer/{id}. `confirm=True`: read back until
                /// the layer (every layer) is hidden.
                hide(layer) {
                    HIDE_WORKSPACE: Endpoint<(), ()> = post0("/hide/workspace");
                    HIDE_LAYER: Endpoint<(), ()> = post0("/hide/layer/{layer:id}");
                } confirm {
                    Expect::Flag { layer: layer.cloned(), flag: Flag::Hidden, value: true }
                }

                /// POST /unhide/workspace or /unhide/layer/{id}. `confirm=True`: read back until
                /// the layer (every layer) is not hidden.
                unhide(layer) {
                    UNHIDE_WORKSPACE: Endpoint<(), ()> = post0("/unhide/workspace");
                    UNHIDE_LAYER: Endpoint<(), ()> = post0("/unhide/layer/{layer:id}");
                } confirm {
                    Expect::Flag { layer: layer.cloned(), flag: Flag::Hidden, value: false }
                }

                /// POST /play/workspace or /play/layer/{id} (observed in the field, 3.3+; not
                /// in the API document).
                play(layer) {
                    PLAY_WORKSPACE: Endpoint<(), ()> = post0("/play/workspace");
                    PLAY_LAYER: Endpoint<(), ()> = post0("/play/layer/{layer:id}");
                }

                /// POST /pause/workspace or /pause/layer/{id} (observed in the field, 3.3+; not
                /// in the API document).
                pause(layer) {
                    PAUSE_WORKSPACE: Endpoint<(), ()> = post0("/pause/workspace");
                    PAUSE_LAYER: Endpoint<(), ()> = post0("/pause/layer/{layer:id}");
                }
            }
        }
    };
}

media_operations!(showctl_macros::operation_table);

/// Move the playhead of a layer: `seconds` ≥ 0 from the start (`/goToStart?offset=S`),
/// below 0 from the end (`/goToEnd?offset=|S|`); `-0.0` is the very end.
pub fn go_to(layer: &Ident, seconds: f64) -> Result<Call<()>> {
    let seconds = offset_seconds(seconds, "seconds")?;
    let endpoint = if seconds.is_sign_negative() {
        consts::GO_TO_END
    } else {
        consts::GO_TO_START
    };
    endpoint.with(&[layer], "seconds", seconds)
}

#[cfg(test)]
mod tests;
