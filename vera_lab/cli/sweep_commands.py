"""Commands on sweeps and their stores: sweep, report, runs, export."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import signal
import sys
import time
from pathlib import Path

from vera_lab.cli.common import Interrupted, UsageError, refuse_overwrite, refuse_writing_into_run


def _dask_executor(address: str):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--dask needs the dask extra: pip install 'vera-lab[dask]'") from None
    if address == "local":
        workers = 2
        client = Client(
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                env=_worker_threads(workers),
            )
        )  # fmt: skip
    else:
        client = Client(address, timeout="10s")
    return client.get_executor()


def _worker_threads(workers: int) -> dict[str, str]:
    """Each local worker's share of the cores, for its ONNX Runtime (``OMP_NUM_THREADS``).

    Dask gives every worker process one thread otherwise: on 16 cores, two workers read with two. A
    value the user set stays (Dask passes it on).
    """
    import os

    if "OMP_NUM_THREADS" in os.environ:
        return {}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return {"OMP_NUM_THREADS": str(max(1, cores // workers))}


def cmd_sweep(args: argparse.Namespace) -> None:
    """Run or resume a sweep, write its report, print the top configs and the recommendation."""
    from vera_lab.report import load_run

    config = _sweep_config(args)
    executor = _dask_executor(args.dask) if args.dask else None
    started = time.perf_counter()
    run = _run_interruptibly(config, args, executor)
    if run.moved_to:
        print(f"--restart: the previous results were moved to {run.moved_to}")
    retried = f" ({run.retried} of them failed before and were retried)" if run.retried else ""
    took = time.perf_counter() - started
    print(f"\n{run.directory}: {len(run.table)} stored configs, {run.recomputed} computed now{retried} "
          f"in {took / 60:.1f} min")  # fmt: skip
    failed = run.table[run.table.status == "failed"] if "status" in run.table else run.table.iloc[:0]
    for _, row in failed.iterrows():
        print(f"  failed {row.config_id}: {row.error}")
    if len(failed) == len(run.table):
        first = f"; the first failure: {failed.error.iloc[0]}" if len(failed) else ""
        raise UsageError(f"{run.directory}: no configuration finished{first}")
    loaded = load_run(run.directory)
    if "error" in loaded.recommendation:
        raise UsageError(f"{run.directory}: {loaded.recommendation['error']}")
    _print_outcome(loaded, args)
    if args.mlflow:
        from vera_lab.integrations.tracking import log_sweep

        parent, new = log_sweep(run.directory, args.mlflow)
        print(f"mlflow: {new} new configuration runs under parent run {parent} at {args.mlflow}")
    if len(failed):  # the rest is stored and reported; the exit status still says something failed
        raise UsageError(
            f"{len(failed)} of {len(run.table)} configurations failed (listed above, and in "
            f"{run.directory / 'results.csv'}); run the same command again to retry them"
        )


def _sweep_config(args: argparse.Namespace):
    """The sweep file's configuration with the command line's overrides, checked before anything runs."""
    from vera_lab.sweep import load_config

    config = load_config(args.config)
    if args.holdout is not None:
        if not 0 <= args.holdout < 1:
            raise UsageError(f"--holdout {args.holdout}: a share of the claims in [0, 1), e.g. 0.3")
        config = dataclasses.replace(config, holdout=args.holdout)
    if args.device is not None:
        config = dataclasses.replace(config, device=args.device)
    if args.store:
        config = dataclasses.replace(config, store=args.store)
    if args.mlflow:
        from vera_lab.integrations.tracking import check_uri

        check_uri(args.mlflow)  # before the sweep, not after an hour of it
    return config


def _run_interruptibly(config, args: argparse.Namespace, executor):
    """Run the sweep; Ctrl-C or SIGTERM stops it with what is stored and the command that resumes."""
    from vera_lab.sweep import SweepInterrupted, run_sweep

    stopped_by: list[str] = []

    def stop(signum: int, _frame) -> None:
        stopped_by.append(signal.Signals(signum).name)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return run_sweep(config, args.results_dir, cache_dir=args.cache_dir, executor=executor,
                         halving=args.halving, restart=args.restart, also=tuple(args.also),
                         also_check=tuple(args.also_check), progress=not args.quiet)  # fmt: skip
    except (SweepInterrupted, KeyboardInterrupt) as exc:
        done = (
            f"{exc.stored} of {exc.total} configurations stored in {exc.directory}"
            if isinstance(exc, SweepInterrupted)
            else "stopped before any configuration ran"
        )
        command = shlex.join(["vera-lab", *sys.argv[1:]]) if sys.argv[1:] else f"vera-lab sweep {args.config}"
        raise Interrupted(
            f"interrupted ({stopped_by[0] if stopped_by else 'SIGINT'}): {done}; resume with: {command}"
        ) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _print_outcome(loaded, args: argparse.Namespace) -> None:
    """The top configurations, the recommendation, the confirmation, the reports and the next steps."""
    from vera_lab.report import EditedReport, confirmation_table, export, summary_table
    from vera_lab.report.tables import halving_lines
    from vera_lab.report.verdict import next_steps

    devices = loaded.manifest.get("embedding_devices", {})  # as the runner recorded them
    print("embedding: " + ", ".join(f"{spec} on {label}" for spec, label in devices.items()))
    print(summary_table(loaded, top=args.top).to_string(index=False))
    print()
    _print_recommendation(loaded)
    for line in halving_lines(loaded):
        print(f"  {line}")
    confirmed = confirmation_table(loaded)
    if not confirmed.empty:
        print("\nheld-out confirmation (thresholds fitted on the sweep's data):")
        print(confirmed.to_string(index=False))
    if not args.no_report:
        for fmt in ("html", "md"):
            try:
                print(f"report: {export(loaded, fmt)}")
            except EditedReport as exc:  # the sweep's results are written; the user's edits stay
                print(f"report: {exc} (vera-lab report {shlex.quote(str(loaded.store.dir))} --force)")
    print("\nnext:")
    for step in next_steps(loaded):
        print(f"  {step}")


def _print_recommendation(run) -> None:
    from vera_lab.report import recommendation_lines

    print("recommendation:")
    for line in recommendation_lines(run):
        print(f"  {line}")


def cmd_compare(args: argparse.Namespace) -> None:
    """Compare a sweep's recommendation and presets on another dataset; print and write the figures."""
    import json

    from vera_lab.sweep.confirm import compare_on

    run_dir = Path(args.run_dir)
    if run_dir.is_file() and run_dir.name == "recommendation.json":  # the run's file stands for its folder
        run_dir = run_dir.parent
    try:
        directory, result = compare_on(
            run_dir, args.dataset, tuple(args.config), args.name, args.cache_dir, not args.quiet
        )
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    if "error" in result:
        raise UsageError(f"{directory}: {result['error']}")
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(comparison_text(result, directory))


