"""The project's dataset format: ``corpus.jsonl`` + ``claims.jsonl`` in one directory.

Loading validates every line and raises :class:`DatasetError` naming the file, line and reason;
nothing is returned half-loaded. Writing is atomic (temporary file, then rename).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from vera_lab.data.clusters import CLUSTER_BY, claim_clusters
from vera_lab.language import check_language, document_language
from vera_lab.types import LABELS, Claim, ClaimSet, Corpus, Dataset, Document, Span

CORPUS_FILE = "corpus.jsonl"
CLAIMS_FILE = "claims.jsonl"
METADATA_FILE = "dataset.json"  # optional: {"scope": "cited", ...provenance}
_SCOPES = ("corpus", "cited")
_DOC_FIELDS = {"doc_id": str, "text": str, "title": str, "format": str, "metadata": dict, "page_starts": list}
_CLAIM_FIELDS = {"claim_id": str, "claim": str, "label": str, "evidence": list, "cited_doc_ids": list,
                 "group": str, "source": str}  # fmt: skip


class DatasetError(ValueError):
    """A dataset file is missing or malformed; the message names the file and line."""


def normalisation_hint(doc_id: str, corpus) -> str:
    """``""``, or the corpus id that differs from ``doc_id`` only by Unicode normalisation, in words."""
    import unicodedata

    key = unicodedata.normalize("NFC", doc_id)
    twins = [d.doc_id for d in corpus if unicodedata.normalize("NFC", d.doc_id) == key]
    if not twins:
        return ""
    return (f" ({twins[0]!r} is, and the two differ only by Unicode normalisation (NFC vs NFD, as macOS "
            "writes file names): write the id exactly as the corpus does)")  # fmt: skip


def jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line of a JSON Lines file as (line number, object); a bad line raises a DatasetError naming it."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror})") from None
    with handle:
        try:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
                if not isinstance(record, dict):
                    raise DatasetError(f"{path}:{lineno}: expected a JSON object")
                yield lineno, record
        except UnicodeDecodeError as exc:
            raise DatasetError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _check_fields(path: Path, lineno: int, record: dict[str, Any], schema: dict, required: tuple) -> None:
    where = f"{path}:{lineno}"
    for key in required:
        if key not in record:
            raise DatasetError(f"{where}: missing field {key!r}")
    for key, value in record.items():
        if key not in schema:
            raise DatasetError(f"{where}: unknown field {key!r} (known: {', '.join(schema)})")
        if not isinstance(value, schema[key]):
            raise DatasetError(f"{where}: field {key!r} must be {schema[key].__name__}")


def load_corpus(path: str | Path) -> Corpus:
    """Read and validate a ``corpus.jsonl`` file."""
    path = Path(path)
    docs: list[Document] = []
    seen: dict[str, int] = {}
    for lineno, rec in jsonl_records(path):
        _check_fields(path, lineno, rec, _DOC_FIELDS, ("doc_id", "text"))
        doc_id = rec["doc_id"]
        if doc_id in seen:
            raise DatasetError(f"{path}:{lineno}: duplicate doc_id {doc_id!r} (first on line {seen[doc_id]})")
        seen[doc_id] = lineno
        _check_text(path, lineno, rec, ("doc_id", "text", "title"))
        pages = rec.get("page_starts", [])
        if not all(isinstance(p, int) and 0 <= p <= len(rec["text"]) for p in pages) or pages != sorted(
            pages
        ):
            raise DatasetError(f"{path}:{lineno}: page_starts must be increasing offsets into text")
        if "language" in (metadata := rec.get("metadata", {})):  # a document may name its own
            try:
                check_language(str(metadata["language"]), "metadata.language")
            except ValueError as exc:
                raise DatasetError(f"{path}:{lineno}: {exc}") from None
        docs.append(
            Document(
                doc_id,
                rec["text"],
                rec.get("title", ""),
                rec.get("format", "text"),
                metadata,
                tuple(pages),
            )
        )
    if not docs:
        raise DatasetError(f"{path}: no documents; a corpus needs at least one")
    return Corpus(tuple(docs))


def _check_text(path: Path, lineno: int, record: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Strings must be encodable: JSON can carry a lone surrogate that every tokenizer chokes on."""
    for key in keys:
        value = record.get(key)
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise DatasetError(
                    f"{path}:{lineno}: field {key!r} holds an invalid character ({value[exc.start]!r} at "
                    f"offset {exc.start}, a lone surrogate); fix the text's encoding"
                ) from None


