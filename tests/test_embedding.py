import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from vera_lab.embedding import CachedEmbedder, EmbeddingCache, Truncated, get_embedder


def test_hashing_is_deterministic_and_normalised():
    emb = get_embedder("hashing-64")
    a = emb.embed(["the cat sat", "the cat sat", "stock markets fell", ""])
    assert a.dtype == np.float32 and a.shape == (4, 64)
    assert np.allclose(np.linalg.norm(a[:3], axis=1), 1) and not a[3].any()
    assert np.array_equal(a[0], a[1]) and np.array_equal(
        a, get_embedder("hashing-64").embed(["the cat sat", "the cat sat", "stock markets fell", ""])
    )


def test_matryoshka_truncation_renormalises():
    emb = Truncated(get_embedder("hashing-64"), 16)
    v = emb.embed(["alpha beta gamma delta epsilon"])
    assert v.shape == (1, 16) and np.isclose(np.linalg.norm(v), 1) and emb.name == "hashing-64@16"
    with pytest.raises(ValueError, match="dims=65"):
        Truncated(get_embedder("hashing-64"), 65)


def test_tfidf_is_sparse_and_fitted_on_chunks():
    emb = get_embedder("tfidf")
    emb.fit(["alpha beta", "gamma delta"])
    v = emb.embed(["alpha", "zeta"])
    assert v.shape[0] == 2 and v[1].nnz == 0 and emb.name.startswith("tfidf-")


def test_tfidf_stems_words_in_the_language_of_the_texts_it_was_fitted_on():
    from vera_lab.embedding.tfidf import TfidfEmbedder

    english = TfidfEmbedder().fit(["The recipient shall not disclose it to anyone.", "Payment is due."])
    assert english.embed(["disclosing"]).nnz == 1  # "disclosing" and "disclose" meet
    german = TfidfEmbedder().fit(
        ["Die Verträge wurden geschlossen und sind nicht gültig.", "Der Vertrag gilt."]
    )
    assert "vertrag" in german._vectorizer.vocabulary_ and "verträge" not in german._vectorizer.vocabulary_
    japanese = TfidfEmbedder().fit(["契約を結ぶ。", "支払いは月末です。"])
    assert "契約" in japanese._vectorizer.vocabulary_  # no stems: characters and pairs, as before


def test_unknown_embedder():
    with pytest.raises(ValueError, match="unknown embedder 'bert'"):
        get_embedder("bert")


class Counting:
    name, dim, fits_corpus, input_limit = "counting-8", 8, False, None

    def __init__(self):
        self.calls = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return get_embedder("hashing-8").embed(texts)


def test_cache_embeds_each_distinct_text_once_across_runs(tmp_path):
    inner = Counting()
    first = CachedEmbedder(inner, EmbeddingCache(tmp_path))
    v1 = first.embed(["a b", "c d", "a b"])
    assert inner.calls == [["a b", "c d"]]
    assert (first.stats.distinct, first.stats.hits, first.stats.embedded) == (2, 0, 2)
    second = CachedEmbedder(Counting(), EmbeddingCache(tmp_path))  # a new "run"
    v2 = second.embed(["c d", "a b", "e f"])
    assert second.inner.calls == [["e f"]] and second.stats.hits == 2
    assert np.array_equal(v2[1], v1[0]) and np.array_equal(v2[0], v1[1])


WRITER = """
import sys
import numpy as np
from vera_lab.embedding import CachedEmbedder, EmbeddingCache, get_embedder
cache = EmbeddingCache(sys.argv[1])
emb = CachedEmbedder(get_embedder("hashing-32"), cache, write_every=50)
texts = [f"text number {i}" for i in range(int(sys.argv[2]), int(sys.argv[3]))]
for start in range(0, len(texts), 100):
    emb.embed(texts[start:start + 100])
print(emb.stats.embedded)
"""


def test_two_processes_writing_at_once(tmp_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path), lo, hi], stdout=subprocess.PIPE, text=True
        )
        for lo, hi in (("0", "3000"), ("1500", "4500"))  # 1500 texts in common
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    cache = EmbeddingCache(tmp_path)
    assert cache.count("hashing-32") == 4500
    keys = [
        __import__("vera_lab.embedding.cache", fromlist=["text_key"]).text_key(f"text number {i}")
        for i in (0, 2000, 4499)
    ]
    got = cache.get("hashing-32", keys)
    expected = get_embedder("hashing-32").embed(["text number 0", "text number 2000", "text number 4499"])
    assert np.allclose(np.stack([got[k] for k in keys]), expected)


def test_kill_during_writes_leaves_a_readable_cache(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), "0", "200000"])
    db = tmp_path / "embeddings.sqlite"
    deadline = time.time() + 60
    while time.time() < deadline and (not db.exists() or EmbeddingCache(tmp_path).count() < 500):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    check = sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0]
    assert check == "ok"
    stored = EmbeddingCache(tmp_path).count("hashing-32")
    assert 500 <= stored < 200000
    again = CachedEmbedder(get_embedder("hashing-32"), EmbeddingCache(tmp_path))
    again.embed([f"text number {i}" for i in range(stored + 100)])
    assert again.stats.hits >= stored - 100  # what was committed before the kill is reused


def _fails(message):
    raise OSError(28, message)


def test_an_onnx_export_runs_in_a_process_of_its_own_and_its_errors_come_back_whole():
    """torch, which only exports need, never stays resident in the sweep's process."""
    from vera_lab.embedding.onnx_export import apart

    assert apart(os.getpid) != os.getpid()
    with pytest.raises(OSError, match="No space left|disk full") as caught:
        apart(_fails, "disk full")
    assert caught.value.errno == 28


def test_a_script_read_from_stdin_still_exports_in_its_own_process_when_no_child_can_start():
    """A spawned child cannot re-import a script piped to python: the export runs in the caller."""
    import subprocess
    import sys

    script = "import os\nfrom vera_lab.embedding.onnx_export import apart\nprint(apart(os.getpid) == os.getpid())\n"
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "True"
