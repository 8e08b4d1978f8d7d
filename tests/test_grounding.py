import json
from pathlib import Path

import numpy as np
import pytest

from vera_lab import FixedChunker, SentenceChunker, load_dataset
from vera_lab.cli import main
from vera_lab.embedding import get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.grounding import GroundingParameters
from vera_lab.types import Document

TINY = Path(__file__).parent / "data" / "tiny"


def test_verdicts_cite_document_chunk_span_and_page():
    ds = load_dataset(TINY)
    result = evaluate(
        ds,
        SentenceChunker(size=60, overlap=0, min_size=0, max_size=80),
        get_embedder("hashing-256"),
        GroundingParameters(k=3, threshold=0.3),
    )
    by_id = {v.claim_id: v for v in result.verdicts}
    best = by_id["c1"].evidence[0]
    assert best.doc_id == "solar" and best.rank == 1
    assert ds.corpus["solar"].text[best.start : best.end] == "Solar panels convert sunlight into electricity."
    assert best.chunk_id.startswith("solar:") and best.page is None
    assert [e.rank for e in by_id["c2"].evidence] == [1, 2, 3]
    assert all(v.grounded == (v.score >= 0.3) for v in result.verdicts)
    assert result.per_claim.loc[result.per_claim.claim_id == "c5", "hit"].isna().all()


def test_pages_come_from_offsets():
    doc = Document("p", "page one text. page two text.", page_starts=(0, 15))
    assert doc.page_of(0) == 1 and doc.page_of(14) == 1 and doc.page_of(15) == 2


def test_calibrated_threshold_maximises_f1_on_the_claims():
    ds = load_dataset(TINY)
    fixed = evaluate(
        ds,
        FixedChunker(size=80, overlap=20),
        get_embedder("hashing-256"),
        GroundingParameters(threshold=0.99),
    )
    calibrated = evaluate(
        ds,
        FixedChunker(size=80, overlap=20),
        get_embedder("hashing-256"),
        GroundingParameters(threshold="calibrate"),
    )
    assert calibrated.metrics["grounding_f1"] >= fixed.metrics["grounding_f1"]
    assert calibrated.threshold == pytest.approx(
        calibrated.per_claim.score[calibrated.per_claim.score >= calibrated.threshold].min()
    )


def test_mean_aggregate_and_cited_scope():
    ds = load_dataset(TINY)
    ev = evaluate(
        ds,
        FixedChunker(size=60, overlap=0),
        get_embedder("hashing-256"),
        GroundingParameters(k=2, aggregate="mean", scope="cited"),
    )
    for verdict, claim in zip(ev.verdicts, ds.claims, strict=True):
        assert {e.doc_id for e in verdict.evidence} <= set(claim.cited_doc_ids)
        assert verdict.score == pytest.approx(np.mean([e.score for e in verdict.evidence]))


@pytest.mark.parametrize(
    "params,message",
    [
        ({"k": 0}, "k=0"),
        ({"aggregate": "median"}, "aggregate"),
        ({"threshold": 2}, "threshold=2"),
        ({"scope": "web"}, "scope"),
    ],
)
def test_bad_scorer_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        GroundingParameters(**params)


def test_evaluate_cli_json(capsys, tmp_path):
    code = main(
        [
            "evaluate",
            "--dataset",
            str(TINY),
            "--strategy",
            "sentence",
            "--size",
            "60",
            "--overlap",
            "0",
            "--embedder",
            "hashing",
            "--threshold",
            "calibrate",
            "--json",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claims"] == 6 and out["config"]["strategy"] == "sentence"
    assert 0 <= out["metrics"]["hit"] <= 1 and "grounding_f1" in out["metrics"]
    assert set(out["confusion_by_label"]) == {"supported", "contradicted", "unsupported"}
    assert out["cost"]["embedded_texts"] > 0


def test_evaluate_cli_bad_dataset(capsys, tmp_path):
    assert main(["evaluate", "--dataset", str(tmp_path), "--strategy", "fixed"]) == 2
    assert "no corpus.jsonl or claims.jsonl" in capsys.readouterr().err
