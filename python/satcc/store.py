"""The result store of a campaign: a folder of Parquet parts and one JSON file.

    campaign.json                  what the campaign is; written once, atomically
    runs/part-NNNNNN.parquet       one row per finished run (ok or failed)
    summary/part-NNNNNN.parquet    one row per successful run: key + summary keys
    series/part-NNNNNN.parquet     long table: key, series, time_s, value

Writers only ever add whole files: a part is written under a hidden temporary
name in its folder and then linked to a fresh `part-NNNNNN.parquet` name
(never replacing an existing part, so two writers cannot clobber each other),
so a reader sees a part completely or not at all and a `kill -9` loses only
what was not yet written. Of one append, the summary and series parts are
written before the runs part: a run counts as done only once its runs row
exists, and by then its results are on disk. Files are not fsync'ed: a killed
process loses nothing written, a power cut may.

Readers (DuckDB, in memory, one connection per query: no database file to
lock) de-duplicate by key, so a run written twice (a crash in the middle of
compact(), two sweeps racing) counts once: `runs` keeps one row per key,
preferring status "ok", then the latest; `summary` and `series` keep the rows
of one part per key.

One writer at a time plans, runs and compacts: `locked()` holds an flock on
`.lock` in the campaign folder (a sweep holds it from reading what is done to
its last compaction). Compaction writes the merged part before deleting the
parts it covers, and deletes them holding an exclusive flock on `.readers`;
satcc's own reads hold a shared one (`_consistent`), so a part never
vanishes under them however often a writer compacts. A writer creates
`.readers` when it opens the campaign; where it is missing or cannot be
opened (a campaign of an older satcc, a read-only copy), a read that lost a
part is read again instead. Temporary files left by a killed writer are
removed by the next writer into the same folder (satcc.fslocks tells them
from those of a writer still at work).
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .fslocks import LockFile, create_held, flocked, release, stale
from .param_text import written
from .paths import unreachable

__all__ = ["Campaign", "CampaignBusy", "CampaignError", "QueryError", "RunPoint", "results"]

CAMPAIGN_FILE = "campaign.json"
LOCK_FILE = ".lock"
READERS_FILE = ".readers"
TABLES = ("runs", "summary", "series")
PARAM_PREFIX = "param."
_PART = re.compile(r"^part-(\d{6,})\.parquet$")
_TMP_PREFIX = ".tmp-"
_TMP = re.compile(r"^\.tmp-(?P<pid>\d+)-[0-9a-f]{12}\.(?:parquet|json)$")
# A read that lost a part to a compaction is tried again, this often at most
# (one compaction per sweep: a second loss in a row is all but impossible).
READ_ATTEMPTS = 5
T = TypeVar("T")

# The fixed columns of runs, in order; the param.<key> columns follow params.
_RUN_FIELDS: list[tuple[str, pa.DataType]] = [
    ("key", pa.string()),
    ("status", pa.string()),
    ("seed", pa.int64()),
    ("params", pa.string()),
]
_RUN_TAIL: list[tuple[str, pa.DataType]] = [
    ("wall_s", pa.float64()),
    ("events", pa.int64()),
    ("error", pa.string()),
    ("satcc_version", pa.string()),
    ("satcc_build", pa.string()),
    ("finished", pa.string()),
]
_SQL_TYPES = {
    pa.string(): "VARCHAR",
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE",
}
SERIES_COLUMNS = ("key", "series", "time_s", "value")


class CampaignError(Exception):
    """A folder that is not a campaign, or a campaign this sweep may not use."""


class QueryError(ValueError):
    """A query a campaign does not run: empty, several statements, or one
    that is not a query (COPY, ATTACH, CREATE, SET, ...)."""


class CampaignBusy(CampaignError):
    """Another process holds the campaign's lock (and the caller would not wait)."""


