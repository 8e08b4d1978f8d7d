"""``vera-lab verify PAIRS``: the general verifier on (claim, passage) pairs from a JSONL or CSV file.

A standalone grounding check, for instance of a RAG system's answers against the passages it
retrieved. Every input column is kept; ``p_supported``, ``p_contradicted``, ``p_not_mentioned`` and
``verdict`` are added. The output is never the input file, and an existing file is replaced only
with ``--force``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

from vera_lab.cli.common import UsageError, refuse_overwrite

REQUIRED = ("claim", "passage")
ADDED = ("p_supported", "p_contradicted", "p_not_mentioned", "verdict")


def read_pairs(path: Path) -> list[dict]:
    """The rows of a .jsonl or .csv file; each needs a non-empty ``claim`` and ``passage``."""
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise UsageError(f"{path}: give a .jsonl or .csv file with columns claim and passage")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a folder: give a .jsonl or .csv file") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise UsageError(
            f"{path}, line {line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8 and run it again"
        ) from None
    rows = _jsonl_rows(path) if suffix == ".jsonl" else _csv_rows(path, text)
    if not rows:
        raise UsageError(f"{path}: no rows; each row needs a claim and a passage")
    empty = [
        n
        for n, row in rows
        if not str(row.get("claim") or "").strip() or not str(row.get("passage") or "").strip()
    ]
    if empty:
        shown = ", ".join(map(str, empty[:5])) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
        raise UsageError(
            f"{path}: empty claim or passage on line {shown}; a verdict needs both: fill or remove those rows"
        )
    return [row for _, row in rows]


def _jsonl_rows(path: Path) -> list[tuple[int, dict]]:
    from vera_lab.data.dataset import jsonl_records

    rows = list(jsonl_records(path))
    for n, row in rows:
        _check_columns(path, row.keys(), f"line {n}")
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    _check_columns(path, reader.fieldnames or [], "the header")
    return [(reader.line_num, row) for row in reader]


def _check_columns(path: Path, columns, where: str) -> None:
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        have = ", ".join(map(str, columns)) or "none"
        raise UsageError(f"{path}: {where} has no {' or '.join(missing)} column (columns: {have})")


def write_pairs(rows: list[dict], out: Path | None, as_csv: bool) -> None:
    """Rows to ``out`` (written whole, then renamed into place) or to standard output as JSONL."""
    if out is None:
        for row in rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    from vera_lab.data.dataset import atomic_write
    from vera_lab.data.spreadsheet import safe_row

    if as_csv:
        columns = list(dict.fromkeys(k for row in rows for k in row))
        buffer = io.StringIO(newline="")
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(safe_row(row) for row in rows)  # passages are document text: no live formulas
        atomic_write(out, buffer.getvalue())
    else:
        atomic_write(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))


def cmd_verify(args: argparse.Namespace) -> None:
    """Score each (claim, passage) pair with the general verifier (or a verifier folder)."""
    from vera_lab.grounding import VERDICTS
    from vera_lab.grounding.general import load_verifier
    from vera_lab.grounding.verifier import VerifierError

    source = Path(args.pairs)
    out = Path(args.out) if args.out else None
    if out is not None:
        if out.suffix.lower() not in (".jsonl", ".csv"):
            raise UsageError(f"--out {out}: name a .jsonl or .csv file")
        refuse_overwrite(out, args.force, "--out", [source])
    rows = read_pairs(source)
    try:
        verifier = load_verifier(args.verifier, args.cache_dir)
    except VerifierError as exc:
        raise UsageError(str(exc)) from None
    probabilities = verifier.predict([(r["claim"], r["passage"]) for r in rows], progress=sys.stderr.isatty())
    for row, p in zip(rows, probabilities, strict=True):
        row.update({name: round(float(v), 6) for name, v in zip(ADDED[:3], p, strict=True)})
        row["verdict"] = VERDICTS[int(p.argmax())]
    write_pairs(rows, out, out is not None and out.suffix.lower() == ".csv")
    if out is not None:
        counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
        print(f"{out}: {len(rows)} pairs judged by the {verifier.name} verifier ("
              + ", ".join(f"{v} {n}" for v, n in counts.items()) + ")")  # fmt: skip
