"""Structured JSON replies from a local Ollama model (``/api/chat`` with a JSON-schema ``format``).

A reply counts only when it is valid under the schema, as the jsonschema library checks it.
"""

from __future__ import annotations

import json
from typing import Any

from vera_lab.llm.ollama import ollama_call, ollama_host


class LLMOutputError(ValueError):
    """The model kept answering with text that does not fit the schema."""


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` is valid under ``schema`` (JSON Schema, checked by the jsonschema library)."""
    import jsonschema

    return jsonschema.Draft202012Validator(schema).is_valid(value)


def chat_json(
    model: str, system: str, user: str, schema: dict[str, Any], host: str | None = None, retries: int = 2
) -> dict[str, Any]:
    """Ask ``model`` for a JSON object matching ``schema``; retry malformed replies up to ``retries`` times.

    Raises :class:`~vera_lab.llm.OllamaError` (server absent, model missing) or :class:`LLMOutputError`.
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
