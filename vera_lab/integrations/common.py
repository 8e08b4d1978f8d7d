"""What both integrations share: the chunker behind them and the metadata each chunk carries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vera_lab.chunking import Chunker
from vera_lab.sweep.recommend import recommended_point
from vera_lab.types import Chunk, Document


def chunker_of(source: Chunker | str | Path) -> Chunker:
    """A chunker, or the one a ``recommendation.json`` (or its run folder) recommends."""
    if isinstance(source, Chunker):
        return source
    return recommended_point(source).make_chunker()


def document_of(text: str, doc_id: str | None) -> Document | str:
    """A vera_lab document for a text; without an id the chunker derives one from the text's hash."""
    return text if doc_id is None else Document(str(doc_id), text)


def chunk_metadata(chunk: Chunk, document: Document | None = None) -> dict[str, Any]:
    """Offsets, id, page and section of a chunk as flat metadata (the chunker's own keys kept)."""
    meta: dict[str, Any] = {k: v for k, v in chunk.metadata.items() if k != "bbox"}  # boxes are bulky
    page = chunk.metadata.get("page_start")
    if page is None and document is not None:
        page = document.page_of(chunk.start)
    meta.update({
        "doc_id": chunk.doc_id,
        "chunk_id": chunk.chunk_id,
        "start_index": chunk.start,
        "end_index": chunk.end,
        "page": page,
        "section": chunk.metadata.get("section_path"),
    })  # fmt: skip
    return meta
