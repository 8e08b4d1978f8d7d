"""Hand-built cases for every miss reason, the truncation audit, validity warnings, realised overlap
and rank stability."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vera_lab.chunking import make_chunker
from vera_lab.metrics.diagnostics import miss_reason, seen_ends, truncation_audit
from vera_lab.sweep import Configuration
from vera_lab.sweep.runner import overlap_columns
from vera_lab.sweep.stability import rank_stability
from vera_lab.sweep.validity import validity_warnings
from vera_lab.tokens import TokenSpans
from vera_lab.types import Chunk, Claim, ClaimSet, Corpus, Dataset, Document, Span

TEXT = "x" * 400
HERE = Path(__file__).parent


class CharTokens:
    """One token per character: the model's limit in tokens is a limit in characters."""

    name, additive = "chars", True

    def count(self, text):
        return len(text)

    def count_many(self, texts):
        return [len(t) for t in texts]

    def spans(self, text):
        return TokenSpans(np.arange(len(text)), np.arange(1, len(text) + 1))


def chunk(start, end, doc="d"):
    return Chunk(f"{doc}:{start}-{end}", doc, 0, start, end, TEXT[start:end])


def test_a_boundary_that_cuts_every_gold_span_is_a_straddle():
    chunks = [chunk(0, 50), chunk(50, 60), chunk(60, 100)]
    gold = [Span("d", 45, 66)]  # 5, 10 and 6 of its 21 characters: no chunk holds half
    assert miss_reason(gold, chunks, [c.end for c in chunks]) == "straddle"


def test_evidence_only_in_the_unseen_tail_is_truncated():
    chunks = [chunk(0, 300)]
    seen = seen_ends(chunks, CharTokens(), max_tokens=102)  # reads 100 characters
    assert seen.tolist() == [100]
    assert miss_reason([Span("d", 250, 280)], chunks, seen) == "truncated"
    audit = truncation_audit(chunks, seen, [Span("d", 250, 280), Span("d", 10, 30)])
    assert audit == {"trunc_chunk_share": 1.0, "trunc_char_share": pytest.approx(200 / 300),
                     "trunc_gold_share": pytest.approx(30 / 50)}  # fmt: skip


def test_a_short_chunk_of_many_tokens_per_character_is_still_cut():
    from vera_lab.tokens import get_tokenizer

    text = "릠 " * 100  # 200 characters, 300 WordPiece tokens: BERT splits each syllable into 3 jamo
    tokenizer = get_tokenizer("minilm")
    assert tokenizer.count(text) == 300
    seen = seen_ends([Chunk("d:0-200", "d", 0, 0, 200, text)], tokenizer, max_tokens=258)
    assert seen.tolist() == [171]  # 256 tokens read: 85 whole syllables and one jamo of the 86th


def test_a_next_chunk_that_sees_the_tail_means_the_evidence_was_seen():
    chunks = [chunk(0, 300), chunk(200, 300)]
    seen = seen_ends(chunks, CharTokens(), max_tokens=102)
    assert truncation_audit(chunks, seen, [Span("d", 250, 280)])["trunc_gold_share"] == 0.0


def test_a_seen_chunk_four_times_longer_than_the_evidence_is_diluted_and_a_focused_one_lost_on_ranking():
    long_chunk, short_chunk = [chunk(0, 200)], [chunk(0, 50)]
    gold = [Span("d", 10, 30)]
    assert miss_reason(gold, long_chunk, [200]) == "diluted"
    assert miss_reason(gold, short_chunk, [50]) == "ranking"