@dataclass(frozen=True)
class RunPoint:
    """What the store records about a run besides its outcome."""

    params: dict[str, Any]
    seed: int


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _sql_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Campaign:
    """A campaign folder: append finished runs, read them back as tables."""

    def __init__(self, path: Path, meta: dict[str, Any]):
        self.path = path
        self.meta = meta
        self._next_part: dict[str, int] = {}
        self._lock_depth = 0
        self._cleaned: set[Path] = set()
        # Filled by satcc.sweep with the counts of the invocation that returned it.
        self.last_sweep: Any = None

    # -- opening ------------------------------------------------------------

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], create_with: Mapping[str, Any] | None = None
    ) -> Campaign:
        """Open the campaign at `path`; with `create_with` (the campaign.json
        contents) a missing campaign is created, else it is a CampaignError."""
        folder = Path(path)
        meta_path = folder / CAMPAIGN_FILE
        if not meta_path.is_file():
            why = unreachable(folder, "campaign folder")
            if why is not None and (create_with is None or os.path.lexists(folder)):
                # A link to nothing or a loop cannot become a campaign either.
                raise CampaignError(f"{folder}: {why}")
            if create_with is None:
                raise CampaignError(
                    f"{folder}: not a campaign folder (no {CAMPAIGN_FILE}; "
                    "`satcc sweep` creates campaigns)"
                )
            if folder.exists() and not folder.is_dir():
                raise CampaignError(f"{folder}: exists and is not a folder")
            if folder.is_dir() and any(
                p.name not in (*TABLES, CAMPAIGN_FILE) and not p.name.startswith(".")
                for p in folder.iterdir()
            ):
                raise CampaignError(
                    f"{folder}: exists, is not empty and is not a campaign "
                    f"(no {CAMPAIGN_FILE}); refusing to write into it: choose another --campaign"
                )
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                why = unreachable(folder.parent, "folder") or e.strerror
                raise CampaignError(f"{folder}: cannot create the campaign folder: {why}") from None
            text = json.dumps(dict(create_with), indent=2, sort_keys=False, default=str) + "\n"
            _write_once(meta_path, text)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise CampaignError(f"{meta_path}: unreadable campaign file: {e}") from e
        if not isinstance(meta, dict):
            raise CampaignError(f"{meta_path}: not a campaign file (expected a JSON object)")
        if create_with is not None:
            # A writer's: readers change nothing in the folder (satcc results).
            for table in TABLES:
                (folder / table).mkdir(exist_ok=True)
            (folder / READERS_FILE).touch(exist_ok=True)
        return cls(folder, meta)

    def __repr__(self) -> str:
        return (
            f"<satcc.Campaign {str(self.path)!r} scenario={self.meta.get('scenario')!r} "
            f"parameters={self.parameters}>"
        )

    @property
    def version(self) -> str | None:
        return self.meta.get("satcc_version")

    @property
    def build(self) -> str | None:
        """The build identity (satcc.build) the campaign was created by."""
        return self.meta.get("satcc_build")

    def builds(self) -> dict[str, int]:
        """Runs stored by each build ("unknown" for runs that predate the
        record), most first."""
        frame = self.sql(
            "select coalesce(satcc_build, 'unknown') as build, count(*) as n from runs "
            "group by 1 order by 2 desc, 1"
        )
        return {str(b): int(n) for b, n in zip(frame["build"], frame["n"], strict=True)}

    @property
    def parameters(self) -> list[str]:
        """The swept keys: those of campaign.json, then any a later sweep added."""
        keys = list(self.meta.get("parameters") or [])
        for column in self._param_columns_on_disk():
            name = column[len(PARAM_PREFIX) :]
            if name not in keys:
                keys.append(name)
        return keys

    # -- the writers' lock ---------------------------------------------------

    @contextmanager
    def locked(
        self, wait: bool = True, on_busy: Callable[[str], None] | None = None
    ) -> Iterator[None]:
        """Hold the campaign's lock, so that one process at a time decides
        what to run, runs it and compacts. Another holder: with `wait`, call
        on_busy(who holds it) and wait; else raise CampaignBusy. Re-entrant
        for this object (a sweep holds it and compacts)."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        lock = LockFile(self.path / LOCK_FILE)
        if not lock.acquire(wait, on_busy):
            raise CampaignBusy(f"{self.path}: in use by another process ({lock.holder()})")
        self._lock_depth = 1
        try:
            yield
        finally:
            self._lock_depth = 0
            lock.release()

    # -- parts --------------------------------------------------------------

    def parts(self, table: str) -> list[Path]:
        folder = self.path / table
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if _PART.match(p.name))

    def _claim(self, table: str, tmp: Path) -> Path:
        """Give the finished temporary file a fresh part name, atomically."""
        folder = self.path / table
        n = self._next_part.get(table)
        if n is None:
            numbers = [int(_PART.match(p.name).group(1)) for p in self.parts(table)]
            n = max(numbers, default=0) + 1
        while True:
            target = folder / f"part-{n:06d}.parquet"
            try:
                os.link(tmp, target)
            except FileExistsError:
                n += 1
                continue
            except OSError:
                # No hard links on this file system: a plain rename, still atomic.
                if target.exists():
                    n += 1
                    continue
                os.replace(tmp, target)
            break
        tmp.unlink(missing_ok=True)
        self._next_part[table] = n + 1
        return target

    def _write_part(self, table: str, data: pa.Table) -> Path:
        folder = self.path / table
        self._remove_stale_tmp(self.path)  # campaign.json's, from a creation killed
        self._remove_stale_tmp(folder)
        tmp = _tmp_path(folder, ".parquet")
        fd = create_held(tmp)
        try:
            pq.write_table(data.replace_schema_metadata(None), tmp, compression="zstd")
            return self._claim(table, tmp)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        finally:
            release(fd)

    def _remove_stale_tmp(self, folder: Path) -> None:
        """Remove the temporary files of writers killed mid-write (once per
        folder and object: a writer's own are removed as it goes)."""
        if folder in self._cleaned:
            return
        self._cleaned.add(folder)
        for p in folder.iterdir():
            m = _TMP.match(p.name)
            if m and not p.is_symlink() and p.is_file() and stale(p, int(m["pid"])):
                p.unlink(missing_ok=True)

    # -- writing ------------------------------------------------------------

    def append(
        self,
        outcomes: Iterable[Any],
        points: Mapping[str, RunPoint] | Sequence[RunPoint],
    ) -> list[Any]:
        """Store finished runs: `outcomes` (satcc.executors.Outcome) with the
        point (params, seed) each ran, by key or in the same order. Returns
        the outcomes as stored, which is what the caller must go on with: a
        run computed by another build comes back failed (`_same_build`)."""
        outcomes = list(outcomes)
        if not outcomes:
            return []
        if isinstance(points, Mapping):
            chosen = [points[o.key] for o in outcomes]
        else:
            chosen = list(points)
            if len(chosen) != len(outcomes):
                raise ValueError("append: one point per outcome is needed")
        finished = _now()
        summary_rows = []
        series_frames = []
        run_rows = []
        stored = []
        for outcome, point in zip(outcomes, chosen, strict=True):
            info = outcome.info or {}
            outcome = _same_build(outcome)
            stored.append(outcome)
            run_rows.append(
                {
                    "key": outcome.key,
                    "status": "ok" if outcome.ok else "failed",
                    "seed": int(point.seed),
                    "params": json.dumps(point.params, ensure_ascii=False),
                    **{PARAM_PREFIX + k: written(v) for k, v in point.params.items()},
                    "wall_s": _float_or_none(info.get("wall_s")),
                    "events": _int_or_none(info.get("events")),
                    "error": None if outcome.ok else (outcome.error or "failed"),
                    "satcc_version": info.get("satcc_version") or _version(),
                    "satcc_build": info.get("satcc_build") or _build(),
                    "finished": finished,
                }
            )
            if outcome.ok:
                summary_rows.append({"key": outcome.key, **(outcome.summary or {})})
                for name, (times, values) in (outcome.series or {}).items():
                    series_frames.append(
                        pa.table(
                            {
                                "key": pa.array([outcome.key] * len(times), pa.string()),
                                "series": pa.array([name] * len(times), pa.string()),
                                "time_s": pa.array(times, pa.float64()),
                                "value": pa.array(values, pa.float64()),
                            }
                        )
                    )
        # Results first, the runs row last: a run is done only once all is on disk.
        if summary_rows:
            self._write_part("summary", _summary_table(summary_rows))
        if series_frames:
            self._write_part("series", pa.concat_tables(series_frames))
        self._write_part("runs", _runs_table(run_rows))
        return stored

    def compact(self) -> None:
        """Merge each table's parts into one: the merged part is written (with
        rows de-duplicated by key) before the parts it covers are deleted, so
        a crash at any moment loses nothing (readers de-duplicate). Holds the
        campaign's lock (waiting for a sweep that holds it)."""
        with self.locked():
            for table in TABLES:
                self._compact(table)

    def _compact(self, table: str) -> None:
        parts = self.parts(table)
        if len(parts) < 2:
            return
        files = "[" + ", ".join(_sql_string(str(p)) for p in parts) + "]"
        source = f"read_parquet({files}, union_by_name=true, filename=true)"
        query = f"select * exclude (filename) from {source} {_dedup(table)}"
        con = _connect(readable=[self.path / table])
        try:
            merged = con.sql(query).to_arrow_table()
        finally:
            con.close()
        if table == "series":
            merged = merged.sort_by([("key", "ascending"), ("series", "ascending")])
        self._write_part(table, merged)
        with flocked(self.path / READERS_FILE, fcntl.LOCK_EX):
            for part in parts:
                part.unlink(missing_ok=True)

    # -- reading ------------------------------------------------------------

    def _listing(self) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(p.name for p in self.parts(t)) for t in TABLES)

    def _consistent(self, read: Callable[[], T]) -> T:
        """`read()` under the shared readers' lock; again if it failed because
        a part vanished all the same (no lock to hold, or an older writer):
        the merged part, written before the deletion, holds the same rows."""
        import duckdb

        for attempt in range(READ_ATTEMPTS):
            listing = self._listing()
            try:
                with flocked(self.path / READERS_FILE, fcntl.LOCK_SH, create=False):
                    return read()
            except (OSError, duckdb.Error):
                if attempt + 1 == READ_ATTEMPTS or self._listing() == listing:
                    raise
        raise AssertionError("unreachable")

    def done_keys(self) -> set[str]:
        """Keys with a row of status "ok": the runs a sweep need not repeat."""
        return self._consistent(self._done_keys)

    def _done_keys(self) -> set[str]:
        parts = self.parts("runs")
        if not parts:
            return set()
        keys: set[str] = set()
        for part in parts:
            t = pq.read_table(part, columns=["key", "status"])
            status = t.column("status").to_pylist()
            keys.update(
                k for k, s in zip(t.column("key").to_pylist(), status, strict=True) if s == "ok"
            )
        return keys

    def _param_columns_on_disk(self) -> list[str]:
        return self._consistent(self._param_columns)

    def _param_columns(self) -> list[str]:
        columns: list[str] = []
        for part in self.parts("runs"):
            for name in pq.read_schema(part).names:
                if name.startswith(PARAM_PREFIX) and name not in columns:
                    columns.append(name)
        return columns

    def connect(self) -> Any:
        """A fresh in-memory DuckDB connection with the views runs, summary and
        series over this campaign's parts (close it when done). It reads
        nothing but the campaign's table folders and writes no file: file
        access elsewhere, extensions and spilling to disk are off, and its
        configuration is locked. A query on it may fail if a compaction
        deletes parts meanwhile; sql() tries again."""
        con = _connect(readable=[self.path / t for t in TABLES])
        try:
            self._create_views(con)
        except BaseException:
            con.close()
            raise
        return con

    def _create_views(self, con: Any) -> None:
        params = [PARAM_PREFIX + k for k in self.meta.get("parameters") or []]
        run_parts = self.parts("runs")
        if run_parts:
            source = f"read_parquet({self._glob('runs')}, union_by_name=true, filename=true)"
            con.execute(
                f"create view runs_raw as select * exclude (filename) from {source} "
                f"{_dedup('runs')}"
            )
            on_disk = [
                r[0]
                for r in con.execute("select name from pragma_table_info('runs_raw')").fetchall()
            ]
            missing = [p for p in params if p not in on_disk]
            extra = ", ".join(f"NULL::VARCHAR as {_sql_ident(p)}" for p in missing)
            con.execute(
                "create view runs_flat as select *"
                + (f", {extra}" if extra else "")
                + " from runs_raw"
            )
        else:
            fields = _RUN_FIELDS + [(p, pa.string()) for p in params] + _RUN_TAIL
            cols = ", ".join(f"NULL::{_SQL_TYPES[t]} as {_sql_ident(n)}" for n, t in fields)
            con.execute(f"create view runs_flat as select {cols} where false")
        columns = [
            r[0] for r in con.execute("select name from pragma_table_info('runs_flat')").fetchall()
        ]
        param_cols = [c for c in columns if c.startswith(PARAM_PREFIX)]
        # `param` is a struct of the swept values, so that param."links.sat.rate"
        # reads as written; the flat columns stay for tools that want them.
        if param_cols:
            struct = ", ".join(
                f"{_sql_ident(c[len(PARAM_PREFIX) :])} := {_sql_ident(c)}" for c in param_cols
            )
            con.execute(
                f"create view runs as select *, struct_pack({struct}) as param from runs_flat"
            )
        else:
            con.execute("create view runs as select * from runs_flat")

        if self.parts("summary"):
            source = f"read_parquet({self._glob('summary')}, union_by_name=true, filename=true)"
            con.execute(
                f"create view summary_raw as select * exclude (filename) from {source} "
                f"{_dedup('summary')}"
            )
            con.execute(
                "create view summary as select r.*, s.* exclude (key) from runs r "
                "join summary_raw s on r.key = s.key where r.status = 'ok'"
            )
        else:
            con.execute("create view summary as select * from runs where false")

        if self.parts("series"):
            source = f"read_parquet({self._glob('series')}, union_by_name=true, filename=true)"
            con.execute(
                f"create view series as select * exclude (filename) from {source} "
                f"{_dedup('series')}"
            )
        else:
            con.execute(
                "create view series as select NULL::VARCHAR as key, NULL::VARCHAR as series, "
                "NULL::DOUBLE as time_s, NULL::DOUBLE as value where false"
            )

    def _glob(self, table: str) -> str:
        return _sql_string(str(self.path / table / "part-*.parquet"))

    def sql(self, query: str) -> pd.DataFrame:
        """Run one DuckDB query (SELECT, WITH, FROM, DESCRIBE, SUMMARIZE,
        EXPLAIN ...) over the views runs, summary and series; QueryError for
        an empty query, several statements, or a statement that is not a
        query (nothing in a campaign is written through SQL)."""
        return self._consistent(lambda: self._sql(query))

    def _sql(self, query: str) -> pd.DataFrame:
        con = self.connect()
        try:
            return con.execute(read_only_query(con, query)).df()
        finally:
            con.close()

    def sql_chunks(self, query: str, vectors: int = 50) -> Iterator[pd.DataFrame]:
        """The result of `query` (as for sql()) as DataFrames of at most
        `vectors` x 2048 rows, read as they are consumed, so a large result
        never sits whole in memory; the first holds the columns even when
        there are no rows. The readers' lock is held until the iterator ends
        or is closed: a compaction waits rather than delete parts being read."""
        with flocked(self.path / READERS_FILE, fcntl.LOCK_SH, create=False):
            con = self.connect()
            try:
                result = con.execute(read_only_query(con, query))
                chunk = result.fetch_df_chunk(vectors)
                yield chunk
                while len(chunk):
                    chunk = result.fetch_df_chunk(vectors)
                    if len(chunk):
                        yield chunk
            finally:
                con.close()

    def runs(self) -> pd.DataFrame:
        """One row per run (ok or failed), by key."""
        return self.sql(f"select {self._columns()} from runs order by {self._order()}")

    def summary(self) -> pd.DataFrame:
        """The successful runs joined with their summary columns."""
        return self.sql(f"select {self._columns()} from summary order by {self._order()}")

    def series(self, name: str) -> pd.DataFrame:
        """The time series `name` of every successful run, long: key, seed, the
        param.<key> columns, time_s, value."""
        return self._consistent(lambda: self._series(name))

    def _series(self, name: str) -> pd.DataFrame:
        con = self.connect()
        try:
            names = [r[0] for r in con.execute("select distinct series from series").fetchall()]
            if names and name not in names:
                known = ", ".join(sorted(names))
                raise KeyError(f"no series named {name!r} (series: {known})")
            params = [
                _sql_ident(r[0])
                for r in con.execute("select name from pragma_table_info('runs_flat')").fetchall()
                if r[0].startswith(PARAM_PREFIX)
            ]
            cols = ", ".join(
                ["s.key", "r.seed", *(f"r.{p}" for p in params), "s.time_s", "s.value"]
            )
            order = ", ".join([*params, "r.seed", "s.key", "s.time_s"])
            return con.execute(
                f"select {cols} from series s join runs r on r.key = s.key "
                f"where s.series = ? and r.status = 'ok' order by {order}",
                [name],
            ).df()
        finally:
            con.close()

    def overview(self) -> pd.DataFrame:
        """Runs ok and failed per parameter point, in the natural order of the
        swept values ("2 Mbps" before "10 Mbps")."""
        from .campaign_arrays import natural_order

        columns = [PARAM_PREFIX + k for k in self.parameters]
        group = ", ".join(_sql_ident(c) for c in columns)
        frame = self.sql(
            f"select {group + ', ' if group else ''}"
            "count(*) filter (where status = 'ok') as ok, "
            "count(*) filter (where status = 'failed') as failed from runs"
            + (f" group by {group}" if group else "")
        )
        if columns and len(frame):
            ranks = {c: {v: i for i, v in enumerate(natural_order(set(frame[c])))} for c in columns}
            order = sorted(
                range(len(frame)),
                key=lambda i: tuple(ranks[c][frame[c].iloc[i]] for c in columns),
            )
            frame = frame.iloc[order].reset_index(drop=True)
        return frame

    def _columns(self) -> str:
        # The struct `param` exists only when something was swept.
        return "* exclude (param)" if self.parameters else "*"

    def _order(self) -> str:
        params = [_sql_ident(PARAM_PREFIX + k) for k in self.parameters]
        return ", ".join([*params, "seed", "key"])

    def to_xarray(self, metric: str) -> Any:
        """The summary figure `metric` as an xarray DataArray with one dimension
        per swept key and one for the seed; missing runs are NaN. A swept
        quantity's coordinate is numeric in base units ("2 Mbps" -> 2e6, with
        attrs["units"] "bit/s"; times in s, sizes in B, queue limits in
        packets) and keeps the values as swept in the coordinate
        `KEY_label`; other values are coordinates as swept."""
        from .campaign_arrays import summary_array

        return summary_array(self.summary(), self.parameters, metric)


