"""Retrieval pipelines: BM25, fusion, reranking, expansion and context headers as sweep dimensions."""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vera_lab.chunking import make_chunker
from vera_lab.data import load_dataset
from vera_lab.embedding.hashing import HashingEmbedder
from vera_lab.evaluation import Resources, System, evaluate
from vera_lab.grounding import GroundingParameters
from vera_lab.grounding.rerank import rerank
from vera_lab.retrieval import (
    BM25,
    Hits,
    Pipeline,
    indexed_texts,
    parent_spans,
    parse_pipeline,
    rrf,
    tokenize,
    weighted,
    window_spans,
)
from vera_lab.sweep import Configuration, parse_config, run_sweep
from vera_lab.types import Corpus, Document

TINY = Path(__file__).parent / "data" / "tiny"


def hits(rows: list[list[int]], scores: list[list[float]]) -> Hits:
    return Hits(np.array(rows, dtype=np.int64), np.array(scores, dtype=np.float32))


def test_reciprocal_rank_fusion_equals_a_hand_computation():
    dense = hits([[3, 1, 2]], [[0.9, 0.8, 0.1]])
    lexical = hits([[1, 4, -1]], [[7.0, 2.0, -np.inf]])
    fused = rrf([dense, lexical], depth=4)
    by_hand = {3: 1 / 61, 1: 1 / 62 + 1 / 61, 2: 1 / 63, 4: 1 / 62}
    expected = sorted(by_hand, key=lambda r: (-by_hand[r], r))
    assert fused.indices[0].tolist() == expected == [1, 3, 4, 2]  # 4 and 3? 1/62 < 1/61: 3 before 4
    assert fused.scores[0] == pytest.approx([by_hand[r] for r in expected])


def test_weighted_fusion_normalises_each_list_and_equals_a_hand_computation():
    dense = hits([[3, 1, 2]], [[0.9, 0.5, 0.1]])
    lexical = hits([[1, 4, 3]], [[8.0, 4.0, 0.0]])
    fused = weighted(dense, lexical, 0.25, depth=4)
    d = {3: 1.0, 1: 0.5, 2: 0.0}  # (s - min) / (max - min) within the query's candidates
    lex = {1: 1.0, 4: 0.5, 3: 0.0}
    by_hand = {r: 0.25 * d.get(r, 0.0) + 0.75 * lex.get(r, 0.0) for r in {*d, *lex}}
    expected = sorted(by_hand, key=lambda r: (-by_hand[r], r))
    assert fused.indices[0].tolist() == expected
    assert fused.scores[0] == pytest.approx([by_hand[r] for r in expected])
    with pytest.raises(ValueError, match="hybrid weight 1.5"):
        weighted(dense, lexical, 1.5, depth=2)


TEXTS = ["the cat sat on the mat", "a dog and a cat", "dogs chase cats in the park", "the park is green",
         "東京大学 is a university in Tokyo"]  # fmt: skip
DOCS = ["a", "a", "b", "b", "c"]


def brute_bm25(query: str, texts: list[str], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    docs = [tokenize(t) for t in texts]
    avg = sum(map(len, docs)) / len(docs)
    scores = np.zeros(len(docs))
    for term in set(tokenize(query)):
        df = sum(term in d for d in docs)
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        for i, d in enumerate(docs):
            tf = Counter(d)[term]
            scores[i] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avg)) if tf else 0.0
    return scores


@pytest.mark.parametrize("query", ["cat on the mat", "the park", "dog", "university 東京"])
def test_bm25_top_k_equals_brute_force_scoring(query):
    index = BM25(TEXTS, DOCS)
    found = index.search([query], 3)
    expected = brute_bm25(query, TEXTS)
    order = sorted(range(len(TEXTS)), key=lambda i: (-expected[i], i))[:3]
    assert found.indices[0].tolist() == order
    assert found.scores[0] == pytest.approx(expected[order], rel=1e-5)
    scoped = index.search([query], 3, allowed_docs=[["b"]])  # a claim's own documents only
    assert set(scoped.indices[0][scoped.indices[0] >= 0].tolist()) <= {2, 3}


def test_cjk_text_is_tokenised_into_characters_and_pairs():
    assert tokenize("東京大学は") == ["東", "京", "大", "学", "は", "東京", "京大", "大学", "学は"]
    assert tokenize("Tokyo-2 東京") == ["tokyo", "2", "東", "京", "東京"]


