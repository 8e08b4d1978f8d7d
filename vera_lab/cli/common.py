"""What every command shares: one-line errors, argument parsing, number arguments."""

from __future__ import annotations

import argparse
import math
from typing import NoReturn


class UsageError(Exception):
    """A problem with the user's input, reported as one line."""


class Interrupted(Exception):
    """The user stopped the command; the message says what was kept and how to go on."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (and exit status 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


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


def chunker_args(args: argparse.Namespace) -> dict:
    """The chunker parameters given on the command line (size, overlap, unit)."""
    return {
        k: v
        for k, v in (("size", args.size), ("overlap", args.overlap), ("unit", args.unit))
        if v is not None
    }
