"""The results store of one sweep, ``results/<sweep_id>/``: the only code that reads or writes it.

Layout (schema 2): ``manifest.json`` (schema, sweep definition, points, data summary and
fingerprint); ``data.json`` (the data record: file hashes, sampling, chosen ids);
``configs/<config_id>.json`` (one row per finished or failed config, carrying the data fingerprint);
``claims/<config_id>.csv`` (per-claim rows); ``results.csv`` (the table, rebuilt from the rows).
Every file is written to a temporary name and renamed, so a kill leaves each file whole or absent,
and a config counts as done only once its row exists (its per-claim file is written first).
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import math
import os
import re
import shutil
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from vera_lab.chunking import CHUNKING_CHANGES, CHUNKING_VERSION
from vera_lab.data import CLAIMS_FILE, CORPUS_FILE, atomic_write
from vera_lab.sweep.config import CI_METRICS, Configuration
from vera_lab.sweep.data import Sampling, data_record, describe_change, prepared_dataset
from vera_lab.types import Dataset

SCHEMA = 2
_TMP = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")  # what atomic_write's mkstemp names look like


class StoreError(ValueError):
    """A results directory cannot be used as asked; the message says what to do."""


def chunking_change(manifest: dict[str, Any]) -> str:
    """How the chunkers that made a run's chunks differ from these, in words ("": the same version).

    A run recorded before the version was is the first version's.
    """
    made_by = manifest.get("chunking_version", 1)
    if made_by == CHUNKING_VERSION:
        return ""
    return (
        f"its chunks were made by chunking version {made_by}, and this vera-lab makes version "
        f"{CHUNKING_VERSION} ({CHUNKING_CHANGES.get(CHUNKING_VERSION, 'chunkers changed')})"
    )


class DataChangedError(StoreError):
    """The stored results were made otherwise (data, models, chunkers); nothing was computed."""


class ResultsStore:
    """Read and write one sweep's results directory."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)

    # -- manifest and schema ------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    def exists(self) -> bool:
        return self.manifest_path.exists()

    # What a run writes: these files at its top level, these folders, and the stores of its screen,
    # confirmation and comparisons (folders with a manifest.json of their own).
    OWN_FILES = frozenset({"manifest.json", "data.json", "results.csv", "recommendation.json",
                           "confirmation.json", "halving.json", "report.html", "report.md",
                           ".vera-lab-written.json"})  # fmt: skip
    OWN_FOLDERS = frozenset({"configs", "claims", "report_files"})

    def holds_file(self, path: str | Path) -> bool:
        """Whether ``path`` is one of this run's own files (its results, reports or stored rows)."""
        inside, home = Path(path).resolve(), self.dir.resolve()
        if home not in inside.parents:
            return False
        first = inside.relative_to(home).parts[0]
        if inside.parent == home:
            return first in self.OWN_FILES
        return first in self.OWN_FOLDERS or (home / first / "manifest.json").exists()

    def read_manifest(self) -> dict[str, Any]:
        """The manifest, refused with a message when the directory is not a current results store."""
        if not self.manifest_path.exists():
            raise FileNotFoundError(f"{self.dir}: no manifest.json (not a sweep results directory)")
        manifest = self._read(self.manifest_path)
        schema = manifest.get("schema", 1)
        if schema != SCHEMA:
            raise StoreError(
                f"{self.dir}: written by {'an older' if schema < SCHEMA else 'a newer'} vera-lab "
                f"(results schema {schema}, this one reads {SCHEMA}); its rows cannot be checked "
                "against the data they came from. Re-run the sweep with --restart (the old results "
                f"are moved aside to {self.dir.name}.<date>) or give it a new name"
            )
        return manifest

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write(self.manifest_path, json.dumps({**manifest, "schema": SCHEMA}, indent=2, default=str))

    def points(self) -> dict[str, Configuration]:
        """Every configuration the sweep has asked for, by id."""
        return {cid: Configuration.from_dict(p) for cid, p in self.read_manifest()["points"].items()}

    def point(self, config_id: str) -> Configuration:
        """One stored configuration; ``best`` names the recommended one."""
        if config_id == "best":
            config_id = self.read_optional_json("recommendation.json").get("config_id", "")
            if not config_id:
                raise StoreError(
                    f"{self.dir}: no recommended configuration (none finished: see results.csv for each "
                    "error); fix the cause and run the sweep again, or name one with --config CONFIG_ID"
                )
        points = self.read_manifest()["points"]
        if config_id not in points:
            raise StoreError(f"{self.dir}: no config {config_id!r} (see results.csv for the ids)")
        return Configuration.from_dict(points[config_id])

    # -- the data a run used ----------------------------------------------------------------------

    def write_data(self, record: dict[str, Any]) -> None:
        """Store the data record, with the dataset's path also relative to this folder (moved together)."""
        path = Path(record["path"]).resolve()
        record = {**record, "path": str(path), "path_from_run": os.path.relpath(path, self.dir.resolve())}
        atomic_write(self.dir / "data.json", json.dumps(record, indent=1))

    def read_data(self) -> dict[str, Any] | None:
        path = self.dir / "data.json"
        return self._read(path) if path.exists() else None

    def dataset(self) -> Dataset:
        """The dataset the sweep ran on, with its sampling applied, checked to be the data it used.

        Every reader of a run (report, export, notebooks) comes through here: data that changed since
        the run raises :class:`DataChangedError` saying what changed, as ``sweep`` does. A run whose
        chunks another version of the chunkers made is read with a warning: chunks made again here (an
        export, the report's diagnostics) may differ from those it measured.
        """
        path, sampling = self.data_source()
        manifest = self.read_manifest()
        stored = self.read_data() or manifest["data"]
        changes = describe_change(stored, data_record(path, sampling))
        if changes:
            raise DataChangedError(
                f"{self.dir}: the data behind this run changed since it ran ({path}): {'; '.join(changes)}. "
                "Nothing was read or written. Restore that data, or run the sweep again with --restart"
            )
        if changed := chunking_change(manifest):
            warnings.warn(
                f"{self.dir}: {changed}: chunks made again from it may differ from those it measured; "
                "run the sweep again with --restart to measure these",
                stacklevel=2,
            )
        return prepared_dataset(path, sampling)

    def data_source(self) -> tuple[str, Sampling]:
        """Where the run's dataset is now, and the sampling the run applied.

        The dataset is at its absolute path, or at the same place relative to this folder when both
        were moved together.
        """
        data = self.read_manifest()["data"]
        stored = self.read_data() or data
        candidates = [Path(data["path"])]
        if "path_from_run" in stored:
            candidates.append(self.dir / stored["path_from_run"])
        for candidate in candidates:
            if (candidate / CORPUS_FILE).is_file() and (candidate / CLAIMS_FILE).is_file():
                return str(candidate), Sampling(**data["sampling"])
        shown = " or ".join(str(c) for c in dict.fromkeys(candidates))
        raise StoreError(
            f"{self.dir}: the dataset this run used is not at {shown}; put it back there (its fingerprint "
            f"{data['fingerprint']} is checked)"
        )

    # -- rows -------------------------------------------------------------------------------------

    def remove_partial_files(self) -> int:
        """Delete temporary files a killed run of the store left behind; returns how many."""
        partial = [
            p
            for folder in (self.dir, self.dir / "configs", self.dir / "claims")
            for p in folder.glob(".*.tmp")
            if _TMP.match(p.name)
        ]
        for path in partial:
            path.unlink(missing_ok=True)
        return len(partial)

    def stored_rows(self) -> dict[str, dict[str, Any]]:
        """Every stored row by config id."""
        return {p.stem: self._read(p) for p in sorted((self.dir / "configs").glob("*.json"))}

    def done(self, fingerprint: str) -> set[str]:
        """Ids of configs finished on the data with this fingerprint (failed ones are retried)."""
        return {
            cid
            for cid, row in self.stored_rows().items()
            if row.get("status") == "ok" and row.get("data_fingerprint") == fingerprint
        }

    def write_config(self, row: dict[str, Any], per_claim: pd.DataFrame | None) -> None:
        """Store one config's per-claim rows, then its row (which marks it done)."""
        config_id = row["config_id"]
        if per_claim is not None:
            buffer = io.StringIO()
            per_claim.assign(config_id=config_id).to_csv(buffer, index=False)
            atomic_write(self.dir / "claims" / f"{config_id}.csv", buffer.getvalue())
        atomic_write(self.dir / "configs" / f"{config_id}.json", json.dumps(row, default=_plain))

    def rows(self) -> pd.DataFrame:
        """One row per stored config, in the manifest's grid order, with ``rank_<metric>`` columns."""
        manifest = self.read_manifest()
        table = pd.DataFrame(list(self.stored_rows().values()))
        if table.empty:
            return table
        order = {cid: i for i, cid in enumerate(manifest.get("config_order", []))}
        table = table.sort_values(
            "config_id", key=lambda s: s.map(order).fillna(len(order)), kind="stable"
        ).reset_index(drop=True)
        return _with_ranks(table, manifest.get("final_config_ids"))

    def per_claim(self, config_id: str) -> pd.DataFrame:
        return pd.read_csv(self.dir / "claims" / f"{config_id}.csv", dtype={"claim_id": str})

    def write_table(self, extra: dict[str, dict[str, Any]] | None = None) -> pd.DataFrame:
        """Rebuild ``results.csv`` from the rows; ``extra`` adds columns by config id."""
        table = self.rows()
        for column, values in (extra or {}).items():
            table[column] = table["config_id"].map(values)
        atomic_write(self.dir / "results.csv", table.to_csv(index=False))
        return table

    def write_json(self, name: str, payload: Any) -> None:
        atomic_write(self.dir / name, json.dumps(payload, indent=2, default=_plain))

    def read_json(self, name: str) -> Any:
        return self._read(self.dir / name)

    def read_optional_json(self, name: str) -> Any:
        """A JSON file of the run, or ``{}`` when it is not there (yet)."""
        return self.read_json(name) if (self.dir / name).exists() else {}

    # -- whole runs -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder for one sweep at a time; a second one gets a clear error, not a race.

        The lock file sits beside the folder (``.<name>.lock``), so the folder holds results only.
        """
        self.dir.parent.mkdir(parents=True, exist_ok=True)
        handle = (self.dir.parent / f".{self.dir.name}.lock").open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise StoreError(
                f"{self.dir}: another sweep is using it ({holder}); wait for it to finish or use another name"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()

    def move_aside(self) -> Path:
        """Rename the directory to ``<name>.<date>`` beside it (never deleted); returns the new path."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        target = self.dir.with_name(f"{self.dir.name}.{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.dir.with_name(f"{self.dir.name}.{stamp}-{n}")
        shutil.move(str(self.dir), str(target))
        return target

    def _read(self, path: Path) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise StoreError(
                f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); restore it or re-run with --restart"
            ) from None


