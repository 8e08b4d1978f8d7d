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
from vera_lab.integrations.common import (
    PipelineSearch,
    chunk_metadata,
    chunker_of,
    document_of,
    search_metadata,
)
from vera_lab.types import Chunk
from vera_lab.types import Document as VeraDocument

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
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


class VeraLabRetriever(BaseRetriever):
    """A LangChain retriever running a sweep's whole recommended pipeline over LangChain documents.

    Chunker, embedder, retriever (dense, BM25 or their fusion), context headers and expansion are the
    ones the sweep measured; each result's ``page_content`` is the text handed to the reader and its
    metadata gives that span's offsets (``start_index``/``end_index``), the chunk found and the score.
    """

    search: Any = None
    k: int | None = None

    @classmethod
    def from_recommendation(
        cls,
        path: str | Path,
        documents: Sequence[Document],
        k: int | None = None,
        cache_dir: str | None = None,
    ) -> VeraLabRetriever:
        """The retriever ``recommendation.json`` (or its run folder) recommends, over ``documents``."""
        from vera_lab.sweep.recommend import recommended_point

        vera_docs = []
        for i, d in enumerate(documents):
            doc_id = next((d.metadata[k] for k in ID_KEYS if d.metadata.get(k) is not None), f"doc-{i}")
            vera_docs.append(VeraDocument(str(doc_id), d.page_content, metadata=dict(d.metadata)))
        return cls(search=PipelineSearch(recommended_point(path), vera_docs, cache_dir), k=k)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [
            Document(page_content=self.search.text(span),
                     metadata=search_metadata(chunk, span, score, self.search.corpus[chunk.doc_id]))
            for chunk, span, score in self.search.search(query, self.k)
        ]  # fmt: skip
