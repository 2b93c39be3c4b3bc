"""The simulator answers as the real applications do (the field facts of the design), tested
with the exact requests the public clients send: raw bytes through `http.client`, not showctl's
client. One test (or a few) per difference listed in the issue, plus the strictness report."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import re
from typing import Any

import pytest
import showctl

from tests.kit.netkit import send
from tests.kit.wait import until

# The field's leniency (bodies without Content-Type, empty bodies) is what these tests check:
# the simulator is not strict here.
pytestmark = pytest.mark.showctl_simulator(strict=False)

# The value-bearing commands the current Companion module sends as the text `[object Object]`
# without a Content-Type (target set, layer preset, effects preset, opacity, blend mode, layer
# blend, transition duration).
COMPANION_VALUE_COMMANDS = [
    "/targetSet/layer/0",
    "/layerPreset/layer/0",
    "/effectsPreset/layer/0",
    "/effectsPreset/workspace",
    "/opacity/layer/0",
    "/blendMode/layer/0",
    "/layerBlend/layer/0",
    "/transitionDuration/layer/0",
]

BLEND_MODES = [
    "Normal",
    "Dissolve",
    "Darken",
    "Multiply",
    "Color Burn",
    "Linear Burn",
    "Darker Color",
    "Lighten",
    "Screen",
    "Color Dodge",
    "Linear Dodge",
    "Lighter Color",
    "Overlay",
    "Soft Light",
    "Hard Light",
    "Vivid Light",
    "Linear Light",
    "Pin Light",
    "Hard Mix",
    "Difference",
    "Exclusion",
    "Subtract",
    "Divide",
    "Hue",
    "Saturation",
    "Color",
    "Luminosity",
]


JSON = {"Content-Type": "application/json"}


def get(sim: showctl.Simulator, path: str) -> Any:
    status, body = send(sim, "GET", path)
    assert status == 200, body
    return json.loads(body)


def post_json(sim: showctl.Simulator, path: str, value: Any) -> tuple[int, bytes]:
    return send(sim, "POST", path, json.dumps(value).encode(), JSON)


# --- 1. bodies the real application accepts ------------------------------------------------


@pytest.mark.parametrize("path", COMPANION_VALUE_COMMANDS)
def test_object_object_without_content_type_is_200(sim: showctl.Simulator, path: str) -> None:
    before = get(sim, "/data/layer/0")["layer"]
    assert send(sim, "POST", path, b"[object Object]") == (200, b"")
    after = get(sim, "/data/layer/0")["layer"]
    if path.startswith("/targetSet"):
        # Not a value: like no body, the target set ends at "No Selection".
        assert before["targetSetUUID"] != "null" and after["targetSetUUID"] == "null"
        assert get(sim, "/targetSet/layer/0") == {"targetSet": None}
    else:
        assert after == before
    assert any("not JSON" in w and path in w for w in sim.warnings), sim.warnings
    assert any("Content-Type" in w for w in sim.warnings), sim.warnings


@pytest.mark.parametrize("path", [*COMPANION_VALUE_COMMANDS, "/mute/layer/0", "/play/layer/0"])
@pytest.mark.parametrize("form", ["content-length-0", "no-body", "empty-object"])
def test_empty_bodies_are_200(sim: showctl.Simulator, path: str, form: str) -> None:
    if form == "content-length-0":
        answer = send(sim, "POST", path, b"")
    elif form == "no-body":
        answer = send(sim, "POST", path, length=False)
    else:
        answer = send(sim, "POST", path, b"{}", JSON)
    assert answer == (200, b"")


def test_strict_refuses_what_breaks_the_documents() -> None:
    with showctl.Simulator(strict=True) as strict:
        status, body = send(strict, "POST", "/opacity/layer/0", b"[object Object]")
        assert status == 400 and b"strict mode" in body and b"not JSON" in body
        assert post_json(strict, "/opacity/layer/0", {})[0] == 400
        assert send(strict, "POST", "/mute/layer/0", b"{}", JSON)[0] == 400
        # Documented requests stay 200.
        assert post_json(strict, "/opacity/layer/0", {"value": 0.5}) == (200, b"")
        assert send(strict, "POST", "/targetSet/layer/0", length=False) == (200, b"")
        assert send(strict, "POST", "/mute/layer/0") == (200, b"")
        assert len(strict.warnings) == 4  # no Content-Type, not JSON, no value, a body
        assert get(strict, "/opacity/layer/0") == {"opacity": {"value": 0.5}}


def test_warnings_are_logged_and_cleared(
    sim: showctl.Simulator, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="showctl.simulator"):
        assert post_json(sim, "/targetSet/layer/0", {"value": "1"}) == (200, b"")
        # The log record arrives from the simulator's thread: wait for it, not for a time.
        until(
            lambda: any("by index" in r.getMessage() for r in caplog.records), "the warning", 5
        )
    assert sim.warnings == [
        "POST /api/0/targetSet/layer/0: a target set cannot be addressed by index (the "
        'application ends at "No Selection"); send its name'
    ]
    assert get(sim, "/targetSet/layer/0") == {"targetSet": None}
    sim.clear_warnings()
    assert sim.warnings == []
    # A name sent unencoded (legal characters in a path, but names are to be encoded).
    send(sim, "POST", "/mute/layer/Main!")
    assert len(sim.warnings) == 1 and "percent-encoded" in sim.warnings[0]
    sim.reset()
    assert sim.warnings == []


# --- 2. triggers play on the targeted layer --------------------------------------------------


def playing(sim: showctl.Simulator, layer: int) -> str | None:
    state = get(sim, f"/transportState/layer/{layer}")["transportState"]
    media = state.get("playingMedia")
    return None if media is None else str(media["name"])


def test_untargeted_media_plays_on_the_layer_last_selected_with_target(
    sim: showctl.Simulator,
) -> None:
    assert send(sim, "POST", "/select/layer/2?target=true")[0] == 200
    assert send(sim, "POST", "/select/layer/0?target=false")[0] == 200  # selects only
    assert send(sim, "POST", "/trigger/playlist/0")[0] == 200
    assert playing(sim, 2) == "countdown_10s.mov"
    assert playing(sim, 0) is None
    assert send(sim, "POST", "/trigger/playlist/Highlights/cue/1")[0] == 200
    assert playing(sim, 2) == "crowd.mov"
    assert send(sim, "POST", "/select/playlist/1")[0] == 200
    assert send(sim, "POST", "/trigger/cue/1")[0] == 200
    assert playing(sim, 2) == "sponsors.mp4"
    assert sim.selection["layer"] == 0 and sim.selection["target"] == 2


def test_the_layer_of_a_layer_trigger_is_ignored(sim: showctl.Simulator) -> None:
    # Companion's "Trigger Cue in Playlist on Layer": layer 3 named, the cue has no layer of
    # its own: it plays on the targeted layer ("Main" in the default workspace).
    assert send(sim, "POST", "/trigger/layer/3/playlist/0/cue/1")[0] == 200
    assert playing(sim, 3) is None
    assert playing(sim, 1) == "intro_2024.mp4"
    # A cue configured to play on "Lower Third/Left" plays there, whatever layer is named.
    assert send(sim, "POST", "/trigger/layer/0/playlist/1/cue/2")[0] == 200
    assert playing(sim, 2) == "lower_third_speaker.mov"
    assert playing(sim, 0) is None
    # An unknown layer is still refused.
    assert send(sim, "POST", "/trigger/layer/9/playlist/0/cue/1")[0] == 400


# --- 3. the root playlist ------------------------------------------------------------------


def test_the_root_playlist_is_named_root(sim: showctl.Simulator) -> None:
    root = get(sim, "/data/playlists")["playlist"]
    assert root["name"] == "Root"
    with showctl.Simulator(workspace={"layers": [{"name": "A"}]}) as bare:
        assert get(bare, "/data/playlists")["playlist"]["name"] == "Root"


# --- 4. the 27 blend modes -----------------------------------------------------------------


def test_the_27_blend_modes(sim: showctl.Simulator) -> None:
    listed = get(sim, "/blendMode")["data"]
    assert [d["blendMode"] for d in listed] == [
        {"name": n, "id": i} for i, n in enumerate(BLEND_MODES)
    ]
    for name in BLEND_MODES:
        assert post_json(sim, "/blendMode/layer/0", {"value": name}) == (200, b"")
        assert get(sim, "/blendMode/layer/0")["blendMode"]["name"] == name
    assert sim.warnings == []


# --- 5. an empty string unlinks ------------------------------------------------------------


def test_an_empty_string_unlinks_presets(sim: showctl.Simulator) -> None:
    assert post_json(sim, "/layerPreset/layer/0", {"value": "Ghost"}) == (200, b"")
    assert post_json(sim, "/layerPreset/layer/0", {"value": ""}) == (200, b"")
    assert get(sim, "/layerPreset/layer/0") == {"data": []}
    for scope in ("layer/0", "workspace"):
        assert post_json(sim, f"/effectsPreset/{scope}", {"value": "Dreamy"}) == (200, b"")
        assert get(sim, f"/effectsPreset/{scope}")["effectPreset"]["name"] == "Dreamy"
        assert post_json(sim, f"/effectsPreset/{scope}", {"value": ""}) == (200, b"")
        assert get(sim, f"/effectsPreset/{scope}") == {"effectPreset": None}
    assert get(sim, "/data/layer/0")["layer"]["effectPresetUUID"] == "null"
    assert sim.warnings == []


# --- 6. a layer's preset -------------------------------------------------------------------


def test_layer_preset_read_shows_what_the_layer_applied(sim: showctl.Simulator) -> None:
    assert get(sim, "/layerPreset/layer/1") == {"data": []}
    assert post_json(sim, "/layerPreset/layer/1", {"value": "Ghost"}) == (200, b"")
    assert get(sim, "/layerPreset/layer/1") == {"data": [{"id": "3", "name": "Ghost"}]}
    assert get(sim, "/layerPreset/layer/0") == {"data": []}
    assert len(get(sim, "/layerPreset")["data"]) == 3


# --- 7. transport-state layers -------------------------------------------------------------


def test_transport_state_layers_carry_blend_and_transition(sim: showctl.Simulator) -> None:
    for state in [
        get(sim, "/transportState/layer/0")["transportState"],
        *(d["transportState"] for d in get(sim, "/transportState/workspace")["data"]),
    ]:
        layer = state["layer"]
        assert set(layer["layerBlend"]) == {"type", "base"}
        assert {"uuid", "name", "duration", "favoriteUUID"} <= set(layer["transition"])
    layer = get(sim, "/transportState/layer/0")["transportState"]["layer"]
    # Background has no transition of its own: the workspace default (Dissolve, 1 s).
    assert layer["transition"]["name"] == "Dissolve"
    assert layer["transition"]["duration"] == 1.0
    assert layer["layerBlend"] == {
        "type": "Standard",
        "base": {"name": "Normal", "modeIndex": 0, "opacity": 1.0},
    }
    third = get(sim, "/transportState/layer/2")["transportState"]["layer"]
    assert third["transition"]["duration"] == 0.5
    assert third["layerBlend"]["base"]["name"] == "Screen"


# --- 8. apply latency ----------------------------------------------------------------------


def test_apply_delay_lands_changes_after_the_answer() -> None:
    with showctl.Simulator(apply_delay=0.3, strict=True) as slow:
        assert slow.apply_delay == 0.3
        assert post_json(slow, "/opacity/layer/0", {"value": 0.25}) == (200, b"")
        assert get(slow, "/opacity/layer/0") == {"opacity": {"value": 1.0}}  # not yet
        with showctl.MediaPlayer(slow.url) as player:
            layer = player.layer("Main")
            # The read-back confirmation waits for the change to land.
            layer.set_opacity(0.5, confirm=True)
            assert layer.opacity() == 0.5
            layer.mute(confirm=True)
            assert layer.state().is_muted
        assert get(slow, "/opacity/layer/0") == {"opacity": {"value": 0.25}}
    with pytest.raises(ValueError, match="apply_delay"):
        showctl.Simulator(apply_delay=-1)


# --- 9. unauthorised answers ---------------------------------------------------------------


def test_unauthorised_is_an_empty_401() -> None:
    with showctl.Simulator(api_key="s3cret") as locked:
        assert send(locked, "GET", "/transportState/workspace") == (401, b"")
        wrong = {"Authorization": "Bearer nope"}
        assert send(locked, "POST", "/mute/layer/0", b"{}", wrong) == (401, b"")


# --- smaller things ------------------------------------------------------------------------


def test_restart_keeps_the_port() -> None:
    sim = showctl.Simulator(strict=True).start()
    port = sim.port
    url = sim.url
    sim.stop()
    assert sim.port == port
    sim.start()
    try:
        assert sim.url == url
        assert get(sim, "/data/layers")["data"]
    finally:
        sim.stop()


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("possession", None, "possession"),
        ("possession", float("nan"), "possession"),
        ("possession", "abc", "possession"),
        ("possession", 1.5, "possession"),
        ("team1Score", None, "team1Score"),
        ("team1Score", float("nan"), "team1Score"),
        ("team1Bonus1", "yes", "team1Bonus1"),
        ("team3Score", "1", "team3Score"),
        ("teamOneRuns", "1", "teamOneRuns"),  # a Baseball field, not a Basketball one
    ],
)
def test_set_score_refuses_bad_fields_and_values(
    sim: showctl.Simulator, field: str, value: Any, named: str
) -> None:
    before = get(sim, "/data/scores")
    with pytest.raises(ValueError, match=named):
        sim.set_score(field, value)
    assert get(sim, "/data/scores") == before


def test_generated_uuids_are_rfc_4122_version_4() -> None:
    v4 = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$")
    ws = {
        "layers": [{"name": f"L{i}"} for i in range(20)],
        "playlists": {"name": "Root", "children": [{"name": "P", "items": [{"name": "c"}]}]},
    }
    with showctl.Simulator(workspace=ws) as s:
        uuids = [d["layer"]["uuid"] for d in get(s, "/data/layers")["data"]]
        root = get(s, "/data/playlists")["playlist"]
        uuids += [
            root["uuid"],
            root["children"][0]["uuid"],
            root["children"][0]["items"][0]["uuid"],
        ]
        for sport in ["Basketball", "Hockey", "Custom"]:
            s.set_sport(sport)
            uuids.append(get(s, "/data/scores")["uuid"])
    assert len(set(uuids)) == len(uuids)
    for u in uuids:
        assert v4.match(u), u


# --- round three: six differences public clients and field notes showed (issue 22) ----------

# The value commands that take {"value": ...}; /layerBlend takes {type, base} (a body without
# "type" is refused there on its own).
VALUE_COMMANDS = [p for p in COMPANION_VALUE_COMMANDS if not p.startswith("/layerBlend")]


@pytest.mark.parametrize("path", VALUE_COMMANDS)
def test_a_json_body_without_value_is_400(sim: showctl.Simulator, path: str) -> None:
    # Stage-Utility's live notes: POST /api/0/opacity/layer/3 {"nope":1} is "correctly
    # rejected" with 400. The same rule on every value command; nothing changes.
    before = get(sim, "/data/layer/0")["layer"]
    status, body = post_json(sim, path, {"nope": 1})
    assert status == 400
    assert b'"value"' in body and b"nope" in body
    assert get(sim, "/data/layer/0")["layer"] == before
    status, _ = send(sim, "POST", "/opacity/layer/3", b'{"nope":1}', JSON)
    assert status == 400


def cue_uuids(sim: showctl.Simulator, playlist: str) -> dict[str, str]:
    items = get(sim, f"/data/playlist/{playlist}")["playlist"]["items"]
    return {i["name"]: i["uuid"] for i in items}


def test_trigger_cue_by_uuid_fires_when_its_playlist_is_selected(sim: showctl.Simulator) -> None:
    # ServicePlanner's pvp.py (rplucker-117/ServicePlanner 20d1503): select the playlist, then
    # POST /trigger/cue/{cue uuid} with no body.
    show = get(sim, "/data/playlist/Main%20Show")["playlist"]["uuid"]
    sponsor = cue_uuids(sim, "Main%20Show")["Sponsor Reel"]
    assert send(sim, "POST", f"/select/playlist/{show}") == (200, b"")
    assert send(sim, "POST", f"/trigger/cue/{sponsor}") == (200, b"")
    assert playing(sim, 1) == "sponsors.mp4"
    # A cue of a playlist that is not selected does not fire (refused here; the field's answer
    # is unobserved).
    countdown = cue_uuids(sim, "Opening")["Countdown"]
    status, body = send(sim, "POST", f"/trigger/cue/{countdown}")
    assert status == 400 and b"select its playlist" in body
    assert playing(sim, 1) == "sponsors.mp4"
    # A name is still 400, as in the field.
    status, body = send(sim, "POST", "/trigger/cue/Sponsor%20Reel")
    assert status == 400 and b"not a name" in body


def test_opacity_on_a_matte_layer_replaces_the_blend_with_normal(sim: showctl.Simulator) -> None:
    # The 3.8/3.9 reference (quoted by meros-co/integrations): setting opacity replaces a
    # non-standard blend with Normal (Standard).
    luma = {"type": "Luma Matte", "base": {"isInverted": False}}
    assert post_json(sim, "/layerBlend/layer/2", luma) == (200, b"")
    assert get(sim, "/layerBlend/layer/2")["layerBlend"]["type"] == "Luma Matte"
    assert post_json(sim, "/opacity/layer/2", {"value": 0.4}) == (200, b"")
    assert get(sim, "/layerBlend/layer/2") == {
        "layerBlend": {
            "type": "Standard",
            "base": {"name": "Normal", "modeIndex": 0, "opacity": 0.4000000059604645},
        }
    }
    assert get(sim, "/blendMode/layer/2")["blendMode"]["name"] == "Normal"


def test_blend_layer_is_not_routed_by_default(sim: showctl.Simulator) -> None:
    # The Companion module's 3.3.1 call; the 3.8/3.9 application has no such route.
    body = json.dumps({"type": "Standard", "base": {"modeIndex": 3}}).encode()
    assert send(sim, "POST", "/blend/layer/0", body, JSON)[0] == 404
    assert send(sim, "GET", "/blend/layer/0")[0] == 404
    assert send(sim, "POST", "/layerBlend/layer/0", body, JSON) == (200, b"")
    assert not sim.blend_route
    with showctl.Simulator(blend_route=True) as old:
        assert old.blend_route
        assert send(old, "POST", "/blend/layer/0", body, JSON) == (200, b"")
        assert get(old, "/blend/layer/0") == get(old, "/layerBlend/layer/0")
        assert get(old, "/blend/layer/0")["layerBlend"]["base"]["modeIndex"] == 3


def test_set_blend_goes_through_the_layer_blend_fallback(sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url) as player:
        layer = player.layer("Main")
        layer.set_blend({"type": "Alpha Matte", "base": {"isInverted": True}}, confirm=True)
        assert layer.blend().type == "Alpha Matte"
    answered = [(r.method, r.path, r.status) for r in sim.requests if "lend/layer" in r.path]
    assert answered[:2] == [
        ("POST", "/api/0/blend/layer/Main", 404),
        ("POST", "/api/0/layerBlend/layer/Main", 200),
    ]
    # Remembered: no more /blend requests.
    assert all(p.startswith("/api/0/layerBlend/") for _, p, _ in answered[1:])


def raw(sim: showctl.Simulator, path: str) -> bytes:
    status, body = send(sim, "GET", path)
    assert status == 200, body
    return body


def test_whole_numbers_are_written_without_a_fraction(sim: showctl.Simulator) -> None:
    # Stage-Utility's samples: the platform's JSON writer prints a whole double as 1 or 0.
    assert raw(sim, "/opacity/layer/0") == b'{"opacity":{"value":1}}'
    assert raw(sim, "/transitionDuration/workspace") == b'{"transitionDuration":{"value":1}}'
    state = raw(sim, "/transportState/layer/0")
    assert b'"playbackRate":0,' in state and b'"timeElapsed":0,' in state
    assert b'"opacity":1,' in state and b'"transitionDuration":1' in state
    assert not re.search(rb"\d\.0[,}\]]", raw(sim, "/data/layers"))


def test_values_are_kept_in_single_precision(sim: showctl.Simulator) -> None:
    # Field dumps: an opacity of 0.01 reads back 0.0099999997764825821.
    assert post_json(sim, "/opacity/layer/0", {"value": 0.01}) == (200, b"")
    assert raw(sim, "/opacity/layer/0") == b'{"opacity":{"value":0.0099999997764825821}}'
    assert post_json(sim, "/transitionDuration/layer/0", {"value": 0.1}) == (200, b"")
    assert get(sim, "/transitionDuration/layer/0") == {
        "transitionDuration": {"value": 0.10000000149011612}
    }


def test_the_client_confirms_single_precision_read_backs(sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url) as player:
        layer = player.layer("Main")
        layer.set_opacity(0.01, confirm=True)
        assert layer.opacity() == 0.009999999776482582
        layer.set_opacity(0.3, confirm=True)
        # Relative: read (single precision), add, set, confirm.
        value = layer.adjust_opacity(-0.1, confirm=True)
        assert value == pytest.approx(0.2) and layer.opacity() == pytest.approx(0.2)
        layer.fade(0.7, 0.1, steps=2)
        assert layer.opacity() == 0.699999988079071
        layer.set_transition_duration(0.1, confirm=True)


def test_the_default_dissolve_is_disabled(sim: showctl.Simulator) -> None:
    # Reported `enabled: false` live.
    transitions = {
        d["transition"]["name"]: d["transition"] for d in get(sim, "/transition")["data"]
    }
    assert transitions["Dissolve"]["enabled"] is False


# --- round four: effects, transitions and content types (issue 31) -------------------------


def send_full(
    sim: showctl.Simulator, method: str, path: str, body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request as the older Companion module sends it; the answer with its headers."""
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, "/api/0" + path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def catalogue(sim: showctl.Simulator, path: str, key: str) -> dict[str, Any]:
    return {d[key]["name"]: d[key] for d in get(sim, path)["data"]}


