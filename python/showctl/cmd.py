"""Commands for :meth:`showctl.MediaPlayer.batch`, one function per command.

Each function takes the arguments of the :class:`~showctl.MediaPlayer` or
:class:`~showctl.Layer` method of the same name, with the layer first for a layer's command
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

clear = Command.clear
mute = Command.mute
unmute = Command.unmute
hide = Command.hide
unhide = Command.unhide
play = Command.play
pause = Command.pause
select = Command.select
trigger = Command.trigger
set_opacity = Command.set_opacity
set_blend_mode = Command.set_blend_mode
set_blend = Command.set_blend
apply_preset = Command.apply_preset
set_target_set = Command.set_target_set
set_effect = Command.set_effect
set_effect_preset = Command.set_effect_preset
set_transition = Command.set_transition
set_transition_duration = Command.set_transition_duration
go_to = Command.go_to
skip = Command.skip
select_playlist = Command.select_playlist
trigger_cue = Command.trigger_cue
trigger_playlist = Command.trigger_playlist
trigger_playlist_cue = Command.trigger_playlist_cue
set_workspace_effect = Command.set_workspace_effect
set_workspace_effect_preset = Command.set_workspace_effect_preset
set_workspace_transition = Command.set_workspace_transition
set_workspace_transition_duration = Command.set_workspace_transition_duration
request = Command.request
