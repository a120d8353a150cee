"""Inter-satellite links in the +Grid pattern (Hypatia, Kassing et al.,
IMC 2020; satgenpy's generate_plus_grid_isls): every
satellite links to the next one in its plane and to the one in the same
slot (plus a shift) in the next plane, wrapping around in both, so each
satellite has four links and a shell of N satellites has 2N."""

from __future__ import annotations

import numpy as np

from satcc.leo.shells import Shell, plane_and_slot


def plus_grid(shell: Shell, shift: int = 0) -> np.ndarray:
    """(2N, 2) satellite pairs (lower index first): the in-plane link
    then the cross-plane link of every satellite, in satellite order."""
    if shell.planes < 3 or shell.per_plane < 3:
        # Fewer would link a pair twice (or a satellite to itself).
        raise ValueError("+Grid needs at least 3 planes and 3 satellites per plane")
    plane, slot = plane_and_slot(shell)
    sat = plane * shell.per_plane + slot
    same_plane = plane * shell.per_plane + (slot + 1) % shell.per_plane
    next_plane = ((plane + 1) % shell.planes) * shell.per_plane + (slot + shift) % shell.per_plane
    other = np.stack((same_plane, next_plane), axis=1).reshape(-1)
    mine = np.repeat(sat, 2)
    return np.stack((np.minimum(mine, other), np.maximum(mine, other)), axis=1)
