"""A folder of the user's files as a corpus: text, Markdown, HTML, PDF and code, one document each.

Document ids are the file paths relative to the folder (POSIX separators), so the same folder always
gives the same corpus, byte for byte. Word documents give their paragraphs and tables; HTML pages
their main content (trafilatura: no navigation, footers or cookie notices). Files that cannot be
documents (empty, binary, encrypted or broken PDFs, text that is not UTF-8) are skipped, each with
the reason.
"""

from __future__ import annotations

import codecs
import errno
import html
import os
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from tqdm.auto import tqdm

from vera_lab.data.dataset import CORPUS_FILE, corpus_languages, document_record, write_data_file
from vera_lab.data.formats import detect_format
from vera_lab.data.pdf import load_pdf, text_layer_problem
from vera_lab.types import Corpus, Document

HTML_EXTENSIONS = (".html", ".htm", ".xhtml")
_HIDDEN_TEXT = {"script", "style", "template", "noscript", "head", "title"}
_BLOCKS = {"address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure",
           "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol",
           "p", "pre", "section", "table", "td", "th", "tr", "ul"}  # fmt: skip


class SkippedFile(ValueError):
    """A file that cannot become a document; the message says why."""


@dataclass
class Ingested:
    """The documents of a folder and the files skipped, with reasons."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (relative path, what looks wrong)

    @property
    def corpus(self) -> Corpus:
        return Corpus(tuple(self.documents))

    def write(self, directory: str | Path) -> Path:
        """Write the documents as ``corpus.jsonl`` of a dataset directory (atomically); returns its path."""
        path = Path(directory) / CORPUS_FILE
        write_data_file(path, (document_record(d) for d in self.documents))
        return path

    def summary(self, named: str | None = None) -> str:
        """Counts of documents, characters, formats and languages; ``named``: the language given for all.

        The languages detected are what sentence rules read the documents in, unless one is named; then
        they are shown beside it, so that a document in another language stands out.
        """
        chars = sum(len(d.text) for d in self.documents)
        formats = Counter(d.format for d in self.documents)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(formats.items()))
        languages = Counter(corpus_languages(self.corpus))
        read_in = ", ".join(f"{k} {v}" for k, v in sorted(languages.items()))
        if named and read_in:
            read_in = f"; language named: {named} (detected: {read_in})"
        elif read_in:
            read_in = f"; languages detected: {read_in}"
        return (
            f"{len(self.documents)} documents, {chars:,} characters ({shown or 'none'}{read_in}); "
            f"{len(self.skipped)} files skipped"
        )


class _VisibleText(HTMLParser):
    """The text a browser shows: no script, style or head; block elements start new lines."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _HIDDEN_TEXT:
            self._hidden += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TEXT:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def main_text(source: str) -> str:
    """The main content of an HTML page: trafilatura drops navigation, footers and cookie notices.

    When it finds no main content (a page that is all list or table), the visible text is kept.
    """
    try:
        import trafilatura
    except ImportError:  # without the ingest extra: every visible word, boilerplate included
        return html_text(source)
    text = trafilatura.extract(source, include_comments=False, include_tables=True, favor_recall=True)
    return text.strip() if text and text.strip() else html_text(source)


OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")  # Microsoft's compound file: .doc, or an encrypted .docx


def docx_text(path: Path) -> str:
    """The text of a Word document: paragraphs and table rows in document order, blank-line separated.

    Table cells are joined with " | ", one row per line.
    """
    try:
        import docx
    except ImportError as exc:
        raise SkippedFile("a Word document: reading it needs pip install 'vera-lab[ingest]'") from exc
    with path.open("rb") as handle:
        head = handle.read(8192)
    if head.startswith(OLE_MAGIC):  # a password-protected .docx is an OLE file holding an EncryptedPackage
        if "EncryptedPackage".encode("utf-16-le") in path.read_bytes():
            raise SkippedFile("an encrypted (password-protected) Word document: save it without a password")
        raise SkippedFile("an old binary Word document (.doc): save it as .docx")
    try:
        document = docx.Document(str(path))
    except Exception as exc:  # noqa: BLE001 - python-docx raises zip, XML and key errors for broken files
        raise SkippedFile(f"not a readable Word document ({type(exc).__name__})") from None
    blocks = []
    for item in document.iter_inner_content():
        if hasattr(item, "rows"):
            rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in item.rows]
            blocks.append("\n".join(r for r in rows if r.strip(" |")))
        elif item.text.strip():
            blocks.append(item.text.strip())
    text = "\n\n".join(b for b in blocks if b)
    if not text:
        raise SkippedFile("a Word document with no text")
    return text


def html_text(source: str) -> str:
    """Visible text of an HTML page.

    Entities are decoded, spaces collapsed within a line, and blocks separated by blank lines.
    """
    parser = _VisibleText()
    parser.feed(source)
    parser.close()
    lines = (" ".join(line.split()) for line in html.unescape("".join(parser.parts)).split("\n"))
    paragraphs, blank = [], False
    for line in lines:
        if line:
            if blank and paragraphs:
                paragraphs.append("")
            paragraphs.append(line)
            blank = False
        else:
            blank = True
    return "\n".join(paragraphs)


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)  # fmt: skip  (UTF-32 first: its LE mark starts like UTF-16's)