def _dedup(table: str) -> str:
    if table == "runs":
        return (
            "qualify row_number() over (partition by key order by (status = 'ok') desc, "
            "finished desc, filename) = 1"
        )
    if table == "summary":
        return "qualify row_number() over (partition by key order by filename) = 1"
    return "qualify filename = min(filename) over (partition by key)"


def _connect(readable: Sequence[Path] = ()) -> Any:
    """An in-memory DuckDB connection that may read the folders `readable`
    and no other file, and write none (COPY and ATTACH are refused by
    read_only_query, any other file access by DuckDB itself)."""
    import duckdb

    con = duckdb.connect(
        ":memory:",
        config={
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "temp_directory": "",  # no spilling: nothing written beside the campaign
        },
    )
    try:
        folders = [os.path.join(os.path.abspath(f), "") for f in readable]
        con.execute("set allowed_directories = ?", [folders])
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


# Statement kinds that only read. DESCRIBE, SUMMARIZE, SHOW, VALUES and FROM
# parse as SELECT.
_QUERY_KINDS = ("SELECT", "EXPLAIN")


def read_only_query(con: Any, query: str) -> str:
    """`query` if it is exactly one statement that only reads; QueryError
    otherwise, naming what it is."""
    import duckdb

    try:
        statements = con.extract_statements(query)
    except duckdb.Error as e:
        raise QueryError(f"SQL: {e}") from None
    if not statements:
        raise QueryError("the query is empty: give one SELECT statement")
    if len(statements) > 1:
        raise QueryError(f"the query holds {len(statements)} statements: give one")
    kind = statements[0].type.name
    if kind not in _QUERY_KINDS:
        raise QueryError(
            f"{kind} statements do not run on a campaign: only queries (SELECT, WITH, "
            "FROM, DESCRIBE, SUMMARIZE, EXPLAIN) do, and they read its tables only"
        )
    return query


