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


def ask_json_once(
    kind: str, model: str, base: str | None, system: str, user: str, schema: dict[str, Any]
) -> dict[str, Any] | None:
    """One structured request to ``ollama`` or an ``openai``-compatible server.

    The reply, or None when it is not JSON valid under ``schema`` (the caller counts and retries).
    Server errors raise :class:`~vera_lab.llm.OllamaError` saying what to do.
    """
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    if kind == "ollama":
        host = ollama_host(base)
        reply = ollama_call(
            host,
            model,
            lambda c: c.chat(model=model, messages=messages, format=schema, options={"temperature": 0}),
        )
        text = reply.message.content or ""
    else:
        text = _openai_chat(model, str(base), messages)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if _fits(value, schema) else None


def _openai_chat(model: str, base: str, messages: list[dict[str, str]]) -> str:
    import os

    import httpx

    from vera_lab.llm.ollama import OllamaError, ollama_timeout

    key = os.environ.get("OPENAI_API_KEY")
    url = f"{base.rstrip('/')}/chat/completions"
    body = {
        "model": model,
        "messages": messages,
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }
    try:
        reply = httpx.post(url, json=body, timeout=ollama_timeout(),
                           headers={"Authorization": f"Bearer {key}"} if key else {})  # fmt: skip
    except httpx.HTTPError as exc:
        raise OllamaError(f"no OpenAI-compatible server answered at {url} ({type(exc).__name__})") from None
    if reply.status_code != 200:
        raise OllamaError(f"{url} answered HTTP {reply.status_code}: {reply.text[:200]}")
    try:
        return reply.json()["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError):
        return ""
