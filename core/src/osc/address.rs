//! The bridge's address space: an OSC message (address and arguments) to one command of the
//! media operation table, or one read. Everything is checked here, before anything is sent: an
//! unknown address, a wrong count or type of arguments, an identifier or value the library
//! refuses, each is an error naming what was wrong.
//!
//! A layer is named in the address (`/showctl/layer/2/mute`, `/showctl/layer/Main/mute`) or,
//! when its name cannot be an OSC address segment (a space, a `/`, `#`, `*`, `,`, `?`, brackets
//! or braces), as the first argument (`/showctl/layer/mute "Lower Third"`). Identifiers given as
//! arguments are an int (an index) or a string (a name or a UUID; digits are sent as they are and
//! the application reads them as an index), as the clients take them.

use rosc::OscType;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::ident::Ident;
use crate::media::builders::Confirmable;
use crate::media::table::{both, layer, workspace};

/// The prefix of every address the bridge acts on.
pub const PREFIX: &str = "/showctl";

/// What a message asks for.
#[derive(Clone)]
pub enum Action {
    /// A command of the media application (one POST).
    Command(Box<Confirmable>),
    /// A read, whose value the reply carries.
    Read(Read),
}

/// The reads of the address space.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    Scores,
    Layers,
    Transport,
    TransitionDuration,
    Layer(Ident, LayerRead),
}

/// What is read of one layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerRead {
    State,
    Transport,
    Remaining,
    Opacity,
    TransitionDuration,
}

/// One documented address: its form, its arguments and what it does (docs/osc.md lists each;
/// a test holds the page to this list).
pub struct Documented {
    pub address: &'static str,
    pub args: &'static str,
    pub what: &'static str,
}

const fn doc(address: &'static str, args: &'static str, what: &'static str) -> Documented {
    Documented {
        address,
        args,
        what,
    }
}

/// Every address the bridge takes. `<id>` is a layer's index or name; every `/showctl/layer/<id>/X`
/// is also `/showctl/layer/X <layer> ...` with the layer as the first argument.
pub const ADDRESSES: &[Documented] = &[
    doc(
        "/showctl/clear",
        "",
        "clear every layer (POST /clear/workspace)",
    ),
    doc("/showctl/mute", "", "mute every layer"),
    doc("/showctl/unmute", "", "unmute every layer"),
    doc("/showctl/hide", "", "hide every layer"),
    doc("/showctl/unhide", "", "unhide every layer"),
    doc("/showctl/play", "", "play every layer"),
    doc("/showctl/pause", "", "pause every layer"),
    doc(
        "/showctl/trigger",
        "<playlist> <cue>",
        "trigger a cue of a playlist",
    ),
    doc(
        "/showctl/trigger/playlist",
        "<playlist>",
        "trigger a playlist's first cue",
    ),
    doc(
        "/showctl/trigger/cue",
        "<cue>",
        "trigger a cue of the selected playlist",
    ),
    doc(
        "/showctl/select/playlist",
        "<playlist>",
        "select a playlist",
    ),
    doc(
        "/showctl/transition",
        "<uuid>",
        "set the workspace transition",
    ),
    doc(
        "/showctl/effect_preset",
        "<uuid> | nil",
        "set (nil: unset) the workspace effects preset",
    ),
    doc(
        "/showctl/transition_duration",
        "[<seconds>]",
        "set (no argument: read) the workspace transition duration, 0 to 5 s",
    ),
    doc("/showctl/layers", "", "read every layer's state"),
    doc(
        "/showctl/transport",
        "",
        "read every layer's transport state",
    ),
    doc("/showctl/scores", "", "read the scoreboard's record"),
    doc("/showctl/layer/<id>/clear", "", "clear the layer"),
    doc("/showctl/layer/<id>/mute", "", "mute the layer"),
    doc("/showctl/layer/<id>/unmute", "", "unmute the layer"),
    doc("/showctl/layer/<id>/hide", "", "hide the layer"),
    doc("/showctl/layer/<id>/unhide", "", "unhide the layer"),
    doc("/showctl/layer/<id>/play", "", "play the layer"),
    doc("/showctl/layer/<id>/pause", "", "pause the layer"),
    doc(
        "/showctl/layer/<id>/select",
        "[<target>]",
        "select the layer (target true or 1: also target it)",
    ),
    doc(
        "/showctl/layer/<id>/trigger",
        "<playlist> <cue>",
        "trigger a cue on the layer",
    ),
    doc(
        "/showctl/layer/<id>/opacity",
        "[<value>]",
        "set (no argument: read) the opacity, 0.0 to 1.0",
    ),
    doc(
        "/showctl/layer/<id>/blend_mode",
        "<name>",
        "set the blend mode",
    ),
    doc(
        "/showctl/layer/<id>/preset",
        "<name>",
        "apply a layer preset",
    ),
    doc(
        "/showctl/layer/<id>/target_set",
        "<name> | nil",
        "set (nil: unset) the target set",
    ),
    doc(
        "/showctl/layer/<id>/effect_preset",
        "<name> | nil",
        "set (nil: unset) the effects preset",
    ),
    doc(
        "/showctl/layer/<id>/transition",
        "<uuid> | nil",
        "set the transition (nil: the master's)",
    ),
    doc(
        "/showctl/layer/<id>/transition_duration",
        "[<seconds>]",
        "set (no argument: read) the transition duration, 0 to 5 s",
    ),
    doc(
        "/showctl/layer/<id>/go_to",
        "<seconds>",
        "move the playhead (below 0: from the end)",
    ),
    doc(
        "/showctl/layer/<id>/skip",
        "<seconds>",
        "skip forwards (below 0: backwards)",
    ),
    doc("/showctl/layer/<id>/state", "", "read the layer's state"),
    doc(
        "/showctl/layer/<id>/transport",
        "",
        "read the layer's transport state",
    ),
    doc(
        "/showctl/layer/<id>/remaining",
        "",
        "read the seconds left of what plays",
    ),
];

