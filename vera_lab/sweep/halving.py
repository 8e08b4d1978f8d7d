"""Successive halving that keeps the winner: screen cheaply, keep by evidence, confirm, measure fidelity.

A screen is a cheaper run of every configuration: ``screen: sample`` runs the configured embedder on
a seeded sample of the documents (``share``, default 25%) and the claims about them alone;
``screen: <embedder>`` (e.g. ``tfidf``) runs a cheap embedder on all the data. A cheap screen is a
different ranking, not a noisy copy, so:

- every configuration whose screen score is not significantly below the screen's best (paired
  bootstrap over the screen's clusters of claims, Holm-corrected) is kept, with ``keep`` as a floor (the best
  share by screen score of each retrieval pipeline), and the seed presets are always kept;
- ``calibration`` dropped configurations, spread over the screen's ranking, are run in full too, so
  the screen's fidelity (rank correlation between screen and full scores over every configuration
  run both ways) is measured, and the screen's top pick is checked against the full run's set of
  configurations not significantly worse than the best;
- ``halving.json`` lists what was dropped, with its screen score and interval and the command that
  runs it in full (``vera-lab sweep FILE --also CONFIG_ID``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from vera_lab.sweep.config import Configuration
from vera_lab.sweep.recommend import indistinguishable
from vera_lab.sweep.runner import SweepRunner

MIN_RANK_CORRELATION = 0.5  # below this Spearman correlation the screen is flagged as unreliable


def halving_options(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The halving options with their defaults, validated."""
    out = {"screen": str(raw.get("screen", "tfidf")), "keep": float(raw.get("keep", 0.25)),
           "share": float(raw.get("share", 0.25)), "calibration": int(raw.get("calibration", 4))}  # fmt: skip
    if not 0 < out["keep"] <= 1:
        raise ValueError(f"halving.keep={out['keep']}: a fraction in (0, 1]")
    if not 0 < out["share"] < 1:
        raise ValueError(f"halving.share={out['share']}: a fraction of the documents in (0, 1)")
    if out["calibration"] < 0:
        raise ValueError(f"halving.calibration={out['calibration']}: a number of configurations >= 0")
    return out


def _screen_runner(runner: SweepRunner, opts: dict[str, Any]) -> SweepRunner:
    """A runner for the screen's own store, ``<run>/screen/``, on a sample of documents or all of them."""
    config = dataclasses.replace(runner.config, name="screen", halving={})
    sampling = runner.sampling
    if opts["screen"] == "sample":
        sampling = dataclasses.replace(
            sampling, documents=max(1, round(opts["share"] * runner.data["documents"]))
        )
    return SweepRunner(config, runner.store.dir, runner.cache_dir, runner.executor, runner.progress, sampling)


def successive_halving(
    runner: SweepRunner, points: list[Configuration], also: tuple[str, ...] = ()
) -> list[Configuration]:
    """Screen every point, keep by evidence (and the presets), confirm in full; returns the final points."""
    opts = halving_options(runner.config.halving)
    metric = runner.config.metric
    screen_runner = _screen_runner(runner, opts)
    screened = (
        points
        if opts["screen"] == "sample"
        else [dataclasses.replace(p, embedder=opts["screen"]) for p in points]
    )
    screen_runner.check_stored_data(screened)
    screen_runner.write_manifest(screened)
    screen_runner.run(screened, desc=f"screen ({opts['screen']})")
    rows = screen_runner.store.rows().set_index("config_id")
    value = _screen_values(rows, screened, metric)
    finite = sorted((i for i in value if math.isfinite(value[i])), key=lambda i: (-value[i], i))
    if not finite:
        raise ValueError(
            f"halving: no configuration finished its screen ({opts['screen']}); see {screen_runner.store.dir}"
        )
    best = finite[0]
    # The same test as the final comparison: every other screened config against the screen's best.
    order = rows.loc[[screened[i].config_id for i in finite]].reset_index()
    tests = indistinguishable(screen_runner.store, order.iloc[0], order.iloc[1:], metric)
    tests = tests.set_index("config_id")
    test_of = {i: tests.loc[screened[i].config_id] for i in finite[1:]}
    by_evidence = {best} | {i for i, t in test_of.items() if not t["worse"]}
    by_floor = _floor(points, finite, opts["keep"])
    presets = {i for i, p in enumerate(points) if p.presets}
    requested = {i for i, p in enumerate(points) if p.config_id in also}
    kept = by_evidence | by_floor | presets | requested
    dropped = [i for i in finite if i not in kept]
    step = len(dropped) / opts["calibration"] if opts["calibration"] and dropped else 0
    calibration = sorted({dropped[int(k * step)] for k in range(min(opts["calibration"], len(dropped)))})
    final = [points[i] for i in sorted(kept | set(calibration))]
    report = {
        "screen": opts["screen"], "metric": metric, "options": opts,
        "screened": [s.config_id for s in screened],
        "screen_best": points[best].config_id,
        "kept_by_evidence": [points[i].config_id for i in sorted(by_evidence)],
        "kept_by_floor": [points[i].config_id for i in sorted(by_floor)],
        "kept_presets": [points[i].config_id for i in sorted(presets)],
        "kept_on_request": [points[i].config_id for i in sorted(requested)],
        "calibration": [points[i].config_id for i in calibration],
        "dropped": [
            {"config_id": points[i].config_id, "screen_value": value[i],
             "screen_ci": [rows.loc[screened[i].config_id].get(f"{metric}_ci_low"),
                           rows.loc[screened[i].config_id].get(f"{metric}_ci_high")],
             "behind_screen_best": float(test_of[i]["diff"]), "p_holm": float(test_of[i]["p_holm"]),
             "calibration": i in calibration}
            for i in dropped
        ],
        "screen_values": {points[i].config_id: value[i] for i in finite},
    }  # fmt: skip
    runner.store.write_json("halving.json", report)
    runner.write_manifest(final, {"halving": opts})
    runner.run(final, desc="full")
    return final


