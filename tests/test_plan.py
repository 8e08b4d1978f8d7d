"""The label planner: decisive claims first, spread over clusters; how many labels are still needed."""

import numpy as np
import pytest

from vera_lab.labelling.plan import (
    context,
    disagreement,
    evidence_probability,
    hardest_rival,
    labels_needed,
    overlap,
    priority,
    rank_candidates,
    rivals_of,
)


def test_context_takes_the_first_budget_characters_in_rank_order():
    spans = [["d", 0, 600], ["d", 1000, 1600], ["e", 0, 600]]
    assert context(spans, 1000) == {"d": [(0, 600), (1000, 1400)]}
    assert overlap(context(spans), context(spans)) == 1.0
    assert overlap({"d": [(0, 100)]}, {"d": [(50, 150)]}) == 50 / 150


def test_the_planner_ranks_claims_the_contenders_disagree_on_first_and_spreads_clusters():
    # The best configuration and two rivals: on a1, b1 all hand over the same text (a label moves them
    # alike); on a2, a3, b2 the rivals' text differs (a label decides between them).
    same = {"d": [(0, 500)]}
    contexts = {
        "a1": [same, same, same], "b1": [same, same, same],
        "a2": [{"d": [(0, 500)]}, {"d": [(400, 900)]}, {"d": [(0, 500)]}],    # overlaps 100/900 and 1
        "a3": [{"d": [(0, 500)]}, {"d": [(2000, 2500)]}, {"e": [(0, 500)]}],  # nothing shared
        "b2": [{"e": [(0, 500)]}, {"e": [(250, 750)]}, {"e": [(250, 750)]}],  # 250/750 with each
    }  # fmt: skip
    split = {c: disagreement(v[0], v[1:]) for c, v in contexts.items()}
    assert split["a3"] == 1.0 and split["a1"] == split["b1"] == 0.0
    assert split["a2"] == pytest.approx(1 - (1 / 9 + 1) / 2) and split["b2"] == pytest.approx(2 / 3)
    assert disagreement(same, []) == 1.0  # no rival left: any label with evidence helps
    chance = {"a1": 0.9, "a2": 0.9, "a3": 0.9, "b1": 0.9, "b2": 0.9}
    scores = {c: priority(chance[c], split[c]) for c in contexts}
    assert scores["a3"] == pytest.approx(0.9) and scores["b2"] == pytest.approx(0.9 * np.sqrt(2 / 3))
    clusters = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B"}
    order = rank_candidates(scores, clusters)
    assert order[:2] == ["a3", "b2"]  # the most decisive of each cluster before a second from A
    assert order[2] == "a2" and set(order[3:]) == {"a1", "b1"}
    # A claim unlikely to carry evidence cannot move a retrieval metric, however split the contexts.
    scores["a3"] = priority(0.05, split["a3"])
    assert rank_candidates(scores, clusters)[:3] == ["b2", "a2", "a3"]


def test_the_chance_of_evidence_is_learnt_from_the_labelled_claims():
    rng = np.random.default_rng(0)
    has_evidence = rng.random(200) < 0.5
    closeness = np.where(has_evidence, 0.6, 0.4) + rng.normal(0, 0.05, 200)  # evidence: closer chunks
    labelled = [(float(c), "a claim") for c in closeness]
    chance = evidence_probability(
        labelled, has_evidence, [(0.3, "a claim"), (0.5, "a claim"), (0.7, "a claim")]
    )
    assert chance[0] < 0.05 and 0.3 < chance[1] < 0.7 and chance[2] > 0.95
    # Claims worded alike carry evidence alike: one question asked of many documents.
    asked = ["Is the term renewed?"] * 50 + ["Is there a penalty?"] * 50
    found = [i % 5 != 0 for i in range(50)] + [i % 5 == 0 for i in range(50)]  # 80% and 20%
    chance = evidence_probability([(0.5, t) for t in asked], found, [(0.5, asked[0]), (0.5, asked[-1])])
    assert chance[0] > 0.7 and chance[1] < 0.3
    # Too few of one kind to fit: every candidate gets the labelled share (1 with nothing labelled).
    few = evidence_probability([(0.5, "x")] * 10, [True] * 7 + [False] * 3, [(0.1, "y"), (0.9, "z")])
    assert few.tolist() == [0.7, 0.7]
    assert evidence_probability([], [], [(0.2, "y")]).tolist() == [1.0]


def test_the_hardest_cheaper_rival_is_the_one_whose_interval_most_overlaps_its_difference():
    near = {"diff": 0.02, "ci_low": -0.01, "ci_high": 0.05}  # half-width 1.5x the difference
    far = {"diff": 0.05, "ci_low": 0.0, "ci_high": 0.10}
    tie = {"diff": -0.01, "ci_low": -0.05, "ci_high": 0.03}  # as good as the best: never shown worse
    assert hardest_rival([far, near, tie], 2) == pytest.approx((0.02, 0.03))
    # Ten rivals compared: the half-width widens to Bonferroni's 0.05 / 10 level, z 2.807 over 1.960.
    diff, half = hardest_rival([near], 11)
    assert diff == 0.02 and half == pytest.approx(0.03 * 2.807 / 1.960, rel=1e-3)
    assert hardest_rival([tie], 2) == (None, None) and hardest_rival([], 5) == (None, None)
    assert labels_needed(200, 40, 0.1, 0.02, 0.03) == 250  # 200 x (1.5^2 - 1)