def float_var(name: str, value: float, lo: float = 0, hi: float = 1) -> dict[str, Any]:
    return {
        "type": "Float",
        "base": {"value": value, "max_value": hi, "min_value": lo, "name": name},
    }


@pytest.mark.parametrize("scope", ["layer/0", "workspace"])
def test_a_posted_effect_replaces_the_current_one(sim: showctl.Simulator, scope: str) -> None:
    # Companion #462: "When you send a new effect it will clear the current effect
    # immediately"; the body is the document's {"effect": {uuid, enabled, variables}}.
    effects = catalogue(sim, "/effects", "effect")
    blur, tint = effects["Gaussian Blur"], effects["Color Tint"]
    body = {"effect": {"uuid": blur["uuid"], "enabled": True, "variables": blur["variables"]}}
    assert post_json(sim, f"/effects/{scope}", body) == (200, b"")
    body = {"effect": {"uuid": tint["uuid"], "enabled": True}}
    assert post_json(sim, f"/effects/{scope}", body) == (200, b"")
    active = [d["effect"] for d in get(sim, f"/effects/{scope}")["data"]]
    assert [(e["name"], e["enabled"]) for e in active] == [("Color Tint", True)]
    # "If you send a curl with the flag set to false, it will add the effect, but won't
    # enable it": added disabled, and still alone.
    body = {"effect": {"uuid": blur["uuid"], "enabled": False}}
    assert post_json(sim, f"/effects/{scope}", body) == (200, b"")
    active = [d["effect"] for d in get(sim, f"/effects/{scope}")["data"]]
    assert [(e["name"], e["enabled"]) for e in active] == [("Gaussian Blur", False)]
    assert sim.warnings == []


