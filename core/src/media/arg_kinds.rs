//! The argument kinds of the media operation table: what an argument is, which names its
//! conversion (in the binding) and its value in the core (checked by the endpoint's encoder),
//! and the models a text argument may be given as ([`Labelled`]). Re-exported by
//! [`super::builders`], whose builders take their values.

use std::marker::PhantomData;

use serde_json::{Map, Value};

use super::endpoints::BlendSpec;
use super::models::{BlendMode, EffectPreset, LayerPreset, Model, TargetSet, Transition};

/// An argument kind of the operation table and the core value it becomes.
pub trait ArgKind {
    type Value;
}

/// A number (an int or a float, never a bool).
pub struct Number;
/// A text, or a model carrying it in its `name` field.
pub struct NameOf<M>(PhantomData<M>);
/// A text, or a model carrying it in its `uuid` field.
pub struct UuidOf<M>(PhantomData<M>);
/// Another kind, or `None`.
pub struct OrNone<K>(PhantomData<K>);
/// An effect: an `Effect` (its documented fields) or an object with a `uuid`.
pub struct EffectArg;
/// A layer blend: a `LayerBlend` or an object `{"type": ..., "base": {...}}`.
pub struct BlendArg;

impl ArgKind for Number {
    type Value = f64;
}
impl<M> ArgKind for NameOf<M> {
    type Value = String;
}
impl<M> ArgKind for UuidOf<M> {
    type Value = String;
}
impl<K: ArgKind> ArgKind for OrNone<K> {
    type Value = Option<K::Value>;
}
impl ArgKind for EffectArg {
    type Value = Map<String, Value>;
}
impl ArgKind for BlendArg {
    type Value = BlendSpec;
}

/// An argument kind that is a text or a model carrying the text ([`NameOf`], [`UuidOf`]).
pub trait LabelOf: ArgKind<Value = String> {
    type Model: Labelled;
    /// The text `model` carries for this kind, if any.
    fn pick(model: &Self::Model) -> Option<String>;
}

impl<M: Labelled> LabelOf for NameOf<M> {
    type Model = M;
    fn pick(model: &M) -> Option<String> {
        model.label_name()
    }
}

impl<M: Labelled> LabelOf for UuidOf<M> {
    type Model = M;
    fn pick(model: &M) -> Option<String> {
        model.label_uuid()
    }
}

/// A model that carries a name and/or a UUID to send in its place.
pub trait Labelled: Model {
    fn label_name(&self) -> Option<String> {
        None
    }
    fn label_uuid(&self) -> Option<String> {
        None
    }
}

impl Labelled for BlendMode {
    fn label_name(&self) -> Option<String> {
        self.name.clone()
    }
}
impl Labelled for LayerPreset {
    fn label_name(&self) -> Option<String> {
        self.name.clone()
    }
}
impl Labelled for TargetSet {
    fn label_name(&self) -> Option<String> {
        self.name.clone()
    }
    fn label_uuid(&self) -> Option<String> {
        self.uuid.clone()
    }
}
impl Labelled for EffectPreset {
    fn label_name(&self) -> Option<String> {
        self.name.clone()
    }
    fn label_uuid(&self) -> Option<String> {
        self.uuid.clone()
    }
}
impl Labelled for Transition {
    fn label_name(&self) -> Option<String> {
        self.name.clone()
    }
    fn label_uuid(&self) -> Option<String> {
        self.uuid.clone()
    }
}
