"""The dict forms of a connection given with its own options: a mirror (``MediaPlayer(...,
mirrors=[...])``) and a feed source (``Feed(media=..., scoreboard=...)``)."""

from __future__ import annotations

from typing import TypedDict


class _MirrorUrl(TypedDict):
    url: str


class MirrorSpec(_MirrorUrl, total=False):
    """A mirror given as a dict: ``url`` (required), ``api_key`` (default: the primary's key)
    and ``tls_fingerprint`` (default: the primary's TLS options)."""

    api_key: str | None
    tls_fingerprint: str | None


class FeedSource(MirrorSpec, total=False):
    """A feed source given as a dict (``Feed(media=..., scoreboard=...)``): ``url`` (required),
    and its own ``api_key``, ``tls_fingerprint``, ``ca_cert`` and ``verify``; a key left out (or
    ``None``) takes the feed's option of that name."""

    ca_cert: str | None
    verify: bool | None
