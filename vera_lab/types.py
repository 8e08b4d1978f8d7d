"""The data model: documents, chunks, spans, claims.

Plain frozen dataclasses, with no behaviour beyond checks and a chunk's id, derived when first read.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LABELS = ("supported", "contradicted", "unsupported")


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range ``[start, end)`` in one document's text."""

    doc_id: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"span {self.doc_id}[{self.start}:{self.end}]: need 0 <= start <= end")

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Document:
    """A document; ``page_starts`` holds the character offset where each page begins (PDFs)."""

    doc_id: str
    text: str
    title: str = ""
    format: str = "text"
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    page_starts: tuple[int, ...] = ()

    def page_of(self, offset: int) -> int | None:
        """Return the 1-based page holding ``offset``, or None for documents without pages."""
        if not self.page_starts:
            return None
        return bisect.bisect_right(self.page_starts, offset)


def chunk_id(doc_id: str, start: int, end: int, text: str) -> str:
    """Stable id from document, offsets and content: re-chunking the same text gives the same id."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"{doc_id}:{start}-{end}:{digest}"


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: ``document.text[start:end] == text`` always holds."""

    chunk_id: str
    doc_id: str
    index: int
    start: int
    end: int
    text: str
    n_tokens: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def at(
        cls, doc_id: str, index: int, start: int, end: int, text: str, n_tokens: int | None, metadata: dict
    ) -> Chunk:
        """The chunk ``text`` at ``[start, end)`` of ``doc_id``, its :func:`chunk_id` derived when first read.

        Chunkers build one per window, but a sweep reads the ids of only the chunks it retrieves: the
        hash and the frozen ``__init__``'s field-by-field writes were a fifth of recursive chunking's
        time.
        """
        chunk = object.__new__(cls)
        fields = {"doc_id": doc_id, "index": index, "start": start, "end": end, "text": text,
                  "n_tokens": n_tokens, "metadata": metadata}  # fmt: skip
        object.__setattr__(chunk, "__dict__", fields)
        return chunk

    def __getattr__(self, name: str) -> str:
        # Python calls this only for an attribute the instance lacks: the id of a chunk made by `at`.
        if name != "chunk_id":
            raise AttributeError(f"'Chunk' object has no attribute {name!r}")
        value = chunk_id(self.doc_id, self.start, self.end, self.text)
        self.__dict__["chunk_id"] = value
        return value

    @property
    def span(self) -> Span:
        """The chunk's character span."""
        return Span(self.doc_id, self.start, self.end)


@dataclass(frozen=True)
class Claim:
    """A labelled claim with its gold evidence spans and the documents it cites."""

    claim_id: str
    text: str
    label: str
    evidence: tuple[Span, ...] = ()
    cited_doc_ids: tuple[str, ...] = ()
    group: str = ""  # claims made from one question (one group) are not independent evidence
    source: str = ""  # where the claim comes from, when a dataset brings several (a transfer check each)

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"claim {self.claim_id}: label {self.label!r} not in {LABELS}")


@dataclass(frozen=True)
class Corpus:
    """An ordered collection of documents with unique ids."""

    documents: tuple[Document, ...]
    _by_id: Mapping[str, Document] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        by_id = {d.doc_id: d for d in self.documents}
        if len(by_id) != len(self.documents):
            raise ValueError("corpus has duplicate doc_id values")
        object.__setattr__(self, "_by_id", by_id)

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def __getitem__(self, doc_id: str) -> Document:
        return self._by_id[doc_id]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._by_id

    def subset(self, doc_ids: Sequence[str]) -> Corpus:
        """The documents named in ``doc_ids``, in corpus order."""
        wanted = set(doc_ids)
        return Corpus(tuple(d for d in self.documents if d.doc_id in wanted))


@dataclass(frozen=True)
class ClaimSet:
    """An ordered collection of labelled claims with unique ids."""

    claims: tuple[Claim, ...]
    name: str = ""

    def __post_init__(self) -> None:
        if len({c.claim_id for c in self.claims}) != len(self.claims):
            raise ValueError(f"claim set {self.name!r} has duplicate claim_id values")

    def __len__(self) -> int:
        return len(self.claims)

    def __iter__(self) -> Iterator[Claim]:
        return iter(self.claims)

    def label_counts(self) -> dict[str, int]:
        """Number of claims per label, in the order of ``LABELS``."""
        return {lab: sum(c.label == lab for c in self.claims) for lab in LABELS}


@dataclass(frozen=True)
class Dataset:
    """A corpus and the claims labelled against it.

    ``scope`` is the retrieval scope the dataset declares (``dataset.json``): ``"cited"`` when each
    claim is about its own documents (the same question asked of every contract), else None.
    ``cluster_by`` says which claims are not independent (see :mod:`vera_lab.data.clusters`).
    """

    name: str
    corpus: Corpus
    claims: ClaimSet
    scope: str | None = None
    cluster_by: str = "document"
