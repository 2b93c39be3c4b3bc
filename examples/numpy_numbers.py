"""Values from numpy and the standard library's numbers as arguments, type-checked as they run.

Integers with ``__index__`` (numpy's) are taken wherever an int is, any ``numbers.Real``
(numpy's floats, ``fractions.Fraction``) wherever a number is; the stubs say so, so
``mypy --strict`` accepts this script (``.ci/run`` checks ``examples/``). It runs on its own
simulator and prints each request the simulator received:

    python examples/numpy_numbers.py
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import showctl
from showctl import cmd


def main() -> None:
    levels = np.array([0.1, 0.9, 0.3, 0.2])  # one level per layer, from a meter
    with showctl.Simulator() as sim, showctl.MediaPlayer(sim.url, timeout=np.float64(2)) as player:
        loudest = player.layer(np.argmax(levels))  # numpy's intp: an index
        loudest.set_opacity(Fraction(1, 2))  # a numbers.Real
        loudest.fade(np.float32(0.25), Fraction(1, 10), steps=np.int64(2))
        player.batch([cmd.mute(np.int64(1))])
        player.layer(np.int8(2)).set_opacity(np.float64(0.75))
        player.trigger_playlist_cue(np.int64(0), np.uint8(1))
        for request in sim.requests:
            if request.method == "POST":
                print(request.method, request.path, request.body.decode() or "-")


if __name__ == "__main__":
    main()