def load_claims(path: str | Path, corpus: Corpus, name: str = "") -> ClaimSet:
    """Read a ``claims.jsonl`` file and check every evidence span against ``corpus``."""
    path = Path(path)
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for lineno, rec in jsonl_records(path):
        where = f"{path}:{lineno}"
        _check_fields(path, lineno, rec, _CLAIM_FIELDS, ("claim_id", "claim", "label"))
        claim_id = rec["claim_id"]
        if claim_id in seen:
            raise DatasetError(f"{where}: duplicate claim_id {claim_id!r} (first on line {seen[claim_id]})")
        seen[claim_id] = lineno
        _check_text(path, lineno, rec, ("claim_id", "claim"))
        if rec["label"] not in LABELS:
            raise DatasetError(f"{where}: label {rec['label']!r} is not one of {', '.join(LABELS)}")
        spans = [_evidence_span(where, k, ev, corpus) for k, ev in enumerate(rec.get("evidence", []))]
        cited = rec.get("cited_doc_ids", [])
        for doc_id in cited:
            _check_document(doc_id, corpus, f"{where}: cited_doc_ids", "must hold strings", "names")
        evidence_docs = list(dict.fromkeys(s.doc_id for s in spans))
        claims.append(
            Claim(
                claim_id,
                rec["claim"],
                rec["label"],
                tuple(spans),
                tuple(cited) or tuple(evidence_docs),
                rec.get("group", ""),
                rec.get("source", ""),
            )  # fmt: skip
        )
    if not claims:
        raise DatasetError(f"{path}: no claims; a claim set needs at least one")
    return ClaimSet(tuple(claims), name)


def _check_document(doc_id, corpus: Corpus, where: str, not_text: str, names: str) -> None:
    """A document id a claim gives: a string naming a document of the corpus, else a DatasetError."""
    if not isinstance(doc_id, str):
        raise DatasetError(f"{where} {not_text}, not {type(doc_id).__name__}")
    if doc_id not in corpus:
        raise DatasetError(
            f"{where} {names} {doc_id!r}, which is not in the corpus" + normalisation_hint(doc_id, corpus)
        )


def _evidence_span(where: str, k: int, ev, corpus: Corpus) -> Span:
    """``evidence[k]`` of a claim as a span, checked against the corpus."""
    if not isinstance(ev, dict) or set(ev) != {"doc_id", "start", "end"}:
        raise DatasetError(f"{where}: evidence[{k}] must be {{doc_id, start, end}}")
    doc_id, start, end = ev["doc_id"], ev["start"], ev["end"]
    _check_document(doc_id, corpus, f"{where}: evidence[{k}]", "doc_id must be a string", "cites doc_id")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        raise DatasetError(f"{where}: evidence[{k}] start and end must be integers")
    if not 0 <= start < end <= len(corpus[doc_id].text):
        raise DatasetError(
            f"{where}: evidence[{k}] span [{start}, {end}) is out of range for {doc_id!r} "
            f"({len(corpus[doc_id].text)} chars)"
        )
    return Span(doc_id, start, end)


