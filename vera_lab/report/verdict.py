"""The verdict card a report opens with: the choice in words, how sure, why the presets lost, a snippet.

Everything comes from ``recommendation.json`` and the stored rows; the p-values stay below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vera_lab.metrics import BUDGETS
from vera_lab.report.run import Run
from vera_lab.retrieval import parse_pipeline
from vera_lab.sweep.compare import interval

METRIC_MEANING = {
    "budget_recall": f"the share of gold evidence inside the first {BUDGETS[0]:,}-{BUDGETS[-1]:,} characters "
    "retrieved (averaged over those context budgets)",
    "mrr": "the reciprocal rank of the first chunk touching the gold evidence",
    "hit": "whether any of the top k chunks touches the gold evidence",
    "grounding_f1": "F1 of calling a claim grounded, judged out of fold",
}


@dataclass
class Verdict:
    """The card's contents; ``conclusive`` False carries the reasons."""

    headline: str
    conclusive: bool
    badge: str
    lines: list[str] = field(default_factory=list)
    snippet: str = ""
    next_steps: list[str] = field(default_factory=list)  # commands to paste, with this run's own paths


def verdict(run: Run) -> Verdict | None:
    """The verdict of a finished sweep (None before a recommendation exists)."""
    rec = run.recommendation
    if "config" not in rec:
        return None
    rows = run.table.set_index("config_id")
    chosen = rows.loc[rec["config_id"]]
    config = rec["config"]
    chunker = config["chunker"]
    overlap = chunker.get("overlap", 0)
    words = f"{chunker['strategy']} chunks of {chunker.get('size', '?')} {chunker.get('unit', 'chars')}, " + (
        "no overlap" if not overlap else f"overlap {overlap:g}"
    )
    headline = f"Chunk with {words}; {retrieval_words(config)}."
    reasons = rec.get("inconclusive") or []
    badge = "conclusive" if not reasons else "INCONCLUSIVE: " + "; ".join(reasons)
    lo, hi = rec["ci_95"]
    wide = len(rec["indistinguishable"])
    how = (
        f"the best point estimate (the data cannot yet tell {wide} configurations apart)"
        if rec.get("thin_data")
        else f"the cheapest of {wide} configurations the data cannot tell from the best"
    )
    lines = [
        f"Chosen by {rec['metric']}: {METRIC_MEANING.get(rec['metric'], rec['metric'])}; "
        f"{rec['value']:.3f} (95% CI {lo:.3f} to {hi:.3f}), {how}.",
        *_runner_up(run, rec),
    ]
    held = rec.get("held_out", {})
    if rec["metric"] in held:
        value, low, high = interval(held[rec["metric"]])
        bounds = f" (95% CI {low:.3f} to {high:.3f})" if low is not None else ""
        lines.append(f"On held-out claims ({held['data']}), which shaped nothing: {value:.3f}{bounds}.")
    lines += _what_the_pipeline_adds(rec)
    lines += _why_presets_lost(run, rec, chosen)
    return Verdict(headline, not reasons, badge, lines, snippet(run), next_steps(run))


def next_steps(run: Run) -> list[str]:
    """What to run next, with this run's folder filled in: label where it settles most, check held out."""
    import shlex

    rec, folder = run.recommendation, shlex.quote(str(run.store.dir))
    to_label = shlex.quote(str(run.store.dir / "to_label.csv"))
    steps = []
    if rec.get("inconclusive"):
        steps.append(
            f"vera-lab plan {folder} --claims CANDIDATES.csv --out {to_label}"
            "   # which unlabelled claims (claim_id, claim, doc) settle the choice first, and how many"
        )
    if not rec.get("held_out"):
        steps.append(
            f"vera-lab compare {folder} --dataset OTHER_LABELLED_DATASET"
            "   # the choice and the presets on claims the sweep never saw"
        )
        if (sweep_file := _own_sweep_file(run)) is not None:
            root = run.store.dir.parent
            where = "" if root == Path("results") else f" --results-dir {shlex.quote(str(root))}"
            steps.append(
                f"vera-lab sweep {shlex.quote(str(sweep_file))}{where} --holdout 0.3 --restart   # without "
                "another labelled set: 30% of the claims set aside before anything runs, the choice "
                "confirmed on them (these results are moved aside, not deleted)"
            )
    steps.append(f"vera-lab report {folder} --format html   # this report again, after edits or more runs")
    return steps


def _own_sweep_file(run: Run) -> Path | None:
    """The sweep file `init` wrote beside the run's dataset, when it defines this very sweep.

    A run moved aside by --restart has another folder name than its sweep's: restarting would not touch it.
    """
    import yaml

    if run.store.dir.name != run.manifest["sweep_id"]:
        return None
    path = Path(run.manifest["config"]["dataset"]) / "sweep.yaml"
    try:
        defined = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return None
    same = isinstance(defined, dict) and defined.get("name") == run.manifest["sweep_id"]
    return path if same else None


