"""What a report source is: a study result folder or a campaign folder, told
apart by what the folder holds rather than by its name."""

from __future__ import annotations

import json
import os
from pathlib import Path

from satcc.paths import unreachable


class ReportError(ValueError):
    """A source that cannot be reported on (missing, or neither kind of folder)."""


def study_json(path: str | os.PathLike[str]) -> Path | None:
    """The study result JSON of `path` (a folder or the .json itself), or None.

    The framework writes <out>/<study>.json; the folder is usually named
    after the study but `--out` may name it anything, so any JSON in the
    folder whose "study" field matches its file name counts.
    """
    path = Path(path)
    if path.is_file():
        return path if path.suffix == ".json" and _is_study_document(path) else None
    if not path.is_dir():
        return None
    preferred = path / f"{path.name}.json"
    candidates = [preferred] + sorted(p for p in path.glob("*.json") if p != preferred)
    for candidate in candidates:
        if candidate.is_file() and _is_study_document(candidate):
            return candidate
    return None


def _is_study_document(path: Path) -> bool:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(document, dict)
        and document.get("study") == path.stem
        and isinstance(document.get("checks"), list)
    )


def is_campaign(path: str | os.PathLike[str]) -> bool:
    return (Path(path) / "campaign.json").is_file()


def source_kind(path: str | os.PathLike[str]) -> str:
    """ "study" or "campaign"; ReportError when it is neither."""
    if is_campaign(path):
        return "campaign"
    if study_json(path) is not None:
        return "study"
    why = unreachable(path, "file or folder")
    if why is not None:
        raise ReportError(f"{path}: {why}")
    raise ReportError(
        f"{path}: neither a study result folder (with <study>.json from `satcc reproduce`) "
        "nor a campaign folder (with campaign.json)"
    )
