"""The ``vera-lab`` command: parses arguments and calls the package; errors are one line, exit 2."""

from vera_lab.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
