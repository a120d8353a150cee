# Result folders: one run's summary, time series, scenario and run facts on disk.
#
# A result folder is what a study, a report or a colleague reads back later, so
# it must never be half-written: everything goes into a hidden sibling
# directory that is renamed into place only when complete. The deterministic
# files (summary.json, series/*.parquet, scenario.json) are byte-identical for
# identical runs, so two result folders can be compared with `diff -r`; only
# run.json (wall time, event rate, version) may differ.

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

SUMMARY_FILE = "summary.json"
SCENARIO_FILE = "scenario.json"
RUN_FILE = "run.json"
SERIES_DIR = "series"

# Series names become file names; probe names are [A-Za-z_][A-Za-z0-9_-]* and
# the runner joins probe and metric with a dot, so this admits every legal
# name and nothing that could escape the folder.
_SERIES_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass
class StoredResult:
    """A result folder read back: the deterministic parts plus run.json."""

    summary: dict[str, Any]
    series: dict[str, pd.DataFrame]
    description: dict[str, Any] | None = None
    run: dict[str, Any] = field(default_factory=dict)


def summary_json(summary: dict[str, Any]) -> str:
    """The exact text of summary.json: sorted keys so equal summaries give equal bytes."""
    return json.dumps(summary, sort_keys=True, indent=2) + "\n"


def write_series_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write one series so that equal frames give byte-identical files.

    The pandas schema metadata is dropped: it records the pandas version and
    index layout, which says nothing about the data and would make files
    written by different pandas versions differ.
    """
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata(None)
    pq.write_table(table, path, compression="zstd", write_statistics=True)


def read_series_parquet(path: Path) -> pd.DataFrame:
    return pq.read_table(path).to_pandas()


def write_result(result: Any, out_dir: str | os.PathLike[str], *, overwrite: bool = True) -> Path:
    """Write `result` (a satcc.runner.Result) as a result folder at `out_dir`, atomically.

    Returns the folder's path. With overwrite=False an existing folder is an
    error (FileExistsError) and is left alone. On any failure, including
    KeyboardInterrupt, the previous folder (if any) is untouched and no
    temporary directory remains.
    """
    target = Path(out_dir)
    parent = target.parent
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target}: result folder exists (not overwriting)")
    parent.mkdir(parents=True, exist_ok=True)
    tmp = _fresh_sibling(target, "tmp")
    try:
        _write_contents(result, tmp)
        _swap_into_place(tmp, target, overwrite=overwrite)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _fresh_sibling(target: Path, role: str) -> Path:
    """Create an empty hidden directory beside `target`, unique to this call.

    Not tempfile.mkdtemp: that makes the directory mode 0700, and the folder
    becomes the result folder, which should get the user's usual permissions.
    """
    while True:
        candidate = target.parent / f".{target.name}.{role}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate


def _write_contents(result: Any, folder: Path) -> None:
    (folder / SUMMARY_FILE).write_text(summary_json(result.summary), encoding="utf-8")
    (folder / SCENARIO_FILE).write_text(_description_json(result.description), encoding="utf-8")
    series_dir = folder / SERIES_DIR
    series_dir.mkdir()
    for name in result.series_names:
        if not _SERIES_NAME.match(name):
            raise ValueError(f"series name {name!r} cannot be used as a file name")
        write_series_parquet(result.series(name), series_dir / f"{name}.parquet")
    (folder / RUN_FILE).write_text(_run_json(result), encoding="utf-8")


def _description_json(description: dict[str, Any]) -> str:
    # The canonical form is the one the run key hashes; use the scenario
    # module's serialiser so that the file and the hash can never disagree.
    from satcc.scenario import normalised_json

    text = normalised_json(description)
    return text if text.endswith("\n") else text + "\n"


def _run_json(result: Any) -> str:
    import satcc

    facts = dict(result.info)
    facts["seed"] = result.seed
    facts.setdefault("satcc_version", satcc.__version__)
    return json.dumps(facts, sort_keys=True, indent=2, default=str) + "\n"


def _swap_into_place(tmp: Path, target: Path, *, overwrite: bool) -> None:
    """Rename `tmp` to `target`; an existing target is moved aside first and
    deleted only once the new folder is in place, so there is never a moment
    without a complete result folder on disk."""
    if not target.exists():
        os.rename(tmp, target)
        return
    if not overwrite:
        raise FileExistsError(f"{target}: result folder exists (not overwriting)")
    check_output_folder(target)
    aside = _fresh_sibling(target, "old")
    # The empty directory reserved the name; rename() onto an empty directory
    # is allowed on POSIX, so the old folder takes that name.
    os.rename(target, aside)
    try:
        os.rename(tmp, target)
    except BaseException:
        os.rename(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def check_output_folder(folder: str | os.PathLike[str]) -> None:
    """Raises FileExistsError when `folder` exists and may not be replaced."""
    path = Path(folder)
    if path.exists() and not _replaceable(path):
        raise FileExistsError(
            f"{path}: exists and is not a satcc result folder (no {SUMMARY_FILE}); "
            "refusing to replace it: choose another --out"
        )


def _replaceable(folder: Path) -> bool:
    # Only an empty folder or an earlier result may be replaced: --out
    # pointed at a folder of the user's own must never delete it.
    return folder.is_dir() and (not any(folder.iterdir()) or (folder / SUMMARY_FILE).is_file())


def read_result(out_dir: str | os.PathLike[str]) -> StoredResult:
    """Read a result folder written by write_result."""
    folder = Path(out_dir)
    summary_path = folder / SUMMARY_FILE
    if not summary_path.is_file():
        raise FileNotFoundError(f"{folder}: not a result folder (no {SUMMARY_FILE})")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    series = {
        path.stem: read_series_parquet(path)
        for path in sorted((folder / SERIES_DIR).glob("*.parquet"))
    }
    description = _read_json_if_present(folder / SCENARIO_FILE)
    run = _read_json_if_present(folder / RUN_FILE) or {}
    return StoredResult(summary=summary, series=series, description=description, run=run)


def _read_json_if_present(path: Path) -> Any:
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))
