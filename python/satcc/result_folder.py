"""Result folders: one run's summary, time series, scenario and run facts on disk.

A result folder is what a study, a report or a colleague reads back later, so
it must never be half-written: everything goes into a hidden sibling
directory that is renamed into place only when complete. The deterministic
files (summary.json, series/*.parquet, scenario.json) are byte-identical for
identical runs, so two result folders can be compared with `diff -r`; only
run.json (wall time, event rate, version) may differ.

A writer killed mid-write (kill -9, out of memory) leaves its hidden
sibling behind; the next write into the same parent folder removes it, or,
if the kill fell between the two renames of a replacement, puts the old
result folder back (see _remove_stale_siblings)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .fslocks import hold, release, stale
from .paths import unreachable

SUMMARY_FILE = "summary.json"
SCENARIO_FILE = "scenario.json"
RUN_FILE = "run.json"
SERIES_DIR = "series"
# TCP traces ([traces.NAME] tcp = ...) as TRACES_DIR/NAME.parquet; a link's
# capture is NAME.pcap at the top of the folder.
TRACES_DIR = "traces"
PCAP_SUFFIX = ".pcap"

# Series names become file names; probe names are [A-Za-z_][A-Za-z0-9_-]* and
# the runner joins probe and metric with a dot, so this admits every legal
# name and nothing that could escape the folder.
_SERIES_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
# The hidden siblings _fresh_sibling names: .NAME.tmp-PID-HEX8 (being
# written) and .NAME.old-PID-HEX8 (the folder it replaces, being deleted).
_SIBLING = re.compile(r"^\.(?P<name>.+)\.(?P<role>tmp|old)-(?P<pid>\d+)-[0-9a-f]{8}$")
SERIES_SUFFIX = ".parquet"
# Random part of the hidden siblings' names (hex digits: twice the bytes).
_TOKEN_BYTES = 4
# Linux's limits, for a file system that does not say (os.pathconf fails).
_NAME_MAX = 255
_PATH_MAX = 4096


class ResultWriteError(OSError):
    """Writing a result folder failed part-way (a full disk, a file system
    gone): nothing of it remains and the previous folder is untouched. The
    message names the folder and what the system said."""

    def __init__(self, target: Path, cause: OSError):
        where = f" ({cause.filename})" if cause.filename else ""
        super().__init__(
            cause.errno,
            f"{target}: could not write the result folder: {cause.strerror or cause}{where}; "
            "nothing was written and any previous result there is untouched",
        )


class OutputFolderError(OSError, ValueError):
    """A result folder that cannot be written where asked, found before writing anything.

    An OSError because the file system is what refuses (a parent that is a
    file, a read-only parent, a name too long), and a ValueError because the
    fix is another --out or another probe name, as for io.UnsupportedOperation.
    """


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
    # A file, not a path: pyarrow reads a path as UTF-8 text, which a Linux
    # file name need not be (--out with bytes that are not UTF-8).
    with open(path, "wb") as file:
        pq.write_table(table, file, compression="zstd", write_statistics=True)


def read_series_parquet(path: Path) -> pd.DataFrame:
    with open(path, "rb") as file:
        return pq.read_table(file).to_pandas()


def write_result(result: Any, out_dir: str | os.PathLike[str], *, overwrite: bool = True) -> Path:
    """Write `result` (a satcc.runner.Result) as a result folder at `out_dir`, atomically.

    Returns the folder's path. With overwrite=False an existing folder is an
    error (FileExistsError) and is left alone. On any failure, including
    KeyboardInterrupt, the previous folder (if any) is untouched and no
    temporary directory remains.
    """
    target = Path(out_dir)
    parent = target.parent
    if os.path.exists(target) and not overwrite:
        raise FileExistsError(f"{target}: result folder exists (not overwriting)")
    check_output_folder(target, result.series_names)
    parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_siblings(parent)
    tmp = _fresh_sibling(target, "tmp")
    held = None
    try:
        held = hold(tmp)  # tells later writers this folder is not stale
        _write_contents(result, tmp)
        _swap_into_place(tmp, target, overwrite=overwrite)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError) and not isinstance(e, FileExistsError | OutputFolderError):
            raise ResultWriteError(target, e) from e
        raise
    finally:
        release(held)
    return target


def _remove_stale_siblings(parent: Path) -> None:
    """Remove the hidden siblings that killed writers left in `parent`, and
    only those: named as _fresh_sibling names them, real folders (not links),
    their writer gone (satcc.fslocks.stale). A stale "old" folder whose
    result folder is missing is the previous result of a replacement killed
    between its two renames: it is put back rather than deleted."""
    for entry in parent.iterdir():
        m = _SIBLING.match(entry.name)
        if not m or entry.is_symlink() or not entry.is_dir() or not stale(entry, int(m["pid"])):
            continue
        target = parent / m["name"]
        if m["role"] == "old" and not target.exists() and (entry / SUMMARY_FILE).is_file():
            try:
                os.rename(entry, target)
            except OSError:
                pass  # another writer got there first
        else:
            shutil.rmtree(entry, ignore_errors=True)


def _fresh_sibling(target: Path, role: str) -> Path:
    """Create an empty hidden directory beside `target`, unique to this call.

    Not tempfile.mkdtemp: that makes the directory mode 0700, and the folder
    becomes the result folder, which should get the user's usual permissions.
    """
    while True:
        name = _sibling_name(target.name, role, os.getpid(), secrets.token_hex(_TOKEN_BYTES))
        candidate = target.parent / name
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate


def _sibling_name(name: str, role: str, pid: int, token: str) -> str:
    return f".{name}.{role}-{pid}-{token}"


def _write_contents(result: Any, folder: Path) -> None:
    (folder / SUMMARY_FILE).write_text(summary_json(result.summary), encoding="utf-8")
    (folder / SCENARIO_FILE).write_text(_description_json(result.description), encoding="utf-8")
    series_dir = folder / SERIES_DIR
    series_dir.mkdir()
    for name in result.series_names:
        write_series_parquet(result.series(name), series_dir / f"{name}{SERIES_SUFFIX}")
    (folder / RUN_FILE).write_text(_run_json(result), encoding="utf-8")
    _write_traces(result, folder)
    # Files a run wrote beside its result (an emulation's captures and logs).
    for name, source in sorted(getattr(result, "files", {}).items()):
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def _write_traces(result: Any, folder: Path) -> None:
    """A link's capture as NAME.pcap, a TCP trace as traces/NAME.parquet."""
    names = getattr(result, "trace_names", [])
    tcp = []
    for name in names:
        try:
            data = result.pcap(name)
        except KeyError:
            tcp.append(name)
            continue
        (folder / f"{name}{PCAP_SUFFIX}").write_bytes(data)
    if tcp:
        (folder / TRACES_DIR).mkdir()
        for name in tcp:
            write_series_parquet(result.trace(name), folder / TRACES_DIR / f"{name}{SERIES_SUFFIX}")


