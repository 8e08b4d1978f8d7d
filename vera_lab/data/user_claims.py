"""Claims as people write them: CSV or JSON Lines with quoted evidence instead of offsets.

CSV columns ``claim_id, claim, label, doc, evidence`` (several rows with one ``claim_id`` add
evidence quotes to it); JSONL objects ``{"claim_id", "claim", "label", "doc", "evidence": [...]}``.
``doc`` is a document id of the corpus (a path relative to the ingested folder); each quote is
located in that document (:func:`vera_lab.data.quotes.locate_quote`). Every problem is collected
with its ``file:line`` and reported together; nothing is returned half-read.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shlex
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vera_lab.data.dataset import (
    CLAIMS_FILE,
    CORPUS_FILE,
    DatasetError,
    claim_record,
    load_corpus,
    write_data_file,
)
from vera_lab.data.quotes import QuoteMatch, QuoteNotFound, locate_quote
from vera_lab.data.spreadsheet import unquoted
from vera_lab.types import LABELS, Claim, ClaimSet, Corpus, Span

CSV_COLUMNS = ("claim_id", "claim", "label", "doc", "evidence")


@dataclass(frozen=True)
class LocatedQuote:
    """How one quote of the claims file was found (for ``--report``)."""

    where: str  # file:line
    claim_id: str
    doc_id: str
    match: QuoteMatch


@dataclass(frozen=True)
class _Entry:
    where: str
    claim_id: str
    text: str
    label: str
    doc: str
    quotes: tuple[str, ...]


CSV_FIELD_LIMIT = 2**31 - 1  # a quoted clause may be long: the csv module's 128 KiB default is not ours


def _csv_entries(path: Path) -> list[_Entry]:
    csv.field_size_limit(CSV_FIELD_LIMIT)
    try:
        return _read_csv(path)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _read_csv(path: Path) -> list[_Entry]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise DatasetError(
                f"{path}:1: missing column(s) {', '.join(missing)} (need {', '.join(CSV_COLUMNS)})"
            )
        entries = []
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if row.get(None):  # DictReader's rest key: more fields than the header has columns
                raise DatasetError(
                    f"{where}: {len(reader.fieldnames) + len(row[None])} fields for {len(reader.fieldnames)} "
                    "columns; a field holding a comma must be in double quotes"
                )
            claim_id, text, label, doc, quote = (unquoted((row[c] or "").strip()) for c in CSV_COLUMNS)
            entries.append(_Entry(where, claim_id, text, label, doc, (quote,) if quote else ()))
    return entries


def _jsonl_entries(path: Path) -> list[_Entry]:
    try:
        return _read_jsonl(path)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _read_jsonl(path: Path) -> list[_Entry]:
    entries = []
    with path.open(encoding="utf-8-sig") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                record: Any = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{where}: invalid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise DatasetError(f"{where}: expected an object with claim_id, claim, label, doc, evidence")
            evidence = record.get("evidence", [])
            evidence = [evidence] if isinstance(evidence, str) else evidence
            if not isinstance(evidence, list) or not all(isinstance(q, str) for q in evidence):
                raise DatasetError(f"{where}: evidence must be a list of quoted passages")
            fields = [record.get(k, "") for k in ("claim_id", "claim", "label", "doc")]
            if not all(isinstance(v, str) for v in fields):
                raise DatasetError(f"{where}: claim_id, claim, label and doc must be strings")
            claim_id, text, label, doc = (v.strip() for v in fields)
            entries.append(_Entry(where, claim_id, text, label, doc, tuple(q for q in evidence if q.strip())))
    return entries


def read_claims(
    path: str | Path, corpus: Corpus, skip_missing: list[str] | None = None
) -> tuple[ClaimSet, list[LocatedQuote]]:
    """Read a claims file and locate every quote; raises :class:`DatasetError` listing every problem.

    With ``skip_missing`` (a list), rows whose document is not in the corpus (a file ingest skipped)
    are left out instead, each noted in that list as ``FILE:LINE: claim ID: doc DOC``.
    """
    path = Path(path)
    if path.suffix.lower() == ".csv":
        entries = _csv_entries(path)
    elif path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        entries = _jsonl_entries(path)
    else:
        raise DatasetError(f"{path}: give a .csv or .jsonl claims file")
    problems: list[str] = []
    located: list[LocatedQuote] = []
    claims: dict[str, dict[str, Any]] = {}
    for entry in entries:
        entry = dataclasses.replace(entry, doc=document_id(entry.doc, corpus))
        if skip_missing is not None and entry.doc not in corpus:
            skip_missing.append(
                f"{entry.where}: claim {entry.claim_id}: doc {entry.doc!r} is not in the corpus"
            )
            continue
        problem = _check(entry, corpus, claims)
        if problem:
            problems.append(f"{entry.where}: {problem}")
            continue
        claim = claims.setdefault(entry.claim_id, {"text": entry.text, "label": entry.label,
                                                   "doc": entry.doc, "spans": []})  # fmt: skip
        text = corpus[entry.doc].text
        for quote in entry.quotes:
            try:
                match = locate_quote(text, quote)
            except QuoteNotFound as exc:
                problems.append(f"{entry.where}: quote not found in {entry.doc} ({exc})")
                continue
            claim["spans"].append(Span(entry.doc, match.start, match.end))
            located.append(LocatedQuote(entry.where, entry.claim_id, entry.doc, match))
    if problems:
        raise DatasetError("\n".join(problems))
    if not claims:
        raise DatasetError(f"{path}: no claims in the file")
    out = tuple(
        Claim(cid, c["text"], c["label"], tuple(dict.fromkeys(c["spans"])), (c["doc"],))
        for cid, c in claims.items()
    )
    return ClaimSet(out, path.stem), located


def import_claims(
    path: str | Path, dataset_dir: str | Path, skip_missing: list[str] | None = None
) -> tuple[ClaimSet, list[LocatedQuote]]:
    """Read a claims file against a dataset's corpus and write its ``claims.jsonl`` (nothing on error).

    ``skip_missing``: see :func:`read_claims`.
    """
    corpus_path = Path(dataset_dir) / CORPUS_FILE
    if not corpus_path.is_file():
        raise DatasetError(
            f"{dataset_dir}: no {CORPUS_FILE} "
            f"(run `vera-lab ingest FOLDER --out {shlex.quote(str(dataset_dir))}`)"
        )
    corpus = load_corpus(corpus_path)
    _refuse_claims_among_documents(Path(path), corpus)
    claims, located = read_claims(path, corpus, skip_missing)
    write_data_file(Path(dataset_dir) / CLAIMS_FILE, (claim_record(c) for c in claims))
    return claims, located


def _refuse_claims_among_documents(path: Path, corpus: Corpus) -> None:
    """Stop when the claims file itself was ingested as a document: every quote would be retrieved from it."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return  # read_claims says what is wrong with the file
    size, words = len(text), text.split()  # compared by words: ingest may have changed line endings
    for doc in corpus:
        if abs(len(doc.text) - size) <= size // 10 + 2 and doc.text.split() == words:
            raise DatasetError(
                f"{doc.doc_id} in the corpus is this claims file ({path}), ingested as a document: its "
                "claims and quotes would be retrieved from it. Move it out of the documents folder, ingest "
                "again, then run claims"
            )


