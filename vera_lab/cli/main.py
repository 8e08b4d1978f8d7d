"""The ``vera-lab`` parser and entry point: every command's arguments, and errors as one line (exit 2)."""

from __future__ import annotations

import argparse
import errno
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from vera_lab.chunking import CHUNKERS
from vera_lab.cli.common import (
    Interrupted,
    OneLineParser,
    UsageError,
    add_lang,
    parse_number,
    positive_count,
    positive_number,
)
from vera_lab.cli.data_commands import (
    cmd_chunk,
    cmd_claims,
    cmd_contrast,
    cmd_convert,
    cmd_demo,
    cmd_ingest,
    cmd_init,
)
from vera_lab.cli.evaluate import cmd_evaluate
from vera_lab.cli.sweep_commands import cmd_compare, cmd_export, cmd_plan, cmd_report, cmd_runs, cmd_sweep
from vera_lab.cli.verify import cmd_verify
from vera_lab.data import CONVERTERS, DatasetError
from vera_lab.embedding import DEVICES
from vera_lab.embedding.base import EmbedderError
from vera_lab.embedding.cache import DEFAULT_CACHE_DIR
from vera_lab.grounding import SCORERS
from vera_lab.integrations.tracking import DEFAULT_URI, TrackingError
from vera_lab.llm import OllamaError
from vera_lab.sweep.store import StoreError


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default once, and only one worth showing (not None, off or empty; not already said)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text or action.default in (None, False, [], argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


class _DefaultsParser(OneLineParser):
    """A subcommand parser whose help shows every option's default."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _DefaultsFormatter)
        super().__init__(*args, **kwargs)


class _OlderSpelling(argparse.Action):
    """Store the value; warn when it came by the older option string (the first one is the name)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if option_string != self.option_strings[0]:
            said = f"{option_string} is now {self.option_strings[0]} here (--config names a configuration id"
            print(f"{parser.prog}: warning: {said} elsewhere); {option_string} will go", file=sys.stderr)
        setattr(namespace, self.dest, values)


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("vera-lab")
    except metadata.PackageNotFoundError:
        return "unknown"


def add_cache_dir(p: argparse.ArgumentParser, what: str = "embedding cache directory") -> None:
    """``--cache-dir``, one spelling and default for every command that caches."""
    p.add_argument("--cache-dir", default=str(DEFAULT_CACHE_DIR), help=what)


def add_quiet(p: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bars or lines."""
    p.add_argument("--quiet", action="store_true", help="no progress output")


def add_dataset(
    p: argparse.ArgumentParser, what: str = "a directory with corpus.jsonl and claims.jsonl"
) -> None:
    """``--dataset DIR``, required."""
    p.add_argument("--dataset", required=True, help=what)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``vera-lab``."""
    parser = OneLineParser(
        prog="vera-lab",
        description="Choose how to chunk documents for retrieval and grounding by measuring: chunk a "
        "file, evaluate one setting, sweep strategy x size x overlap over labelled claims, and report.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_DefaultsParser)
    for add in (
        _chunk_command,
        _evaluate_command,
        _sweep_command,
        _compare_command,
        _plan_command,
        _report_command,
        _export_command,
        _runs_command,
        _convert_command,
        _ingest_command,
        _claims_command,
        _contrast_command,
        _init_command,
        _verify_command,
        _demo_command,
    ):
        add(sub)
    return parser


def _chunk_command(sub) -> None:
    """``vera-lab chunk``."""
    p = sub.add_parser("chunk", help="chunk a text or Markdown file (or - for stdin)")
    p.add_argument("file", help="a text, Markdown, code or PDF file, or - for stdin")
    p.add_argument("--strategy", required=True, help=f"one of {', '.join(sorted(CHUNKERS))}")
    p.add_argument("--size", type=parse_number, help="chunk size in --unit (default: the strategy's)")
    p.add_argument("--overlap", type=parse_number, help="absolute amount, or a ratio below 1 (0.2)")
    p.add_argument("--unit", choices=("chars", "tokens", "sentences"), help="unit of size and overlap")
    add_lang(p)
    p.add_argument("--format", choices=("jsonl", "table", "stats"), default="jsonl", help="what to print")
    p.set_defaults(func=cmd_chunk)


def _evaluate_command(sub) -> None:
    """``vera-lab evaluate``."""
    p = sub.add_parser("evaluate", help="evaluate one configuration on a dataset directory")
    add_dataset(p)
    p.add_argument(
        "--recommendation",
        "--config",  # the older spelling: --config names a configuration id everywhere else
        dest="recommendation",
        metavar="FILE",
        action=_OlderSpelling,
        help="a sweep's recommendation.json (or its run folder) to apply: the held-out check",
    )
    p.add_argument("--preset", help="a seed preset: vera-000, docuchat-001, vera-003, kaizen-004")
    p.add_argument("--strategy", help=f"one of {', '.join(sorted(CHUNKERS))}")
    p.add_argument("--size", type=parse_number, help="chunk size in --unit")
    p.add_argument("--overlap", type=parse_number, help="absolute amount, or a ratio below 1 (0.2)")
    p.add_argument("--unit", choices=("chars", "tokens", "sentences"), help="unit of size and overlap")
    add_lang(p)
    p.add_argument(
        "--embedder",
        default="minilm",
        help="minilm, minilm-onnx, minilm-int8, tfidf, hashing or ollama:MODEL",
    )
    p.add_argument(
        "--device", choices=DEVICES, default="auto", help="where minilm embeds (auto: CUDA if present)"
    )
    p.add_argument("--dims", type=int, help="Matryoshka truncation: keep the first DIMS components")
    _grounding_options(p)
    add_cache_dir(p)
    p.add_argument("--no-cache", action="store_true", help="embed without the on-disk cache")
    p.add_argument("--judge", metavar="ollama:MODEL", help="also judge each claim with a local LLM")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_evaluate)


def _sweep_command(sub) -> None:
    """``vera-lab sweep``."""
    p = sub.add_parser("sweep", help="run (or resume) a sweep from a YAML definition")
    p.add_argument("config", help="the sweep definition (YAML)")
    p.add_argument("--halving", action="store_true", help="screen with a cheap embedder, confirm the best")
    p.add_argument(
        "--holdout",
        type=float,
        metavar="SHARE",
        help="set this share of the claims aside (stratified, grouped by document) to confirm the choice",
    )
    p.add_argument(
        "--device",
        choices=DEVICES,
        help="where minilm embeds, overriding the definition's device (auto: CUDA if present)",
    )
    p.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="CONFIG_ID",
        help="with halving: run this configuration in full even if the screen dropped it (repeatable)",
    )
    p.add_argument(
        "--also-check",
        action="append",
        default=[],
        metavar="DATASET_DIR",
        help="after the choice, compare it with the presets on this dataset too: does it transfer? "
        "(repeatable; stored under <run>/check-<folder>/, shown in the report)",
    )
    p.add_argument(
        "--restart",
        action="store_true",
        help="move stored results aside (to NAME.<date>) and start afresh, e.g. after the data changed",
    )
    p.add_argument("--dask", metavar="local|tcp://HOST:PORT", help="run configs on a Dask cluster")
    p.add_argument(
        "--store",
        metavar="FOLDER|URL",
        help="vectors every worker shares: a shared folder or s3://bucket/path (overrides store: in the "
        "sweep file); each distinct text is embedded once across the workers",
    )
    p.add_argument("--results-dir", default="results", help="where results/<name>/ is written")
    add_cache_dir(p)
    p.add_argument("--top", type=positive_count, default=10, help="configs to print")
    p.add_argument("--no-report", action="store_true", help="skip report.html and report.md")
    p.add_argument(
        "--mlflow",
        nargs="?",
        const=DEFAULT_URI,
        metavar="URI",
        help=f"log each configuration as an MLflow run under a parent run for the sweep (URI: {DEFAULT_URI})",
    )
    add_quiet(p)
    p.set_defaults(func=cmd_sweep)


def _compare_command(sub) -> None:
    """``vera-lab compare``."""
    p = sub.add_parser(
        "compare",
        help="the held-out check: a sweep's recommendation against the presets on another dataset",
        description="Run a stored sweep's recommendation (with its fitted threshold) and the seed presets "
        "it was compared with on DATASET_DIR; print each metric with its 95% bootstrap interval and the "
        "paired difference from the recommendation (resampling the dataset's clusters, Holm-corrected). "
        "Writes comparison.json, comparison.csv and per-claim rows under RUN_DIR/compare-<folder>/.",
    )
    p.add_argument("run_dir", help="a finished sweep's results folder, or the recommendation.json inside it")
    add_dataset(p)
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="CONFIG_ID",
        help="also compare this configuration of the sweep (repeatable)",
    )
    p.add_argument("--name", help="the folder under RUN_DIR to write (default: compare-<dataset folder>)")
    add_cache_dir(p)
    p.add_argument("--json", action="store_true", help="print comparison.json instead of a table")
    add_quiet(p)
    p.set_defaults(func=cmd_compare)