def _runs_table(rows: list[dict[str, Any]]) -> pa.Table:
    params = dict.fromkeys(name for row in rows for name in row if name.startswith(PARAM_PREFIX))
    fields = _RUN_FIELDS + [(p, pa.string()) for p in params] + _RUN_TAIL
    schema = pa.schema(fields)
    return pa.Table.from_pylist(rows, schema=schema)


def _summary_table(rows: list[dict[str, Any]]) -> pa.Table:
    # Columns in first-seen order; a dict, not a list, since a run reports
    # hundreds of metrics and a batch holds up to hundreds of runs.
    names = dict.fromkeys(name for row in rows for name in row)
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            # Mixed kinds (a number in one run, text in another): keep the text.
            columns[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
        if pa.types.is_integer(columns[name].type) and any(isinstance(v, float) for v in values):
            columns[name] = columns[name].cast(pa.float64())
    return pa.table(columns)


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _version() -> str:
    from satcc import _core

    return _core.version()


def _build() -> str:
    from satcc.build import build_id

    return build_id()


def _same_build(outcome: Any) -> Any:
    """An outcome computed by another build than this one (a worker on a
    cluster running other code) would be stored under this build's key:
    it is kept as a failure instead."""
    theirs = (outcome.info or {}).get("satcc_build")
    if not outcome.ok or theirs is None or theirs == _build():
        return outcome
    from dataclasses import replace

    error = (
        f"computed by satcc build {theirs}, not by this one ({_build()}): the worker runs "
        "other code; install the same satcc on every worker"
    )
    return replace(outcome, ok=False, error=error, summary=None, series=None)


def _tmp_path(folder: Path, suffix: str) -> Path:
    return folder / f"{_TMP_PREFIX}{os.getpid()}-{secrets.token_hex(6)}{suffix}"


def _write_once(path: Path, text: str) -> None:
    """Write `path` atomically unless it exists: a racing creator keeps its own."""
    tmp = _tmp_path(path.parent, ".json")
    fd = create_held(tmp)
    try:
        tmp.write_text(text, encoding="utf-8")
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:
            if not path.exists():
                os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        release(fd)


def results(path: str | os.PathLike[str]) -> Campaign:
    """The campaign at `path`, to read (a CampaignError if it is not one)."""
    return Campaign.open(path)
