"""What every chunker shares: parameter validation, building chunks, the registry."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from vera_lab.language import CURRENT, check_language, detect_language, document_language
from vera_lab.tokens import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from vera_lab.types import Chunk, Document

UNITS = ("chars", "tokens", "sentences")
# What chunkers make of the same parameters, as a number: a sweep resumes only results whose chunks
# this version would make again, so raise it (and say why below) when a change moves any chunk.
CHUNKING_VERSION = 6
CHUNKING_CHANGES = {
    2: "no chunk lies inside the one before where overlap met a piece too long to fit beside it; "
    "token windows over Chinese and Japanese keep their size and overlap",
    3: 'a section number that opens a sentence stays in it ("1.1. The Receiving Party"), and sentence '
    "rules of nine languages know more abbreviations, units and headings",
    4: "sentence rules of other languages than English know the abbreviations of citations, statutes, "
    'financial reports and ads ("2-комн. кв."), and a spaced abbreviation that closes what it follows '
    '("UStG a. F.", "и т. п.") ends a sentence before a capital; a text no common word decides is read '
    "in the language its letter trigrams guess, not as English",
    5: 'a capital letter that labels a noun is no initial ("vitamin D. For", "Anh. B. Fehler"), books of '
    'the Bible go on to their verse ("Joh. 3,16"), "!" before a lowercase word goes on outside English, '
    'an emoji face with no stop before it ends a sentence before a capital ("Berlin 😅 Morgen"), and other '
    "languages' rules know the abbreviations of manuals, recipes, textbooks, leaflets and notices",
    6: "outside English a hard-wrapped line goes on before a capital (after a comma or a hyphen, or as wide "
    'as its paragraph\'s lines: "in speziellen\\nAnwendungsgebieten"), and in Chinese and Japanese '
    'beside a Latin word, but not after a colon ("schrieb Max <max@firma.de>:"), and a stop on a short '
    'line ends it; a command that opens a sentence in lowercase ends the one before ("PostScript. man '
    "--help\"); other languages' rules know the abbreviations of listings, invoices, timetables, "
    "catalogues, encyclopaedias, press releases, reviews, notices and e-mail; no chunk of the bundled "
    "datasets moves",
}
Spans = list[tuple[int, int]]

CHUNKERS: dict[str, type[Chunker]] = {}


def register(cls: type[Chunker]) -> type[Chunker]:
    """Class decorator: make a chunker available by its ``strategy`` name."""
    CHUNKERS[cls.strategy] = cls
    return cls


def build_chunks(
    document: Document,
    spans: Spans,
    n_tokens: Sequence[int] | None = None,
    metadata: Sequence[dict[str, Any]] | None = None,
) -> list[Chunk]:
    """Chunks for ``spans`` of ``document``, dropping whitespace-only pieces.

    Every chunk records the document's format as ``source_format`` and its language as ``lang`` next
    to any given metadata.
    """
    text, doc_id = document.text, document.doc_id
    base = {"source_format": document.format, "lang": CURRENT.get() or detect_language(text)}
    chunks: list[Chunk] = []
    for i, (start, end) in enumerate(spans):
        piece = text[start:end]
        if not piece or piece.isspace():
            continue
        meta = {**base, **metadata[i]} if metadata is not None else dict(base)  # one dict per chunk
        tokens = None if n_tokens is None else n_tokens[i]
        chunks.append(Chunk.at(doc_id, len(chunks), start, end, piece, tokens, meta))
    return chunks


def resource() -> Any:
    """A field holding a model or function the chunker uses (an embedder, a quality judge).

    Not a parameter: it is left out of ``params()``, ids and equality, and is passed in by the caller
    (see :func:`vera_lab.evaluation.resources.with_resources`) so that chunking never builds clients itself.
    """
    return field(default=None, compare=False, repr=False, metadata={"resource": True})


def parameter_names(cls: type[Chunker] | Chunker) -> list[str]:
    """The names of a chunker's parameters (its fields that are not resources)."""
    return [f.name for f in dataclasses.fields(cls) if not f.metadata.get("resource")]


def _unset_optional(chunker: Chunker, name: str) -> bool:
    """Whether parameter ``name`` is optional and unset: then it stays out of params and ids."""
    return (
        chunker.__dataclass_fields__[name].metadata.get("optional", False) and getattr(chunker, name) is None
    )


def resolve_overlap(size: int, overlap: float) -> int:
    """Overlap as an absolute amount: a float in (0, 1) is a ratio of ``size``."""
    if isinstance(overlap, float) and 0 < overlap < 1:
        return int(round(overlap * size))
    if overlap != int(overlap):
        raise ValueError(f"overlap={overlap!r}: give a ratio in (0, 1) or a whole amount")
    return int(overlap)