def test_effect_and_transition_floats_are_single_precision(sim: showctl.Simulator) -> None:
    # The 2018 dumps of a live PVP 3: 20.049999237060547, 0.05000000074505806,
    # 3.1415927410125732 (float variables kept as 32-bit floats, printed as doubles).
    blur = catalogue(sim, "/effects", "effect")["Gaussian Blur"]
    body = {
        "effect": {
            "uuid": blur["uuid"],
            "enabled": True,
            "variables": [float_var("Radius", 20.05, 0, 3.141592653589793)],
        }
    }
    assert post_json(sim, "/effects/layer/0", body) == (200, b"")
    answer = raw(sim, "/effects/layer/0")
    assert b'"value":20.049999237060547' in answer
    assert b'"max_value":3.1415927410125732' in answer
    wipe = catalogue(sim, "/transition", "transition")["Wipe Left"]
    body = {
        "transition": {
            "uuid": wipe["uuid"],
            "name": "Wipe Left",
            "enabled": False,
            "variables": [float_var("Feather", 0.05)],
        }
    }
    assert post_json(sim, "/transition/layer/1", body) == (200, b"")
    assert b'"value":0.05000000074505806' in raw(sim, "/transition/layer/1")
    # The catalogue's own values are kept the same way (Wipe Left's Feather of 0.1).
    assert b'"value":0.10000000149011612' in raw(sim, "/transition")


