"""The LLM grounding judge and ragas's LLM metrics, against a server the test starts on 127.0.0.1."""

import json
import socket
from pathlib import Path

import pytest

from vera_lab import FixedChunker, load_dataset
from vera_lab.cli import main
from vera_lab.embedding import get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.grounding import GroundingParameters
from vera_lab.grounding.judge import LLMJudge, judge_claims, judge_metrics
from vera_lab.llm import LLMOutputError, OllamaError, chat_json
from vera_lab.metrics.ragas import context_samples, ragas_llm_scores

from .fake_ollama import FakeOllama

TINY = Path(__file__).parent / "data" / "tiny"


def entailment(prompt: str) -> str:
    """A stand-in model: it knows Rust has no garbage collector and penguins are not in the tiny corpus."""
    claim = prompt.split("Claim:", 1)[1].split("\n", 1)[0]
    if "garbage collector" in claim:
        return json.dumps({"label": "contradicted", "rationale": "Rust has no garbage collector."})
    if "Penguins" in claim:
        return json.dumps({"label": "not_enough_info", "rationale": "Nothing about penguins."})
    return json.dumps({"label": "supported", "rationale": "The evidence says so."})


@pytest.fixture(scope="module")
def tiny_eval():
    ds = load_dataset(TINY)
    return ds, evaluate(
        ds, FixedChunker(size=80, overlap=20), get_embedder("hashing"), GroundingParameters(k=3)
    )


def test_judge_separates_contradicted_from_supported(tiny_eval):
    ds, ev = tiny_eval
    with FakeOllama({"judge-model": 0}, chat=entailment) as server:
        judged = judge_claims(
            LLMJudge("judge-model", host=server.url), list(ds.claims), ev.verdicts, ds.corpus
        )
        sent = [r for r in server.requests if r["path"] == "/api/chat"]
    assert [j.label for j in judged] == [
        "supported",
        "supported",
        "contradicted",
        "supported",
        "not_enough_info",
        "supported",
    ]
    assert sent[0]["format"]["properties"]["label"]["enum"] == [
        "supported",
        "contradicted",
        "not_enough_info",
    ]
    assert "Evidence:" in sent[0]["messages"][1]["content"]
    report = judge_metrics(list(ds.claims), judged)
    assert report["three_way_accuracy"] == 1.0 and report["metrics"]["judge_f1"] == 1.0
    assert report["confusion_by_label"]["contradicted"] == {"grounded": 0, "not_grounded": 1}


def test_malformed_output_is_retried_then_falls_back():
    replies = iter(
        ["not json", '{"label": "maybe", "rationale": "x"}', '{"label": "supported", "rationale": "ok"}']
    )
    with FakeOllama({"m": 0}, chat=lambda prompt: next(replies)) as server:
        schema = {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": ["supported"]}},
            "required": ["label"],
        }
        assert chat_json("m", "sys", "user", schema, server.url, retries=2)["label"] == "supported"
    with FakeOllama({"m": 0}, chat=lambda prompt: "{broken") as server:
        with pytest.raises(LLMOutputError, match="after 3 tries"):
            chat_json("m", "sys", "user", schema, server.url, retries=2)
        ds = load_dataset(TINY)
        verdict = LLMJudge("m", host=server.url).judge(ds.claims.claims[0], ["evidence"])
        assert verdict.label == "not_enough_info" and not verdict.ok
        assert len([r for r in server.requests if r["path"] == "/api/chat"]) == 6  # 3 tries each


def test_missing_model_and_absent_server():
    ds = load_dataset(TINY)
    with FakeOllama({}) as server:
        with pytest.raises(OllamaError, match="ollama pull llama3"):
            LLMJudge("llama3", host=server.url).judge(ds.claims.claims[0], ["x"])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(OllamaError, match="ollama serve"):
        LLMJudge("llama3", host=f"127.0.0.1:{port}").judge(ds.claims.claims[0], ["x"])


def test_evaluate_cli_with_the_judge(capsys, monkeypatch, tmp_path):
    with FakeOllama({"judge-model": 0}, chat=entailment) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        code = main(
            [
                "evaluate",
                "--dataset",
                str(TINY),
                "--strategy",
                "fixed",
                "--size",
                "80",
                "--overlap",
                "0",
                "--embedder",
                "hashing",
                "--judge",
                "ollama:judge-model",
                "--json",
                "--cache-dir",
                str(tmp_path),
            ]
        )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["judge"]["three_way_accuracy"] == 1.0
    assert out["judge"]["confusion_by_label"]["contradicted"]["grounded"] == 0
    assert (
        out["confusion_by_label"]["contradicted"]["grounded"]
        + out["confusion_by_label"]["contradicted"]["not_grounded"]
        == 1
    )


def ragas_model(prompt: str) -> str:
    if "useful in arriving at the given answer" in prompt:
        return json.dumps({"reason": "it helps", "verdict": 1})
    if "judge the faithfulness" in prompt:
        return json.dumps({"statements": [{"statement": "s", "reason": "stated", "verdict": 1}]})
    return json.dumps({"statements": ["s"]})


def test_ragas_llm_metrics_through_the_openai_compatible_endpoint(tiny_eval):
    ds, ev = tiny_eval
    samples = context_samples(
        list(ds.claims), ev.chunks, [[e.chunk_id for e in v.evidence] for v in ev.verdicts], ds.corpus
    )
    with FakeOllama({"judge-model": 0}, chat=ragas_model) as server:
        scores = ragas_llm_scores(samples[:2], "judge-model", host=server.url)
        assert any(r["path"] == "/v1/chat/completions" for r in server.requests)
    assert list(scores.ragas_faithfulness) == [1.0, 1.0]
    assert scores.ragas_llm_context_precision.between(0.99, 1.0).all()
    with FakeOllama({}, chat=ragas_model) as server:
        with pytest.raises(OllamaError, match="ollama pull"):
            ragas_llm_scores(samples[:1], "absent", host=server.url)
