"""LangChain and LlamaIndex integrations, against the real libraries."""

import json
from pathlib import Path

import pytest

from vera_lab import Document, FixedChunker, SentenceChunker
from vera_lab.chunking.markdown import MarkdownChunker
from vera_lab.sweep import parse_config, run_sweep

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("llama_index.core")

from langchain_core.documents import Document as LCDocument  # noqa: E402
from llama_index.core import Document as LIDocument  # noqa: E402
from llama_index.core.schema import NodeRelationship  # noqa: E402

from vera_lab.integrations.langchain import VeraLabTextSplitter, to_langchain_documents  # noqa: E402
from vera_lab.integrations.llamaindex import VeraLabNodeParser  # noqa: E402

TINY = Path(__file__).parent / "data" / "tiny"
# A repeated passage: a text search for the second chunk's content finds the first occurrence.
REPEATS = ("The supplier keeps the data confidential. " * 6 + "Either party may end this agreement. ") * 3


@pytest.fixture(scope="module")
def recommendation(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    config = parse_config({
        "name": "rec", "dataset": str(TINY), "embedders": ["hashing"], "presets": [], "metric": "mrr",
        "grid": [{"strategy": "sentence", "size": [60, 120], "overlap": [0, 0.25], "min_size": [0]}],
    })  # fmt: skip
    run = run_sweep(config, tmp, cache_dir=tmp / "cache", progress=False)
    return run.directory / "recommendation.json"


def spans(chunks):
    return [(c.start, c.end, c.chunk_id) for c in chunks]


def test_a_langchain_splitter_from_recommendation_json_yields_the_chunkers_spans(recommendation):
    params = dict(json.loads(recommendation.read_text())["config"]["chunker"])
    chunker = SentenceChunker(**{k: v for k, v in params.items() if k != "strategy"})
    splitter = VeraLabTextSplitter.from_recommendation(recommendation)
    with (TINY / "corpus.jsonl").open(encoding="utf-8") as lines:
        corpus = [json.loads(line) for line in lines]
    documents = [
        LCDocument(page_content=d["text"], metadata={"source": d["doc_id"], "title": d["title"]})
        for d in corpus
    ]
    split = splitter.split_documents(documents)
    expected = [c for d in corpus for c in chunker.chunk(Document(d["doc_id"], d["text"]))]
    assert [
        (d.metadata["start_index"], d.metadata["end_index"], d.metadata["chunk_id"]) for d in split
    ] == spans(expected)
    texts = {d["doc_id"]: d["text"] for d in corpus}
    for d in split:
        meta = d.metadata
        assert texts[meta["doc_id"]][meta["start_index"] : meta["end_index"]] == d.page_content
        assert meta["title"] and meta["source"] == meta["doc_id"] and d.id == meta["chunk_id"]
    assert splitter.split_text(corpus[0]["text"]) == [
        c.text for c in expected if c.doc_id == corpus[0]["doc_id"]
    ]


def test_langchain_offsets_are_exact_where_a_text_search_would_land_on_an_earlier_repeat():
    chunker = FixedChunker(size=50, overlap=10)
    split = VeraLabTextSplitter(chunker).create_documents([REPEATS], [{"doc_id": "contract"}])
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in split] == [
        (c.start, c.end) for c in chunker.chunk(Document("contract", REPEATS))
    ]
    assert any(REPEATS.find(d.page_content) != d.metadata["start_index"] for d in split)  # the trap is real


def test_to_langchain_documents_carries_page_and_section():
    text = "# Terms\n\nThe supplier keeps data safe.\n\n## Payment\n\nInvoices are due in 30 days.\n"
    chunks = MarkdownChunker(size=8, min_size=0).chunk(Document("terms.md", text, format="markdown"))
    docs = to_langchain_documents(chunks, {"source": "terms.md"})
    assert [d.metadata["section"] for d in docs] == [c.metadata["section_path"] for c in chunks]
    assert "Terms > Payment" in {d.metadata["section"] for d in docs}
    paged = Document("report", "Page one text. " * 4 + "Page two text. " * 4, page_starts=(0, 60))
    docs = to_langchain_documents(FixedChunker(size=30, overlap=0).chunk(paged), document=paged)
    assert [d.metadata["page"] for d in docs] == [1, 1, 2, 2]
    assert all(d.metadata["source_format"] == "text" for d in docs)


def test_a_llamaindex_node_parser_gives_exact_offsets_and_relationships(recommendation):
    chunker = FixedChunker(size=50, overlap=10)
    nodes = VeraLabNodeParser.from_chunker(chunker).get_nodes_from_documents(
        [LIDocument(text=REPEATS, id_="contract")]
    )
    chunks = chunker.chunk(Document("contract", REPEATS))
    assert [(n.start_char_idx, n.end_char_idx, n.node_id) for n in nodes] == spans(chunks)
    assert all(REPEATS[n.start_char_idx : n.end_char_idx] == n.text for n in nodes)
    assert nodes[0].relationships[NodeRelationship.SOURCE].node_id == "contract"
    assert nodes[1].relationships[NodeRelationship.PREVIOUS].node_id == nodes[0].node_id
    assert nodes[0].relationships[NodeRelationship.NEXT].node_id == nodes[1].node_id
    assert "chunk_id" not in nodes[0].get_content(
        metadata_mode="embed"
    )  # offsets stay out of the embedded text
    recommended = VeraLabNodeParser.from_recommendation(recommendation).get_nodes_from_documents(
        [LIDocument(text=REPEATS, id_="contract")]
    )
    langchain = VeraLabTextSplitter.from_recommendation(recommendation).create_documents(
        [REPEATS], [{"doc_id": "contract"}]
    )
    assert [(n.start_char_idx, n.end_char_idx) for n in recommended] == [
        (d.metadata["start_index"], d.metadata["end_index"]) for d in langchain
    ]


