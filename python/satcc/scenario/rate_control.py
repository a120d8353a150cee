"""`rate_control` tables: a sending host's segmentation buffer served at the
explicit rate a link's `explicit_rate` port feeds back (the end-to-end ABR
source of the abr-effcap paper, Figs. 3-4). A simulated TCP sender
([tcp.NAME.rate_control]) and a real emulated host
([emulate.NAME.rate_control]) use the same model (core's `net::shaper`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from .description import Desc
from .errors import quote
from .routing import PathRequest
from .tables import _Table
from .values import PositiveInt, PositiveRate, Str, choice, optional

if TYPE_CHECKING:
    from .validation import Checks


class RateControl(_Table):
    """The sender's packets wait in a segmentation buffer served at the
    rate the explicit_rate port of `link` feeds back, jumping to each new
    value. `framing` times each packet on the wire as the path carries it
    ("aal5": its cells); `block` and `blocks` are effcap's M and N, in
    measurement intervals, for this host. `buffer` bounds the buffer in
    packets (a packet arriving when it is full is dropped at the host);
    left out, it is unbounded, as the paper takes it."""

    link: Str
    initial_rate: PositiveRate
    framing: choice("none", "aal5") = "aal5"
    block: PositiveInt = 1
    blocks: PositiveInt = 1
    buffer: Annotated[optional(PositiveInt), Desc("buffer_packets", omit_default=True)] = None


def _link(rc: RateControl, doc):
    links = doc.links
    return links.get(rc.link) or links.get(rc.link.removesuffix("_rev"))


def check_rate_control(checks: Checks, path: tuple, rc: RateControl) -> None:
    """The link must exist and have an explicit_rate table."""
    if checks.require((*path, "link"), "links", rc.link):
        if getattr(_link(rc, checks.doc), "explicit_rate", None) is None:
            checks.refuse(
                (*path, "link"),
                f"link {quote(rc.link)} has no explicit_rate table to feed this host back",
            )


def feedback_path(rc: RateControl | None, host_node: str, at: tuple, what: str, doc) -> list:
    """The path the explicit rate travels, from the link's input node to
    the host's node (none while the link is missing: refused elsewhere)."""
    link = None if rc is None else _link(rc, doc)
    if link is None:
        return []
    start = link.to if rc.link.endswith("_rev") and rc.link not in doc.links else link.from_
    return [PathRequest(start, host_node, (*at, "rate_control", "link"), what, 53)]