def _plan_command(sub) -> None:
    """``vera-lab plan``."""
    p = sub.add_parser(
        "plan",
        help="which claims to label next: likely to carry evidence, and the contenders disagree on them",
        description="Rank candidate claims (claim_id, claim, doc; no labels needed) by their chance of "
        "carrying evidence (learnt from the sweep's labelled claims) times how differently the best "
        "configuration and its cheaper rivals fill the first 1,000 characters of context for them, "
        "taken round-robin over documents, and estimate how many more labels would make the sweep "
        "conclusive. The order is chosen, not random: confirm the choice on held-out claims.",
    )
    p.add_argument("run_dir", help="a finished sweep's results folder")
    p.add_argument("--claims", required=True, help="candidate claims: CSV or JSONL with claim_id, claim, doc")
    p.add_argument("--top", type=positive_count, default=20, help="how many to list")
    p.add_argument("--out", help="write every candidate in plan order to this CSV, to label from the top")
    p.add_argument("--force", action="store_true", help="replace --out when it exists (never --claims)")
    add_cache_dir(p)
    p.set_defaults(func=cmd_plan)


def _report_command(sub) -> None:
    """``vera-lab report``."""
    p = sub.add_parser("report", help="export the HTML and Markdown report of a stored sweep")
    p.add_argument("run_dir", help="a sweep's results folder")
    p.add_argument(
        "--format", nargs="+", choices=("html", "md"), default=["html", "md"], help="formats to write"
    )
    p.add_argument("--force", action="store_true", help="replace a report edited since vera-lab wrote it")
    p.set_defaults(func=cmd_report)


