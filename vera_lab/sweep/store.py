"""The results store of one sweep: ``results/<sweep_id>/``.

Layout: ``manifest.json``; ``configs/<config_id>.json`` (one row per finished or failed config);
``claims/<config_id>.csv`` (per-claim rows); ``results.csv`` (the table, rebuilt from the rows).
Every file is written to a temporary name and renamed, so a kill leaves each file whole or absent,
and a config counts as done only once its row exists (its per-claim file is written first).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ResultsStore:
    """Read and write one sweep's results directory."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    def read_manifest(self) -> dict[str, Any]:
        if not self.manifest_path.exists():
            raise FileNotFoundError(f"{self.dir}: no manifest.json (not a sweep results directory)")
        return json.loads(self.manifest_path.read_text(encoding="utf-8"))

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write(self.manifest_path, json.dumps(manifest, indent=2, default=str))

    def remove_partial_files(self) -> int:
        """Delete temporary files a killed run left behind (they are never read); returns how many."""
        partial = list(self.dir.glob("**/.*.tmp"))
        for path in partial:
            path.unlink(missing_ok=True)
        return len(partial)

    def done(self) -> set[str]:
        """Ids of configs with a stored row (finished or failed)."""
        return {p.stem for p in (self.dir / "configs").glob("*.json")}

    def write_config(self, row: dict[str, Any], per_claim: pd.DataFrame | None) -> None:
        """Store one config's per-claim rows, then its row (which marks it done)."""
        config_id = row["config_id"]
        if per_claim is not None:
            buffer = io.StringIO()
            per_claim.assign(config_id=config_id).to_csv(buffer, index=False)
            atomic_write(self.dir / "claims" / f"{config_id}.csv", buffer.getvalue())
        atomic_write(self.dir / "configs" / f"{config_id}.json", json.dumps(row, default=_plain))

    def rows(self) -> pd.DataFrame:
        """One row per stored config, in the manifest's grid order when known."""
        rows = [
            json.loads(p.read_text(encoding="utf-8")) for p in sorted((self.dir / "configs").glob("*.json"))
        ]
        table = pd.DataFrame(rows)
        if table.empty:
            return table
        try:
            order = {cid: i for i, cid in enumerate(self.read_manifest().get("config_order", []))}
            table = table.sort_values(
                "config_id", key=lambda s: s.map(order).fillna(len(order)), kind="stable"
            )
        except FileNotFoundError:
            pass
        return table.reset_index(drop=True)

    def per_claim(self, config_id: str) -> pd.DataFrame:
        return pd.read_csv(self.dir / "claims" / f"{config_id}.csv", dtype={"claim_id": str})

    def write_table(self) -> pd.DataFrame:
        table = self.rows()
        atomic_write(self.dir / "results.csv", table.to_csv(index=False))
        return table

    def write_json(self, name: str, payload: Any) -> None:
        atomic_write(self.dir / name, json.dumps(payload, indent=2, default=_plain))

    def read_json(self, name: str) -> Any:
        return json.loads((self.dir / name).read_text(encoding="utf-8"))


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def load_results(directory: str | Path) -> pd.DataFrame:
    """The table of a stored sweep as a DataFrame."""
    return ResultsStore(directory).rows()