def load_dataset(directory: str | Path) -> Dataset:
    """Load ``corpus.jsonl`` and ``claims.jsonl`` from ``directory``."""
    directory = Path(directory)
    missing = [f for f in (CORPUS_FILE, CLAIMS_FILE) if not (directory / f).is_file()]
    if missing:
        raise DatasetError(f"{directory}: no {' or '.join(missing)} (a dataset directory holds both files)")
    corpus = load_corpus(directory / CORPUS_FILE)
    name = directory.resolve().name
    meta = load_metadata(directory)
    if meta.get("language", "auto") != "auto":  # the dataset names its language for the documents that don't
        corpus = Corpus(tuple(
            dataclasses.replace(d, metadata={"language": meta["language"], **d.metadata}) for d in corpus
        ))  # fmt: skip
    else:
        corpus = with_corpus_language(corpus)
    dataset = Dataset(
        name, corpus, load_claims(directory / CLAIMS_FILE, corpus, name), meta.get("scope"),
        meta.get("cluster_by", "document"),
    )  # fmt: skip
    if dataset.cluster_by == "group":
        try:
            claim_clusters(list(dataset.claims), "group")
        except ValueError as exc:
            raise DatasetError(f"{directory / CLAIMS_FILE}: {exc}") from None
    return dataset


def with_corpus_language(corpus: Corpus) -> Corpus:
    """Documents too short to tell their language take the one most of the corpus is written in.

    A German FAQ of one-line answers is German, though "Wir treffen uns am 3. Oktober." alone reads as
    English ("am", "in" are English words too). Only a clear majority (over half of the documents that
    tell by their words) is lent, and never English; a document still undecided is read in the language
    its letter trigrams guess, else English (:func:`~vera_lab.language.detect_language`).
    """
    told = [document_language(d, default=None, guess=False) for d in corpus]  # a corpus knows better
    lent = _lent(told)
    if lent == told:
        return corpus
    return Corpus(tuple(
        d if language else dataclasses.replace(d, metadata={**d.metadata, "language": majority})
        for d, language, majority in zip(corpus, told, lent, strict=True)
    ))  # fmt: skip


def corpus_languages(corpus: Corpus) -> list[str]:
    """The language each document is read in: as :func:`with_corpus_language` lends it, else detected."""
    return [document_language(d) or "en" for d in with_corpus_language(corpus)]


def _lent(told: list[str | None]) -> list[str | None]:
    """``told`` with the corpus's clear non-English majority lent to the documents that told none."""
    counts = Counter(language for language in told if language)
    if not counts or all(told):
        return told
    majority, n = counts.most_common(1)[0]
    if majority == "en" or n * 2 <= sum(counts.values()):
        return told
    return [language or majority for language in told]


def load_metadata(directory: str | Path) -> dict[str, Any]:
    """``dataset.json`` of a dataset directory ({} when absent); ``scope`` must be corpus or cited."""
    path = Path(directory) / METADATA_FILE
    if not path.exists():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(meta, dict):
        raise DatasetError(f'{path}: expected an object such as {{"scope": "cited"}}')
    if meta.get("scope", "corpus") not in _SCOPES:
        raise DatasetError(f"{path}: scope {meta['scope']!r} is not one of {', '.join(_SCOPES)}")
    try:
        check_language(str(meta.get("language", "auto")), "language")
    except ValueError as exc:
        raise DatasetError(
            f"{path}: {exc} (sentence rules follow it; auto detects it per document)"
        ) from None
    if not isinstance(meta.get("long_documents", False), bool):
        raise DatasetError(
            f"{path}: long_documents {meta['long_documents']!r}: true or false (true makes budget recall "
            "the default metric of a sweep)"
        )
    if meta.get("cluster_by", "document") not in CLUSTER_BY:
        raise DatasetError(
            f"{path}: cluster_by {meta['cluster_by']!r} is not one of {', '.join(CLUSTER_BY)} (which claims "
            "are not independent: those about one document, those of one group field, or none)"
        )
    return meta


WRITTEN_FILE = ".vera-lab-written.json"  # beside a file vera-lab wrote: its sha256, to know it again