def _export_command(sub) -> None:
    """``vera-lab export``."""
    p = sub.add_parser(
        "export", help="write a stored config's chunks and vectors to parquet, jsonl or chroma"
    )
    p.add_argument("run_dir", help="a sweep's results folder")
    p.add_argument("--config", default="best", help="a config_id from results.csv, or best (default)")
    p.add_argument("--to", required=True, choices=("parquet", "jsonl", "chroma"), help="the format")
    p.add_argument("path", help="the file (parquet, jsonl) or folder (chroma) to write")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a parquet or jsonl file that exists, or a Chroma collection holding other chunks",
    )
    add_cache_dir(p)
    p.set_defaults(func=cmd_export)


def _runs_command(sub) -> None:
    """``vera-lab runs``."""
    p = sub.add_parser("runs", help="list stored sweeps")
    p.add_argument("--results-dir", default="results", help="where sweeps are stored")
    p.set_defaults(func=cmd_runs)


def _convert_command(sub) -> None:
    """``vera-lab convert``."""
    p = sub.add_parser("convert", help="convert a public source into the project's dataset format")
    p.add_argument("name", choices=sorted(CONVERTERS), help="which public source")
    p.add_argument("source", help="its folder (contractnli: the split's .json file)")
    p.add_argument("target", help="the dataset folder to write")
    p.add_argument("--force", action="store_true", help="replace a dataset already in the folder")
    p.set_defaults(func=cmd_convert)


