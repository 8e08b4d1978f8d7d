"""Structured JSON replies from a local Ollama model (``/api/chat`` with a JSON-schema ``format``)."""

from __future__ import annotations

import json
from typing import Any

from vera_lab.ollama import ollama_call, ollama_host


class LLMOutputError(ValueError):
    """The model kept answering with text that does not fit the schema."""


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """A small structural check: object keys, enums and basic types (what our schemas use)."""
    kind = schema.get("type")
    if "enum" in schema and value not in schema["enum"]:
        return False
    if kind == "object":
        return (
            isinstance(value, dict)
            and all(k in value for k in schema.get("required", []))
            and all(_fits(value[k], s) for k, s in schema.get("properties", {}).items() if k in value)
        )
    if kind == "array":
        return isinstance(value, list) and all(_fits(v, schema.get("items", {})) for v in value)
    checks = {"string": str, "number": (int, float), "integer": int, "boolean": bool}
    return kind not in checks or isinstance(value, checks[kind])


def chat_json(
    model: str, system: str, user: str, schema: dict[str, Any], host: str | None = None, retries: int = 2
) -> dict[str, Any]:
    """Ask ``model`` for a JSON object matching ``schema``; retry malformed replies up to ``retries`` times.

    Raises :class:`~vera_lab.ollama.OllamaError` (server absent, model missing) or :class:`LLMOutputError`.
    """
    host = ollama_host(host)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    last = ""
    for _ in range(retries + 1):
        reply = ollama_call(
            host,
            model,
            lambda c: c.chat(model=model, messages=messages, format=schema, options={"temperature": 0}),
        )
        last = reply.message.content or ""
        try:
            value = json.loads(last)
        except json.JSONDecodeError:
            continue
        if _fits(value, schema):
            return value
    raise LLMOutputError(
        f"{model} gave no reply matching the schema after {retries + 1} tries; last: {last[:200]!r}"
    )
