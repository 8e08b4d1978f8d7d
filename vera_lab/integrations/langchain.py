"""A LangChain ``TextSplitter`` that chunks with any vera_lab chunker or a sweep's recommendation.

Unlike LangChain's own ``add_start_index`` (which searches for each chunk's text), offsets come from
the chunker: ``metadata["start_index"]`` and ``["end_index"]`` are exact, with ``chunk_id``,
``page`` and ``section`` beside them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from vera_lab.chunking import Chunker
from vera_lab.integrations.common import chunk_metadata, chunker_of, document_of
from vera_lab.types import Chunk
from vera_lab.types import Document as VeraDocument

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("vera_lab.integrations.langchain needs: pip install 'vera-lab[langchain]'") from exc

ID_KEYS = ("doc_id", "source", "id")  # where a LangChain document's metadata names it


class VeraLabTextSplitter(TextSplitter):
    """Split LangChain documents with a vera_lab chunker; build it from a chunker or a recommendation."""

    def __init__(self, chunker: Chunker | str | Path) -> None:
        self.chunker = chunker_of(chunker)
        size = getattr(self.chunker, "size", 4000)
        # LangChain's size fields are informational here: the chunker decides every boundary.
        super().__init__(chunk_size=max(1, int(size)), chunk_overlap=0, add_start_index=True)

    @classmethod
    def from_recommendation(cls, path: str | Path) -> VeraLabTextSplitter:
        """The splitter a sweep recommends (``recommendation.json`` or its run folder)."""
        return cls(Path(path))

    def split_text(self, text: str) -> list[str]:
        return [c.text for c in self.chunker.chunk(text)]

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[Document]:
        out: list[Document] = []
        for text, metadata in zip(texts, metadatas or [{}] * len(texts), strict=True):
            doc_id = next((metadata[k] for k in ID_KEYS if metadata.get(k) is not None), None)
            document = document_of(text, doc_id)
            out += to_langchain_documents(self.chunker.chunk(document), metadata)
        return out

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        documents = list(documents)
        return self.create_documents([d.page_content for d in documents], [d.metadata for d in documents])


def to_langchain_documents(
    chunks: Sequence[Chunk], metadata: dict[str, Any] | None = None, document: VeraDocument | None = None
) -> list[Document]:
    """LangChain documents for vera_lab chunks, with the chunk's offsets, id, page and section.

    ``metadata`` (copied into each) is the source document's; ``document`` lets chunks of chunkers
    that do not record pages get theirs from its page starts.
    """
    return [
        Document(
            page_content=c.text,
            id=c.chunk_id,
            metadata={**copy.deepcopy(metadata or {}), **chunk_metadata(c, document)},
        )
        for c in chunks
    ]
