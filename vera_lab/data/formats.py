"""Format detection by file extension and content: markdown, pdf, code:<language> or text."""

from __future__ import annotations

import re
from pathlib import PurePath

EXTENSIONS = {
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".pdf": "pdf", ".txt": "text",
    ".py": "code:python", ".go": "code:go", ".js": "code:javascript", ".mjs": "code:javascript",
    ".jsx": "code:javascript", ".ts": "code:typescript", ".tsx": "code:typescript", ".rs": "code:rust",
    ".java": "code:java", ".c": "code:c", ".h": "code:c", ".cpp": "code:cpp", ".rb": "code:ruby",
    ".sh": "code:shell",
}  # fmt: skip
_SHEBANG = re.compile(r"^#!.*\b(python3?|node|bash|sh)\b")
_MARKDOWN = re.compile(r"^(#{1,6} \S|```|\s*[-*] \S.*\n\s*[-*] \S)", re.MULTILINE)
_PYTHON = re.compile(r"^(def |class |import |from \S+ import )", re.MULTILINE)


def detect_format(name: str = "", content: str | bytes = "") -> str:
    """The format of a file from its name, else from its first few kilobytes."""
    suffix = PurePath(name).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    head = content[:4096]
    if isinstance(head, bytes):
        if head.startswith(b"%PDF-"):
            return "pdf"
        head = head.decode("utf-8", "replace")
    shebang = _SHEBANG.match(head)
    if shebang:
        lang = shebang.group(1)
        return {"python": "code:python", "python3": "code:python", "node": "code:javascript"}.get(
            lang, "code:shell"
        )
    if _PYTHON.search(head):
        return "code:python"
    if _MARKDOWN.search(head):
        return "markdown"
    return "text"