/// The error of a message refused here.
fn bad(address: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid(format!("{address}: {why}"))
}

/// The OSC type of an argument, as its type tag reads (`i`, `f`, `s`...).
fn tag(arg: &OscType) -> &'static str {
    match arg {
        OscType::Int(_) => "int32 (i)",
        OscType::Float(_) => "float32 (f)",
        OscType::String(_) => "string (s)",
        OscType::Blob(_) => "blob (b)",
        OscType::Time(_) => "time tag (t)",
        OscType::Long(_) => "int64 (h)",
        OscType::Double(_) => "float64 (d)",
        OscType::Char(_) => "char (c)",
        OscType::Color(_) => "color (r)",
        OscType::Midi(_) => "MIDI (m)",
        OscType::Bool(_) => "bool (T/F)",
        OscType::Array(_) => "array ([)",
        OscType::Nil => "nil (N)",
        OscType::Inf => "infinitum (I)",
    }
}

/// The arguments of one message, taken in order.
struct Args<'a> {
    address: &'a str,
    args: &'a [OscType],
    next: usize,
}

impl<'a> Args<'a> {
    fn take(&mut self, what: &str) -> Result<&'a OscType> {
        let arg = self.args.get(self.next).ok_or_else(|| {
            bad(
                self.address,
                format!("argument {} ({what}) is missing", self.next + 1),
            )
        })?;
        self.next += 1;
        Ok(arg)
    }

    fn wrong(&self, what: &str, arg: &OscType) -> Error {
        bad(
            self.address,
            format!("argument {} ({what}) cannot be a {}", self.next, tag(arg)),
        )
    }

    /// An index (int) or a name or UUID (string).
    fn ident(&mut self, what: &str) -> Result<Ident> {
        match self.take(what)? {
            OscType::Int(i) => Ok(Ident::Index((*i).into())),
            OscType::Long(i) => Ok(Ident::Index(*i)),
            OscType::String(s) => Ok(Ident::Name(s.clone())),
            other => Err(self.wrong(&format!("{what}: an int or a string"), other)),
        }
    }

    fn number(&mut self, what: &str) -> Result<f64> {
        match self.take(what)? {
            OscType::Int(i) => Ok((*i).into()),
            OscType::Long(i) => Ok(*i as f64),
            // The decimal the sender typed (0.1 as float32 is 0.100000001490116...): the
            // shortest text that reads back as the same float32.
            OscType::Float(f) => Ok(f.to_string().parse().unwrap_or((*f).into())),
            OscType::Double(d) => Ok(*d),
            other => Err(self.wrong(&format!("{what}: a number"), other)),
        }
    }

    fn text(&mut self, what: &str) -> Result<String> {
        match self.take(what)? {
            OscType::String(s) => Ok(s.clone()),
            other => Err(self.wrong(&format!("{what}: a string"), other)),
        }
    }

    /// A string, or nil (`N`) for none.
    fn text_or_nil(&mut self, what: &str) -> Result<Option<String>> {
        match self.take(what)? {
            OscType::String(s) => Ok(Some(s.clone())),
            OscType::Nil => Ok(None),
            other => Err(self.wrong(&format!("{what}: a string or nil"), other)),
        }
    }

    fn flag(&mut self, what: &str) -> Result<bool> {
        match self.take(what)? {
            OscType::Bool(b) => Ok(*b),
            OscType::Int(i @ (0 | 1)) => Ok(*i == 1),
            other => Err(self.wrong(&format!("{what}: true/false or 0/1"), other)),
        }
    }

    fn more(&self) -> bool {
        self.next < self.args.len()
    }

    /// The value, once every argument was taken (one too many is an error).
    fn done<T>(&self, value: T) -> Result<T> {
        match self.args.len() - self.next.min(self.args.len()) {
            0 => Ok(value),
            n => Err(bad(
                self.address,
                format!("{n} argument(s) too many (it takes {})", self.next),
            )),
        }
    }
}

