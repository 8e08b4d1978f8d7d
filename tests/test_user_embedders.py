"""The user's own embedders: a local sentence-transformers folder and an OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from vera_lab.cli import main
from vera_lab.embedding import EmbedderError, get_embedder
from vera_lab.embedding.tfidf import TfidfEmbedder
from vera_lab.tokens import minilm_dir

TINY = Path(__file__).parent / "data" / "tiny"
TEXTS = ["Solar panels turn sunlight into electricity.", "A colony can hold 50,000 bees."]


def test_a_local_sentence_transformers_folder_embeds_offline_and_names_its_weights(tmp_path):
    pytest.importorskip("sentence_transformers")
    from sentence_transformers import SentenceTransformer

    folder = tmp_path / "my-model"
    SentenceTransformer(str(minilm_dir()), device="cpu").save(str(folder))  # the user's model, saved here
    mine = get_embedder(f"st:{folder}", device="cpu")
    reference = get_embedder("minilm", device="cpu")
    assert np.allclose(mine.embed(TEXTS), reference.embed(TEXTS), atol=1e-5)
    assert mine.name.startswith("st-my-model-") and mine.name.endswith("-384")
    assert mine.input_limit == (str(folder / "tokenizer.json"), 256)  # its own tokenizer and limit
    from vera_lab.embedding.local_st import model_digest

    before = model_digest(str(folder.resolve()))
    (folder / "README.md").write_text("changed")  # any change to the folder is another model
    model_digest.cache_clear()
    assert model_digest(str(folder.resolve())) != before
    with pytest.raises(EmbedderError, match="not a sentence-transformers model folder"):
        get_embedder(f"st:{tmp_path / 'nowhere'}")


class Embeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings: 3 numbers per text from its length and vowels."""

    requests: list = []

    def do_POST(self):  # noqa: N802 - the http.server interface
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Embeddings.requests.append((self.path, body, self.headers.get("Authorization")))
        if self.path != "/v1/embeddings":
            return self.reply(404, {"error": {"message": "not found"}})
        rows = [[len(t), sum(c in "aeiou" for c in t), 1.0] for t in body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": r} for i, r in reversed(list(enumerate(rows)))
        ]
        self.reply(200, {"object": "list", "model": body["model"], "data": data})

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Embeddings)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_an_openai_compatible_endpoint_embeds_in_index_order(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    embedder = get_embedder(f"openai:my-embed@{server}")
    vectors = embedder.embed(TEXTS)
    expected = np.array([[len(t), sum(c in "aeiou" for c in t), 1.0] for t in TEXTS])
    assert np.allclose(vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True), atol=1e-6)
    assert embedder.name == f"openai-my-embed@{server.split('//')[1].split('/')[0]}-3"
    path, body, auth = Embeddings.requests[-1]
    assert path == "/v1/embeddings" and body["model"] == "my-embed" and auth == "Bearer sk-test"


def test_an_openai_embedder_spec_or_server_that_is_wrong_says_so(server, capsys):
    with pytest.raises(EmbedderError, match="write openai:<model>@<base URL>"):
        get_embedder("openai:no-url")
    with pytest.raises(EmbedderError, match="answered HTTP 404"):
        get_embedder(f"openai:m@{server.removesuffix('/v1')}/v2").embed(["x"])
    absent = "openai:m@http://127.0.0.1:9/v1"  # nothing listens on the discard port
    argv = ["evaluate", "--dataset", str(TINY), "--strategy", "fixed", "--size", "40", "--overlap", "0",
            "--embedder", absent, "--no-cache"]  # fmt: skip
    assert main(argv) == 2
    assert (
        "no OpenAI-compatible server answered at http://127.0.0.1:9/v1/embeddings" in capsys.readouterr().err
    )


def test_tfidf_reads_chinese_claims():
    texts = ["太阳能电池板把阳光转化为电能。", "蜜蜂为许多作物授粉。"]
    embedder = TfidfEmbedder().fit(texts)
    claim = embedder.embed(["太阳能电池板把阳光转化为电能"]).toarray()[0]
    chunks = embedder.embed(texts).toarray()
    assert claim @ chunks[0] > 0.5 and claim @ chunks[0] > claim @ chunks[1]  # not scored 0


def test_a_truncated_local_model_fails_its_configurations_in_one_line_and_the_rest_run(tmp_path, capsys):
    import shutil

    import pandas as pd

    folder = tmp_path / "model"
    shutil.copytree(minilm_dir(), folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1_000_000])  # a copy cut short
    sweep = tmp_path / "s.yaml"
    sweep.write_text(json.dumps({"name": "s", "dataset": str(TINY), "embedders": ["hashing", f"st:{folder}"],
                                 "metric": "mrr", "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}))  # fmt: skip
    code = main(["sweep", str(sweep), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
                 "--quiet", "--no-report"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and "Traceback" not in captured.err
    rows = pd.read_csv(tmp_path / "r" / "s" / "results.csv").set_index("param_embedder")
    assert rows.loc["hashing", "status"] == "ok" and rows.loc[f"st:{folder}", "status"] == "failed"
    assert "weights file may be truncated" in rows.loc[f"st:{folder}", "error"]
