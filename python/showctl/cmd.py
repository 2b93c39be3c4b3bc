"""Commands for ``showctl.MediaPlayer.batch``, one function per command.

Each function takes the arguments of the ``showctl.MediaPlayer`` or
``showctl.Layer`` method of the same name, with the layer first for a layer's command
(an index, a name, a UUID or a ``Layer``); where a command exists for both, ``layer=None`` is
the workspace. Arguments are checked here: bad input raises ``ValueError`` before anything is
sent.

>>> from showctl import cmd
>>> cmd.set_opacity("Main", 0.5)
Command('POST /opacity/layer/Main {"value":0.5}')
>>> cmd.mute()
Command('POST /mute/workspace')
"""

from __future__ import annotations

from typing import Final

from showctl._core import Command

__all__ = [
    "apply_preset",
    "clear",
    "go_to",
    "hide",
    "mute",
    "pause",
    "play",
    "request",
    "select",
    "select_playlist",
    "set_blend",
    "set_blend_mode",
    "set_effect",
    "set_effect_preset",
    "set_opacity",
    "set_target_set",
    "set_transition",
    "set_transition_duration",
    "set_workspace_effect",
    "set_workspace_effect_preset",
    "set_workspace_transition",
    "set_workspace_transition_duration",
    "skip",
    "trigger",
    "trigger_cue",
    "trigger_playlist",
    "trigger_playlist_cue",
    "unhide",
    "unmute",
]

clear: Final = Command.clear
mute: Final = Command.mute
unmute: Final = Command.unmute
hide: Final = Command.hide
unhide: Final = Command.unhide
play: Final = Command.play
pause: Final = Command.pause
select: Final = Command.select
trigger: Final = Command.trigger
set_opacity: Final = Command.set_opacity
set_blend_mode: Final = Command.set_blend_mode
set_blend: Final = Command.set_blend
apply_preset: Final = Command.apply_preset
set_target_set: Final = Command.set_target_set
set_effect: Final = Command.set_effect
set_effect_preset: Final = Command.set_effect_preset
set_transition: Final = Command.set_transition
set_transition_duration: Final = Command.set_transition_duration
go_to: Final = Command.go_to
skip: Final = Command.skip
select_playlist: Final = Command.select_playlist
trigger_cue: Final = Command.trigger_cue
trigger_playlist: Final = Command.trigger_playlist
trigger_playlist_cue: Final = Command.trigger_playlist_cue
set_workspace_effect: Final = Command.set_workspace_effect
set_workspace_effect_preset: Final = Command.set_workspace_effect_preset
set_workspace_transition: Final = Command.set_workspace_transition
set_workspace_transition_duration: Final = Command.set_workspace_transition_duration
request: Final = Command.request
