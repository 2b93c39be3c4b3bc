//! A layer's own fields: reads and commands of opacity, blend mode, layer blend, layer preset
//! and target set.

use super::*;
use crate::simulator::answers::{
    self as answer, list, to_value, Extended, Keyed, LayerBlend, LayerDoc, Opacity, Val,
};
use crate::simulator::wire::single;
use crate::simulator::workspace::OpacityForm;

impl World {
    /// The base a blend type answers with when set through the API.
    pub(super) fn fresh_base(kind: &str) -> Map<String, Value> {
        let keys: &[&str] = match kind {
            "Standard" => &STANDARD_BASE,
            "White Matte" => &[],
            _ => &["isInverted"],
        };
        keys.iter().map(|k| (k.to_string(), Value::Null)).collect()
    }

    /// The layer's documented fields (a missing effect preset or target set is `"null"`).
    pub(super) fn layer_doc<'a>(&'a self, l: &'a Layer) -> LayerDoc<'a> {
        let uuid_or_null = |u: Option<&'a str>| u.unwrap_or("null");
        LayerDoc {
            uuid: &l.uuid,
            name: &l.name,
            is_hidden: l.hidden,
            is_muted: l.muted,
            opacity: l.opacity,
            effects: l.settings.effects.iter().map(answer::fx).collect(),
            effect_preset_uuid: uuid_or_null(
                l.settings
                    .effect_preset
                    .map(|i| self.effect_presets[i].uuid.as_str()),
            ),
            target_set_uuid: uuid_or_null(l.target_set.map(|i| self.target_sets[i].uuid.as_str())),
            transition_duration: l.settings.transition_duration,
        }
    }

