"""The label planner: decisive claims first, spread over clusters; how many labels are still needed."""

from vera_lab.sweep.plan import context, disagreement, labels_needed, overlap, rank_candidates


def test_context_takes_the_first_budget_characters_in_rank_order():
    spans = [["d", 0, 600], ["d", 1000, 1600], ["e", 0, 600]]
    assert context(spans, 1000) == {"d": [(0, 600), (1000, 1400)]}
    assert overlap(context(spans), context(spans)) == 1.0
    assert overlap({"d": [(0, 100)]}, {"d": [(50, 150)]}) == 50 / 150


def test_the_planner_ranks_claims_the_contenders_disagree_on_first_and_spreads_clusters():
    # Two leading configurations: on claims a1, b1 they hand over the same text (a label moves both
    # alike); on a2, a3, b2 different text (a label decides between them).
    same = {"d": [(0, 500)]}
    contexts = {
        "a1": [same, same], "b1": [same, same],
        "a2": [{"d": [(0, 500)]}, {"d": [(400, 900)]}],      # overlap 100/900
        "a3": [{"d": [(0, 500)]}, {"d": [(2000, 2500)]}],    # nothing shared
        "b2": [{"e": [(0, 500)]}, {"e": [(250, 750)]}],      # overlap 250/750
    }  # fmt: skip
    scores = {c: disagreement(v) for c, v in contexts.items()}
    assert scores["a3"] == 1.0 and scores["a1"] == scores["b1"] == 0.0
    clusters = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B"}
    order = rank_candidates(scores, clusters)
    assert order[:2] == ["a3", "b2"]  # the most decisive of each cluster before a second from A
    assert order[2] == "a2" and set(order[3:]) == {"a1", "b1"}


def test_labels_needed_says_what_would_make_a_sweep_conclusive():
    assert labels_needed(150, 40, 0.15, None, None) == 0
    assert labels_needed(60, 30, 0.15, None, None) == 40  # the minimum of 100 claims with evidence
    assert labels_needed(200, 40, 0.4, None, None) == 600  # (0.4 / 0.2)^2 = 4x the claims
    assert labels_needed(200, 40, 0.1, 0.02, 0.04) == 600  # a difference half its interval: 4x again


def test_the_plan_command_ranks_candidate_claims_of_a_finished_sweep(tmp_path, capsys):
    import json
    from pathlib import Path

    from vera_lab.cli import main

    tiny = Path(__file__).parent / "data" / "tiny"
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps({"name": "p", "dataset": str(tiny), "embedders": ["hashing"], "metric": "mrr",
                                "grid": [{"strategy": "fixed", "size": [40, 80], "overlap": 0}]}))  # fmt: skip
    common = ["--cache-dir", str(tmp_path / "c")]
    assert (
        main(["sweep", str(path), "--results-dir", str(tmp_path / "r"), *common, "--quiet", "--no-report"])
        == 0
    )
    candidates = tmp_path / "drafts.csv"
    candidates.write_text("claim_id,claim,doc\nn1,Bees make honey in a colony.,bees\n"
                          "n2,Panels lose output when dusty.,solar\nn3,Rust has no garbage collector.,rust\n")  # fmt: skip
    capsys.readouterr()
    assert main(["plan", str(tmp_path / "r" / "p"), "--claims", str(candidates), *common]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("3 candidates ranked against 2 leading configurations; about ")
    ranked = [line.split()[1] for line in lines[1:]]
    scores = [float(line.split("disagreement ")[1].split(")")[0]) for line in lines[1:]]
    assert sorted(ranked) == ["n1", "n2", "n3"] and scores == sorted(scores, reverse=True)
    candidates.write_text("claim_id,claim,doc\nn1,Bees,nowhere\n")
    assert main(["plan", str(tmp_path / "r" / "p"), "--claims", str(candidates), *common]) == 2
