"""Choices that hold: cluster-aware intervals, a cost that means compute, held-out comparisons."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vera_lab.cli.main import main
from vera_lab.data import DatasetError, load_dataset
from vera_lab.data.clusters import claim_clusters, describe_clusters
from vera_lab.embedding.hashing import HashingEmbedder
from vera_lab.evaluation import embedding_cost, reading_ends
from vera_lab.metrics.bootstrap import bootstrap_ci
from vera_lab.sweep import ResultsStore, parse_config, run_sweep
from vera_lab.sweep.confirm import compare_on
from vera_lab.types import Chunk, Claim, Span

HERE = Path(__file__).parent
TINY = HERE / "data" / "tiny"


class LimitedHashing(HashingEmbedder):
    """A hashing embedder that says it reads at most ``limit`` MiniLM word pieces (special ones included)."""

    def __init__(self, limit: int) -> None:
        super().__init__(32)
        self.input_limit = ("minilm", limit)


def test_cost_columns_equal_hand_counts_with_truncation_at_a_small_input_limit():
    texts = ["one two three four five six seven eight", "nine ten", "red green blue"]
    chunks, start = [], 0
    for i, text in enumerate(texts):
        chunks.append(Chunk(f"d#{i}", "d", i, start, start + len(text), text))
        start += len(text) + 1
    embedder = LimitedHashing(8)  # 6 word pieces and [CLS] [SEP]: each word here is one piece
    cost = embedding_cost(chunks, embedder, reading_ends(chunks, embedder))
    assert cost["forward_tokens"] == 8 + 4 + 5  # the first chunk is cut at 8; the others read whole
    assert cost["truncated_chars"] == len(" seven eight")  # the first chunk's tail past six pieces
    assert cost["embed_seconds"] > 0
    unlimited = embedding_cost(chunks, HashingEmbedder(32), reading_ends(chunks, HashingEmbedder(32)))
    assert np.isnan(unlimited["forward_tokens"]) and unlimited["truncated_chars"] == 0


def correlated_rows(clusters: int, size: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    values = np.random.default_rng(seed).random(clusters)  # claims of one cluster agree perfectly
    rows = pd.DataFrame(
        {"claim_id": [f"c{i}" for i in range(clusters * size)], "hit": np.repeat(values, size)}
    )
    return rows, np.repeat(np.arange(clusters), size)


@pytest.mark.parametrize("size", [4, 9])
def test_cluster_intervals_widen_by_about_the_root_of_the_cluster_size(size):
    rows, clusters = correlated_rows(150, size)
    claim_lo, claim_hi = bootstrap_ci(rows, "hit")
    cluster_lo, cluster_hi = bootstrap_ci(rows, "hit", clusters=clusters)
    ratio = (cluster_hi - cluster_lo) / (claim_hi - claim_lo)
    assert 0.8 * np.sqrt(size) < ratio < 1.2 * np.sqrt(size)


def test_clusters_by_document_group_or_claim():
    claims = [
        Claim("a", "x", "supported", (Span("d1", 0, 1),)),
        Claim("b", "x", "supported", (Span("d1", 1, 2),), group="q1"),
        Claim("c", "x", "supported", (Span("d2", 0, 1),), group="q1"),
        Claim("d", "x", "supported", (Span("d3", 0, 1),), group="q2"),
    ]
    assert claim_clusters(claims, "document").tolist() == [0, 0, 1, 2]
    assert claim_clusters(claims[1:], "group").tolist() == [0, 0, 1]  # q1 joins d1 and d2
    assert claim_clusters(claims, "claim").tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="1 claims have no 'group' field \\(the first: a\\)"):
        claim_clusters(claims, "group")
    assert describe_clusters([0, 0, 1, 2], "document") == {
        "cluster_by": "document", "resampled": "documents", "clusters": 3, "claims": 4, "largest_cluster": 2,
    }  # fmt: skip


def test_a_dataset_declares_its_clusters_and_a_bad_declaration_names_the_file(tmp_path):
    data = tmp_path / "grouped"
    shutil.copytree(TINY, data)
    (data / "dataset.json").write_text(json.dumps({"cluster_by": "group"}))
    with pytest.raises(DatasetError, match="claims.jsonl: cluster_by group: 6 claims have no 'group'"):
        load_dataset(data)
    lines = [json.loads(line) for line in (data / "claims.jsonl").read_text().splitlines()]
    (data / "claims.jsonl").write_text("".join(json.dumps({**r, "group": "g" + r["claim_id"][-1:] }) + "\n"
                                               for r in lines))  # fmt: skip
    assert load_dataset(data).cluster_by == "group"
    (data / "dataset.json").write_text(json.dumps({"cluster_by": "question"}))
    with pytest.raises(DatasetError, match="dataset.json: cluster_by 'question' is not one of document"):
        load_dataset(data)


def clustered_copy(tmp_path: Path) -> Path:
    """TINY with every claim's documents shared in pairs: 3 clusters of 2 claims."""
    data = tmp_path / "clustered"
    shutil.copytree(TINY, data)
    lines = [json.loads(line) for line in (data / "claims.jsonl").read_text().splitlines()]
    docs = [json.loads(line)["doc_id"] for line in (data / "corpus.jsonl").read_text().splitlines()]
    for i, record in enumerate(lines):
        record["cited_doc_ids"] = sorted({record["evidence"][0]["doc_id"] if record["evidence"] else docs[0],
                                          docs[i // 2]})  # fmt: skip
    (data / "claims.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return data


def test_a_sweep_resamples_clusters_everywhere_and_says_so(tmp_path):
    data = clustered_copy(tmp_path)
    config = parse_config({"name": "c", "dataset": str(data), "embedders": ["hashing"], "metric": "hit",
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    run = run_sweep(config, tmp_path / "r", cache_dir=tmp_path / "cache", progress=False)
    dataset = load_dataset(data)
    clusters = claim_clusters(list(dataset.claims), "document")
    rec = json.loads((run.directory / "recommendation.json").read_text())
    assert rec["resampling"] == describe_clusters(clusters, "document")
    assert "paired bootstrap over documents" in rec["rule"]
    for _, row in run.table.iterrows():
        per_claim = ResultsStore(run.directory).per_claim(row.config_id)
        assert per_claim["cluster"].tolist() == clusters.tolist()
        assert (row.hit_ci_low, row.hit_ci_high) == bootstrap_ci(per_claim, "hit", clusters=clusters)


def test_a_file_without_presets_runs_no_preset_and_warnings_are_not_repeated(tmp_path):
    config = parse_config({"name": "n", "dataset": str(TINY), "embedders": ["hashing"],
                           "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]})  # fmt: skip
    assert config.presets == () and [p.presets for p in config.points()] == [()]
    data = tmp_path / "cited"
    shutil.copytree(TINY, data)
    (data / "dataset.json").write_text(json.dumps({"scope": "cited"}))
    both = parse_config({"name": "w", "dataset": str(data), "embedders": ["hashing"], "presets": ["vera-000"],
                         "scorer": ["cosine", "learned"], "grid": []})  # fmt: skip
    from vera_lab.sweep.validity import validity_warnings

    [covering] = [
        w for w in validity_warnings(load_dataset(data), both.points()) if w.code == "k_covers_document"
    ]
    assert covering.message.count("vera-000 3000/0.2 k=5") == 1 and covering.count == 1


def timing(column: str) -> bool:
    """Columns measured in seconds, cache counters and ranks: they may differ between two runs."""
    return (column == "seconds" or column.endswith(("_s", "_seconds")) or column.startswith("rank_")
            or column in ("cost_embedded_texts", "cost_cache_hits"))  # fmt: skip


def test_compare_rows_match_the_sweeps_rows_for_the_same_configuration(tmp_path):
    config = parse_config({"name": "m", "dataset": str(TINY), "embedders": ["hashing"], "metric": "hit",
                           "threshold": 0.3, "presets": ["docuchat-001", "kaizen-004"],
                           "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]})  # fmt: skip
    run = run_sweep(config, tmp_path / "r", cache_dir=tmp_path / "cache", progress=False)
    directory, result = compare_on(run.directory, TINY, cache_dir=tmp_path / "cache", progress=False)
    assert directory == run.directory / "compare-tiny"
    rec = json.loads((run.directory / "recommendation.json").read_text())
    assert result["reference"] == rec["config_id"] and result["rows"][0]["role"] == "recommended"
    assert {r["role"] for r in result["rows"][1:]} == {"preset"}
    swept = run.table.set_index("config_id")
    compared = ResultsStore(directory).rows().set_index("config_id")
    for cid in compared.index:  # a fixed threshold: the same configuration, so the same id
        # every column but timings, cache counters and ranks (which rank within a table) agree exactly
        columns = [c for c in compared.columns if c in swept.columns and not timing(c)]
        pd.testing.assert_series_equal(compared.loc[cid, columns], swept.loc[cid, columns],
                                       check_names=False, check_dtype=False)  # fmt: skip
        claims_here = ResultsStore(directory).per_claim(cid)
        pd.testing.assert_frame_equal(claims_here, ResultsStore(run.directory).per_claim(cid))
    table = pd.read_csv(directory / "comparison.csv")
    assert set(table.metric) >= {"hit", "mrr", "budget_recall"}
    assert (
        table.config_id.unique().tolist() == [r["config_id"] for r in result["rows"]]
        and len(result["rows"]) >= 2
    )
    reference = table[(table.config_id == rec["config_id"])]
    assert reference.reference_minus_this.isna().all()  # the reference is not compared with itself
    # every interval names its bounds, in comparison.json as in the table
    hit = result["rows"][0]["figures"]["hit"]
    assert set(hit) == {"value", "ci_low", "ci_high"} and hit["ci_low"] <= hit["value"] <= hit["ci_high"]
    row = reference[reference.metric == "hit"].iloc[0]
    assert (row.value, row.ci_low, row.ci_high) == (hit["value"], hit["ci_low"], hit["ci_high"])


def test_figures_stored_as_bare_lists_by_earlier_runs_are_still_read():
    from vera_lab.sweep.compare import interval

    assert (
        interval([0.5, 0.4, 0.6])
        == interval({"value": 0.5, "ci_low": 0.4, "ci_high": 0.6})
        == (0.5, 0.4, 0.6)
    )
    assert interval([0.5]) == (0.5, None, None)


def test_the_compare_command_prints_the_verdict_and_checks_sources(tmp_path, capsys):
    data = tmp_path / "sourced"
    shutil.copytree(TINY, data)
    lines = [json.loads(line) for line in (data / "claims.jsonl").read_text().splitlines()]
    (data / "claims.jsonl").write_text("".join(json.dumps({**r, "source": "web" if i % 2 else "pdf"}) + "\n"
                                               for i, r in enumerate(lines)))  # fmt: skip
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps({"name": "s", "dataset": str(TINY), "embedders": ["hashing"], "metric": "hit",
                                "presets": ["docuchat-001"], "grid": [{"strategy": "fixed", "size": 40, "overlap": 0}]}))  # fmt: skip
    common = ["--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c")]
    assert main(["sweep", str(path), *common, "--also-check", str(data), "--quiet", "--no-report"]) == 0
    confirmation = json.loads((tmp_path / "r" / "s" / "confirmation.json").read_text())
    [entry] = confirmation["confirmations"]
    assert entry["store"] == "check-sourced" and set(entry["by_source"]) == {"pdf", "web"}
    assert {r["held_out_config_id"] for r in entry["rows"]} <= set(
        pd.read_csv(tmp_path / "r" / "s" / "check-sourced" / "results.csv").config_id
    )  # the ids listed are the ids stored
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "r" / "s"), "--dataset", str(data), "--cache-dir",
                 str(tmp_path / "c"), "--quiet"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "The recommendation holds by hit" in out and "source pdf (3 claims): holds" in out
    rec = tmp_path / "r" / "s" / "recommendation.json"  # the file inside the run stands for the run
    assert (
        main(["compare", str(rec), "--dataset", str(data), "--cache-dir", str(tmp_path / "c"), "--quiet"])
        == 0
    )
    assert capsys.readouterr().out == out
    assert main(["evaluate", "--recommendation", str(rec), "--dataset", str(data), "--cache-dir",
                 str(tmp_path / "c")]) == 0  # fmt: skip
    assert main(["compare", str(tmp_path), "--dataset", str(data)]) == 2
    assert "no recommendation.json" in capsys.readouterr().err


def test_the_sweep_package_imports_in_one_direction():
    """No module of vera_lab/sweep imports one that imports it back, even inside a function."""
    package = HERE.parent / "vera_lab" / "sweep"
    graph = {}
    for path in package.glob("*.py"):
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vera_lab.sweep."):
                targets.add(node.module.rsplit(".", 1)[1])
        graph[path.stem] = targets

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            t == goal or (t not in seen and reaches(t, goal, seen | {t})) for t in graph.get(start, ())
        )

    assert [m for m in graph if reaches(m, m, set())] == []
    assert {"runner", "halving", "confirm", "recommend"} <= graph["orchestrate"]