def test_catalogue_entries_are_disabled(sim: showctl.Simulator) -> None:
    # Seven catalogue entries across the dumps, #463 and Stage-Utility's live sample report
    # `enabled: false`.
    listed = [
        *catalogue(sim, "/effects", "effect").values(),
        *catalogue(sim, "/transition", "transition").values(),
    ]
    assert len(listed) == 6
    assert [e["enabled"] for e in listed] == [False] * 6


@pytest.mark.parametrize("scope", ["layer/0", "workspace"])
def test_a_posted_transition_object_sets_its_variables(sim: showctl.Simulator, scope: str) -> None:
    # #463 (a pastebin: "tested and seems to work and change things correctly"): the body is
    # the document's sample {"transition": Transition}.
    wipe = catalogue(sim, "/transition", "transition")["Wipe Left"]
    posted = [
        float_var("Feather", 0.25),
        {"type": "Color", "base": {"name": "Edge", "color": "#FF0000"}},
    ]
    body = {"transition": {**wipe, "enabled": True, "variables": posted}}
    assert post_json(sim, f"/transition/{scope}", body) == (200, b"")
    now = get(sim, f"/transition/{scope}")["transition"]
    assert (now["name"], now["variables"]) == ("Wipe Left", posted)  # 0.25 is exact in f32
    # The enabled flag does nothing for a transition (Companion #462).
    assert now["enabled"] is False
    layer = get(sim, "/transportState/layer/0")["transportState"]["layer"]
    assert layer["transition"]["variables"] == posted
    # The catalogue is untouched.
    assert catalogue(sim, "/transition", "transition")["Wipe Left"] == wipe
    # Chosen again by its UUID alone, it takes the catalogue's values.
    assert post_json(sim, f"/transition/{scope}", {"value": wipe["uuid"]}) == (200, b"")
    assert get(sim, f"/transition/{scope}")["transition"]["variables"] == wipe["variables"]