def _decode(data: bytes) -> str:
    """Text of a file: UTF-16/32 by their byte-order mark, else UTF-8 (with or without a mark)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise SkippedFile(f"not valid {codec.upper()} text (byte {exc.start})") from None
    if b"\0" in data[:8192]:
        raise SkippedFile("binary (NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkippedFile(f"not UTF-8 text (byte {exc.start}); convert it to UTF-8") from None


def load_file(path: Path, doc_id: str) -> Document:
    """One file as a document; raises :class:`SkippedFile` saying why it cannot be one."""
    data = path.read_bytes()
    if not data.strip():
        raise SkippedFile("empty")
    if path.suffix.lower() == ".pdf" or data.startswith(b"%PDF-"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                doc = load_pdf(path, doc_id)
        except ValueError as exc:
            raise SkippedFile(str(exc).removeprefix(f"{path}: ")) from None
        return Document(doc_id, doc.text, path.name, "pdf", doc.metadata, doc.page_starts)
    if path.suffix.lower() == ".docx" or (data.startswith(b"PK") and b"word/document.xml" in data[:65536]):
        return Document(doc_id, docx_text(path), path.name, "docx")
    text = _decode(data)
    if path.suffix.lower() in HTML_EXTENSIONS:
        title = html_title(text)
        text = main_text(text)
        if not text:
            raise SkippedFile("no visible text")
        return Document(doc_id, text, title or path.name, "html")
    kind = detect_format(path.name, text)
    if kind == "markdown":
        title, text = front_matter(text)
        return Document(doc_id, text, title or path.name, kind)
    return Document(doc_id, text, path.name, kind)


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)


def html_title(source: str) -> str:
    """The page's ``<title>``, its entities decoded and spaces collapsed ("" without one)."""
    found = _TITLE.search(source[:65536])
    return " ".join(html.unescape(found.group(1)).split()) if found else ""


def front_matter(text: str) -> tuple[str, str]:
    """A Markdown file's YAML front matter taken off: (its ``title:``, or "", and the text after it).

    The metadata block is not prose: left in, it is chunked, embedded and retrieved like the body.
    """
    found = _FRONT_MATTER.match(text)
    if not found:
        return "", text
    title = next(
        (line.split(":", 1)[1].strip().strip("'\"") for line in found.group(1).splitlines()
         if line.lower().startswith("title:")),
        "",
    )  # fmt: skip
    return title, text[found.end() :].lstrip("\r\n")


def files_under(root: Path, exclude: tuple[Path, ...] = ()) -> Iterator[Path]:
    """Every file below ``root`` in sorted order, broken links included (they are skipped with a reason).

    Hidden files and folders are left out, and so is what ``exclude`` names (resolved paths: a dataset
    written inside ``root``, the claims file that goes with the documents).
    Links to folders are not followed (a link to its own folder would never end); they are yielded
    and skipped with that reason.
    """
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        here = Path(folder)
        linked = [d for d in dirs if (here / d).is_symlink()]
        dirs[:] = [d for d in dirs if d not in linked and not _inside(here / d, exclude)]
        found += [here / n for n in [*names, *linked] if not n.startswith(".")]
    for path in sorted(found):
        if not _inside(path, exclude) and (path.is_symlink() or path.is_file()):
            yield path


def _inside(path: Path, excluded: tuple[Path, ...]) -> bool:
    # realpath, not resolve(): a link loop must not raise here; it is skipped with a reason later
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(folder) for folder in excluded)


def _unreadable_link(path: Path) -> str:
    """Why a symbolic link cannot be read as a document ("" for anything else)."""
    if not path.is_symlink():
        return ""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"a symbolic link loop (to {os.readlink(path)})"
        return f"a broken symbolic link (to {os.readlink(path)})"
    if path.is_dir():
        return "a link to a folder (not followed: link the files, or ingest that folder itself)"
    return ""


def ingest_folder(
    root: str | Path, progress: bool = True, exclude: str | Path | Sequence[str | Path] | None = None
) -> Ingested:
    """Every file under ``root`` as a document, ids relative to ``root``; skipped files say why.

    ``exclude`` is a folder or file (or several) left out: the dataset being written, when it lies inside
    ``root``, and the claims file. Ids that differ only by Unicode normalisation (macOS writes names in
    NFD) are warned about.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a folder")
    named = [] if exclude is None else [exclude] if isinstance(exclude, str | Path) else list(exclude)
    files = list(files_under(root, tuple(Path(p).resolve() for p in named)))
    result = Ingested()
    for path in tqdm(files, desc="ingest", unit="file", disable=not progress or len(files) < 50):
        doc_id = path.relative_to(root).as_posix()
        reason = _unreadable_link(path)
        if reason:
            result.skipped.append((doc_id, reason))
            continue
        try:
            document = load_file(path, doc_id)
            result.documents.append(document)
            problem = text_layer_problem(document.text) if document.format == "pdf" else ""
            if problem:  # kept, but the user hears why its quotes will not be found
                result.warnings.append((doc_id, problem))
        except SkippedFile as exc:
            result.skipped.append((doc_id, str(exc)))
        except OSError as exc:  # unreadable, or deleted since the folder was listed
            result.skipped.append((doc_id, f"cannot read ({exc.strerror or exc})"))
    twins: dict[str, list[str]] = {}
    for doc in result.documents:
        twins.setdefault(unicodedata.normalize("NFC", doc.doc_id), []).append(doc.doc_id)
    for ids in (v for v in twins.values() if len(v) > 1):
        warnings.warn(
            f"{root}: document ids {' and '.join(map(repr, ids))} differ only by Unicode normalisation; "
            "a claim's doc must then be written exactly as one of them",
            stacklevel=2,
        )
    return result
