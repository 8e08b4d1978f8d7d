"""A LlamaIndex node parser that chunks with any vera_lab chunker or a sweep's recommendation.

Nodes are ``TextNode``s whose id is the chunk id, with exact ``start_char_idx``/``end_char_idx``
(LlamaIndex's own post-processing searches for the text and can land on an earlier repeat; the
chunker's offsets are put back), a SOURCE relationship to their document and PREVIOUS/NEXT between
neighbours. Offsets, page and section are in the metadata but kept out of the embedded and LLM text.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from vera_lab.types import Document as VeraDocument

try:
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import (
        BaseNode,
        MetadataMode,
        NodeRelationship,
        NodeWithScore,
        QueryBundle,
        TextNode,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("vera_lab.integrations.llamaindex needs: pip install 'vera-lab[llamaindex]'") from exc

_OWN_KEYS = ("doc_id", "chunk_id", "start_index", "end_index", "page", "section", "source_format",
             "page_start", "page_end", "section_path")  # fmt: skip


class VeraLabNodeParser(NodeParser):
    """Parse LlamaIndex documents into nodes with a vera_lab chunker."""

    chunker: Any = None

    @classmethod
    def from_chunker(cls, chunker: Chunker | str | Path, **kwargs: Any) -> VeraLabNodeParser:
        """A parser for a chunker, or for the one a ``recommendation.json`` (or run folder) recommends."""
        return cls(chunker=chunker_of(chunker), **kwargs)

    @classmethod
    def from_recommendation(cls, path: str | Path, **kwargs: Any) -> VeraLabNodeParser:
        return cls.from_chunker(Path(path), **kwargs)

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        if self.chunker is None:
            raise ValueError("VeraLabNodeParser needs a chunker: use VeraLabNodeParser.from_chunker(...)")
        out: list[BaseNode] = []
        for node in nodes:
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            for chunk in self.chunker.chunk(document_of(text, node.node_id)):
                out.append(
                    TextNode(
                        id_=chunk.chunk_id,
                        text=chunk.text,
                        start_char_idx=chunk.start,
                        end_char_idx=chunk.end,
                        metadata=chunk_metadata(chunk),
                        excluded_embed_metadata_keys=list(_OWN_KEYS),
                        excluded_llm_metadata_keys=list(_OWN_KEYS),
                        relationships={NodeRelationship.SOURCE: node.as_related_node_info()},
                    )
                )
        return out

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict) -> list[BaseNode]:
        exact = {n.node_id: (n.start_char_idx, n.end_char_idx) for n in nodes}
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for n in nodes:
            n.start_char_idx, n.end_char_idx = exact[n.node_id]
        return nodes


class VeraLabRetriever(BaseRetriever):
    """A LlamaIndex retriever running a sweep's whole recommended pipeline over LlamaIndex documents.

    Each ``NodeWithScore`` holds the text handed to the reader (the chunk, or its window or parent),
    with that span's exact ``start_char_idx``/``end_char_idx`` and the chunk found in its metadata.
    """

    def __init__(self, search: PipelineSearch, k: int | None = None) -> None:
        super().__init__()
        self.search, self.k = search, k

    @classmethod
    def from_recommendation(
        cls,
        path: str | Path,
        documents: Sequence[BaseNode],
        k: int | None = None,
        cache_dir: str | None = None,
    ) -> VeraLabRetriever:
        """The retriever ``recommendation.json`` (or its run folder) recommends, over ``documents``."""
        from vera_lab.sweep.recommend import recommended_point

        vera_docs = [
            VeraDocument(d.node_id, d.get_content(metadata_mode=MetadataMode.NONE), metadata=dict(d.metadata))
            for d in documents
        ]
        return cls(PipelineSearch(recommended_point(path), vera_docs, cache_dir), k)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        out = []
        for chunk, span, score in self.search.search(query_bundle.query_str, self.k):
            document = self.search.corpus[chunk.doc_id]
            metadata = search_metadata(chunk, span, score, document)
            hidden = [
                k for k in metadata if k not in document.metadata
            ]  # ours stay out of embedded and LLM text
            node = TextNode(
                id_=f"{chunk.chunk_id}@{span.start}-{span.end}",
                text=self.search.text(span),
                start_char_idx=span.start,
                end_char_idx=span.end,
                metadata=metadata,
                excluded_embed_metadata_keys=hidden,
                excluded_llm_metadata_keys=hidden,
            )
            out.append(NodeWithScore(node=node, score=score))
        return out
