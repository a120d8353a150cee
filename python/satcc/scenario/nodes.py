"""[nodes.NAME]: routers and hosts, and the explicit routes that override fewest-hop routing.

A node forwards by a static next hop per destination. Routes given here are
checked where they are written (the destination exists, the link exists and
leaves this node); whether paths built from them work is routing's job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from .description import NOT_DESCRIBED, Desc, describe_named
from .errors import quote
from .tables import Section, _Table
from .values import Str, choice

if TYPE_CHECKING:
    from .validation import Checks, Resolved


class Node(_Table):
    type: Annotated[choice("router", "host"), Desc("kind")] = "router"
    # The description holds the next hops routing resolved, explicit or not.
    routes: Annotated[dict[str, Str], NOT_DESCRIBED] = Field(default_factory=dict)


def check_node(checks: Checks, path: tuple, name: str, node: Node) -> None:
    links = checks.entries("links")
    for dest, link in sorted(node.routes.items()):
        where = (*path, "routes", dest)
        if not checks.require(where, "nodes", dest) or not checks.require(where, "links", link):
            continue
        if dest == name:
            checks.refuse(where, f"a node needs no route to itself ({quote(name)})")
        elif links[link].from_ != name:
            checks.refuse(
                where,
                f"link {quote(link)} leaves node {quote(links[link].from_)}, not {quote(name)}",
            )


def describe_node(name: str, node: Node, resolved: Resolved) -> dict:
    routes = dict(sorted(resolved.routes[name].items()))
    return {**describe_named(name, node), "routes": routes}


SECTION = Section(
    key="nodes",
    table=Node,
    noun="node",
    description_key="nodes",
    check=check_node,
    describe=describe_node,
)