def write_data_file(path: str | Path, records: Iterable[dict[str, Any]]) -> None:
    """Write a dataset's ``corpus.jsonl`` or ``claims.jsonl`` and remember what was written.

    A later command may then replace a file vera-lab wrote, and only that (:func:`not_ours`).
    """
    write_jsonl(path, records)
    remember_written(path)


def remember_written(path: str | Path) -> None:
    """Record the sha256 of a file vera-lab just wrote, in the ledger beside it."""
    path = Path(path)
    atomic_write(
        path.parent / WRITTEN_FILE,
        json.dumps({**_ledger(path), path.name: file_sha256(path)}, indent=2) + "\n",
    )


def name_language(directory: str | Path, language: str) -> Path:
    """Name the language of a dataset's documents in its ``dataset.json``, keeping the file's other keys.

    Documents that name their own (``metadata["language"]``) keep it. Returns the file's path.
    """
    path = Path(directory) / METADATA_FILE
    meta = load_metadata(directory)
    if meta.get("language") != language:
        atomic_write(path, json.dumps({**meta, "language": language}, indent=2, ensure_ascii=False) + "\n")
        remember_written(path)
    return path


def _ledger(path: Path) -> dict[str, str]:
    try:
        written = json.loads((path.parent / WRITTEN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        written = {}
    return written if isinstance(written, dict) else {}


def not_ours(path: str | Path) -> str:
    """Why a data file must not be replaced unasked ("": it is absent, or as vera-lab wrote it)."""
    path = Path(path)
    if not path.exists():
        return ""
    written = _ledger(path).get(path.name)
    if written is None:
        return f"{path} was not written by vera-lab (it may be your own)"
    if written != file_sha256(path):
        return f"{path} was changed since vera-lab wrote it"
    return ""


def edited_since_written(path: str | Path) -> bool:
    """True when vera-lab recorded writing ``path`` and it has changed since (someone edited it)."""
    path = Path(path)
    written = _ledger(path).get(path.name)
    return path.exists() and written is not None and written != file_sha256(path)


def write_jsonl(path: str | Path, records: Iterable[dict[str, Any]]) -> None:
    """Write records atomically: readers see the old file or the new one, never a torn one."""
    atomic_write(path, "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records))


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` through a temporary file in the same directory, then rename.

    A kill leaves the old file or the new one, never a torn one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; data files are meant to be shared
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None:  # a failed write (a full disk) names no file: name the one meant
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_dataset(dataset: Dataset, directory: str | Path, metadata: dict[str, Any] | None = None) -> None:
    """Write a dataset in the project's format; ``metadata`` (and the scope) go to ``dataset.json``."""
    directory = Path(directory)
    meta = {
        **({"scope": dataset.scope} if dataset.scope else {}),
        **({"cluster_by": dataset.cluster_by} if dataset.cluster_by != "document" else {}),
        **(metadata or {}),
    }
    if meta:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(directory / METADATA_FILE, json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    write_data_file(directory / CORPUS_FILE, (document_record(d) for d in dataset.corpus))
    write_data_file(directory / CLAIMS_FILE, (claim_record(c) for c in dataset.claims))


def document_record(d: Document) -> dict[str, Any]:
    """One line of ``corpus.jsonl``."""
    return {
        "doc_id": d.doc_id,
        "text": d.text,
        **({"title": d.title} if d.title else {}),
        "format": d.format,
        **({"metadata": dict(d.metadata)} if d.metadata else {}),
        **({"page_starts": list(d.page_starts)} if d.page_starts else {}),
    }


def claim_record(c: Claim) -> dict[str, Any]:
    """One line of ``claims.jsonl``."""
    return {
        "claim_id": c.claim_id,
        "claim": c.text,
        "label": c.label,
        "evidence": [{"doc_id": s.doc_id, "start": s.start, "end": s.end} for s in c.evidence],
        "cited_doc_ids": list(c.cited_doc_ids),
        **({"group": c.group} if c.group else {}),
        **({"source": c.source} if c.source else {}),
    }


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes (dataset provenance in manifests)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
