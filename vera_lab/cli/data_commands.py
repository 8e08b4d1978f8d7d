"""Commands on documents and datasets: chunk, convert, ingest, claims, demo."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from shlex import quote

from vera_lab.chunking import CHUNKERS, chunk_stats, make_chunker
from vera_lab.cli.common import (
    UsageError,
    cli_chunker,
    refuse_dataset_around,
    refuse_overwrite,
    refuse_replacing,
)
from vera_lab.data import CONVERTERS, detect_format, load_dataset, load_pdf
from vera_lab.types import Document


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


def cmd_chunk(args: argparse.Namespace) -> None:
    """Chunk one file and print chunks or statistics."""
    from vera_lab.evaluation.resources import with_resources

    chunker = with_resources(cli_chunker(args))
    data, name = _read_bytes(args.file)
    if data.startswith(b"%PDF-") or (args.file != "-" and detect_format(args.file) == "pdf"):
        if args.file != "-":
            doc = load_pdf(Path(args.file), name)
        else:
            with tempfile.TemporaryDirectory() as tmp:  # the PDF reader wants a file, stdin is none
                path = Path(tmp) / f"{name}.pdf"
                path.write_bytes(data)
                try:
                    doc = load_pdf(path, name)
                except ValueError as exc:  # name what the user gave, not the temporary copy
                    raise ValueError(str(exc).replace(str(path), "stdin")) from None
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
    from vera_lab.data import CLAIMS_FILE, CORPUS_FILE

    source = Path(args.source)  # a folder of the public files, or (contractnli) one file
    inputs = [source, *(source / name for name in (CORPUS_FILE, CLAIMS_FILE))]
    for name in (CORPUS_FILE, CLAIMS_FILE):
        refuse_overwrite(Path(args.target) / name, args.force, "TARGET's", inputs)
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
    from vera_lab.data import CORPUS_FILE
    from vera_lab.data.ingest import ingest_folder

    refuse_dataset_around(args.folder, args.out, "--out")
    refuse_overwrite(Path(args.out) / CORPUS_FILE, args.force, "--out's")
    named = _language_to_name(args.out, args.lang, args.force)
    result = ingest_folder(args.folder, progress=not args.quiet, exclude=args.out)
    _say_skipped_and_warned(result)
    if not result.documents:
        raise UsageError(f"{args.folder}: no file could be read as a document; nothing written")
    print(f"{result.write(args.out)}: {result.summary(named)}")
    _name_language(args.out, named)
    print(f"next: vera-lab claims CLAIMS.csv --dataset {quote(str(args.out))}")


def _language_to_name(dataset: str | Path, lang: str | None, force: bool) -> str | None:
    """The language ``--lang`` names for the dataset's dataset.json, checked before anything is written.

    None when it names none ("auto": each document's own, detected). A dataset.json the user wrote, or
    that names another language, is changed only with --force.
    """
    from vera_lab.data.dataset import METADATA_FILE, load_metadata, not_ours

    if lang is None or lang == "auto":
        return None
    path = Path(dataset) / METADATA_FILE
    named = load_metadata(dataset).get("language")
    if named not in (None, "auto", lang) and not force:
        raise UsageError(
            f"{path} names the language {named!r}: pass --force to name {lang!r} instead; nothing written"
        )
    if named != lang and not force and (why := not_ours(path)):
        raise UsageError(
            f'{why}: pass --force to add "language": "{lang}" to it, or write it there yourself; '
            "nothing written"
        )
    return lang


def _name_language(dataset: str | Path, lang: str | None) -> None:
    if lang:
        from vera_lab.data.dataset import name_language

        print(f"{name_language(dataset, lang)}: sentence rules read every document as {lang} (--lang)")


def _say_skipped_and_warned(result) -> None:
    for path, reason in result.skipped:
        print(f"skipped {path}: {reason}", file=sys.stderr)
    for path, problem in result.warnings:
        print(f"warning {path}: {problem}", file=sys.stderr)


def _import_claims_or_list_problems(claims_file, dataset, skipped):
    """Import the claims; when quotes are not found, every problem goes to a file beside the data too."""
    from vera_lab.data import DatasetError
    from vera_lab.data.user_claims import import_claims

    try:
        return import_claims(claims_file, dataset, skipped)
    except DatasetError as exc:
        problems = str(exc).splitlines()
        if not any("quote not found" in line for line in problems) or not Path(dataset).is_dir():
            raise
        listed = Path(dataset) / "quotes-not-found.txt"
        listed.write_text("\n".join(problems) + "\n", encoding="utf-8")
        raise DatasetError(
            f"{exc}\n{len(problems)} problem(s), also listed in {listed}: fix those rows of {claims_file} "
            "(each line names its row and the closest text found) and run again; nothing else was written"
        ) from None


def cmd_claims(args: argparse.Namespace) -> None:
    """Locate each claim's quoted evidence in its document and write the dataset's claims.jsonl."""
    from vera_lab.data import CLAIMS_FILE

    if args.draft is not None:
        return _draft(args)
    if args.llm:
        raise UsageError("--llm goes with --draft N")
    refuse_replacing(Path(args.dataset) / CLAIMS_FILE, args.force)
    skipped: list[str] | None = [] if args.skip_missing else None
    claims, located = _import_claims_or_list_problems(args.file, args.dataset, skipped)
    for line in skipped or []:
        print(f"skipped {line}", file=sys.stderr)
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
        + (f"; {len(skipped)} rows skipped (their documents are not in the corpus)" if skipped else "")
    )
    print(f"next: vera-lab init {quote(str(args.dataset))}   # writes a sweep file sized to a time budget")


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


def cmd_init(args: argparse.Namespace) -> None:
    """Ingest a folder, locate the claims, write a sweep file sized to a time budget, say what to run."""
    from vera_lab.data import CLAIMS_FILE, CORPUS_FILE
    from vera_lab.data.ingest import ingest_folder
    from vera_lab.sweep.template import write_sweep_file

    docs = Path(args.docs)
    ingest = not (docs / CORPUS_FILE).is_file()
    if not ingest:
        dataset = Path(args.out) if args.out else docs
        if dataset != docs:
            raise UsageError(f"{docs} is a dataset already (it has {CORPUS_FILE}); leave out --out")
    else:
        named = docs if docs.name else docs.resolve()  # "." or "..": the folder's real name
        dataset = Path(args.out) if args.out else named.with_name(f"{named.name}-dataset")
    if ingest:
        refuse_dataset_around(docs, dataset, "--out")
    for written in [dataset / CORPUS_FILE] * ingest + [dataset / CLAIMS_FILE] * bool(args.claims):
        refuse_replacing(written, args.force)  # before anything is written
    named = _language_to_name(dataset, args.lang, args.force)
    if ingest:
        claims_file = Path(args.claims).resolve() if args.claims else None
        if claims_file and claims_file.is_relative_to(docs.resolve()):  # its quotes would be found in it
            print(f"left out {claims_file.relative_to(docs.resolve())}: the claims file, not a document")
        result = ingest_folder(
            docs, progress=not args.quiet, exclude=[dataset, *([claims_file] * bool(claims_file))]
        )
        _say_skipped_and_warned(result)
        if not result.documents:
            raise UsageError(f"{docs}: no file could be read as a document; nothing written")
        print(f"{result.write(dataset)}: {result.summary(named)}")
    _name_language(dataset, named)
    if args.claims:
        skipped: list[str] | None = [] if args.skip_missing else None
        claims, located = _import_claims_or_list_problems(args.claims, dataset, skipped)
        for line in skipped or []:
            print(f"skipped {line}", file=sys.stderr)
        counts = claims.label_counts()
        print(f"{dataset / CLAIMS_FILE}: {len(claims)} claims {counts}, {len(located)} quotes located")
    elif not (dataset / CLAIMS_FILE).is_file():
        raise UsageError(
            f"{dataset}: no {CLAIMS_FILE}; give a claims file: vera-lab init {quote(str(args.docs))} "
            "CLAIMS.csv (columns claim_id, claim, label, doc, evidence)"
        )
    path, estimate = write_sweep_file(dataset, args.minutes, args.cache_dir, replace=args.force)
    if estimate is None:
        print(f"{path}: kept as it is (it exists: pass --force to write a new one over it)")
        print(f"next: vera-lab sweep {quote(str(path))}")
        return
    print(f"{path}: {estimate.sentence()}")
    if estimate.separation():
        print(f"note: {estimate.separation()}")
    print(f"next: vera-lab sweep {quote(str(path))}")


def cmd_contrast(args: argparse.Namespace) -> None:
    """Write rule-made contrastive claims of a dataset for review."""
    from collections import Counter

    from vera_lab.data import CLAIMS_FILE, CORPUS_FILE
    from vera_lab.data.contrast import contrastive_claims
    from vera_lab.data.dataset import claim_record, write_jsonl

    own = [Path(args.dataset) / CLAIMS_FILE, Path(args.dataset) / CORPUS_FILE]
    refuse_overwrite(args.out, args.force, "--out", own)
    dataset = load_dataset(args.dataset)
    made = contrastive_claims(list(dataset.claims), dataset.corpus, args.seed)
    if not made:
        raise UsageError(f"{args.dataset}: no supported claim any rule could edit; nothing written")
    write_jsonl(args.out, (claim_record(c) for c in made))
    rules = Counter(c.claim_id.rsplit("~", 1)[1] for c in made)
    print(f"{args.out}: {len(made)} claims ({', '.join(f'{k} {v}' for k, v in sorted(rules.items()))})")


def _draft(args: argparse.Namespace) -> None:
    """``claims FILE --draft N --llm SPEC``: drafts with quoted evidence, written to FILE for review."""
    from vera_lab.data import CORPUS_FILE, load_corpus
    from vera_lab.labelling.drafting import asker, draft_claims, write_drafts

    if args.draft < 1:
        raise UsageError(f"--draft {args.draft}: a number of claims >= 1")
    if not args.llm:
        raise UsageError("--draft needs --llm ollama:MODEL or openai:MODEL@BASE_URL (your own server)")
    if Path(args.file).suffix.lower() != ".csv":
        raise UsageError(f"{args.file}: drafts are written as a .csv file")
    refuse_overwrite(args.file, args.force, "the drafts file")
    ask, model = asker(args.llm)
    corpus = load_corpus(Path(args.dataset) / CORPUS_FILE)
    drafts = draft_claims(
        corpus, args.draft, ask, model, args.cache_dir, args.seed, progress=sys.stderr.isatty()
    )
    if not drafts.rows:
        raise UsageError(
            f"no draft to review, nothing written to {args.file}: {drafts.summary()}. Check that {model} "
            "answers in JSON and quotes the passage word for word (try another model, or draft by hand)"
        )
    print(f"{write_drafts(drafts, args.file)}: {drafts.summary()}")
    then = f"vera-lab claims {quote(str(args.file))} --dataset {quote(str(args.dataset))}"
    print(f"next: review {args.file} (edit or delete rows), then: {then}")