def test_the_rivals_are_the_members_the_rule_prefers_to_the_best_else_the_others():
    assert rivals_of(["cheap", "cheaper-still", "best", "dear"], "best") == (
        ["cheap", "cheaper-still"],
        ["cheap", "cheaper-still"],
    )
    assert rivals_of(["best", "dear", "dearer"], "best") == ([], ["dear", "dearer"])
    assert rivals_of(["best"], "best") == ([], [])


def test_labels_needed_says_what_would_make_a_sweep_conclusive():
    assert labels_needed(150, 40, 0.15, None, None) == 0
    assert labels_needed(60, 30, 0.15, None, None) == 40  # the minimum of 100 claims with evidence
    assert labels_needed(200, 40, 0.4, None, None) == 600  # (0.4 / 0.2)^2 = 4x the claims
    assert labels_needed(200, 40, 0.1, 0.02, 0.04) == 600  # a difference half its interval: 4x again


def test_the_plan_command_ranks_candidate_claims_of_a_finished_sweep(tmp_path, capsys):
    import csv
    import json
    from pathlib import Path

    from vera_lab.cli import main
    from vera_lab.data import load_corpus
    from vera_lab.data.user_claims import read_claims

    tiny = Path(__file__).parent / "data" / "tiny"
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps({"name": "p", "dataset": str(tiny), "embedders": ["hashing"], "metric": "mrr",
                                "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}))  # fmt: skip
    common = ["--cache-dir", str(tmp_path / "c")]
    assert (
        main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), *common, "--quiet", "--no-report"])
        == 0
    )
    candidates = tmp_path / "drafts.csv"  # n2 is a draft quoted on two rows; n1 and n3 are bare claims
    candidates.write_text("claim_id,claim,label,doc,evidence,status,note\n"
                          "n1,Bees make honey in a colony.,,bees,,,mine\n"
                          "n2,Panels lose output when dusty.,supported,solar,Dust lowers the output,draft,\n"
                          "n3,Rust has no garbage collector.,,rust,,,\n"
                          "n2,Panels lose output when dusty.,supported,solar,output of a panel,draft,\n")  # fmt: skip
    capsys.readouterr()
    out = tmp_path / "plan.csv"
    assert (
        main(["plan", str(tmp_path / "r" / "p"), "--claims", str(candidates), "--out", str(out), *common])
        == 0
    )
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(str(out))]
    assert lines[0].startswith("3 candidates ranked against the best configuration and 1 rival; about ")
    # tiny: 5 of 6 labelled claims carry evidence, so 95 more with evidence take 95 / (5/6) = 114 labels
    assert "about 95 more labelled claims with evidence" in lines[0] and "(about 114 labels: 83% " in lines[0]
    ranked = [line.split()[1] for line in lines[1:]]
    scores = [float(line.split("priority ")[1].split(":")[0]) for line in lines[1:]]
    assert sorted(ranked) == ["n1", "n2", "n3"] and scores == sorted(scores, reverse=True)
    # The written plan: every row in plan order (both of n2's together), what each row had kept.
    with out.open(newline="") as handle:
        written = list(csv.DictReader(handle))
    assert [r["claim_id"] for r in written] == [c for c in ranked for _ in range(2 if c == "n2" else 1)]
    assert all(int(r["plan_rank"]) == ranked.index(r["claim_id"]) + 1 for r in written)
    by_id = {r["claim_id"]: r for r in written}
    assert by_id["n2"]["status"] == "draft" and by_id["n2"]["label"] == "supported"
    assert by_id["n1"]["status"] == "to label" and by_id["n1"]["note"] == "mine"
    # Labelled from the top and the rest deleted, the file is a claims file as it stands.
    quotes = {"bees": "A colony can hold 50,000 bees.", "rust": "without a garbage collector"}
    kept = [r for r in written if r["claim_id"] == ranked[0]]
    for r in kept:
        r["label"], r["evidence"] = r["label"] or "supported", r["evidence"] or quotes[r["doc"]]
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(written[0]))
        writer.writeheader()
        writer.writerows(kept)
    claims, located = read_claims(out, load_corpus(tiny / "corpus.jsonl"))
    assert [c.claim_id for c in claims] == [ranked[0]] and len(located) == len(kept)
    candidates.write_text("claim_id,claim,doc\nn1,Bees,nowhere\n")
    assert main(["plan", str(tmp_path / "r" / "p"), "--claims", str(candidates), *common]) == 2