def dataset(doc_lengths, claims):
    docs = tuple(Document(f"d{i}", "word " * (n // 5)) for i, n in enumerate(doc_lengths))
    return Dataset("t", Corpus(docs), ClaimSet(tuple(claims), "t"))


def test_validity_warnings_name_each_problem_with_counts():
    claims = [Claim(f"c{i}", "same claim", "supported", (Span("d0", 0, 300),), ("d0",)) for i in range(2)]
    claims += [Claim(f"u{i}", f"other {i}", "unsupported", (), ("d1",)) for i in range(12)]
    data = dataset([500, 400, 5000], claims)
    points = [
        Configuration.create({"strategy": "fixed", "size": 1000, "overlap": 0}, scope="cited", k=5),
        Configuration.create({"strategy": "fixed", "size": 200, "overlap": 0}, scope="cited", k=5),
    ]
    warnings = {w.code: w for w in validity_warnings(data, points)}
    assert (
        warnings["short_documents"].count == 2
        and "sizes 1000 (2 of 3) chars" in warnings["short_documents"].message
    )
    assert (
        warnings["long_evidence"].count == 2
        and "sizes 200 (2 of 2) chars" in warnings["long_evidence"].message
    )
    assert warnings["duplicate_claims"].count == 2
    assert (
        warnings["label_imbalance"].count == 12
        and "unsupported 12, supported 2" in warnings["label_imbalance"].message
    )
    covering = warnings["k_covers_document"]  # a median document of 500 chars is one 1000-char chunk
    assert covering.count == 2 and "fixed 1000/0 k=5, fixed 200/0 k=5" in covering.message  # 1 and 3 chunks


def test_realised_overlap_is_reported_and_a_shortfall_flagged():
    stats = {"overlap_chars_mean": 1.0, "chars_mean": 250.0}
    sentence = overlap_columns(make_chunker("sentence", size=300, overlap=0.2), stats)
    assert sentence["overlap_requested"] == pytest.approx(0.2) and sentence["overlap_shortfall"]
    fixed = overlap_columns(
        make_chunker("fixed", size=1000, overlap=200), {"overlap_chars_mean": 200, "chars_mean": 1000}
    )
    assert fixed == {"overlap_requested": 0.2, "overlap_realised": 0.2, "overlap_shortfall": False}


def test_rank_stability_finds_the_chunker_that_is_never_far_behind():
    rows = []
    scores = {3: {"a": 0.9, "b": 0.5, "c": 0.85}, 5: {"a": 0.6, "b": 0.95, "c": 0.9}}
    for k, by_chunker in scores.items():
        for name, value in by_chunker.items():
            params = {"chunker": {"strategy": name}, "k": k}
            rows.append({"params": json.dumps(params), "param_k": k, "param_embedder": "m", "mrr": value})
    out = rank_stability(pd.DataFrame(rows), "mrr")
    assert out["robust_chunker"] == {"strategy": "c"} and out["robust_worst_regret"] == pytest.approx(0.05)
    assert out["kendall_tau"][0]["tau"] == pytest.approx(-1.0)  # a > c > b at k=3, b > c > a at k=5


def test_a_screen_that_inverts_the_ranking_is_flagged():
    from vera_lab.sweep.halving import fidelity

    full = {f"c{i}": i / 10 for i in range(6)}
    inverted = {k: -v for k, v in full.items()}
    flagged = fidelity(inverted, full, top_pick_in_set=False)
    assert flagged["flagged"] and flagged["spearman"] == pytest.approx(-1.0) and flagged["n"] == 6
    assert "agrees poorly" in flagged["message"] and "top pick" in flagged["message"]
    assert not fidelity(full, full, top_pick_in_set=True)["flagged"]


def test_a_sample_screen_runs_on_fewer_documents_and_also_runs_a_dropped_config(tmp_path, monkeypatch):
    import importlib

    recommend = importlib.import_module("vera_lab.sweep.recommend")  # the module, not the function
    from vera_lab.sweep import ResultsStore, parse_config, run_sweep

    raw = {"name": "h", "dataset": str(HERE / "data" / "tiny"), "embedders": ["hashing"], "presets": [],
           "halving": {"screen": "sample", "share": 0.5, "keep": 0.25, "calibration": 0},
           "grid": [{"strategy": "fixed", "size": [20, 40, 80, 160], "overlap": 0}]}  # fmt: skip
    run = run_sweep(parse_config(raw), tmp_path, cache_dir=tmp_path / "c", progress=False)
    screen = ResultsStore(run.directory / "screen").read_manifest()["data"]
    assert screen["documents"] == 2 and screen["sampling"]["documents"] == 2
    report = json.loads((run.directory / "halving.json").read_text())
    assert len(report["kept_by_evidence"]) == 4 and not report["dropped"]  # 3 claims tell nothing apart
    # When the screen does tell them apart, the dropped ones are listed and one can be run on request.
    decisive = {"diff": 0.5, "ci_low": 0.4, "ci_high": 0.6, "p_value": 0.0, "significant": True}
    monkeypatch.setattr(recommend, "paired_bootstrap", lambda *a, **k: decisive)
    run = run_sweep(parse_config({**raw, "name": "h2"}), tmp_path, cache_dir=tmp_path / "c", progress=False)
    report = json.loads((run.directory / "halving.json").read_text())
    assert len(report["dropped"]) == 3 and len(run.table) == 1
    dropped = report["dropped"][0]
    assert dropped["p_holm"] == 0.0 and dropped["behind_screen_best"] == 0.5
    again = run_sweep(parse_config({**raw, "name": "h2"}), tmp_path, cache_dir=tmp_path / "c", progress=False,
                      also=(dropped["config_id"],))  # fmt: skip
    assert dropped["config_id"] in set(again.table.config_id) and again.recomputed == 1
