"""PDFs by page and paragraph (seed ADR-018); documents come from :func:`vera_lab.data.load_pdf`.

Chunks cite their pages and, per page, the union box of their words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from vera_lab.chunking.base import Chunk, SizedChunker, build_chunks, register
from vera_lab.chunking.segment import sentence_spans
from vera_lab.chunking.windows import pack_units, rstrip_at
from vera_lab.types import Document

_PARAGRAPH = re.compile(r"\n\s*\n")


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
    overlaps: ClassVar[bool] = False
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
