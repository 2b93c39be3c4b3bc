//! What a command should lead to ([`Expect`]): the read-back check a builder of the operation
//! table picks for `confirm=True`, as data. Reading it back against the application is
//! [`super::confirm`].

use super::endpoints::BlendSpec;
use super::models::LayerState;
use crate::ident::Ident;

/// A layer flag changed by mute/unmute and hide/unhide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    Muted,
    Hidden,
}

impl Flag {
    pub(super) fn of(self, l: &LayerState) -> Option<bool> {
        match self {
            Flag::Muted => l.is_muted,
            Flag::Hidden => l.is_hidden,
        }
    }
    pub(super) fn field(self) -> &'static str {
        match self {
            Flag::Muted => "isMuted",
            Flag::Hidden => "isHidden",
        }
    }
}

/// What a command should lead to. `layer: None` is the workspace (every layer).
#[derive(Debug, Clone)]
pub enum Expect {
    Opacity {
        layer: Ident,
        value: f64,
    },
    Flag {
        layer: Option<Ident>,
        flag: Flag,
        value: bool,
    },
    /// Nothing plays (`playingMedia` absent), after a clear.
    Empty {
        layer: Option<Ident>,
    },
    BlendMode {
        layer: Ident,
        name: String,
    },
    Blend {
        layer: Ident,
        blend: BlendSpec,
    },
    /// A target set by name or UUID; `None`: no target set.
    TargetSet {
        layer: Ident,
        name: Option<String>,
    },
    /// An effects preset by name or UUID; `None`: no preset.
    EffectPreset {
        layer: Option<Ident>,
        name: Option<String>,
    },
    /// A transition by UUID or name; `None`: the layer uses the master transition.
    Transition {
        layer: Option<Ident>,
        uuid: Option<String>,
    },
    TransitionDuration {
        layer: Option<Ident>,
        seconds: f64,
    },
    /// The cue plays (`playingItem` is the cue and `playingMedia` is present) on the layer, or
    /// on some layer for `None`. `cue: None` is the first cue of the playlist.
    Playing {
        layer: Option<Ident>,
        playlist: Ident,
        cue: Option<Ident>,
    },
}
