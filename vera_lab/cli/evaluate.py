"""The ``evaluate`` command: one configuration on one dataset."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import warnings

from vera_lab.chunking import PRESETS
from vera_lab.cli.common import UsageError, chunker_args, in_cli_words, parse_number
from vera_lab.data import load_dataset
from vera_lab.evaluation import Configuration, Resources
from vera_lab.sweep.config import scope_warning


def configuration(args: argparse.Namespace, dataset) -> Configuration:
    """The one configuration the command line names: a sweep's recommendation, a preset or a strategy.

    It is the sweep's own :class:`Configuration`, so ``evaluate`` runs exactly what a sweep would.
    """
    from vera_lab.sweep.recommend import recommended_point

    if args.recommendation:  # a sweep's whole choice: chunker, pipeline, embedder, scorer, fixed threshold
        if args.lang:
            raise UsageError(
                "--lang changes the chunker, and a recommendation is applied unchanged: name the language "
                'in the dataset\'s dataset.json ("language": "de") instead'
            )
        try:
            point = recommended_point(args.recommendation)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if (args.adapt or args.verifier_from) and not dict(point.verifier).get("adapt"):
            raise UsageError(
                "--adapt and --verifier-from change the verifier, and this recommendation's verifier does "
                "not adapt: evaluate its chunker with --strategy ... --scorer verifier --adapt instead"
            )
        return point
    if args.preset:
        if args.preset not in PRESETS:
            raise UsageError(f"--preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
        chunker = {**PRESETS[args.preset], **({"lang": args.lang} if args.lang else {})}
    elif args.strategy:
        chunker = {"strategy": args.strategy, **chunker_args(args)}
    else:
        raise UsageError(
            "give --strategy (and its parameters), --preset NAME or --config recommendation.json"
        )
    threshold = args.threshold or ("0.5" if args.scorer != "cosine" else "0.7")
    threshold = threshold if threshold == "calibrate" else parse_number(threshold)
    scope = args.scope or dataset.scope or "corpus"
    if dataset.scope == "cited" and scope == "corpus":
        warnings.warn(scope_warning(args.dataset), stacklevel=1)
    adapt = bool(args.adapt or args.verifier_from)
    try:
        verifier = {"adapt": True} if adapt else None
        point = Configuration.create(chunker, args.embedder, args.k, threshold, scope, args.aggregate,
                                  args.scorer, verifier=verifier)  # fmt: skip
    except ValueError as exc:
        raise UsageError(in_cli_words(str(exc))) from None
    if adapt and not point.needs_verifier:
        option = "--verifier-from" if args.verifier_from else "--adapt"
        raise UsageError(f"{option} goes with --scorer verifier")
    return point


def cmd_evaluate(args: argparse.Namespace) -> None:
    """Evaluate one configuration on one dataset and print its metrics."""
    dataset = load_dataset(args.dataset)
    point = configuration(args, dataset)
    system = _system(args, point, dataset)
    chunker, embedder, scorer, pipeline = system.chunker, system.embedder, system.scorer, system.pipeline
    result = system.evaluate(dataset)
    if scorer.scope == "corpus" and scorer.k >= result.cost["n_chunks"]:
        warnings.warn(
            f"k={scorer.k} is at least the {result.cost['n_chunks']:.0f} chunks of {dataset.name!r}: every "
            "chunk is retrieved, so retrieval is not tested; use a smaller k or more data",
            stacklevel=1,
        )
    report = {
        "dataset": dataset.name,
        "claims": len(dataset.claims),
        "config": {
            "strategy": chunker.strategy,
            **chunker.params(),
            "embedder": embedder.name,
            **dataclasses.asdict(scorer),
            **({"retrieval": pipeline.identity()} if pipeline.identity() else {}),
        },
        **result.summary(),
    }
    if args.judge:
        from vera_lab.grounding.judge import LLMJudge, judge_claims, judge_metrics

        if not args.judge.startswith("ollama:"):
            raise UsageError(f"--judge {args.judge!r}: use ollama:MODEL")
        judge = LLMJudge(args.judge.split(":", 1)[1])
        claims = list(dataset.claims)
        judged = judge_metrics(claims, judge_claims(judge, claims, result.verdicts, dataset.corpus))
        report["judge"] = {"model": args.judge, **judged}
    if args.json:
        print(json.dumps(report, indent=2, default=float))
        return
    _print_result(system, result, report, point.threshold == "calibrate")


def _system(args: argparse.Namespace, point, dataset):
    """The configuration built, with what a point cannot say: truncation and no embedding cache."""
    from vera_lab.embedding import get_embedder
    from vera_lab.evaluation.resources import with_resources

    labelled = load_dataset(args.verifier_from) if args.verifier_from else dataset
    cache_dir = None if args.no_cache else args.cache_dir
    system = point.build(Resources(args.cache_dir, args.device), labelled)
    if args.dims is not None or args.no_cache:
        embedder = get_embedder(point.embedder, dims=args.dims, cache_dir=cache_dir, device=args.device)
        system = dataclasses.replace(system, embedder=embedder)
    if args.no_cache:  # the chunkers' own models too (the verifier's build is still kept in --cache-dir)
        parent = point.parent_chunker()
        system = dataclasses.replace(
            system,
            chunker=with_resources(point.make_chunker(), None, device=args.device),
            parent_chunker=with_resources(parent, None, device=args.device) if parent else None,
        )
    return system


def _print_result(system, result, report: dict, calibrated: bool) -> None:
    """The evaluation as lines: configuration, metrics, confusion, the judge's figures and the cost."""
    chunker, embedder, scorer, pipeline = system.chunker, system.embedder, system.scorer, system.pipeline
    print(
        f"{report['dataset']}: {report['claims']} claims, {len(result.chunks)} chunks "
        f"({chunker.strategy} {chunker.params()}), embedder {embedder.name}, retrieval {pipeline.label()}"
    )
    print(
        f"scorer: k={scorer.k} {scorer.aggregate} scope={scorer.scope} threshold={result.threshold:.4f}"
        + (" (calibrated for F1)" if calibrated else "")
    )
    for key, value in result.metrics.items():
        print(f"  {key:<28} {value:.4f}")
    print("  confusion by label (grounded / not grounded):")
    for label, counts in result.confusion.items():
        print(f"    {label:<14} {counts['grounded']:>6} {counts['not_grounded']:>6}")
    if result.confusion_three_way:
        print("  verifier verdicts by gold label (" + " / ".join(result.confusion_three_way) + "):")
        for label, counts in result.confusion_three_way.items():
            print(f"    {label:<14} " + " ".join(f"{n:>6}" for n in counts.values()))
    if "judge" in report:
        judged = report["judge"]
        print(
            f"  LLM judge {judged['model']}, same evidence (3-way accuracy "
            f"{judged['three_way_accuracy']:.4f}; {judged['malformed']} of {report['claims']} replies "
            "unusable, counted as not enough info):"
        )
        for key, value in judged["metrics"].items():
            print(f"  {key:<28} {value:.4f}")
        for label, counts in judged["labels_by_label"].items():
            print(f"    {label:<14} " + "  ".join(f"{k} {v}" for k, v in counts.items()))
    cost = result.cost
    known = not math.isnan(cost["forward_tokens"])  # an embedder without a word-piece limit: unknown
    tokens = f"{cost['forward_tokens']:,.0f} forward tokens, " if known else ""
    print(
        f"  cost: {cost['n_chunks']:.0f} vectors, {tokens}{cost['truncated_chars']:,.0f} chars unread, "
        f"embedding about {cost['embed_seconds']:.1f} s here, {cost['index_mb']:.1f} MB index, "
        + ", ".join(f"{k} {v:.2f}" for k, v in cost.items() if k.endswith("_s"))
    )
