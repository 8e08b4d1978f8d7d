"""ragas interop, chunk export (jsonl, parquet, a real local Chroma collection), optional extras."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vera_lab import FixedChunker, load_dataset
from vera_lab.cli import main
from vera_lab.embedding import get_embedder
from vera_lab.evaluation import evaluate
from vera_lab.grounding import GroundingParameters
from vera_lab.metrics.ragas import (
    context_samples,
    from_ragas,
    our_context_scores,
    ragas_offline_scores,
    to_ragas,
)
from vera_lab.sweep import parse_config, run_sweep
from vera_lab.types import Chunk, Claim, Corpus, Document, Span

TINY = Path(__file__).parent / "data" / "tiny"


@pytest.fixture(scope="module")
def samples():
    ds = load_dataset(TINY)
    ev = evaluate(ds, FixedChunker(size=60, overlap=10), get_embedder("hashing"), GroundingParameters(k=3))
    return context_samples(
        list(ds.claims), ev.chunks, [[e.chunk_id for e in v.evidence] for v in ev.verdicts], ds.corpus
    )


def test_round_trip_through_ragas(samples):
    frame = from_ragas(to_ragas(samples))
    assert list(frame.user_input) == [s.user_input for s in samples]
    assert [tuple(x) for x in frame.retrieved_context_ids] == [s.retrieved_context_ids for s in samples]
    assert all(len(r) == 3 for r in frame.retrieved_contexts)


def test_id_based_metrics_agree_with_ragas(samples):
    ours = our_context_scores(samples)
    theirs = ragas_offline_scores(samples)
    assert np.allclose(ours.id_context_precision, theirs.ragas_id_context_precision)
    assert np.allclose(ours.id_context_recall, theirs.ragas_id_context_recall)


def test_string_similarity_metrics_differ_on_long_chunks():
    # The chunk contains the whole evidence sentence, but is ten times longer than it.
    evidence = "Solar panels convert sunlight into electricity."
    text = "Filler words here. " * 20 + evidence + " More filler text. " * 5
    doc = Document("d", text)
    start = text.index(evidence)
    chunk = Chunk("d:0", "d", 0, 0, len(text), text)
    claim = Claim(
        "c", "solar panels make electricity", "supported", (Span("d", start, start + len(evidence)),)
    )
    sample = context_samples([claim], [chunk], [["d:0"]], Corpus((doc,)))
    ours = our_context_scores(sample).iloc[0]
    theirs = ragas_offline_scores(sample).iloc[0]
    assert ours.id_context_recall == 1.0 and theirs.ragas_id_context_recall == 1.0
    assert theirs.ragas_nonllm_context_recall == 0.0  # Levenshtein similarity of chunk vs evidence < 0.5


def test_sweep_with_ragas_columns(tmp_path):
    config = parse_config(
        {
            "name": "rg",
            "dataset": str(TINY),
            "embedders": ["hashing"],
            "presets": [],
            "ragas": True,
            "grid": [{"strategy": "fixed", "size": [60], "overlap": [0]}],
        }
    )
    table = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False).table
    row = table.iloc[0]
    assert row.id_context_precision == pytest.approx(row.ragas_id_context_precision)
    assert 0 <= row.ragas_nonllm_context_recall <= 1


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    config = parse_config(
        {
            "name": "ex",
            "dataset": str(TINY),
            "embedders": ["hashing"],
            "presets": [],
            "grid": [{"strategy": "sentence", "size": [60], "overlap": [0], "min_size": [0]}],
        }
    )
    run_sweep(config, root, cache_dir=root / "cache", progress=False)
    return root


def test_export_jsonl_and_parquet(stored_run, capsys):
    run_dir, cache = stored_run / "ex", stored_run / "cache"
    assert (
        main(
            ["export", str(run_dir), "--to", "jsonl", str(stored_run / "c.jsonl"), "--cache-dir", str(cache)]
        )
        == 0
    )
    with (stored_run / "c.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    ds = load_dataset(TINY)
    assert all(ds.corpus[r["doc_id"]].text[r["start"] : r["end"]] == r["text"] for r in rows)
    assert all(len(r["vector"]) == 256 for r in rows)
    assert (
        main(
            [
                "export",
                str(run_dir),
                "--to",
                "parquet",
                str(stored_run / "c.parquet"),
                "--cache-dir",
                str(cache),
            ]
        )
        == 0
    )
    frame = pd.read_parquet(stored_run / "c.parquet")
    assert list(frame.chunk_id) == [r["chunk_id"] for r in rows]
    # The ids are those of the sweep's per-claim rows: chunking is deterministic.
    per_claim = pd.read_csv(next((run_dir / "claims").glob("*.csv")))
    assert set(json.loads(per_claim.retrieved[0])) <= set(frame.chunk_id)


def test_export_to_a_real_chroma_collection(stored_run, capsys):
    chromadb = pytest.importorskip("chromadb")
    path = stored_run / "chroma"
    assert (
        main(
            [
                "export",
                str(stored_run / "ex"),
                "--to",
                "chroma",
                str(path),
                "--cache-dir",
                str(stored_run / "cache"),
            ]
        )
        == 0
    )
    client = chromadb.PersistentClient(path=str(path), settings=chromadb.Settings(anonymized_telemetry=False))
    name = client.list_collections()[0].name
    assert f"Chroma collection {name!r}" in capsys.readouterr().out  # the user is told where to look
    collection = client.get_collection(name)
    query = get_embedder("hashing").embed(["Solar panels turn sunlight into electricity."])
    result = collection.query(query_embeddings=query.tolist(), n_results=1)
    assert result["documents"][0][0] == "Solar panels convert sunlight into electricity."
    assert result["metadatas"][0][0]["doc_id"] == "solar"


def test_a_chroma_collection_holding_another_configurations_chunks_is_replaced_only_with_force(
    tmp_path, capsys
):
    chromadb = pytest.importorskip("chromadb")
    config = parse_config({"name": "two", "dataset": str(TINY), "embedders": ["hashing"], "presets": [],
                           "grid": [{"strategy": "sentence", "size": [60, 120], "overlap": [0], "min_size": [0]}]})  # fmt: skip
    table = run_sweep(config, tmp_path, cache_dir=tmp_path / "cache", progress=False).table.set_index(
        "config_id"
    )
    first, second = table.index
    path = tmp_path / "chroma"
    argv = [
        "export",
        str(tmp_path / "two"),
        "--to",
        "chroma",
        str(path),
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    assert (
        main([*argv, "--config", first]) == 0 and main([*argv, "--config", first]) == 0
    )  # the same: no harm
    client = chromadb.PersistentClient(path=str(path), settings=chromadb.Settings(anonymized_telemetry=False))
    (collection,) = client.list_collections()
    assert client.get_collection(collection.name).count() == table.loc[first, "chunks_n_chunks"]
    capsys.readouterr()
    assert main([*argv, "--config", second]) == 2  # another chunking: adding it would mix two in one index
    assert f"holds configuration {first}'s chunks" in capsys.readouterr().err
    assert client.get_collection(collection.name).count() == table.loc[first, "chunks_n_chunks"]
    assert main([*argv, "--config", second, "--force"]) == 0
    client = chromadb.PersistentClient(path=str(path), settings=chromadb.Settings(anonymized_telemetry=False))
    replaced = client.get_collection(collection.name)
    assert replaced.metadata["vera_lab_config"] == second
    assert replaced.count() == table.loc[second, "chunks_n_chunks"]


BLOCKER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"ragas", "chromadb", "langchain_community", "torch", "sentence_transformers"}:
            raise ImportError(f"blocked {name}")
sys.meta_path.insert(0, Block())
import vera_lab
from vera_lab.cli import main
assert main(["chunk", sys.argv[1], "--strategy", "fixed", "--size", "50", "--overlap", "0", "--format", "stats"]) == 0
heavy = [m for m in ("ragas", "chromadb", "torch", "sentence_transformers", "matplotlib") if m in sys.modules]
assert not heavy, heavy
from vera_lab.metrics.ragas import to_ragas
try:
    to_ragas([])
except ImportError as exc:
    assert "vera-lab[ragas]" in str(exc), exc
    print("ok")
"""


def test_vera_lab_imports_and_works_without_the_extras(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("Some text. " * 20)
    out = subprocess.run([sys.executable, "-c", BLOCKER, str(f)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
