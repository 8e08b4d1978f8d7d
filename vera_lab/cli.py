"""The ``vera-lab`` command: parses arguments and calls the package; errors are one line, exit 2."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import signal
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from vera_lab.chunking import CHUNKERS, PRESETS, chunk_stats, make_chunker, preset_chunker
from vera_lab.data import CONVERTERS, DatasetError, detect_format, load_dataset, load_pdf
from vera_lab.embedding.base import EmbedderError
from vera_lab.ollama import OllamaError
from vera_lab.sweep.config import scope_warning
from vera_lab.sweep.store import StoreError
from vera_lab.types import Document


class UsageError(Exception):
    """A problem with the user's input, reported as one line."""


class Interrupted(Exception):
    """The user stopped the command; the message says what was kept and how to go on."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (and exit status 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _number(value: str) -> int | float:
    try:
        return int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"{value!r} is not a finite number")
    return number


def _read_bytes(path: str) -> tuple[bytes, str]:
    if path == "-":
        return sys.stdin.buffer.read(), "stdin"
    try:
        return Path(path).read_bytes(), Path(path).stem
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None


def _decode(path: str, data: bytes, name: str) -> tuple[str, str]:
    if b"\0" in data[:8192]:
        raise UsageError(f"{path}: looks binary (NUL bytes); give a text or Markdown file")
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start}); convert it first") from None


def _chunker_params(args: argparse.Namespace) -> dict:
    return {
        k: v
        for k, v in (("size", args.size), ("overlap", args.overlap), ("unit", args.unit))
        if v is not None
    }


def cmd_chunk(args: argparse.Namespace) -> None:
    """Chunk one file and print chunks or statistics."""
    from vera_lab.resources import with_resources

    chunker = with_resources(make_chunker(args.strategy, **_chunker_params(args)))
    data, name = _read_bytes(args.file)
    if data.startswith(b"%PDF-") or (args.file != "-" and detect_format(args.file) == "pdf"):
        with tempfile.TemporaryDirectory() as tmp:  # the PDF reader wants a file, stdin is none
            path = Path(tmp) / f"{name}.pdf"
            path.write_bytes(data)
            doc = load_pdf(path, name)
    else:
        text, name = _decode(args.file, data, name)
        doc = Document(name, text, format=detect_format("" if args.file == "-" else args.file, text))
    chunks = chunker.chunk(doc)
    out = sys.stdout
    if args.format == "jsonl":
        for c in chunks:
            row = {"chunk_id": c.chunk_id, "index": c.index, "start": c.start, "end": c.end, "text": c.text}
            if c.n_tokens is not None:
                row["n_tokens"] = c.n_tokens
            row.update({k: v for k, v in c.metadata.items() if k != "source_format"})
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    elif args.format == "table":
        out.write(f"{'index':>5} {'start':>8} {'end':>8} {'chars':>6} {'tokens':>6}  text\n")
        for c in chunks:
            preview = c.text[:60].replace("\n", "⏎")
            tokens = "" if c.n_tokens is None else c.n_tokens
            out.write(f"{c.index:>5} {c.start:>8} {c.end:>8} {c.end - c.start:>6} {tokens:>6}  {preview}\n")
    else:
        for key, value in chunk_stats(chunks, [doc]).items():
            out.write(f"{key:<20} {value:,.3f}\n")


def cmd_convert(args: argparse.Namespace) -> None:
    """Convert a public source into the project's dataset format."""
    try:
        dataset = CONVERTERS[args.name](args.source, args.target)
    except FileNotFoundError as exc:
        raise UsageError(
            f"{exc.filename}: not found (is {args.source} the {args.name} source folder?)"
        ) from None
    except (KeyError, IndexError, TypeError, AttributeError, json.JSONDecodeError) as exc:
        what = f"missing {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise UsageError(f"{args.source}: not {args.name}'s published format ({what})") from None
    counts = dataset.claims.label_counts()
    print(f"{args.target}: {len(dataset.corpus)} documents, {len(dataset.claims)} claims {counts}")