def _screen_values(rows: pd.DataFrame, screened: list[Configuration], metric: str) -> dict[int, float]:
    """Each screened point's value of the metric (NaN when it failed or was not stored)."""
    return {i: float(rows.loc[s.config_id].get(metric, math.nan)) if s.config_id in rows.index else math.nan
            for i, s in enumerate(screened)}  # fmt: skip


def _floor(points: list[Configuration], finite: list[int], keep: float) -> set[int]:
    """The screen's best share of each retrieval pipeline, whatever the evidence says.

    The floor holds per pipeline: a cheap screen's scale differs between pipelines (it is exact for
    BM25, another model for dense), so each pipeline sends its best share on.
    """
    by_floor: set[int] = set()
    for pipeline in dict.fromkeys(p.pipeline for p in points):
        ranked_here = [i for i in finite if points[i].pipeline == pipeline]
        share = sum(p.pipeline == pipeline for p in points)
        by_floor |= set(ranked_here[: max(1, math.ceil(keep * share))])
    return by_floor


def fidelity(
    screen: Mapping[str, float], full: Mapping[str, float], top_pick_in_set: bool | None
) -> dict[str, Any]:
    """How far the screen's ranking agrees with the full run's, over configurations run both ways.

    ``top_pick_in_set`` None: the top pick is not checked (a subset of the configurations).
    """
    from scipy.stats import kendalltau, spearmanr

    common = [
        cid for cid in screen if cid in full and math.isfinite(screen[cid]) and math.isfinite(full[cid])
    ]
    out: dict[str, Any] = {"n": len(common), "top_pick_in_set": top_pick_in_set}
    if len(common) >= 3:
        a, b = [screen[c] for c in common], [full[c] for c in common]
        out["spearman"] = float(spearmanr(a, b).statistic)
        out["kendall"] = float(kendalltau(a, b).statistic)
    reasons = []
    if out.get("spearman", 1.0) < MIN_RANK_CORRELATION:
        reasons.append(
            f"the screen's ranking agrees poorly with the full run's (Spearman {out['spearman']:.2f} < "
            f"{MIN_RANK_CORRELATION} over {len(common)} configurations run both ways)"
        )
    if top_pick_in_set is False:
        reasons.append("the screen's top pick is significantly worse than the full run's best")
    out["flagged"] = bool(reasons)
    out["message"] = "; ".join(reasons) or "the screen agreed with the full run where it could be checked"
    return out


def record_fidelity(store, recommendation: Mapping[str, Any]) -> dict[str, Any]:
    """Complete ``halving.json`` with the screen's fidelity once the full run is ranked."""
    report = store.read_json("halving.json")
    table = store.rows()
    ok = table[table["status"] == "ok"].set_index("config_id") if "status" in table else table
    full = (
        {cid: float(v) for cid, v in ok.get(report["metric"], {}).items()} if report["metric"] in ok else {}
    )
    report["fidelity"] = fidelity(
        report["screen_values"], full, report["screen_best"] in recommendation.get("indistinguishable", [])
    )
    # A lexical screen ranks BM25 pipelines exactly and dense ones by another model: each is measured.
    pipelines = ok["param_pipeline"] if "param_pipeline" in ok else pd.Series(dtype=str)
    if pipelines.nunique() > 1:
        report["fidelity_by_pipeline"] = {
            str(name): fidelity(
                {cid: v for cid, v in report["screen_values"].items() if cid in ids}, full, None
            )
            for name, ids in pipelines.groupby(pipelines).groups.items()
        }
    store.write_json("halving.json", report)
    return report
