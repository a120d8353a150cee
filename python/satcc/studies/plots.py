"""What every study's figures share: a matplotlib figure off-screen with the
studies' size and grid, a PNG written atomically and byte for byte the same
for the same data (no software or date stamp), and CSV written the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from satcc.studies.present import write_atomic


def figure(xlabel: str = "", ylabel: str = "", size: tuple[float, float] = (7.0, 4.4)) -> Any:
    """(fig, ax) on the Agg backend, gridded, with the axis labels given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size, dpi=110)
    ax.grid(True, which="both", alpha=0.3)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    return fig, ax


def save_png(fig: Any, path: Path) -> str:
    """Writes `fig` to `path` (beside, then renamed: never half a PNG),
    closes it and returns the file's name."""
    import matplotlib.pyplot as plt

    tmp = path.with_name(f".{path.name}.tmp")
    fig.tight_layout()
    fig.savefig(tmp, format="png", metadata={"Software": None})
    tmp.replace(path)
    plt.close(fig)
    return path.name


def write_csv(frame: pd.DataFrame, path: Path) -> str:
    write_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
    return path.name
