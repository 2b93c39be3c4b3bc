"""resolve_layer, resolve_playlist, by_name and refresh: names made of digits (which the
application reads as indices) reached by UUID, the kept lists, misses and twins."""

from __future__ import annotations

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.mediakit import MODES, assert_sent, invoke
from tests.kit.recording import load, sent, serve

U = "6F9619FF-8B86-D011-B42D-00C04FC9{:04X}".format


def lists(server: HTTPServer) -> None:
    serve(server, load("automation/layers"))
    serve(server, load("automation/playlists"))


def count(server: HTTPServer, path: str) -> int:
    return sum(1 for r in sent(server) if r.path == path)


@pytest.mark.parametrize("mode", MODES)
def test_a_layer_named_10_is_reached_by_uuid(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    lists(httpserver)
    serve(httpserver, load("automation/mute_by_uuid"))
    player = showctl.MediaPlayer(base_url)
    layer = invoke(mode, player, "resolve_layer", "10")
    assert isinstance(layer, showctl.Layer)
    assert layer.id == U(0x49)
    layer.mute()
    assert_sent(httpserver, load("automation/layers"), load("automation/mute_by_uuid"))
    # The digits alone would have addressed index 10.
    assert showctl.cmd.mute(10).path == "/mute/layer/10"


@pytest.mark.parametrize("mode", MODES)
def test_digit_names_everywhere_by_uuid(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    lists(httpserver)
    serve(httpserver, load("automation/trigger_by_uuid"))
    player = showctl.MediaPlayer(base_url)
    playlist = invoke(mode, player, "resolve_playlist", "2024")
    assert isinstance(playlist, showctl.Playlist)
    assert playlist.uuid == U(0x12) and [c.name for c in playlist.items] == ["1", "Goal!"]
    cue = playlist.find("1")
    assert isinstance(cue, showctl.Cue) and cue.uuid == U(0x21)
    layer = invoke(mode, player, "by_name", "10", "layer")
    assert layer == U(0x49)
    assert invoke(mode, player, "by_name", "2024") == U(0x12)
    player.layer(layer).trigger(playlist.uuid or "", cue.uuid or "")
    assert [r.path for r in sent(httpserver)][-1] == load("automation/trigger_by_uuid").path
    assert count(httpserver, "/api/0/data/layers") == 1
    assert count(httpserver, "/api/0/data/playlists") == 1


def test_twins_and_misses(httpserver: HTTPServer, base_url: str) -> None:
    lists(httpserver)
    player = showctl.MediaPlayer(base_url)
    with pytest.raises(showctl.NameLookupError, match='2 things are named "Twin"') as info:
        player.resolve_layer("Twin")
    assert isinstance(info.value, LookupError) and isinstance(info.value, showctl.ShowctlError)
    assert U(0x4A) in str(info.value) and U(0x4B) in str(info.value)
    # "1" is a cue in two playlists, "Main" a layer and a playlist.
    with pytest.raises(showctl.NameLookupError, match='2 things are named "1"'):
        player.by_name("1", kind="cue")
    with pytest.raises(showctl.NameLookupError, match=r"layer \"Main\".*playlist \"Main\""):
        player.by_name("Main")
    assert player.by_name("Main", kind="playlist") == U(0x13)
    # A miss is looked up once more in fresh lists.
    before = count(httpserver, "/api/0/data/layers")
    with pytest.raises(showctl.NameLookupError, match='no layer is named "Nobody"'):
        player.resolve_layer("Nobody")
    assert count(httpserver, "/api/0/data/layers") == before + 1
    # By UUID in any case.
    assert player.resolve_layer(U(0x49).lower()).id == U(0x49)


def test_refresh_reads_the_lists_again(httpserver: HTTPServer, base_url: str) -> None:
    lists(httpserver)
    player = showctl.MediaPlayer(base_url)
    player.resolve_layer("10")
    player.resolve_layer("Main")
    assert count(httpserver, "/api/0/data/layers") == 1
    assert player.refresh() is None
    player.resolve_layer("10")
    assert count(httpserver, "/api/0/data/layers") == 2


def test_refusals(httpserver: HTTPServer, base_url: str) -> None:
    player = showctl.MediaPlayer(base_url)
    with pytest.raises(ValueError, match=r"^name: must not be empty"):
        player.resolve_layer("")
    with pytest.raises(ValueError, match=r"^kind:"):
        player.by_name("Main", kind="Layer")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        player.resolve_playlist(3)  # type: ignore[arg-type]
    assert sent(httpserver) == []


WORKSPACE = {
    "playlists": {
        "name": "Workspace",
        "items": [],
        "children": [
            {"name": "7", "items": [{"name": "1", "duration": 5}, {"name": "2"}]},
            {"name": "Other", "items": [{"name": "x"}]},
        ],
    },
    "layers": [{"name": "Background"}, {"name": "10"}, {"name": "Main"}],
}


@pytest.mark.showctl_simulator(workspace=WORKSPACE)
def test_on_the_simulator(sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url) as player:
        ten = player.resolve_layer("10")
        ten.mute()
        seven = player.resolve_playlist("7")
        second = seven.find("2")
        assert isinstance(second, showctl.Cue)
        ten.select(target=True)  # media plays on the targeted layer, as in the field
        ten.trigger(seven.uuid or "", second.uuid or "", confirm=True)
        state = ten.state()
        assert state.name == "10" and state.is_muted
        playing = ten.transport_state().playing_item
        assert playing is not None and playing.name == "2"
        assert not player.layer(0).state().is_muted, "layer index 0 is Background"


def test_a_misspelt_name_gets_the_nearest_and_the_list(player: showctl.MediaPlayer) -> None:
    """As the command line says it: what there is, and the likely one."""
    with pytest.raises(showctl.NameLookupError) as info:
        player.resolve_layer("Mian")
    assert str(info.value) == (
        'no layer is named "Mian"; did you mean "Main"? (layers: "Background", "Main", '
        '"Lower Third/Left", "Logo Bug"); names are matched exactly, UUIDs in any case'
    )
    with pytest.raises(showctl.NameLookupError, match='did you mean "Opening"'):
        player.resolve_playlist("opening")
    with pytest.raises(showctl.NameLookupError, match='did you mean "Intro Video"'):
        player.by_name("Intro Vidoe")
