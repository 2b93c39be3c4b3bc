//! Effects, effect presets, transitions and transition durations, on the workspace or a layer.

use super::*;
use crate::simulator::answers::{
    self as answer, list, to_value, EffectPresetDoc, Extended, Keyed, Val,
};
use crate::simulator::wire::{single, single_variables};
use crate::simulator::workspace::TransitionListKey;

impl World {
    pub fn effects_json(&self) -> Value {
        list("effect", self.effects.iter().map(answer::fx))
    }

    pub fn scope_effects_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        Ok(list("effect", s.effects.iter().map(answer::fx)))
    }

    fn effect_preset(p: &EffectPreset) -> Extended<'_, EffectPresetDoc<'_>> {
        let effects = p
            .effects
            .as_ref()
            .map(|e| e.iter().map(answer::fx).collect());
        Extended(
            EffectPresetDoc {
                uuid: &p.uuid,
                name: &p.name,
                effects,
            },
            &p.extra,
        )
    }

    pub fn effect_presets_json(&self) -> Value {
        list(
            "effectPreset",
            self.effect_presets.iter().map(Self::effect_preset),
        )
    }

    pub fn scope_effect_preset_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        let p = s
            .effect_preset
            .map(|i| Self::effect_preset(&self.effect_presets[i]));
        Ok(to_value(Keyed("effectPreset", p)))
    }

    pub fn transitions_json(&self) -> Value {
        let items: Vec<_> = self
            .transitions
            .iter()
            .map(|t| Keyed("transition", answer::fx(t)))
            .collect();
        let key = match self.answers.transition_list {
            TransitionListKey::Data => "data",
            TransitionListKey::Transitions => "transitions",
        };
        to_value(Keyed(key, items))
    }

    pub fn scope_transition_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        let t = s.transition.as_ref().map(answer::fx);
        Ok(to_value(Keyed("transition", t)))
    }

    pub fn scope_duration_json(&self, scope: Scope<'_>) -> Outcome<Value> {
        let s = self.settings(scope)?;
        let value = Val {
            value: s.transition_duration,
        };
        Ok(to_value(Keyed("transitionDuration", value)))
    }

    /// POST /effects/{workspace|layer}: {effect: {uuid, name?, enabled?, variables?}} (the
    /// unwrapped form is read too). A known effect is added, or updated when already active.
    /// `None` (no usable body) changes nothing.
    pub fn set_effect(&mut self, scope: Scope<'_>, body: Option<&Value>) -> Outcome<()> {
        self.settings(scope)?;
        let Some(body) = body else {
            return Ok(());
        };
        let fields = body.get("effect").unwrap_or(body);
        let Some(uuid) = fields.get("uuid").and_then(Value::as_str) else {
            return bad("the body needs {\"effect\": {\"uuid\": ...}}");
        };
        let Some(known) = self.effects.iter().find(|e| e.uuid == uuid).cloned() else {
            return bad(format!(
                "no effect with the UUID {uuid:?} (GET /effects lists them)"
            ));
        };
        let enabled = match fields.get("enabled") {
            None => None,
            Some(v) => match v.as_bool() {
                Some(b) => Some(b),
                None => return bad("effect.enabled must be a boolean"),
            },
        };
        let variables = match fields.get("variables") {
            None => None,
            Some(Value::Array(v)) => Some(v.clone()),
            Some(_) => return bad("effect.variables must be an array"),
        };
        let s = self.scope(scope)?;
        // A posted effect replaces the current ones (Companion #462: "it will clear the current
        // effect immediately"). One already active keeps its values where the body gives none;
        // a new one is added enabled unless the body says `"enabled": false`.
        let mut effect = match s.effects.iter().find(|e| e.uuid == uuid) {
            Some(active) => active.clone(),
            None => Fx {
                enabled: true,
                ..known
            },
        };
        if let Some(b) = enabled {
            effect.enabled = b;
        }
        if let Some(mut v) = variables {
            single_variables(&mut v);
            effect.variables = v;
        }
        s.effects = vec![effect];
        Ok(())
    }

    /// Select an effect preset (by UUID or name) and take its effects; null or an empty name
    /// selects none and keeps the effects; `Nothing` changes nothing.
    pub fn set_effect_preset(&mut self, scope: Scope<'_>, preset: Given<'_>) -> Outcome<()> {
        self.settings(scope)?;
        let found = match preset {
            Given::Nothing => return Ok(()),
            Given::Null | Given::Text("") => None,
            Given::Number(n) => return bad(format!("\"value\" must be a string or null, got {n}")),
            Given::Text(k) => match lookup(&self.effect_presets, k, preset_keys) {
                Some(i) => Some((i, self.effect_presets[i].effects.clone())),
                None => {
                    return bad(format!(
                        "no effect preset {k:?} (presets: {})",
                        names(&self.effect_presets, |p| &p.name)
                    ))
                }
            },
        };
        let s = self.scope(scope)?;
        match found {
            Some((i, effects)) => {
                s.effect_preset = Some(i);
                s.effects = effects.unwrap_or_default();
            }
            None => s.effect_preset = None,
        }
        Ok(())
    }

    /// Set a transition (by UUID or name): the scope takes a copy of the catalogue's, with the
    /// variables of a posted transition object (#463, in single precision). Null means the
    /// master transition for a layer (the route keeps the workspace's); `Nothing` changes
    /// nothing.
    pub fn set_transition(&mut self, scope: Scope<'_>, chosen: Chosen<'_>) -> Outcome<()> {
        self.settings(scope)?;
        let t = match chosen.key {
            Given::Nothing => return Ok(()),
            Given::Null => None,
            Given::Number(n) => return bad(format!("\"value\" must be a string or null, got {n}")),
            Given::Text(k) => match lookup(&self.transitions, k, fx_keys) {
                Some(i) => {
                    let mut t = self.transitions[i].clone();
                    if let Some(v) = chosen.variables {
                        t.variables = v.to_vec();
                        single_variables(&mut t.variables);
                    }
                    Some(t)
                }
                None => {
                    return bad(format!(
                        "no transition {k:?} (transitions: {})",
                        names(&self.transitions, |t| &t.name)
                    ))
                }
            },
        };
        self.scope(scope)?.transition = t;
        Ok(())
    }

    /// Clamped to 0.0–5.0, as opacity is; `None` changes nothing.
    pub fn set_transition_duration(
        &mut self,
        scope: Scope<'_>,
        seconds: Option<f64>,
    ) -> Outcome<()> {
        let s = self.scope(scope)?;
        if let Some(v) = seconds {
            s.transition_duration = single(v.clamp(0.0, MAX_TRANSITION_DURATION));
        }
        Ok(())
    }
}
