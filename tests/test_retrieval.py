import numpy as np
import scipy.sparse as sp

from vera_lab.embedding import normalize
from vera_lab.retrieval import Index


def test_top_k_equals_full_sort():
    rng = np.random.default_rng(0)
    chunks = normalize(rng.normal(size=(300, 16)))
    queries = normalize(rng.normal(size=(40, 16)))
    hits = Index(chunks, [f"d{i % 7}" for i in range(300)]).search(queries, 5)
    expected = np.argsort(-(queries @ chunks.T), axis=1, kind="stable")[:, :5]
    assert np.array_equal(hits.indices, expected)
    assert np.allclose(hits.scores, np.take_along_axis(queries @ chunks.T, expected, axis=1))


def test_cited_scope_and_padding():
    chunks = normalize(np.eye(4, dtype=np.float32))
    index = Index(chunks, ["a", "a", "b", "c"])
    hits = index.search(chunks[[2, 0]], 3, allowed_docs=[["a"], ["zzz"]])
    assert hits.indices[0].tolist()[:2] == [0, 1] and hits.indices[0, 2] == -1
    assert np.isneginf(hits.scores[0, 2])
    assert (hits.indices[1] == -1).all()


def test_sparse_vectors_work_like_dense():
    dense = normalize(np.random.default_rng(1).random((50, 8)))
    q = dense[:3]
    a = Index(dense, ["d"] * 50).search(q, 4)
    b = Index(sp.csr_matrix(dense), ["d"] * 50).search(sp.csr_matrix(q), 4)
    assert np.array_equal(a.indices, b.indices)


def test_a_deeper_search_starts_with_the_top_k():
    # evaluate() searches once, deep enough for the context budgets, and reads the top k off its front
    rng = np.random.default_rng(2)
    chunks = normalize(rng.normal(size=(200, 8)))
    queries = normalize(rng.normal(size=(30, 8)))
    index = Index(chunks, [f"d{i % 5}" for i in range(200)])
    for allowed in (None, [["d1", "d3"]] * 30):
        shallow, deep = index.search(queries, 5, allowed), index.search(queries, 60, allowed)
        assert np.array_equal(deep.indices[:, :5], shallow.indices)


def test_bm25_stems_the_words_of_each_language_it_measured_and_leaves_the_others_as_written():
    from vera_lab.retrieval.lexical import BM25, stemmer, tokenize
    from vera_lab.retrieval.search_index import corpus_language
    from vera_lab.types import Chunk

    english = stemmer("en")
    assert tokenize("Disclosed disclosures; DISCLOSING it", english) == [
        "disclos",
        "disclosur",
        "disclos",
        "it",
    ]
    assert tokenize("Die Verträge, der Vertrag", stemmer("de")) == ["die", "vertrag", "der", "vertrag"]
    assert tokenize("договоры и договор", stemmer("ru")) == ["договор", "и", "договор"]
    assert stemmer("ja") is None and stemmer("zh") is None and stemmer(None) is None
    assert tokenize("契約を結ぶ", stemmer("ja")) == [
        "契",
        "約",
        "を",
        "結",
        "ぶ",
        "契約",
        "約を",
        "を結",
        "結ぶ",
    ]
    texts = ["The recipient shall not disclose it.", "Payment terms are net thirty days."]
    found = BM25(texts, ["a", "b"], language="en").search(["Is disclosing allowed?"], 1)
    assert found.indices[0, 0] == 0 and np.isfinite(found.scores[0, 0])
    plain = BM25(texts, ["a", "b"]).search(["Is disclosing allowed?"], 1)
    assert not (plain.scores[0] > 0).any()  # unstemmed, "disclosing" never meets "disclose"
    chunks = [Chunk.at("d", i, 0, 1, "x", None, {"lang": lang}) for i, lang in enumerate(["de", "en", "de"])]
    assert corpus_language(chunks) == "de" and corpus_language([]) is None