def document_id(doc: str, corpus: Corpus) -> str:
    """``doc`` as the corpus spells it: the same id, or the one it equals under Unicode NFC.

    A file name typed in NFC names an NFD file (as macOS stores names) and the other way round; an id
    that two documents share under NFC stays as typed (ingest warned about those twins).
    """
    if doc in corpus:
        return doc
    key = unicodedata.normalize("NFC", doc)
    matches = [d.doc_id for d in corpus if unicodedata.normalize("NFC", d.doc_id) == key]
    return matches[0] if len(matches) == 1 else doc


def _check(entry: _Entry, corpus: Corpus, claims: dict[str, dict[str, Any]]) -> str:
    """What is wrong with one row, or ""."""
    if not entry.claim_id or not entry.text:
        return "claim_id and claim must not be empty"
    if entry.label not in LABELS:
        return f"label {entry.label!r} is not one of {', '.join(LABELS)}"
    if entry.doc not in corpus:
        return (
            f"doc {entry.doc!r} is not in the corpus (document ids are paths relative to the ingested folder)"
        )
    if entry.label != "unsupported" and not entry.quotes and entry.claim_id not in claims:
        return f"a {entry.label} claim needs at least one evidence quote"
    known = claims.get(entry.claim_id)
    if known and (known["text"], known["label"], known["doc"]) != (entry.text, entry.label, entry.doc):
        return f"claim {entry.claim_id!r} appears again with another claim text, label or doc"
    return ""