def test_reads_are_not_typed_json_by_default(sim: showctl.Simulator) -> None:
    # The older Companion module's relative opacity (commit b66eaf4, for #461): GET the
    # opacity and parse the answer's bytes, which its HTTP client hands over only when the
    # answer is not typed application/json (typed JSON, it gets an object and reads nothing).
    assert post_json(sim, "/opacity/layer/0", {"value": 0.5}) == (200, b"")
    status, headers, body = send_full(sim, "GET", "/opacity/layer/0")
    assert status == 200 and "content-type" not in headers
    assert sim.read_content_type is None
    opacity = json.loads(body.decode())["opacity"]["value"] * 100
    value = round(min(100, max(0, opacity + int("-20")))) / 100.0
    body = json.dumps({"value": value}).encode()
    assert send_full(sim, "POST", "/opacity/layer/0", body)[0] == 200
    assert get(sim, "/opacity/layer/0") == {"opacity": {"value": 0.30000001192092896}}
    # A command's 200 stays empty and untyped; a refusal is text.
    assert "content-type" not in send_full(sim, "POST", "/mute/layer/0")[1]
    with showctl.Simulator(read_content_type="application/json") as typed:
        assert typed.read_content_type == "application/json"
        _, headers, _ = send_full(typed, "GET", "/opacity/layer/0")
        assert headers["content-type"] == "application/json"
    for bad in ["", " ", "text/plain\r\nX-Injected: 1", "café"]:
        with pytest.raises(ValueError, match="read_content_type"):
            showctl.Simulator(read_content_type=bad)


