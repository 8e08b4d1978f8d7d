"""PDF loading: the text of every page, page starts, and word boxes for citations."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from vera_lab.types import Document


def load_pdf(path: str | Path, doc_id: str | None = None) -> Document:
    """Text of every page (pages joined by a blank line), ``page_starts``, and word boxes in metadata.

    Lines are rebuilt from word positions; a vertical gap of more than 1.5 line heights starts a new
    paragraph. Encrypted, corrupt or image-only files raise ``ValueError`` saying what to do.
    """
    try:
        import pdfplumber
        from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    except ImportError as exc:
        raise ImportError("PDF support needs pdfplumber: pip install 'vera-lab[structure]'") from exc
    path = Path(path)
    parts: list[str] = []
    words_out: list[list[float]] = []
    page_starts: list[int] = []
    empty_pages: list[int] = []
    pos = 0
    try:
        with pdfplumber.open(path) as pdf:
            for number, page in enumerate(pdf.pages, 1):
                if parts:
                    parts.append("\n\n")
                    pos += 2
                page_starts.append(pos)
                words = page.extract_words(use_text_flow=True)
                if not words:
                    empty_pages.append(number)
                prev = None
                for w in words:
                    if prev is not None:
                        height = max(prev["bottom"] - prev["top"], 1.0)
                        gap = w["top"] - prev["bottom"]
                        sep = (
                            " "
                            if abs(w["top"] - prev["top"]) < height / 2
                            else "\n\n"
                            if gap > 1.5 * height
                            else "\n"
                        )
                        parts.append(sep)
                        pos += len(sep)
                    parts.append(w["text"])
                    words_out.append(
                        [pos, pos + len(w["text"]), number, w["x0"], w["top"], w["x1"], w["bottom"]]
                    )
                    pos += len(w["text"])
                    prev = w
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types for broken files
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc  # pdfplumber wraps
        if isinstance(cause, PDFPasswordIncorrect | PDFEncryptionError) or "encrypt" in str(cause).lower():
            raise ValueError(f"{path}: the PDF is encrypted; decrypt it first (qpdf --decrypt)") from None
        raise ValueError(f"{path}: not a readable PDF ({type(cause).__name__}: {cause})") from None
    if not words_out:
        raise ValueError(f"{path}: no extractable text (an image-only PDF?); run OCR on it first")
    if empty_pages:
        warnings.warn(f"{path}: no text on page(s) {empty_pages} (images only?)", stacklevel=2)
    return Document(
        doc_id or path.stem, "".join(parts), path.stem, "pdf", {"words": words_out}, tuple(page_starts)
    )


_CID = re.compile(r"\(cid:\d+\)")
LONG_WORD = 25  # characters: longer "words" are runs of words whose spaces the text layer lost


def text_layer_problem(text: str) -> str:
    """Why a PDF's extracted text looks broken ("" when it looks like text), and what to do.

    A text layer without spaces reads as a few enormous "words"; fonts without a Unicode map read as
    ``(cid:N)`` glyphs. Either way quotes from it will not be found and chunks are noise.
    """
    words = text.split()
    if len(text) < 200 or not words:
        return ""
    glyphs = len(_CID.findall(text))
    long = sum(len(w) > LONG_WORD and not w.startswith(("http", "www.")) for w in words)
    found = []
    if glyphs >= 10:
        found.append(f"{glyphs} unmapped glyphs such as (cid:12)")
    if long >= 20 and long / len(words) > 0.02:
        found.append(f"{long} 'words' over {LONG_WORD} characters (spaces lost)")
    if not found:
        return ""
    return (
        "its text layer looks broken (" + "; ".join(found) + "): quotes from it will not be found. Make a "
        "new text layer with OCR (for example `ocrmypdf --force-ocr IN.pdf OUT.pdf`) or export it as text"
    )