def comparison_text(result: dict, directory) -> str:
    """A comparison as a table and a verdict, for the terminal."""
    from vera_lab.report.tables import resampling_sentence
    from vera_lab.sweep.compare import comparison_frame
    from vera_lab.sweep.recommend import MIN_CLAIMS

    frame = comparison_frame(result)
    shown = frame[frame.metric == result["metric"]].drop(columns="metric")
    held = result["holds"]
    verdict = "holds" if held["holds"] else "does NOT hold"
    better = f" ({', '.join(held['rivals_better'])} significantly better)" if held["rivals_better"] else ""
    seen, claims = result.get("claims_seen_by_sweep", 0), result["claims"]
    if seen:
        better += (f"; but {seen:,} of these {claims:,} claims are ones the sweep chose on, so this is not "
                   "a held-out check: compare on claims the sweep never saw")  # fmt: skip
    if claims < MIN_CLAIMS:
        better += f"; INCONCLUSIVE: {claims:,} claims, too few to tell (a sweep asks for {MIN_CLAIMS})"
    lines = [
        f"{result['data']}: {result['claims']:,} claims. {resampling_sentence(result['resampling'])}",
        shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"),
        f"The recommendation {verdict} by {result['metric']}{better}.",
        *(
            f"  source {source} ({check['claims']:,} claims): "
            + ("holds" if check["holds"] else "does NOT hold")
            for source, check in result.get("by_source", {}).items()
        ),
        f"Every metric, its interval and paired difference: {directory / 'comparison.csv'}",
    ]
    return "\n".join(lines)