@pytest.mark.parametrize(
    "content_type",
    [None, "application/json", "text/plain; charset=utf-8", "text/html", "application/x-unknown"],
)
def test_the_client_reads_answers_whatever_their_type(content_type: str | None) -> None:
    # showctl's own HTTP/1.1 exchange (plain http://) reads the body as JSON whatever the
    # Content-Type says, and its read-back confirmation works on every form.
    with (
        showctl.Simulator(read_content_type=content_type, strict=True) as s,
        showctl.MediaPlayer(s.url) as player,
    ):
        layer = player.layer("Main")
        layer.set_opacity(0.3, confirm=True)
        assert layer.adjust_opacity(-0.1, confirm=True) == pytest.approx(0.2)
        layer.set_transition_duration(0.1, confirm=True)
        assert [each.name for each in player.layers()][:2] == ["Background", "Main"]
        state = layer.transport_state()
        assert state.layer is not None and state.layer.transition is not None
        assert [t.name for t in player.transitions()] == ["Cut", "Dissolve", "Wipe Left"]

        async def on_the_runtime() -> tuple[float, int]:
            # The asyncio calls: the same exchange, on the process runtime.
            async with showctl.MediaPlayer(s.url) as aplayer:
                states = await aplayer.transport_state_async()
                return await aplayer.layer("Main").opacity_async(), len(states)

        assert asyncio.run(on_the_runtime()) == (layer.opacity(), 4)
        assert s.warnings == []