def write_file_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Writes `data` to `path` through a hidden sibling renamed into place:
    the file is whole or absent, never half-written."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}-{secrets.token_hex(_TOKEN_BYTES)}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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
    if "satcc_build" not in facts:
        from satcc.build import build_id

        facts["satcc_build"] = build_id()
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


def _try_creating_in(folder: str | os.PathLike[str], refuse: Callable[[str], Exception]) -> None:
    """Create and remove an empty hidden folder in `folder`: permissions
    alone do not tell (/proc and /sys refuse new entries to root, a full
    disk refuses everyone)."""
    try:
        probe = tempfile.mkdtemp(prefix=".satcc-probe-", dir=folder)
    except OSError as e:
        raise refuse(f"cannot create anything in {folder}: {e.strerror}") from None
    os.rmdir(probe)


def check_output_folder(folder: str | os.PathLike[str], series_names: Iterable[str] = ()) -> None:
    """Refuses, leaving nothing behind, a result folder that could not be written at `folder`.

    Meant to be called before the run, so that a run is never spent on an
    output that then fails. FileExistsError when `folder` exists and may not
    be replaced; OutputFolderError when a parent is a file, the nearest
    existing parent does not let us create files, or a name would not fit the
    file system once satcc's additions are made: the hidden sibling the
    folder is written in (.NAME.tmp-PID-XXXXXXXX) and the .parquet file of
    each series in `series_names` (a run's probe names).
    """
    path = Path(folder)

    def refuse(reason: str) -> OutputFolderError:
        return OutputFolderError(f"{path}: cannot write the result folder: {reason}")

    # os.path.exists, not Path.exists: a name too long raises there (ENAMETOOLONG).
    if os.path.exists(path):
        try:
            replaceable = _replaceable(path)
        except OSError as e:  # a folder we may not list
            raise refuse(f"cannot look into it: {e.strerror}") from None
        if not replaceable:
            raise FileExistsError(
                f"{path}: exists and is not a satcc result folder (no {SUMMARY_FILE}); "
                "refusing to replace it: choose another --out"
            )

    if path.name in ("", ".", ".."):
        # The folder is renamed into place, which needs a name in its parent.
        raise refuse("name the folder itself, not . or ..")
    existing, to_create = _nearest_existing_parent(path)
    if not os.path.isdir(existing):
        why = unreachable(existing, "folder")
        raise refuse(f"{existing} is {why}" if why else f"{existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        if _read_only_file_system(existing):
            raise refuse(f"{existing} is on a read-only file system")
        raise refuse(f"no permission to create files in {existing}")
    _try_creating_in(existing, refuse)

    name_max = _pathconf(existing, "PC_NAME_MAX", _NAME_MAX)
    for name in to_create:
        if _bytes(name) > name_max:
            raise refuse(
                f"the folder name {name!r} is {_bytes(name)} bytes long; "
                f"the file system allows {name_max}"
            )
    sibling = _sibling_name(path.name, "tmp", os.getpid(), "0" * 2 * _TOKEN_BYTES)
    if _bytes(sibling) > name_max:
        allowed = name_max - (_bytes(sibling) - _bytes(path.name))
        raise refuse(
            f"its name is {_bytes(path.name)} bytes long; while writing, satcc keeps the folder "
            f"in a hidden sibling named .NAME.tmp-PID-XXXXXXXX, which must fit the file "
            f"system's {name_max} bytes, so the folder's name may have at most {allowed} bytes"
        )
    longest = ""
    for name in series_names:
        file_name = f"{name}{SERIES_SUFFIX}"
        if not _SERIES_NAME.match(name):
            raise refuse(f"series {name!r} cannot be used as a file name")
        if _bytes(file_name) > name_max:
            raise refuse(
                f"probe {name!r} would be written as {SERIES_DIR}/{file_name}, "
                f"{_bytes(file_name)} bytes, beyond the file system's {name_max} bytes per name: "
                f"give the probe a name of at most {name_max - _bytes(SERIES_SUFFIX)} bytes"
            )
        longest = max(longest, file_name, key=_bytes)

    # The longest path a write uses; the kernel refuses paths of PATH_MAX bytes or more.
    path_max = _pathconf(existing, "PC_PATH_MAX", _PATH_MAX)
    deepest = os.path.join(path.parent, sibling, SERIES_DIR, longest or SCENARIO_FILE)
    if _bytes(deepest) >= path_max:
        raise refuse(
            f"files in it would have paths of {_bytes(deepest)} bytes, beyond the system's "
            f"{path_max - 1}: choose a shorter --out"
        )


def _bytes(name: str) -> int:
    # File system limits count bytes, not characters.
    return len(os.fsencode(name))


def _nearest_existing_parent(path: Path) -> tuple[Path, list[str]]:
    """The nearest parent of `path` that exists, and the names to create below it
    (the missing parents, outermost first, then the folder itself)."""
    to_create = [path.name]
    parent = path.parent
    while not os.path.lexists(parent) and parent.parent != parent:
        to_create.append(parent.name)
        parent = parent.parent
    return parent, to_create[::-1]


def _read_only_file_system(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _pathconf(folder: Path, name: str, default: int) -> int:
    try:
        value = os.pathconf(folder, name)
    except (OSError, ValueError):
        return default
    # -1 means "no limit".
    return value if value > 0 else default


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