def test_a_file_that_is_no_recommendation_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "rec.json"
    bad.write_text('{"metric": "mrr"}')
    with pytest.raises(ValueError, match="rec.json: not a readable recommendation.json"):
        VeraLabTextSplitter.from_recommendation(bad)


def test_chunkers_accept_a_plain_string():
    chunks = FixedChunker(size=20, overlap=0).chunk("A plain string, chunked without a Document.")
    assert chunks[0].doc_id.startswith("text-") and chunks[0].start == 0
    assert chunks == FixedChunker(size=20, overlap=0).chunk("A plain string, chunked without a Document.")


@pytest.fixture(scope="module")
def pipeline_recommendation(tmp_path_factory):
    """A sweep whose only configuration is a hybrid pipeline with window expansion and headers."""
    tmp = tmp_path_factory.mktemp("pipeline")
    config = parse_config({
        "name": "pipe", "dataset": str(TINY), "embedders": ["hashing"], "metric": "mrr", "k": 2,
        "retriever": "hybrid:0.5", "expand": "window:1", "context": "headers",
        "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}],
    })  # fmt: skip
    run = run_sweep(config, tmp, cache_dir=tmp / "cache", progress=False)
    return run.directory / "recommendation.json"


def test_the_retrievers_carry_the_whole_recommended_pipeline(pipeline_recommendation, tmp_path):
    from vera_lab.data import load_dataset
    from vera_lab.integrations.common import PipelineSearch
    from vera_lab.integrations.langchain import VeraLabRetriever as LangChainRetriever
    from vera_lab.integrations.llamaindex import VeraLabRetriever as LlamaIndexRetriever
    from vera_lab.sweep.recommend import recommended_point

    rec = json.loads(pipeline_recommendation.read_text())
    assert rec["config"]["retrieval"] == {
        "retriever": "hybrid:0.5",
        "expand": "window:1",
        "context": "headers",
    }
    point = recommended_point(pipeline_recommendation)
    assert point.pipeline.weight == 0.5 and point.pipeline.window == 1
    dataset = load_dataset(TINY)
    texts = {d.doc_id: d.text for d in dataset.corpus}
    query = "A colony of honey bees can hold 50,000 bees."
    expected = PipelineSearch(point, list(dataset.corpus), tmp_path / "c").search(query)
    lc = LangChainRetriever.from_recommendation(
        pipeline_recommendation,
        [
            LCDocument(
                page_content=d.text, metadata={"doc_id": d.doc_id, "owner": "legal", "start_index": -1}
            )
            for d in dataset.corpus
        ],  # fmt: skip
        cache_dir=str(tmp_path / "c"),
    ).invoke(query)
    li = LlamaIndexRetriever.from_recommendation(
        pipeline_recommendation,
        [LIDocument(text=d.text, id_=d.doc_id, metadata={"owner": "legal"}) for d in dataset.corpus],
        cache_dir=str(tmp_path / "c"),
    ).retrieve(query)  # fmt: skip
    assert len(lc) == len(li) == len(expected) and 1 <= len(expected) <= 2
    for (chunk, span, _), doc, node in zip(expected, lc, li, strict=True):
        assert span.start <= chunk.start and chunk.end <= span.end  # a window around the chunk found
        assert doc.page_content == texts[span.doc_id][span.start : span.end] == node.node.text
        assert (doc.metadata["start_index"], doc.metadata["end_index"]) == (span.start, span.end)
        assert (node.node.start_char_idx, node.node.end_char_idx) == (span.start, span.end)
    assert lc[0].metadata["doc_id"] == "bees"
    # the user's own metadata comes through; where a key is ours (start_index), ours wins
    assert all(d.metadata["owner"] == "legal" for d in lc) and all(
        n.node.metadata["owner"] == "legal" for n in li
    )
    assert (
        "owner" not in li[0].node.excluded_llm_metadata_keys
        and "score" in li[0].node.excluded_llm_metadata_keys
    )


def test_a_reranking_pipeline_is_refused_by_the_framework_retrievers(tmp_path):
    from vera_lab.integrations.common import PipelineSearch
    from vera_lab.sweep.config import Configuration

    point = Configuration.create({"strategy": "fixed", "size": 40, "overlap": 0}, "hashing",
                              retrieval={"rerank": "verifier:5"})  # fmt: skip
    with pytest.raises(ValueError, match="reranks with the verifier trained on the sweep's claims"):
        PipelineSearch(point, [Document("d", "text")])