def chunks_of(text: str, size: int):
    doc = Document("d", text, "Doc title")
    return doc, make_chunker("fixed", size=size, overlap=0).chunk(doc)


def test_expanded_spans_reconstruct_the_document_and_never_exceed_it():
    doc, chunks = chunks_of("One two three. Four five six. Seven eight nine. Ten eleven twelve.", 16)
    for n in (1, 2, 10):
        for chunk, span in zip(chunks, window_spans(chunks, n), strict=True):
            assert 0 <= span.start <= chunk.start and chunk.end <= span.end <= len(doc.text)
            assert chunk.text in doc.text[span.start : span.end]
    spans = window_spans(chunks, 1)
    assert (spans[1].start, spans[1].end) == (chunks[0].start, chunks[2].end)
    parents = make_chunker("fixed", size=40, overlap=0).chunk(doc)
    for chunk, span in zip(chunks, parent_spans(chunks, parents), strict=True):
        over = [p for p in parents if p.start < chunk.end and chunk.start < p.end]  # the parents it touches
        assert (span.start, span.end) == (min(p.start for p in over), max(p.end for p in over))
        assert 0 <= span.start <= chunk.start and chunk.end <= span.end <= len(doc.text)


class Recording(HashingEmbedder):
    """A hashing embedder that keeps every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(64)
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def test_context_headers_change_what_is_embedded_not_the_offsets_returned():
    dataset = load_dataset(TINY)
    chunker = make_chunker("fixed", size=40, overlap=0)
    plain, headed = Recording(), Recording()
    scorer = GroundingParameters(k=3, threshold=0.3)
    a = evaluate(dataset, chunker, plain, scorer)
    b = evaluate(dataset, chunker, headed, scorer, pipeline=parse_pipeline(context="headers"))
    headed_texts = [f"{dataset.corpus[c.doc_id].title}\n\n{c.text}" for c in b.chunks]
    assert set(headed_texts) <= set(headed.seen) and not set(headed_texts) & set(plain.seen)
    assert {c.text for c in a.chunks} <= set(plain.seen)
    assert [c.span for c in a.chunks] == [c.span for c in b.chunks]
    for chunk in b.chunks:  # every offset still reconstructs the text
        assert dataset.corpus[chunk.doc_id].text[chunk.start : chunk.end] == chunk.text
    for spans in b.per_claim["retrieved_spans"]:
        for doc_id, start, end in json.loads(spans):
            assert any((c.doc_id, c.start, c.end) == (doc_id, start, end) for c in b.chunks)
    texts = indexed_texts(b.chunks, dataset.corpus, "headers")
    assert all(t.endswith(c.text) for t, c in zip(texts, b.chunks, strict=True))


def test_window_expansion_is_counted_in_what_the_reader_receives():
    dataset = load_dataset(TINY)
    chunker = make_chunker("fixed", size=40, overlap=0)
    scorer = GroundingParameters(k=1, threshold=0.3)
    bare = evaluate(dataset, chunker, HashingEmbedder(64), scorer)
    wide = evaluate(dataset, chunker, HashingEmbedder(64), scorer, pipeline=parse_pipeline(expand="window:1"))
    assert wide.per_claim["retrieved"].tolist() == bare.per_claim["retrieved"].tolist()  # same chunks found
    widths = [sum(e - s for _, s, e in json.loads(x)) for x in wide.per_claim["retrieved_spans"]]
    bare_widths = [sum(e - s for _, s, e in json.loads(x)) for x in bare.per_claim["retrieved_spans"]]
    assert all(w >= b for w, b in zip(widths, bare_widths, strict=True)) and sum(widths) > sum(bare_widths)
    assert wide.metrics["span_recall"] >= bare.metrics["span_recall"]


class FakeVerifier:
    """Reads a passage as relevant in proportion to how many claim words it holds."""

    def pair_probabilities(self, claims, passages, progress=True):
        out = []
        for claim, texts in zip(claims, passages, strict=True):
            words = set(claim.text.lower().split())
            rows = []
            for text in texts:
                share = len(words & set(text.lower().split())) / max(1, len(words))
                rows.append([share, 0.0, 1.0 - share])
            out.append(np.array(rows).reshape(-1, 3))
        return out, np.zeros(len(claims), dtype=np.int64)


def test_reranking_reorders_the_top_n_and_keeps_the_rest_behind():
    dataset = load_dataset(TINY)
    claims = list(dataset.claims)[:1]
    chunks = make_chunker("fixed", size=40, overlap=0).chunk(dataset.corpus[claims[0].evidence[0].doc_id])
    n = min(3, len(chunks))
    order = list(reversed(range(len(chunks))))
    ranking = hits([order], [[1.0] * len(order)])
    out = rerank(claims, ranking, chunks, FakeVerifier(), n)
    top = order[:n]
    relevance = FakeVerifier().pair_probabilities(claims, [[chunks[r].text for r in top]])[0][0][:, 0]
    assert out.indices[0, :n].tolist() == [top[i] for i in np.argsort(-relevance, kind="stable")]
    assert out.indices[0, n:].tolist() == order[n:]


def test_identities_differ_per_pipeline_and_plain_dense_keeps_its_id():
    chunker = {"strategy": "fixed", "size": 100, "overlap": 0}
    dense = Configuration.create(chunker)
    assert "retrieval" not in dense.identity()  # ids of every stored dense run stay valid
    variants = [Configuration.create(chunker, retrieval=r) for r in (
        {"retriever": "bm25"}, {"retriever": "hybrid"}, {"retriever": "hybrid:0.3"}, {"expand": "window:1"},
        {"context": "headers"}, {"expand": {"parent": {"strategy": "fixed", "size": 400, "overlap": 0}}},
    )]  # fmt: skip
    ids = [dense.config_id] + [p.config_id for p in variants]
    assert len(set(ids)) == len(ids)
    for point in variants:  # stored and read back: the same configuration
        assert Configuration.from_dict(json.loads(json.dumps(point.to_dict()))).config_id == point.config_id
    assert variants[2].pipeline == Pipeline("hybrid", 0.3)
    with pytest.raises(ValueError, match="rerank 'cross:5'"):
        parse_pipeline(rerank="cross:5")
    with pytest.raises(ValueError, match="retriever 'sparse'"):
        parse_pipeline(retriever="sparse")


def test_a_sweep_over_retrievers_reports_whether_the_best_chunking_changes(tmp_path):
    config = parse_config({"name": "p", "dataset": str(TINY), "embedders": ["hashing"], "metric": "mrr",
                           "retriever": ["dense", "bm25", "hybrid"], "expand": ["none", "window:1"],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    assert len(config.points()) == 2 * 3 * 2
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False)
    assert (run.table.status == "ok").all() and run.table.param_pipeline.nunique() == 6
    rec = json.loads((run.directory / "recommendation.json").read_text())
    assert set(rec["best_by_pipeline"]) == set(run.table.param_pipeline)
    bm25_rows = run.table[run.table.param_pipeline.str.startswith("bm25")]
    assert (bm25_rows.cost_bm25_index_mb > 0).all()
    from vera_lab.report import load_run, recommendation_lines

    lines = recommendation_lines(load_run(run.directory))
    assert any(line.startswith("Best chunking under bm25 + window 1:") for line in lines)
    assert any(
        line.startswith("The best chunking ") and "with the retrieval pipeline" in line for line in lines
    )


def test_bm25_with_cited_scope_searches_each_claims_documents():
    corpus = Corpus(
        tuple(Document(d, t) for d, t in zip(["x", "y"], ["cats and dogs", "cats only"], strict=True))
    )
    index = BM25([d.text for d in corpus], [d.doc_id for d in corpus])
    found = index.search(["cats"], 2, allowed_docs=[["y"]])
    assert found.indices[0].tolist() == [1, -1]


def test_parent_expansion_hands_over_the_parent_and_counts_it():
    dataset = load_dataset(TINY)
    chunker, parent = make_chunker("fixed", size=40, overlap=0), make_chunker("fixed", size=120, overlap=0)
    scorer = GroundingParameters(k=1, threshold=0.3)
    pipeline = parse_pipeline(expand={"parent": {"strategy": "fixed", "size": 120, "overlap": 0}})
    bare = evaluate(dataset, chunker, HashingEmbedder(64), scorer)
    wide = evaluate(dataset, chunker, HashingEmbedder(64), scorer, pipeline=pipeline, parent_chunker=parent)
    parents = [c for d in dataset.corpus for c in parent.chunk(d)]
    for found, handed in zip(
        bare.per_claim["retrieved_spans"], wide.per_claim["retrieved_spans"], strict=True
    ):
        (doc, start, end), (doc2, start2, end2) = json.loads(found)[0], json.loads(handed)[0]
        assert doc == doc2 and start2 <= start and end <= end2  # the parent holds the chunk found
        over = [p for p in parents if p.doc_id == doc and p.start < end and start < p.end]
        assert (start2, end2) == (min(p.start for p in over), max(p.end for p in over))  # its parents, merged
    with pytest.raises(ValueError, match="expand parent: give the parent chunker"):
        evaluate(dataset, chunker, HashingEmbedder(64), scorer, pipeline=pipeline)


class ReadingVerifier(FakeVerifier):
    """The fake verifier, remembering every passage it was asked to read."""

    def __init__(self):
        self.read: list[str] = []

    def pair_probabilities(self, claims, passages, progress=True):
        self.read += [text for texts in passages for text in texts]
        return super().pair_probabilities(claims, passages, progress)

    def score(self, claims, hits, chunks, progress=True):
        from vera_lab.grounding.verifier import claim_probabilities

        return claim_probabilities(self, claims, hits, chunks, progress)


def test_grounding_reads_the_expanded_window_the_reader_receives():
    dataset = load_dataset(TINY)
    chunker = make_chunker("fixed", size=40, overlap=0)
    scorer = GroundingParameters(k=1, threshold=0.3, scorer="verifier")
    bare, wide = ReadingVerifier(), ReadingVerifier()
    evaluate(dataset, chunker, HashingEmbedder(64), scorer, verifier=bare)
    result = evaluate(dataset, chunker, HashingEmbedder(64), scorer, verifier=wide,
                      pipeline=parse_pipeline(expand="window:1"))  # fmt: skip
    chunks = [c for d in dataset.corpus for c in chunker.chunk(d)]
    windows = {dataset.corpus[s.doc_id].text[s.start : s.end] for s in window_spans(chunks, 1)}
    assert set(bare.read) <= {c.text for c in chunks}
    assert wide.read and set(wide.read) <= windows and any(len(t) > 40 for t in wide.read)
    cited = [e for verdict in result.verdicts for e in verdict.evidence]
    assert (
        cited
        and all(  # citations point at what the reader received
            dataset.corpus[e.doc_id].text[e.start : e.end] in windows for e in cited
        )
    )


@pytest.mark.parametrize(
    ("mapping", "colon"),
    [({"retriever": {"hybrid": 0.5}}, {"retriever": "hybrid:0.5"}),
     ({"expand": {"window": 1}}, {"expand": "window:1"}),
     ({"rerank": {"verifier": 20}}, {"rerank": "verifier:20"})],
)  # fmt: skip
def test_every_dimension_takes_both_yaml_spellings(mapping, colon):
    assert parse_pipeline(**mapping) == parse_pipeline(**colon)


@pytest.mark.parametrize(
    ("bad", "words"),
    [({"expand": {"window": "one"}}, "window:N or {window: N}"),
     ({"expand": {"windows": 1}}, "window:N or {window: N}"),
     ({"retriever": {"hybrid": [0.5]}}, "hybrid:W or {hybrid: W}"),
     ({"rerank": {"verifier": 2, "depth": 3}}, "verifier:N or {verifier: N}")],
)  # fmt: skip
def test_a_spelling_neither_form_parses_is_refused_in_words(bad, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        parse_pipeline(**bad)


def test_results_have_one_param_column_per_pipeline_dimension(tmp_path):
    config = parse_config({"name": "cols", "dataset": str(TINY), "embedders": ["hashing"], "metric": "mrr",
                           "retriever": ["dense", {"hybrid": 0.5}], "expand": ["none", {"window": 1}],
                           "presets": ["vera-000"],
                           "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})  # fmt: skip
    points = config.points()
    assert [p.pipeline for p in points if p.presets] == [Pipeline()]  # presets run as the seeds describe them
    assert len(points) == 1 + 4
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False)
    table = run.table.set_index("param_pipeline")
    grid = table[table.preset.fillna("") == ""]
    assert sorted(grid.index) == ["dense", "dense + window 1", "hybrid:0.5", "hybrid:0.5 + window 1"]
    row = table.loc["hybrid:0.5 + window 1"]
    assert (row.param_retriever, row.param_rerank, row.param_expand, row.param_context) == (
        "hybrid:0.5", "none", "window:1", "none")  # fmt: skip
    stored = pd.read_csv(run.directory / "results.csv")
    assert {"param_retriever", "param_rerank", "param_expand", "param_context", "param_pipeline"} <= set(
        stored
    )


def test_the_default_metric_follows_what_the_dataset_declares(tmp_path):
    plain = parse_config({"dataset": str(TINY), "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})
    assert (plain.metric, plain.metric_reason) == ("mrr", "")
    for declared, why in (({"scope": "cited"}, "scope: cited"), ({"long_documents": True}, "long_documents")):
        folder = tmp_path / why.split(":")[0]
        shutil.copytree(TINY, folder)
        (folder / "dataset.json").write_text(json.dumps(declared))
        config = parse_config(
            {"dataset": str(folder), "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}
        )
        assert config.metric == "budget_recall" and why in config.metric_reason
        named = parse_config(
            {
                "dataset": str(folder),
                "metric": "hit",
                "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}],
            }
        )
        assert (named.metric, named.metric_reason) == ("hit", "")
    (folder / "dataset.json").write_text(json.dumps({"long_documents": "yes"}))
    with pytest.raises(Exception, match="long_documents 'yes': true or false"):
        parse_config({"dataset": str(folder), "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})


def test_a_pipeline_recommendation_names_the_dense_choice_and_confirms_against_it(tmp_path):
    # hashing-2 embeds into two dimensions: dense retrieval is poor and BM25 wins, so the rule picks a
    # BM25 pipeline and the recommendation carries what the rule picks among dense ones.
    config = parse_config({"name": "rival", "dataset": str(TINY), "embedders": ["hashing-2"], "metric": "mrr",
                           "retriever": ["dense", "bm25"], "prefer": "best", "confirm": str(TINY),
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False)
    rec = json.loads((run.directory / "recommendation.json").read_text())
    table = run.table.set_index("config_id")
    assert table.loc[rec["config_id"], "param_retriever"] == "bm25"
    dense = table[table.param_retriever == "dense"]
    rival = rec["dense_rival"]
    assert rival["config_id"] == dense.mrr.idxmax()
    assert rival["diff"] == pytest.approx(table.loc[rec["config_id"], "mrr"] - dense.mrr.max())
    confirmation = json.loads((run.directory / "confirm" / "comparison.json").read_text())
    assert [r["role"] for r in confirmation["rows"]] == ["recommended", "best dense"]


def test_the_combined_scorer_is_an_out_of_fold_logistic_model_of_verifier_and_cosine():
    from vera_lab.grounding import GOLD_VERDICT, VERDICTS, Found, grounder_for
    from vera_lab.grounding.learned import (
        combined_features,
        document_folds,
        out_of_fold,
        out_of_fold_verdicts,
    )
    from vera_lab.grounding.verifier import Reading

    claims = list(load_dataset(TINY).claims)
    rng = np.random.default_rng(0)
    probabilities = rng.dirichlet(np.ones(3), size=len(claims))
    hits_ = Hits(
        np.zeros((len(claims), 2), dtype=np.int64), rng.uniform(0, 1, (len(claims), 2)).astype(np.float32)
    )

    class Fixed:
        def score(self, claims, hits, chunks):
            one, none = np.ones(len(claims), dtype=np.int64), np.zeros(len(claims), dtype=np.int64)
            return Reading(probabilities, one, none, probabilities)

    scorer = GroundingParameters(k=2, scorer="combined", threshold="calibrate")
    scored = grounder_for(scorer, Fixed()).cross_fit(claims, Found(hits_, []))
    folds = document_folds(claims)
    y = np.array([c.label == "supported" for c in claims])
    expected, judged_by = out_of_fold(combined_features(probabilities, hits_), y, folds)
    assert scored.scores.tolist() == expected.tolist() and scored.judged_by.tolist() == judged_by.tolist()
    # the verdict too is learnt out of fold from the labels, on the same features and folds
    gold = np.array([VERDICTS.index(GOLD_VERDICT[c.label]) for c in claims])
    verdicts = out_of_fold_verdicts(combined_features(probabilities, hits_), gold, folds)
    assert np.array_equal(scored.probabilities, verdicts) and np.allclose(verdicts.sum(axis=1), 1)
    assert len(set(folds)) > 1
    for doc in {c.cited_doc_ids for c in claims}:  # no fold splits a document's claims
        assert len({f for f, c in zip(folds, claims, strict=True) if c.cited_doc_ids == doc}) == 1
    result = evaluate(load_dataset(TINY), make_chunker("fixed", size=40, overlap=0), HashingEmbedder(64),
                      GroundingParameters(k=2, scorer="combined"), verifier=ReadingVerifier())  # fmt: skip
    assert ((result.per_claim.score >= 0) & (result.per_claim.score <= 1)).all()


def test_evaluate_applies_the_whole_recommended_pipeline_and_reproduces_the_sweep(tmp_path, capsys):
    from vera_lab.cli import main

    config = parse_config({"name": "ev", "dataset": str(TINY), "embedders": ["hashing-2"], "metric": "mrr",
                           "retriever": ["dense", "bm25"], "expand": ["window:1"], "prefer": "best",
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    run = run_sweep(config, tmp_path, cache_dir=tmp_path / "c", progress=False)
    rec = json.loads((run.directory / "recommendation.json").read_text())
    row = run.table.set_index("config_id").loc[rec["config_id"]]
    assert row.param_retriever == "bm25" and row.param_expand == "window:1"
    capsys.readouterr()
    assert main(["evaluate", "--recommendation", str(run.directory), "--dataset", str(TINY), "--cache-dir",
                 str(tmp_path / "c"), "--json"]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["retrieval"] == {"retriever": "bm25", "expand": "window:1"}
    for metric in ("mrr", "hit", "budget_recall", "span_recall"):
        assert report["metrics"][metric] == pytest.approx(row[metric])
    # a verifier change the recommendation cannot honour is refused in words, not silently dropped
    assert main(["evaluate", "--recommendation", str(run.directory), "--dataset", str(TINY), "--cache-dir",
                 str(tmp_path / "c"), "--adapt"]) == 2  # fmt: skip
    assert "this recommendation's verifier does not adapt" in capsys.readouterr().err
    assert main(["evaluate", "--recommendation", str(run.directory), "--dataset", str(TINY), "--cache-dir",
                 str(tmp_path / "c"), "--lang", "de"]) == 2  # fmt: skip
    assert "a recommendation is applied unchanged" in capsys.readouterr().err


def test_evaluate_runs_the_same_configuration_a_sweep_point_builds(tmp_path, capsys):
    from vera_lab.cli import main

    capsys.readouterr()
    assert main(["evaluate", "--dataset", str(TINY), "--preset", "docuchat-001", "--embedder", "hashing-2",
                 "--k", "2", "--threshold", "calibrate", "--cache-dir", str(tmp_path / "c"), "--json"]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    point = Configuration.create({"strategy": "fixed", "size": 1000, "overlap": 200}, "hashing-2", k=2)
    expected = point.build(Resources(tmp_path / "c")).evaluate(load_dataset(TINY))
    assert report["metrics"] == pytest.approx(expected.metrics)
    # --lang names the documents' language to a preset's chunker as to a strategy's
    for chosen in (["--preset", "vera-000"], ["--strategy", "sentence", "--size", "200"]):
        assert main(["evaluate", "--dataset", str(TINY), *chosen, "--embedder", "hashing-2", "--lang", "de",
                     "--cache-dir", str(tmp_path / "c"), "--json"]) == 0  # fmt: skip
        assert json.loads(capsys.readouterr().out)["config"]["lang"] == "de"


def test_one_entry_evaluates_a_configuration_a_built_system_or_components_alike(tmp_path):
    dataset, resources = load_dataset(TINY), Resources(tmp_path / "c")
    point = Configuration.create({"strategy": "sentence", "size": 120, "overlap": 0}, "hashing-2", k=2,
                                 retrieval={"retriever": "hybrid", "expand": "window:1"})  # fmt: skip
    system = point.build(resources)
    by_configuration = evaluate(dataset, point, resources=resources)
    by_system = evaluate(dataset, system)
    by_components = evaluate(
        dataset, system.chunker, system.embedder, system.scorer, pipeline=system.pipeline
    )
    for other in (by_system, by_components):
        assert other.metrics == by_configuration.metrics and other.threshold == by_configuration.threshold
        pd.testing.assert_frame_equal(other.per_claim, by_configuration.per_claim)
    with pytest.raises(TypeError, match="takes no further components"):
        evaluate(dataset, system, system.embedder)
    with pytest.raises(TypeError, match="give a Configuration, a System, or a chunker"):
        evaluate(dataset, {"strategy": "fixed"})
    with pytest.raises(TypeError, match="give Resources"):
        point.build(str(tmp_path / "c"))
    assert isinstance(system, System) and system.pipeline == point.pipeline