def cmd_ingest(args: argparse.Namespace) -> None:
    """Turn every file under a folder into a document of a new dataset's corpus."""
    from vera_lab.data.ingest import ingest_folder

    result = ingest_folder(args.folder, progress=not args.quiet)
    for path, reason in result.skipped:
        print(f"skipped {path}: {reason}", file=sys.stderr)
    if not result.documents:
        raise UsageError(f"{args.folder}: no file could be read as a document; nothing written")
    print(f"{result.write(args.out)}: {result.summary()}")
    print(f"next: vera-lab claims CLAIMS.csv --dataset {args.out}")


def cmd_claims(args: argparse.Namespace) -> None:
    """Locate each claim's quoted evidence in its document and write the dataset's claims.jsonl."""
    from vera_lab.data import CLAIMS_FILE
    from vera_lab.data.user_claims import import_claims

    claims, located = import_claims(args.file, args.dataset)
    if args.report:
        for item in located:
            m = item.match
            how = m.method + (f" (score {m.score:.0f})" if m.method == "fuzzy" else "")
            twice = f"; ambiguous: {m.occurrences} occurrences, the first taken" if m.occurrences > 1 else ""
            print(f"{item.where}: {item.claim_id} in {item.doc_id} [{m.start}:{m.end}] {how}{twice}")
    methods = Counter(item.match.method for item in located)
    ambiguous = sum(item.match.occurrences > 1 for item in located)
    print(
        f"{Path(args.dataset) / CLAIMS_FILE}: {len(claims)} claims {claims.label_counts()}, "
        f"{len(located)} quotes located ({', '.join(f'{k} {v}' for k, v in sorted(methods.items()))})"
        + (f"; {ambiguous} ambiguous (first occurrence taken; --report lists them)" if ambiguous else "")
    )