/// The characters that make an address a pattern (OSC's wildcards): refused, since one
/// message would then fire every command it matches.
const PATTERN: &[char] = &['*', '?', '[', ']', '{', '}', ','];

/// The action of a message (`args` without the passcode), or why it is refused. `confirm`:
/// commands that can be read back are (the library's `confirm=True`).
pub fn action(address: &str, args: &[OscType], confirm: bool) -> Result<Action> {
    if address.contains(PATTERN) || address.contains("//") {
        return Err(bad(
            address,
            "address patterns are not taken (a wildcard could fire many commands): send the \
             full address",
        ));
    }
    let Some(rest) = address
        .strip_prefix(PREFIX)
        .and_then(|r| r.strip_prefix('/'))
    else {
        return Err(bad(
            address,
            format!("unknown address: not under {PREFIX}/"),
        ));
    };
    let mut a = Args {
        address,
        args,
        next: 0,
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let unknown = || bad(address, "unknown address (the addresses: docs/osc.md)");
    use Action::Read as R;
    let command = |c: Confirmable| Action::Command(Box::new(c));
    let out = match segments.as_slice() {
        ["layer", op] => {
            let id = a.ident("layer")?;
            layer_action(&mut a, id, op, confirm)?
        }
        ["layer", id, op] => {
            let id = match id.parse::<i64>() {
                Ok(i) if !id.starts_with('+') => Ident::Index(i),
                _ => Ident::Name((*id).to_string()),
            };
            layer_action(&mut a, id, op, confirm)?
        }
        [op @ ("clear" | "mute" | "unmute" | "hide" | "unhide" | "play" | "pause")] => {
            command(both_command(op, None, confirm)?)
        }
        ["trigger"] => {
            let (p, c) = (a.ident("playlist")?, a.ident("cue")?);
            command(workspace::trigger_playlist_cue(&p, &c, confirm)?)
        }
        ["trigger", "playlist"] => {
            command(workspace::trigger_playlist(&a.ident("playlist")?, confirm)?)
        }
        ["trigger", "cue"] => command(workspace::trigger_cue(&a.ident("cue")?)?),
        ["select", "playlist"] => command(workspace::select_playlist(&a.ident("playlist")?)?),
        ["transition"] => command(workspace::set_workspace_transition(
            a.text("uuid")?,
            confirm,
        )?),
        ["effect_preset"] => command(workspace::set_workspace_effect_preset(
            a.text_or_nil("uuid")?,
            confirm,
        )?),
        ["transition_duration"] if !a.more() => R(Read::TransitionDuration),
        ["transition_duration"] => command(workspace::set_workspace_transition_duration(
            a.number("seconds")?,
            confirm,
        )?),
        ["layers"] => R(Read::Layers),
        ["transport"] => R(Read::Transport),
        ["scores"] => R(Read::Scores),
        _ => return Err(unknown()),
    };
    a.done(out)
}

fn both_command(op: &str, layer: Option<&Ident>, confirm: bool) -> Result<Confirmable> {
    match op {
        "clear" => both::clear(layer, confirm),
        "mute" => both::mute(layer, confirm),
        "unmute" => both::unmute(layer, confirm),
        "hide" => both::hide(layer, confirm),
        "unhide" => both::unhide(layer, confirm),
        "play" => both::play(layer),
        "pause" => both::pause(layer),
        _ => unreachable!("matched by the caller"),
    }
}

fn layer_action(a: &mut Args<'_>, id: Ident, op: &str, confirm: bool) -> Result<Action> {
    // The identifier is checked now (an empty name, an index below 0), whatever the operation.
    id.segment(crate::ident::Kind::Layer, "layer")?;
    let read = |what| Ok(Action::Read(Read::Layer(id.clone(), what)));
    let command = |c: Result<Confirmable>| c.map(|c| Action::Command(Box::new(c)));
    match op {
        "clear" | "mute" | "unmute" | "hide" | "unhide" | "play" | "pause" => {
            command(both_command(op, Some(&id), confirm))
        }
        "select" => {
            let target = if a.more() { a.flag("target")? } else { false };
            command(layer::select(&id, target))
        }
        "trigger" => {
            let (p, c) = (a.ident("playlist")?, a.ident("cue")?);
            command(layer::trigger(&id, &p, &c, confirm))
        }
        "opacity" if !a.more() => read(LayerRead::Opacity),
        "opacity" => command(layer::set_opacity(&id, a.number("value")?, confirm)),
        "blend_mode" => command(layer::set_blend_mode(&id, a.text("name")?, confirm)),
        "preset" => command(layer::apply_preset(&id, a.text("name")?)),
        "target_set" => command(layer::set_target_set(&id, a.text_or_nil("name")?, confirm)),
        "effect_preset" => command(layer::set_effect_preset(
            &id,
            a.text_or_nil("name")?,
            confirm,
        )),
        "transition" => command(layer::set_transition(&id, a.text_or_nil("uuid")?, confirm)),
        "transition_duration" if !a.more() => read(LayerRead::TransitionDuration),
        "transition_duration" => command(layer::set_transition_duration(
            &id,
            a.number("seconds")?,
            confirm,
        )),
        "go_to" => command(layer::go_to(&id, a.number("seconds")?)),
        "skip" => command(layer::skip(&id, a.number("seconds")?)),
        "state" => read(LayerRead::State),
        "transport" => read(LayerRead::Transport),
        "remaining" => read(LayerRead::Remaining),
        _ => Err(bad(
            a.address,
            "unknown address (the addresses: docs/osc.md)",
        )),
    }
}

/// An argument as JSON, for the records and replies (a blob as its length only).
pub fn arg_json(arg: &OscType) -> Value {
    use serde_json::json;
    match arg {
        OscType::Int(i) => json!(i),
        OscType::Long(i) => json!(i),
        OscType::Float(f) => json!(f),
        OscType::Double(d) => json!(d),
        OscType::String(s) => json!(s),
        OscType::Bool(b) => json!(b),
        OscType::Nil => Value::Null,
        OscType::Char(c) => json!(c.to_string()),
        OscType::Blob(b) => json!({ "blob": b.len() }),
        OscType::Array(a) => Value::Array(a.content.iter().map(arg_json).collect()),
        other => json!(tag(other)),
    }
}

#[cfg(test)]
mod tests;
