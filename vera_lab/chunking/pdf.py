"""PDFs: a loader that keeps pages and word boxes, and a page + paragraph chunker (seed ADR-018).

Chunks cite their pages and, per page, the union box of their words.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from vera_lab.chunking.base import Chunk, SizedChunker, build_chunks, register
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.windows import pack_units, rstrip_at
from vera_lab.types import Document

_PARAGRAPH = re.compile(r"\n\s*\n")


def load_pdf(path: str | Path, doc_id: str | None = None) -> Document:
    """Text of every page (pages joined by a blank line), ``page_starts``, and word boxes in metadata.

    Lines are rebuilt from word positions; a vertical gap of more than 1.5 line heights starts a new
    paragraph. Encrypted, corrupt or image-only files raise ``ValueError`` saying what to do.
    """
    try:
        import pdfplumber
        from pdfminer.pdfdocument import PDFPasswordIncorrect
    except ImportError as exc:
        raise ImportError("PDF support needs pdfplumber: pip install 'vera-lab[structure]'") from exc
    path = Path(path)
    parts: list[str] = []
    words_out: list[list[float]] = []
    page_starts: list[int] = []
    empty_pages: list[int] = []
    pos = 0
    try:
        with pdfplumber.open(path) as pdf:
            for number, page in enumerate(pdf.pages, 1):
                if parts:
                    parts.append("\n\n")
                    pos += 2
                page_starts.append(pos)
                words = page.extract_words(use_text_flow=True)
                if not words:
                    empty_pages.append(number)
                prev = None
                for w in words:
                    if prev is not None:
                        height = max(prev["bottom"] - prev["top"], 1.0)
                        gap = w["top"] - prev["bottom"]
                        sep = (
                            " "
                            if abs(w["top"] - prev["top"]) < height / 2
                            else "\n\n"
                            if gap > 1.5 * height
                            else "\n"
                        )
                        parts.append(sep)
                        pos += len(sep)
                    parts.append(w["text"])
                    words_out.append(
                        [pos, pos + len(w["text"]), number, w["x0"], w["top"], w["x1"], w["bottom"]]
                    )
                    pos += len(w["text"])
                    prev = w
    except PDFPasswordIncorrect:
        raise ValueError(f"{path}: the PDF is encrypted; decrypt it first (qpdf --decrypt)") from None
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types for broken files
        if "password" in str(exc).lower() or "encrypt" in str(exc).lower():
            raise ValueError(f"{path}: the PDF is encrypted; decrypt it first (qpdf --decrypt)") from None
        raise ValueError(f"{path}: not a readable PDF ({type(exc).__name__}: {exc})") from None
    if not words_out:
        raise ValueError(f"{path}: no extractable text (an image-only PDF?); run OCR on it first")
    if empty_pages:
        warnings.warn(f"{path}: no text on page(s) {empty_pages} (images only?)", stacklevel=2)
    return Document(
        doc_id or path.stem, "".join(parts), path.stem, "pdf", {"words": words_out}, tuple(page_starts)
    )


def page_boxes(document: Document, start: int, end: int) -> dict[int, list[float]]:
    """Union bounding box [x0, top, x1, bottom] of the words inside ``[start, end)``, per page."""
    words = np.asarray(document.metadata.get("words", []), dtype=np.float64).reshape(-1, 7)
    inside = words[(words[:, 0] < end) & (words[:, 1] > start)]
    boxes = {}
    for page in np.unique(inside[:, 2]).astype(int).tolist():
        on_page = inside[inside[:, 2] == page]
        boxes[page] = [float(on_page[:, 3].min()), float(on_page[:, 4].min()),
                       float(on_page[:, 5].max()), float(on_page[:, 6].max())]  # fmt: skip
    return boxes


@register
@dataclass(frozen=True)
class PdfChunker(SizedChunker):
    """Paragraphs packed within each page up to ``size`` tokens (seed: 512-1024).

    Chunks carry ``page_start``, ``page_end`` and ``bbox`` (page -> union box), derived from offsets.
    """

    strategy: ClassVar[str] = "pdf"
    units: ClassVar[tuple[str, ...]] = ("tokens",)
    size: int = 1024
    overlap: float = 0
    unit: str = "tokens"

    def _chunk(self, document: Document) -> list[Chunk]:
        text, tokenizer = document.text, self.get_tokenizer()
        bounds = [*(document.page_starts or (0,)), len(text)]
        spans, counts = [], []
        for lo, hi in zip(bounds, bounds[1:], strict=False):  # never across a page break
            cuts = [lo, *(m.end() for m in _PARAGRAPH.finditer(text, lo, hi)), hi]
            units = []
            for a, b in zip(cuts, cuts[1:], strict=False):
                end = rstrip_at(text, a, b)
                if end > a:
                    units.append((a, end))

            def by_sentence(a: int, b: int) -> list[tuple[int, int]]:
                return [(a + s, a + e) for s, e in sentence_spans(text[a:b])]

            page_spans, page_counts = pack_units(text, units, tokenizer, self.size, by_sentence)
            spans += page_spans
            counts += page_counts
        metadata = [
            {
                "page_start": document.page_of(s) or 1,
                "page_end": document.page_of(max(s, e - 1)) or 1,
                "bbox": page_boxes(document, s, e),
            }
            for s, e in spans
        ]
        return build_chunks(document, spans, counts, metadata)
