"""What every command shares: one-line errors, argument parsing, number arguments."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn


class UsageError(Exception):
    """A problem with the user's input, reported as one line."""


class Interrupted(Exception):
    """The user stopped the command; the message says what was kept and how to go on."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (and exit status 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def refuse_overwrite(path: str | Path, force: bool, option: str, inputs: Sequence[str | Path] = ()) -> None:
    """Stop before a command writes over a file the user owns: an input always, another file without --force.

    ``option`` names the argument that chose ``path`` (``--out``), so the message says what to change.
    """
    target = Path(path)
    for given in inputs:
        source = Path(given)
        if source.exists() and target.exists() and target.resolve() == source.resolve():
            raise UsageError(
                f"{option} {path} is this command's own input: name another file, so it stays as it is"
            )
    if target.is_dir():
        raise UsageError(f"{option} {path} is a folder: name a file")
    if (target.exists() or target.is_symlink()) and not force:
        raise UsageError(f"{option} {path} exists: name another file, or pass --force to replace it")


def refuse_writing_into_run(path: str | Path, run_dir: str | Path, option: str) -> None:
    """Stop before a command writes over a run's own files: they are its input, even with --force."""
    from vera_lab.sweep.store import ResultsStore

    if ResultsStore(run_dir).holds_file(path):
        raise UsageError(
            f"{option} {path} is one of the run's own files in {run_dir} (its results, reports or stored "
            "rows), which this command reads: name a file outside them; it stays as it is, even with --force"
        )


def refuse_dataset_around(docs: str | Path, dataset: str | Path, option: str) -> None:
    """Stop before a dataset is written in (or above) the folder of documents it is made from.

    A dataset inside that folder is left out of it; one around it would hide every document.
    """
    folder, around = Path(docs).resolve(), Path(dataset).resolve()
    if folder == around or around in folder.parents:
        where = "is" if folder == around else "holds"
        raise UsageError(
            f"{option} {dataset} {where} the documents folder {docs}: the dataset would be written among the "
            f"documents; name a folder beside it, such as {folder.with_name(folder.name + '-dataset')}"
        )


def refuse_replacing(path: str | Path, force: bool) -> None:
    """Stop before a command replaces a dataset file vera-lab did not write, or that was changed since."""
    from vera_lab.data.dataset import not_ours

    why = not_ours(path)
    if why and not force:
        raise UsageError(f"{why}: pass --force to replace it, or write to another dataset folder")


def positive_number(value: str) -> float:
    """An argparse type: a finite number above 0 (minutes, a budget)."""
    number = parse_number(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not above 0")
    return float(number)


def positive_count(value: str) -> int:
    """An argparse type: a whole number >= 1."""
    number = parse_number(value)
    if not isinstance(number, int) or number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number >= 1")
    return number


def parse_number(value: str) -> int | float:
    """An argparse type: a whole or finite decimal number."""
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


def cli_chunker(args: argparse.Namespace):
    """The chunker the command line asks for; an overlap the user never gave is named as a default."""
    from vera_lab.chunking import make_chunker

    try:
        return make_chunker(args.strategy, **chunker_args(args))
    except ValueError as exc:
        raise ValueError(in_cli_words(str(exc))) from None


def in_cli_words(message: str) -> str:
    """A chunker's error with the option that sets the parameter, in command-line words."""
    return message.replace("set overlap, e.g. 0 or 0.1", "pass --overlap, e.g. --overlap 0 or --overlap 0.1")


def chunker_args(args: argparse.Namespace) -> dict:
    """The chunker parameters given on the command line (size, overlap, unit, lang)."""
    given = (("size", args.size), ("overlap", args.overlap), ("unit", args.unit), ("lang", args.lang))
    return {k: v for k, v in given if v is not None}


def add_lang(parser: argparse.ArgumentParser, written_to: str = "") -> None:
    """``--lang``: the language whose sentence rules read the documents, and which every chunk records.

    ``written_to``: the file a dataset command names it in, for the documents' later readers.
    """
    from vera_lab.language import LANGUAGES

    parser.add_argument(
        "--lang",
        choices=("auto", *LANGUAGES),
        help="the documents' language, for sentence rules"
        + (f", named in the dataset's {written_to}" if written_to else "")
        + " (default auto: each document's own, named by its dataset.json or detected; a text of a few "
        "words is read as English unless named)",
    )
