import socket

import numpy as np
import pytest

from vera_lab.cli import main
from vera_lab.embedding import EmbedderError, get_embedder
from vera_lab.embedding.ollama import OllamaEmbedder

from .fake_ollama import FakeOllama


def test_embeds_through_the_api_and_normalises():
    with FakeOllama({"nomic-embed-text": 768}) as server:
        emb = OllamaEmbedder("nomic-embed-text", host=server.url, batch_size=2)
        v = emb.embed(["one", "two", "three"])
        assert v.shape == (3, 768) and v.dtype == np.float32
        assert np.allclose(np.linalg.norm(v, axis=1), 1)
        assert emb.name == "ollama-nomic-embed-text-768"
        embeds = [r for r in server.requests if r["path"] == "/api/embed"]
        assert [r["input"] for r in embeds][-2:] == [["one", "two"], ["three"]]


def test_missing_model_says_what_to_run():
    with FakeOllama({}) as server:
        with pytest.raises(EmbedderError, match=r"ollama pull nomic-embed-text"):
            OllamaEmbedder("nomic-embed-text", host=server.url).embed(["x"])


def test_error_reply_is_reported():
    with FakeOllama({}) as server:
        with pytest.raises(EmbedderError, match="500: llama runner process has terminated"):
            OllamaEmbedder("broken", host=server.url).embed(["x"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_connection_names_the_fix(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{free_port()}")
    with pytest.raises(EmbedderError, match="no Ollama server at http://127.0.0.1:.*ollama serve"):
        get_embedder("ollama:nomic-embed-text").embed(["x"])


def test_cli_reports_absent_server_in_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{free_port()}")
    code = main(
        [
            "evaluate",
            "--dataset",
            "tests/data/tiny",
            "--strategy",
            "fixed",
            "--size",
            "200",
            "--overlap",
            "0",
            "--embedder",
            "ollama:nomic-embed-text",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "ollama serve" in err and err.count("\n") == 1