def _ingest_command(sub) -> None:
    """``vera-lab ingest``."""
    p = sub.add_parser(
        "ingest", help="turn a folder of text, Markdown, HTML, Word, PDF and code files into a corpus"
    )
    p.add_argument("folder", help="every file below it becomes a document")
    p.add_argument("--out", required=True, help="the dataset directory to write corpus.jsonl into")
    p.add_argument("--force", action="store_true", help="replace a corpus.jsonl already in --out")
    add_lang(p, "dataset.json")
    add_quiet(p)
    p.set_defaults(func=cmd_ingest)


def _claims_command(sub) -> None:
    """``vera-lab claims``."""
    p = sub.add_parser(
        "claims", help="locate quoted evidence of a CSV/JSONL claims file in a dataset's documents"
    )
    p.add_argument(
        "file",
        help="CSV (claim_id, claim, label, doc, evidence) or JSONL; label is one of supported, "
        "contradicted, unsupported (not mentioned); with --draft, the CSV to write",
    )
    p.add_argument("--dataset", required=True, help="a directory with corpus.jsonl (from vera-lab ingest)")
    p.add_argument(
        "--draft",
        type=int,
        metavar="N",
        help="draft N claims with your LLM (--llm), each quoting its evidence, into FILE for review",
    )
    p.add_argument(
        "--llm", metavar="ollama:MODEL|openai:MODEL@URL", help="the LLM that drafts (with --draft)"
    )
    p.add_argument("--seed", type=int, default=0, help="which passages --draft takes")
    add_cache_dir(p, "where drafted replies are cached")
    p.add_argument("--report", action="store_true", help="print how each quote was matched")
    p.add_argument(
        "--skip-missing",
        action="store_true",
        help="leave out rows whose doc is not in the corpus (a file ingest skipped) and list them",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace FILE when it exists (with --draft), or a claims.jsonl vera-lab did not write",
    )
    p.set_defaults(func=cmd_claims)


def _contrast_command(sub) -> None:
    """``vera-lab contrast``."""
    p = sub.add_parser(
        "contrast",
        help="write contrastive claims made by rules: contradicted twins and not-mentioned pairings",
        description="From every supported claim of DATASET, rule-made contradicted twins on the same "
        "evidence (number, negation, antonym, duration) and a pairing with a document that does not "
        "state it; written as a claims.jsonl-format file for review (ids say the rule).",
    )
    p.add_argument("--dataset", required=True, help="a dataset folder with claims.jsonl")
    p.add_argument("--out", required=True, help="the JSONL file to write (a dataset's claims format)")
    p.add_argument("--seed", type=int, default=0, help="which other document a not-mentioned pairing takes")
    p.add_argument(
        "--force", action="store_true", help="replace --out when it exists (never the dataset's own)"
    )
    p.set_defaults(func=cmd_contrast)


def _init_command(sub) -> None:
    """``vera-lab init``."""
    p = sub.add_parser(
        "init",
        help="from a folder of documents (and a claims file) to a sweep file sized to a time budget",
        description="Ingest DOCS (or use a dataset folder that has corpus.jsonl), locate the quotes of "
        "CLAIMS if given, and write a commented sweep YAML beside the data whose grid fits --minutes of "
        "embedding on this machine (measured now). Prints the estimate and the command to run.",
    )
    p.add_argument("docs", help="a folder of documents, or a dataset folder with corpus.jsonl")
    p.add_argument(
        "claims", nargs="?", help="a CSV/JSONL claims file with quoted evidence (see vera-lab claims)"
    )
    p.add_argument("--out", help="the dataset folder to write (default: DOCS-dataset beside DOCS)")
    p.add_argument(
        "--minutes", type=positive_number, default=10.0, help="the embedding time the grid may take"
    )
    p.add_argument("--skip-missing", action="store_true", help="as for vera-lab claims")
    add_lang(p, "dataset.json")
    add_cache_dir(p)
    add_quiet(p)
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing sweep.yaml (kept otherwise), and data files vera-lab did not write",
    )
    p.set_defaults(func=cmd_init)