def _with_ranks(table: pd.DataFrame, final_ids: list[str] | None) -> pd.DataFrame:
    """``rank_<metric>`` columns in scikit-learn's ``rank_test_*`` habit: 1 is best, ties share the lowest.

    Only finished configs of the final round are ranked (screened configs of a halving run are not).
    """
    eligible = table["status"].eq("ok") if "status" in table else pd.Series(False, index=table.index)
    if final_ids is not None:
        eligible &= table["config_id"].isin(final_ids)
    for metric in CI_METRICS:
        if metric in table:
            values = pd.to_numeric(table[metric], errors="coerce").where(eligible)
            table[f"rank_{metric}"] = values.rank(ascending=False, method="min").astype("Int64")
    return table


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


@dataclass(frozen=True)
class StoredRun:
    """One results directory as ``vera-lab runs`` lists it; ``problem`` says why it cannot be read."""

    directory: Path
    dataset: str = ""
    configs: int = 0
    finished: str = ""
    best: str = ""
    problem: str = ""


def list_runs(root: str | Path) -> list[StoredRun]:
    """Every sweep stored under ``root``; one unreadable run is reported, not fatal."""
    runs = []
    for directory in sorted(p.parent for p in Path(root).glob("*/manifest.json")):
        store = ResultsStore(directory)
        try:
            manifest = store.read_manifest()
            rec = store.read_optional_json("recommendation.json")
            rows = store.stored_rows()
            store.dataset()  # a run whose data changed is listed with what changed
        except (StoreError, OSError, ValueError) as exc:
            runs.append(StoredRun(directory, problem=str(exc)))
            continue
        value = rec.get("value")
        best = (
            f"best {rec['metric']} {value:.4f} ({rec['config_id']})"
            if isinstance(value, int | float) and math.isfinite(value)
            else "unfinished"
        )
        runs.append(
            StoredRun(directory, manifest["data"]["name"], len(rows), manifest.get("finished", ""), best)
        )
    return runs


def load_results(directory: str | Path) -> pd.DataFrame:
    """The table of a stored sweep as a DataFrame."""
    return ResultsStore(directory).rows()