    fn layer_answer<'a>(&'a self, l: &'a Layer) -> Extended<'a, LayerDoc<'a>> {
        Extended(self.layer_doc(l), &l.extra)
    }

    pub fn layers_json(&self) -> Value {
        list("layer", self.layers.iter().map(|l| self.layer_answer(l)))
    }

    pub fn layer_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(to_value(Keyed("layer", self.layer_answer(l))))
    }

    pub fn opacity_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        let value = Val { value: l.opacity };
        Ok(to_value(match self.answers.opacity {
            OpacityForm::Field => Opacity::Field { opacity: value },
            OpacityForm::Document => Opacity::Document(value),
        }))
    }

    pub fn blend_modes_json(&self) -> Value {
        list("blendMode", self.blend_modes.iter().map(answer::blend_mode))
    }

    pub fn layer_blend_mode_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        let mode = answer::blend_mode(&self.blend_modes[l.blend_mode]);
        Ok(to_value(Keyed("blendMode", mode)))
    }

    /// The blend as last set, a Standard base's name, modeIndex and opacity and a matte's
    /// isInverted following the layer's state.
    pub(super) fn layer_blend<'a>(&'a self, l: &'a Layer) -> LayerBlend<'a> {
        let mut base = l.blend_base.clone();
        for (k, v) in base.iter_mut() {
            match (l.blend_type, k.as_str()) {
                ("Standard", "name") => *v = self.blend_modes[l.blend_mode].name.as_str().into(),
                ("Standard", "modeIndex") => *v = l.blend_mode.into(),
                ("Standard", "opacity") => *v = l.opacity.into(),
                ("Alpha Matte" | "Luma Matte", "isInverted") => *v = l.inverted.into(),
                _ => {}
            }
        }
        LayerBlend {
            kind: l.blend_type,
            base,
        }
    }

    pub fn blend_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        Ok(to_value(Keyed("layerBlend", self.layer_blend(l))))
    }

    pub fn layer_presets_json(&self) -> Value {
        let items: Vec<_> = self
            .layer_presets
            .iter()
            .map(answer::layer_preset)
            .collect();
        to_value(Keyed("data", items))
    }

    /// The preset the layer has applied (an empty list when none).
    pub fn layer_presets_of_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        let items: Vec<_> = l
            .layer_preset
            .map(|i| answer::layer_preset(&self.layer_presets[i]))
            .into_iter()
            .collect();
        Ok(to_value(Keyed("data", items)))
    }

    pub fn target_sets_json(&self) -> Value {
        list("targetSet", self.target_sets.iter().map(answer::named))
    }

    pub fn layer_target_set_json(&self, id: &str) -> Outcome<Value> {
        let l = &self.layers[self.layer_index(id)?];
        let set = l.target_set.map(|i| answer::named(&self.target_sets[i]));
        Ok(to_value(Keyed("targetSet", set)))
    }

    /// Opacity out of range is clamped, as the application does, and kept in single
    /// precision. On a layer with a matte blend it also replaces the blend with Normal
    /// (Standard), as the 3.8/3.9 reference says.
    pub fn set_opacity(&mut self, id: &str, value: Option<f64>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(v) = value else {
            return Ok(());
        };
        let normal = lookup(&self.blend_modes, "Normal", blend_keys).unwrap_or(0);
        let l = &mut self.layers[i];
        l.opacity = single(v.clamp(0.0, 1.0));
        if l.blend_type != BLEND_TYPES[0] {
            l.blend_type = BLEND_TYPES[0];
            l.blend_base = Self::fresh_base(BLEND_TYPES[0]);
            l.blend_mode = normal;
            l.inverted = false;
        }
        Ok(())
    }

    pub(super) fn blend_mode_index(&self, name: &str) -> Outcome<usize> {
        lookup(&self.blend_modes, name, blend_keys).map_or_else(
            || {
                bad(format!(
                    "no blend mode {name:?} (blend modes: {})",
                    names(&self.blend_modes, |b| &b.name)
                ))
            },
            Ok,
        )
    }

    pub fn set_blend_mode(&mut self, id: &str, name: Option<&str>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        if let Some(name) = name {
            self.layers[i].blend_mode = self.blend_mode_index(name)?;
        }
        Ok(())
    }

    /// POST /blend/layer/{id}: {type, base}, also accepted wrapped in a layerBlend key;
    /// `None` (no usable body) changes nothing.
    pub fn set_blend(&mut self, id: &str, body: Option<&Value>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(body) = body else {
            return Ok(());
        };
        let blend = body.get("layerBlend").unwrap_or(body);
        let Some(kind) = blend.get("type").and_then(Value::as_str) else {
            return bad("the body needs a \"type\" string (Standard, Alpha Matte, Luma Matte or White Matte)");
        };
        let Some(&kind) = BLEND_TYPES.iter().find(|t| **t == kind) else {
            return bad(format!(
                "unknown layer blend type {kind:?} (types: {})",
                BLEND_TYPES.join(", ")
            ));
        };
        let empty = Map::new();
        let base = match blend.get("base") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return bad("\"base\" must be an object"),
        };
        let mut mode = self.layers[i].blend_mode;
        let mut opacity = self.layers[i].opacity;
        let mut inverted = false;
        if kind == "Standard" {
            if let Some(v) = base.get("modeIndex") {
                match v.as_u64().map(|m| m as usize) {
                    Some(m) if m < self.blend_modes.len() => mode = m,
                    _ => {
                        return bad(format!(
                            "base.modeIndex must be a blend mode index from 0 to {}",
                            self.blend_modes.len() - 1
                        ))
                    }
                }
            }
            if let Some(v) = base.get("opacity") {
                match v.as_f64() {
                    Some(o) => opacity = single(o.clamp(0.0, 1.0)),
                    None => return bad("base.opacity must be a number"),
                }
            }
        } else if let Some(v) = base.get("isInverted") {
            match v.as_bool() {
                Some(b) => inverted = b,
                None => return bad("base.isInverted must be a boolean"),
            }
        }
        let l = &mut self.layers[i];
        l.blend_type = kind;
        l.blend_base = Self::fresh_base(kind);
        l.blend_mode = mode;
        l.opacity = opacity;
        l.inverted = inverted;
        Ok(())
    }

    /// Apply a layer preset (by name or id): it sets the layer fields it carries. An empty
    /// name unlinks the layer's preset.
    pub fn apply_layer_preset(&mut self, id: &str, preset: Option<&str>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        let Some(preset) = preset else {
            return Ok(());
        };
        if preset.is_empty() {
            self.layers[i].layer_preset = None;
            return Ok(());
        }
        let Some(p) = lookup(&self.layer_presets, preset, layer_preset_keys) else {
            return bad(format!(
                "no layer preset {preset:?} (presets: {})",
                names(&self.layer_presets, |p| &p.name)
            ));
        };
        let found = self.layer_presets[p].clone();
        let mode = found
            .blend_mode
            .as_deref()
            .map(|m| self.blend_mode_index(m))
            .transpose()?;
        let l = &mut self.layers[i];
        l.layer_preset = Some(p);
        if let Some(o) = found.opacity {
            l.opacity = single(o.clamp(0.0, 1.0));
        }
        if let Some(m) = mode {
            l.blend_mode = m;
        }
        if let Some(h) = found.is_hidden {
            l.hidden = h;
        }
        if let Some(m) = found.is_muted {
            l.muted = m;
        }
        Ok(())
    }

    /// The target set a value names: `None` for nil ("No Selection"). `Err` carries the
    /// text of a refusal; `index` is told when the value is an index, which the application
    /// does not support (it ends at "No Selection").
    pub fn target_set_of(&self, value: Given<'_>) -> Outcome<(Option<usize>, bool)> {
        match value {
            Given::Nothing | Given::Null => Ok((None, false)),
            Given::Number(_) => Ok((None, true)),
            Given::Text(n) => match lookup(&self.target_sets, n, named_keys) {
                Some(t) => Ok((Some(t), false)),
                None if matches!(parse_id(n), Id::Index(_)) => Ok((None, true)),
                None => bad(format!(
                    "no target set {n:?} (target sets: {})",
                    names(&self.target_sets, |t| &t.name)
                )),
            },
        }
    }

    pub fn set_target_set(&mut self, id: &str, set: Option<usize>) -> Outcome<()> {
        let i = self.layer_index(id)?;
        self.layers[i].target_set = set;
        Ok(())
    }
}