def cmd_plan(args: argparse.Namespace) -> None:
    """Rank candidate claims for labelling against a finished sweep."""
    from vera_lab.labelling.plan import TIED_FACTOR, plan_labels, read_candidates, write_plan
    from vera_lab.sweep.store import ResultsStore

    if args.out:
        refuse_writing_into_run(args.out, args.run_dir, "--out")
        refuse_overwrite(args.out, args.force, "--out", [args.claims])
    candidates = read_candidates(args.claims)
    result = plan_labels(ResultsStore(args.run_dir), candidates, args.cache_dir)
    text = {c.claim_id: (c.cited_doc_ids[0], c.text) for c in candidates}
    needed = result["labels_needed"]
    rivals = len(result["contenders"]) - 1
    print(
        f"{len(candidates)} candidates ranked against the best configuration and {rivals} "
        f"rival{'' if rivals == 1 else 's'}; "
        + ("the sweep is conclusive already." if not needed
           else f"about {needed} more labelled claims with evidence would make it conclusive"
           + (f" (about {result['labels_to_write']} labels: {result['evidence_share']:.0%} of the "
              "labelled claims carry evidence)." if result["labels_to_write"] else "."))
    )  # fmt: skip
    if result["tied"]:
        tied = result["tied"]
        print(
            f"The best and its cheaper rival are tied: they differ by {tied['difference']:.4f}, and telling "
            f"them apart would take about {tied['labels_to_separate']:,} more claims with evidence (over "
            f"{TIED_FACTOR}x those labelled). Either is a sound choice; the rule keeps the cheaper one."
        )
    if args.out:
        written = write_plan(args.claims, result["ranked"], args.out)
        print(f"{written}: every candidate in plan order; label from the top, delete the rows you leave, "
              "then add them to your claims (vera-lab claims FILE --dataset DATASET)")  # fmt: skip
    for n, item in enumerate(result["ranked"][: args.top], 1):
        doc, claim = text[item["claim_id"]]
        print(
            f"{n:3d}. {item['claim_id']} ({doc}; priority {item['priority']:.2f}: evidence likely "
            f"{item['p_evidence']:.2f}, disagreement {item['disagreement']:.2f}): {claim[:100]}"
        )


def cmd_report(args: argparse.Namespace) -> None:
    """Export the HTML and Markdown reports of a stored sweep."""
    from vera_lab.report import export, load_run
    from vera_lab.report.export import why_kept

    try:
        run = load_run(args.run_dir)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    kept = [why for fmt in args.format if (why := why_kept(run.store.dir / f"report.{fmt}"))]
    if kept and not args.force:  # checked for every format first, so none is written while one is refused
        raise UsageError(f"{'; '.join(kept)}: kept; pass --force to replace")
    for fmt in args.format:
        print(export(run, fmt, force=True))


def cmd_runs(args: argparse.Namespace) -> None:
    """List the sweeps stored under the results directory."""
    from vera_lab.sweep.store import list_runs

    runs = list_runs(args.results_dir)
    if not runs:
        print(f"no sweeps under {args.results_dir}")
    for run in runs:
        if run.problem:
            print(f"{run.directory}  cannot be read: {run.problem}")
        else:
            print(f"{run.directory}  {run.dataset}  {run.configs} configs  {run.finished}  {run.best}")


def cmd_export(args: argparse.Namespace) -> None:
    """Export one stored configuration's chunks with metadata and vectors."""
    from vera_lab.integrations.export import export_chunks

    refuse_writing_into_run(args.path, args.run_dir, "PATH")
    if args.to != "chroma":  # a Chroma folder is a database: the export adds its collection to it
        refuse_overwrite(args.path, args.force, "PATH")
    try:
        count = export_chunks(args.run_dir, args.to, args.path, args.config, args.cache_dir, args.force)
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    where = f"{args.path} ({args.to})"
    if args.to == "chroma":
        from vera_lab.integrations.export import chroma_collection
        from vera_lab.sweep.store import ResultsStore

        embedder = ResultsStore(args.run_dir).point(args.config).embedder
        where = f"{args.path}, Chroma collection {chroma_collection(embedder)!r}"
    print(f"{count} chunks of {args.config} written to {where}")
