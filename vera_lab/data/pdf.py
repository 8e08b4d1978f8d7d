"""PDF loading: the text of every page, page starts, and word boxes for citations."""

from __future__ import annotations

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