def test_a_null_workspace_transition_keeps_it() -> None:
    # The API text allows null only for a layer's own transition (the layer then uses the
    # master transition); transport-state layers always carry one.
    with showctl.Simulator() as lenient:
        status, _ = post_json(lenient, "/transition/workspace", {"value": None})
        assert status == 200
        assert get(lenient, "/transition/workspace")["transition"]["name"] == "Dissolve"
        assert any("null is documented only for a layer" in w for w in lenient.warnings)
        # A layer's null is documented: it reports the workspace's (master) transition.
        assert post_json(lenient, "/transition/layer/1", {"value": None}) == (200, b"")
        assert get(lenient, "/transition/layer/1") == {"transition": None}
        for d in get(lenient, "/transportState/workspace")["data"]:
            assert d["transportState"]["layer"]["transition"]["name"] == "Dissolve"
    with showctl.Simulator(strict=True) as strict:
        status, body = post_json(strict, "/transition/workspace", {"transition": None})
        assert status == 400 and b"strict mode" in body
        assert get(strict, "/transition/workspace")["transition"]["name"] == "Dissolve"
    # A file without a workspace transition starts with the first of its catalogue.
    ws = {"layers": [{"name": "A"}], "transitions": [{"name": "Cut"}, {"name": "Fade"}]}
    with showctl.Simulator(workspace=ws) as bare:
        layer = get(bare, "/transportState/layer/0")["transportState"]["layer"]
        assert layer["transition"]["name"] == "Cut"


@pytest.mark.parametrize("value", [True, None, "high", [0.5], {"v": 1}])
def test_one_400_text_for_an_opacity_value(sim: showctl.Simulator, value: Any) -> None:
    status, body = post_json(sim, "/opacity/layer/0", {"value": value})
    assert status == 400
    sent = json.dumps(value, separators=(",", ":"))
    assert body.decode() == f'"value" must be a number, got {sent}'
    assert get(sim, "/opacity/layer/0") == {"opacity": {"value": 1}}