def _runner_up(run: Run, rec: dict) -> list[str]:
    """Under thin data: the runner-up, how far behind, and what it would take to separate the two."""
    runner = rec.get("runner_up")
    if not rec.get("thin_data") or not runner:
        return []
    from vera_lab.labelling.plan import needed_or_tied

    sampled = rec.get("resampling", {})
    lo, hi = rec["ci_95"]
    needed, tied = needed_or_tied(
        rec["n_claims_with_evidence"], sampled.get("clusters", 0), (hi - lo) if lo is not None else 0.0,
        runner["diff"] if runner["diff"] > 0 else None, (runner["ci_high"] - runner["ci_low"]) / 2,
    )  # fmt: skip
    name = run.label(run.table.set_index("config_id", drop=False).loc[runner["config_id"]])
    text = (
        f"Runner-up: {name} ({runner['value']:.3f}), behind by {runner['diff']:+.3f} (95% CI "
        f"{runner['ci_low']:+.3f} to {runner['ci_high']:+.3f}); "
    )
    if tied:
        text += (
            f"telling them apart would take about {tied['labels_to_separate']:,} more claims with "
            "evidence: they are tied, and either is a sound choice"
        )
    else:
        text += f"about {needed:,} more claims with evidence would make the choice conclusive"
    return [text + " (vera-lab plan says which to label first)."]


def retrieval_words(config: dict) -> str:
    """How the recommendation retrieves, in words: the retriever, its weight, reranking, expansion."""
    pipeline, k, embedder = parse_pipeline(**(config.get("retrieval") or {})), config["k"], config["embedder"]
    if pipeline.retriever == "dense":
        text = f"retrieve the top {k} by {embedder} cosine"
    elif pipeline.retriever == "bm25":
        text = f"retrieve the top {k} by BM25 (no vectors needed to retrieve)"
    elif pipeline.weight is None:
        text = f"retrieve the top {k} by reciprocal-rank fusion of {embedder} cosine and BM25"
    else:
        text = (
            f"retrieve the top {k} by fusing {embedder} cosine (weight {pipeline.weight:g}) with BM25 "
            f"(weight {1 - pipeline.weight:g}), each normalised per query"
        )
    if pipeline.rerank:
        text += f"; the verifier reorders the top {pipeline.rerank}"
    if pipeline.expand == "window":
        text += f"; hand the reader each chunk with {pipeline.window} neighbour(s) on each side"
    elif pipeline.expand == "parent":
        text += "; hand the reader the parent chunk(s) around each chunk found"
    if pipeline.context == "headers":
        text += "; index each chunk with its title and section headers"
    return text


def _what_the_pipeline_adds(rec: dict) -> list[str]:
    """The recommended pipeline against the best the rule finds under plain dense retrieval."""
    rival = rec.get("dense_rival")
    if not rival:
        return []
    return [
        f"Against the best dense-retrieval choice ({rival['config_id']}, {rival['value']:.3f}), this "
        f"pipeline adds {rival['diff']:+.3f} {rec['metric']} (95% CI {rival['ci_low']:+.3f} to "
        f"{rival['ci_high']:+.3f}); the held-out confirmation re-runs both."
    ]


def _why_presets_lost(run: Run, rec: dict, chosen) -> list[str]:
    """One sentence on the presets, and why a higher hit@k there is no contradiction."""
    presets = rec.get("vs_presets") or {}
    if not presets:
        return []
    rows = run.table.set_index("config_id")
    behind = [(n, c) for n, c in presets.items() if c.get("significant") and c["diff"] > 0]
    if not behind:
        return ["No seed preset is significantly behind the recommendation on these claims."]
    worst = max(behind, key=lambda item: item[1]["diff"])
    lines = [
        f"{len(behind)} of {len(presets)} seed presets are significantly behind (Holm-corrected), by "
        f"{min(c['diff'] for _, c in behind):+.3f} to {worst[1]['diff']:+.3f} {rec['metric']}."
    ]
    sizes = [rows.loc[c["config_id"], "chunks_chars_mean"] for _, c in behind if c["config_id"] in rows.index]
    mine = chosen.get("chunks_chars_mean")
    hits = [rows.loc[c["config_id"], "hit"] for _, c in behind if c["config_id"] in rows.index]
    if sizes and mine and hits and max(hits) > chosen.get("hit", 1):
        lines.append(
            f"Their chunks average {min(sizes):,.0f}-{max(sizes):,.0f} characters against {mine:,.0f}: a few "
            f"of them cover much of a document, so their hit@{rec['config']['k']} "
            f"({min(hits):.2f}-{max(hits):.2f} against {chosen['hit']:.2f}) is high while less of the "
            "text a reader receives is evidence."
        )
    return lines


def snippet(run: Run) -> str:
    """Copy-paste code that carries the recommendation into LangChain and LlamaIndex."""
    path = run.store.dir / "recommendation.json"
    return (
        "from vera_lab.integrations.langchain import VeraLabRetriever, VeraLabTextSplitter\n"
        f'splitter = VeraLabTextSplitter.from_recommendation("{path}")\n'
        "chunks = splitter.split_documents(my_langchain_documents)\n"
        f'retriever = VeraLabRetriever.from_recommendation("{path}", my_langchain_documents)\n\n'
        "from vera_lab.integrations.llamaindex import VeraLabNodeParser\n"
        f'nodes = VeraLabNodeParser.from_recommendation("{path}").get_nodes_from_documents(my_documents)'
    )