@dataclass(frozen=True)
class Chunker:
    """Base of all chunkers: fields are parameters; ``chunk`` is pure and deterministic."""

    strategy: ClassVar[str] = ""
    # The language of the text, whose sentence rules read every document and which every chunk records
    # (``metadata["lang"]``); None (or "auto"): each document's own, named by its dataset or detected.
    # (The code chunker's ``language`` is the programming language.) Optional: while unset it is no
    # parameter of the id, so configurations made before it existed keep theirs.
    lang: str | None = field(default=None, kw_only=True, metadata={"optional": True})

    def __post_init__(self) -> None:
        if self.lang is not None and check_language(self.lang, "lang") == "auto":
            object.__setattr__(self, "lang", None)  # one spelling of "each document's own"

    def split(self, text: str) -> tuple[Spans, list[int] | None]:
        """Chunk spans of ``text`` and, when the chunker counted them, their token counts."""
        raise NotImplementedError

    def chunk(self, document: Document | str) -> list[Chunk]:
        """Chunk one document, or a plain string (its id derived from its hash); drop blank pieces."""
        if isinstance(document, str):
            digest = hashlib.blake2b(document.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()
            document = Document(f"text-{digest}", document)
        # Chunking allocates a great many small objects that never form cycles; the cyclic collector
        # would rescan all of them again and again, which makes long documents superlinear. (A plain
        # try/finally: a contextlib manager cost more than the chunking of a short document.)
        collecting = gc.isenabled()
        gc.disable()
        # The language for sentence rules deep inside: the chunker's, else the document's.
        language = CURRENT.set(self.lang or document_language(document))
        try:
            return self._chunk(document)
        finally:
            CURRENT.reset(language)
            if collecting:
                gc.enable()

    def _chunk(self, document: Document) -> list[Chunk]:
        spans, n_tokens = self.split(document.text)
        return build_chunks(document, spans, n_tokens)

    def chunk_text(self, text: str, doc_id: str = "text") -> list[Chunk]:
        """Chunk a bare string as a document named ``doc_id``."""
        return self.chunk(Document(doc_id, text))

    def params(self) -> dict[str, Any]:
        """The parameters as plain data (resources and unset optional parameters left out)."""
        return {
            name: getattr(self, name) for name in parameter_names(self) if not _unset_optional(self, name)
        }

    @property
    def config_id(self) -> str:
        """A stable short hash of the strategy and its parameters."""
        blob = json.dumps({"strategy": self.strategy, **self.params()}, sort_keys=True)
        return hashlib.sha1(blob.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class SizedChunker(Chunker):
    """A chunker with a target ``size`` and ``overlap`` in a ``unit``."""

    size: int = 1000
    overlap: float = 0
    unit: str = "chars"
    tokenizer: str = DEFAULT_TOKENIZER
    units: ClassVar[tuple[str, ...]] = ("chars", "tokens")
    overlaps: ClassVar[bool] = True  # False: chunks follow structure and never repeat text

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.unit not in self.units:
            raise ValueError(f"unit={self.unit!r}: {self.strategy} supports {self.units}")
        if not isinstance(self.size, int) or isinstance(self.size, bool) or self.size <= 0:
            raise ValueError(f"size={self.size!r}: must be a positive whole number")
        if (
            isinstance(self.overlap, bool)
            or not isinstance(self.overlap, int | float)
            or not math.isfinite(self.overlap)
        ):
            raise ValueError(
                f"overlap={self.overlap!r}: must be a finite number (an amount, or a ratio below 1)"
            )
        if self.overlap < 0:
            raise ValueError(f"overlap={self.overlap!r}: must be >= 0")
        if isinstance(self.overlap, float) and self.overlap == 1.0:
            raise ValueError("overlap=1.0 is ambiguous: write 1 for one unit, or a ratio below 1 such as 0.2")
        self._check_overlap()

    def _check_overlap(self) -> None:
        if not self.overlaps and self.overlap != 0:
            raise ValueError(
                f"overlap={self.overlap!r}: the {self.strategy} chunker cuts at structure boundaries "
                "and does not overlap chunks; leave overlap at 0"
            )
        if self.overlap_amount >= self.size:
            raise ValueError(
                f"overlap={self.overlap!r} must be smaller than size={self.size} "
                "(or a ratio below 1, e.g. 0.2)"
            )

    @property
    def overlap_amount(self) -> int:
        """Overlap in ``unit``s."""
        return resolve_overlap(self.size, self.overlap)

    def get_tokenizer(self) -> Tokenizer:
        """The tokenizer named by the ``tokenizer`` parameter (loaded once per process)."""
        return get_tokenizer(self.tokenizer)


def make_chunker(strategy: str, **params: Any) -> Chunker:
    """Build a registered chunker by name, rejecting unknown parameter names."""
    from vera_lab import chunking  # noqa: F401  (importing registers every strategy)

    if strategy not in CHUNKERS:
        raise ValueError(f"unknown strategy {strategy!r}: choose one of {sorted(CHUNKERS)}")
    cls = CHUNKERS[strategy]
    known = set(parameter_names(cls))
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(
            f"strategy {strategy!r} has no parameter {', '.join(unknown)}; it takes {sorted(known)}"
        )
    try:
        return cls(**params)
    except ValueError as exc:
        default = next((f.default for f in dataclasses.fields(cls) if f.name == "overlap"), None)
        if "overlap" in str(exc) and "overlap" not in params and default is not None:
            raise ValueError(
                f"{exc} (overlap {default} is {strategy}'s default, not yours: set overlap, e.g. 0 or 0.1)"
            ) from None
        raise