def _verify_command(sub) -> None:
    """``vera-lab verify``."""
    p = sub.add_parser(
        "verify",
        help="judge (claim, passage) pairs with the shipped verifier: supported, contradicted, unmentioned",
    )
    p.add_argument("pairs", help="a .jsonl or .csv file with claim and passage columns (others are kept)")
    p.add_argument(
        "--out",
        help="a .jsonl or .csv file to write (default: JSONL on standard output); in CSV a cell that "
        "starts like a formula (=, +, -, @) is written with a leading ' so no spreadsheet runs it",
    )
    p.add_argument("--force", action="store_true", help="replace --out when it exists")
    p.add_argument("--verifier", default="general", help="general (shipped) or a verifier folder")
    add_cache_dir(p, "where the verifier's ONNX build is kept")
    p.set_defaults(func=cmd_verify)


def _demo_command(sub) -> None:
    """``vera-lab demo``."""
    p = sub.add_parser("demo", help="chunk a bundled document with every strategy")
    p.add_argument("--dataset", default="datasets/chroma-eval", help="a dataset folder")
    p.add_argument("--doc", help="document id (default: the longest)")
    p.set_defaults(func=cmd_demo)


def _grounding_options(p) -> None:
    """What ``evaluate`` retrieves per claim and how it decides grounded or not."""
    p.add_argument("--k", type=int, default=5, help="chunks retrieved per claim")
    p.add_argument(
        "--aggregate", choices=("max", "mean"), default="max", help="how the top k similarities score a claim"
    )
    p.add_argument(
        "--scorer", choices=SCORERS, default="cosine",
        help="cosine of the top chunks, a logistic model over retrieval features fitted out of fold, or "
        "the verifier: the shipped cross-encoder (trained here on public data) reading each chunk",
    )  # fmt: skip
    p.add_argument(
        "--adapt", action="store_true",
        help="adapt the verifier to the evaluated dataset's claims, cross-fitted by document (each claim "
        "scored by a model that never saw its documents)",
    )  # fmt: skip
    p.add_argument(
        "--verifier-from", metavar="DIR",
        help="adapt the verifier to this dataset's claims instead (the evaluated claims are then never "
        "trained on)",
    )  # fmt: skip
    p.add_argument(
        "--threshold",
        help="a cosine (cosine: default 0.7), a probability (learned: 0.7, verifier: 0.5), or 'calibrate'",
    )
    p.add_argument(
        "--scope", choices=("corpus", "cited"), help="retrieval scope (default: the dataset's, else corpus)"
    )


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
    except KeyboardInterrupt:
        print(
            f"vera-lab {args.command}: interrupted before it finished; every file is written whole or not "
            "at all, so nothing written earlier was lost: run it again",
            file=sys.stderr,
        )
        return 130
    except (
        UsageError,
        DatasetError,
        EmbedderError,
        OllamaError,
        StoreError,
        TrackingError,
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
        if exc.errno == errno.ENOSPC:
            print(
                f"vera-lab {args.command}: error: no space left on the device holding {where}: free some "
                "space and run it again; nothing written before was lost (files are written whole or not "
                "at all) and a sweep resumes where it stopped",
                file=sys.stderr,
            )
            return 2
        if exc.errno in (errno.EEXIST, errno.ENOTDIR) and exc.filename:  # a folder to make, or to read in
            path = Path(exc.filename)
            blocker = next((p for p in (path, *path.parents) if p.is_file()), path)
            print(
                f"vera-lab {args.command}: error: {blocker} is a file where a folder is needed: name a "
                "folder; the file was left as it is",
                file=sys.stderr,
            )
            return 2
        print(
            f"vera-lab {args.command}: error: cannot write or read {where}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    return 0