def cmd_evaluate(args: argparse.Namespace) -> None:
    """Evaluate one configuration on one dataset and print its metrics."""
    from vera_lab.embedding import get_embedder
    from vera_lab.evaluation import evaluate
    from vera_lab.grounding import GroundingScorer
    from vera_lab.resources import with_resources

    if args.config:  # apply a sweep's recommendation (chunker, embedder, scorer, fixed threshold)
        try:
            rec = json.loads(Path(args.config).read_text(encoding="utf-8"))["config"]
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError(f"{args.config}: not a recommendation.json ({exc})") from None
        params = dict(rec["chunker"])
        chunker = make_chunker(params.pop("strategy"), **params)
        threshold = rec["threshold"]
        scorer = GroundingScorer(
            k=rec["k"], aggregate=rec["aggregate"], threshold=threshold, scope=rec["scope"],
            scorer=rec.get("scorer", "cosine"),
        )  # fmt: skip
        args.embedder = rec["embedder"]
    else:
        threshold = args.threshold if args.threshold == "calibrate" else _number(args.threshold)
        if args.preset:
            if args.preset not in PRESETS:
                raise UsageError(f"--preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
            chunker = preset_chunker(args.preset)
        elif args.strategy:
            chunker = make_chunker(args.strategy, **_chunker_params(args))
        else:
            raise UsageError(
                "give --strategy (and its parameters), --preset NAME or --config recommendation.json"
            )
    dataset = load_dataset(args.dataset)
    if not args.config:
        scope = args.scope or dataset.scope or "corpus"
        if dataset.scope == "cited" and scope == "corpus":
            warnings.warn(scope_warning(args.dataset), stacklevel=1)
        scorer = GroundingScorer(
            k=args.k, aggregate=args.aggregate, threshold=threshold, scope=scope, scorer=args.scorer
        )
    cache_dir = None if args.no_cache else args.cache_dir
    embedder = get_embedder(args.embedder, dims=args.dims, cache_dir=cache_dir)
    result = evaluate(dataset, with_resources(chunker, cache_dir), embedder, scorer)
    report = {
        "dataset": dataset.name,
        "claims": len(dataset.claims),
        "config": {
            "strategy": chunker.strategy,
            **chunker.params(),
            "embedder": embedder.name,
            **dataclasses.asdict(scorer),
        },
        **result.summary(),
    }
    if args.judge:
        from vera_lab.judge import LLMJudge, judge_claims, judge_metrics

        if not args.judge.startswith("ollama:"):
            raise UsageError(f"--judge {args.judge!r}: use ollama:MODEL")
        judge = LLMJudge(args.judge.split(":", 1)[1])
        claims = list(dataset.claims)
        report["judge"] = judge_metrics(claims, judge_claims(judge, claims, result.verdicts, dataset.corpus))
    if args.json:
        print(json.dumps(report, indent=2, default=float))
        return
    print(
        f"{dataset.name}: {len(dataset.claims)} claims, {len(result.chunks)} chunks "
        f"({chunker.strategy} {chunker.params()}), embedder {embedder.name}"
    )
    print(
        f"scorer: k={scorer.k} {scorer.aggregate} scope={scorer.scope} threshold={result.threshold:.4f}"
        + (" (calibrated for F1)" if threshold == "calibrate" else "")
    )
    for key, value in result.metrics.items():
        print(f"  {key:<28} {value:.4f}")
    print("  confusion by label (grounded / not grounded):")
    for label, counts in result.confusion.items():
        print(f"    {label:<14} {counts['grounded']:>6} {counts['not_grounded']:>6}")
    if args.judge:
        judged = report["judge"]
        print(
            f"  LLM judge {args.judge}, same evidence (3-way accuracy {judged['three_way_accuracy']:.4f}; "
            f"{judged['malformed']} of {len(dataset.claims)} replies unusable, counted as not enough info):"
        )
        for key, value in judged["metrics"].items():
            print(f"  {key:<28} {value:.4f}")
        for label, counts in judged["labels_by_label"].items():
            print(f"    {label:<14} " + "  ".join(f"{k} {v}" for k, v in counts.items()))
    cost = result.cost
    print(
        f"  cost: {cost['n_chunks']:.0f} chunks, {cost['index_mb']:.1f} MB index, "
        + ", ".join(f"{k} {v:.2f}" for k, v in cost.items() if k.endswith("_s"))
    )


def _dask_executor(address: str):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--dask needs the dask extra: pip install 'vera-lab[dask]'") from None
    if address == "local":
        client = Client(
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        )
    else:
        client = Client(address, timeout="10s")
    return client.get_executor()


def cmd_sweep(args: argparse.Namespace) -> None:
    """Run or resume a sweep, write its report, print the top configs and the recommendation."""
    from vera_lab.report import confirmation_table, export, load_run, summary_table
    from vera_lab.report.tables import halving_lines
    from vera_lab.sweep import SweepInterrupted, load_config, run_sweep

    config = load_config(args.config)
    if args.holdout is not None:
        if not 0 <= args.holdout < 1:
            raise UsageError(f"--holdout {args.holdout}: a share of the claims in [0, 1), e.g. 0.3")
        config = dataclasses.replace(config, holdout=args.holdout)
    executor = _dask_executor(args.dask) if args.dask else None
    stopped_by: list[str] = []

    def stop(signum: int, _frame) -> None:
        stopped_by.append(signal.Signals(signum).name)
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        run = run_sweep(config, args.results_dir, cache_dir=args.cache_dir, executor=executor,
                        halving=args.halving, restart=args.restart, also=tuple(args.also))  # fmt: skip
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
    if run.moved_to:
        print(f"--restart: the previous results were moved to {run.moved_to}")
    retried = f" ({run.retried} of them failed before and were retried)" if run.retried else ""
    print(f"\n{run.directory}: {len(run.table)} stored configs, {run.recomputed} computed now{retried}")
    failed = run.table[run.table.status == "failed"] if "status" in run.table else run.table.iloc[:0]
    for _, row in failed.iterrows():
        print(f"  failed {row.config_id}: {row.error}")
    if len(failed) == len(run.table):
        first = f"; the first failure: {failed.error.iloc[0]}" if len(failed) else ""
        raise UsageError(f"{run.directory}: no configuration finished{first}")
    loaded = load_run(run.directory)
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
            print(f"report: {export(loaded, fmt)}")


def _print_recommendation(run) -> None:
    from vera_lab.report import recommendation_lines

    print("recommendation:")
    for line in recommendation_lines(run):
        print(f"  {line}")


def cmd_report(args: argparse.Namespace) -> None:
    """Export the HTML and Markdown reports of a stored sweep."""
    from vera_lab.report import export, load_run

    try:
        run = load_run(args.run_dir)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    for fmt in args.format:
        print(export(run, fmt))


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
    from vera_lab.export import export_chunks

    try:
        count = export_chunks(args.run_dir, args.to, args.path, args.config, args.cache_dir)
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    print(f"{count} chunks of {args.config} written to {args.path} ({args.to})")


def cmd_demo(args: argparse.Namespace) -> None:
    """Chunk one bundled document with every strategy at its defaults and print statistics."""
    dataset = load_dataset(args.dataset)
    doc = dataset.corpus[args.doc] if args.doc else max(dataset.corpus, key=lambda d: len(d.text))
    print(f"{dataset.name}/{doc.doc_id}: {len(doc.text):,} chars\n")
    keys = (
        "n_chunks",
        "chars_mean",
        "chars_p95",
        "chars_max",
        "tokens_p50",
        "tokens_max",
        "overlap_chars_mean",
        "sentence_end_share",
        "storage_overhead",
    )
    print(f"{'strategy':<10}" + "".join(f"{k:>20}" for k in keys))
    from vera_lab.tokens import get_tokenizer

    for name in sorted(CHUNKERS):
        stats = chunk_stats(make_chunker(name).chunk(doc), [doc], get_tokenizer())
        print(f"{name:<10}" + "".join(f"{stats.get(k, float('nan')):>20,.2f}" for k in keys))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``vera-lab``."""
    parser = _Parser(prog="vera-lab", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("chunk", help="chunk a text or Markdown file (or - for stdin)")
    p.add_argument("file")
    p.add_argument("--strategy", required=True, help=f"one of {', '.join(sorted(CHUNKERS))}")
    p.add_argument("--size", type=_number)
    p.add_argument("--overlap", type=_number, help="absolute amount, or a ratio below 1 (0.2)")
    p.add_argument("--unit", choices=("chars", "tokens", "sentences"))
    p.add_argument("--format", choices=("jsonl", "table", "stats"), default="jsonl")
    p.set_defaults(func=cmd_chunk)

    p = sub.add_parser("evaluate", help="evaluate one configuration on a dataset directory")
    p.add_argument("--dataset", required=True, help="a directory with corpus.jsonl and claims.jsonl")
    p.add_argument("--config", help="a sweep's recommendation.json to apply (the held-out check)")
    p.add_argument("--preset", help="a seed preset: vera-000, docuchat-001, vera-003, kaizen-004")
    p.add_argument("--strategy", help=f"one of {', '.join(sorted(CHUNKERS))}")
    p.add_argument("--size", type=_number)
    p.add_argument("--overlap", type=_number)
    p.add_argument("--unit", choices=("chars", "tokens", "sentences"))
    p.add_argument("--embedder", default="minilm", help="minilm (default), tfidf, hashing, ollama:MODEL")
    p.add_argument("--dims", type=int, help="Matryoshka truncation: keep the first DIMS components")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--aggregate", choices=("max", "mean"), default="max")
    p.add_argument(
        "--scorer", choices=("cosine", "learned"), default="cosine",
        help="cosine of the top chunks, or a logistic model over retrieval features fitted out of fold",
    )  # fmt: skip
    p.add_argument("--threshold", default="0.7", help="a cosine, or 'calibrate' (F1-best on this set)")
    p.add_argument(
        "--scope", choices=("corpus", "cited"), help="retrieval scope (default: the dataset's, else corpus)"
    )
    p.add_argument("--cache-dir", default=".cache/vera_lab", help="embedding cache directory")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--judge", metavar="ollama:MODEL", help="also judge each claim with a local LLM")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("sweep", help="run (or resume) a sweep from a YAML definition")
    p.add_argument("config")
    p.add_argument("--halving", action="store_true", help="screen with a cheap embedder, confirm the best")
    p.add_argument(
        "--holdout",
        type=float,
        metavar="SHARE",
        help="set this share of the claims aside (stratified, grouped by document) to confirm the choice",
    )
    p.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="CONFIG_ID",
        help="with halving: run this configuration in full even if the screen dropped it (repeatable)",
    )
    p.add_argument(
        "--restart",
        action="store_true",
        help="move stored results aside (to NAME.<date>) and start afresh, e.g. after the data changed",
    )
    p.add_argument("--dask", metavar="local|tcp://HOST:PORT", help="run configs on a Dask cluster")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--cache-dir", default=".cache/vera_lab")
    p.add_argument("--top", type=int, default=10, help="configs to print")
    p.add_argument("--no-report", action="store_true")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("report", help="export the HTML and Markdown report of a stored sweep")
    p.add_argument("run_dir")
    p.add_argument("--format", nargs="+", choices=("html", "md"), default=["html", "md"])
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "export", help="write a stored config's chunks and vectors to parquet, jsonl or chroma"
    )
    p.add_argument("run_dir")
    p.add_argument("--config", default="best", help="a config_id from results.csv, or best (default)")
    p.add_argument("--to", required=True, choices=("parquet", "jsonl", "chroma"))
    p.add_argument("path")
    p.add_argument("--cache-dir", default=".cache/vera_lab")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("runs", help="list stored sweeps")
    p.add_argument("--results-dir", default="results")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("convert", help="convert a public source into the project's dataset format")
    p.add_argument("name", choices=sorted(CONVERTERS))
    p.add_argument("source")
    p.add_argument("target")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser(
        "ingest", help="turn a folder of text, Markdown, HTML, PDF and code files into a corpus"
    )
    p.add_argument("folder")
    p.add_argument("--out", required=True, help="the dataset directory to write corpus.jsonl into")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "claims", help="locate quoted evidence of a CSV/JSONL claims file in a dataset's documents"
    )
    p.add_argument("file", help="CSV (claim_id, claim, label, doc, evidence) or JSONL")
    p.add_argument("--dataset", required=True, help="a directory with corpus.jsonl (from vera-lab ingest)")
    p.add_argument("--report", action="store_true", help="print how each quote was matched")
    p.set_defaults(func=cmd_claims)

    p = sub.add_parser("demo", help="chunk a bundled document with every strategy")
    p.add_argument("--dataset", default="datasets/chroma-eval")
    p.add_argument("--doc", help="document id (default: the longest)")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)

    def show(message, *_args, **_kwargs) -> None:  # one plain line per warning, no source location
        print(f"vera-lab {args.command}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():  # restores the caller's warning display on the way out
        warnings.showwarning = show
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        args.func(args)
    except Interrupted as exc:
        print(f"vera-lab {args.command}: {exc}", file=sys.stderr)
        return 130
    except (
        UsageError,
        DatasetError,
        EmbedderError,
        OllamaError,
        StoreError,
        ValueError,
        KeyError,
        FileNotFoundError,
        ImportError,
    ) as exc:  # fmt: skip  (our ImportErrors name the extra to install)
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"vera-lab {args.command}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:  # read-only folder, full disk, ...: say which file, keep what was written
        where = exc.filename or "a file"
        print(
            f"vera-lab {args.command}: error: cannot write or read {where}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
