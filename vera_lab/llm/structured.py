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
    last = ""
    for _ in range(retries + 1):
        last = _reply_text("ollama", model, host, system, user, schema)
        value = _parsed(last, schema)
        if value is not None:
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
    return _parsed(_reply_text(kind, model, base, system, user, schema), schema)


def _reply_text(
    kind: str, model: str, base: str | None, system: str, user: str, schema: dict[str, Any]
) -> str:
    """The text of one chat reply from Ollama (asked for ``schema``) or an OpenAI-compatible server."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    if kind != "ollama":
        return _openai_chat(model, str(base), messages)
    options = {"temperature": 0}
    reply = ollama_call(
        ollama_host(base),
        model,
        lambda c: c.chat(model=model, messages=messages, format=schema, options=options),
    )
    return reply.message.content or ""


def _parsed(text: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """``text`` as JSON valid under ``schema``, or None."""
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
    except httpx.TimeoutException:
        raise OllamaError(
            f"the OpenAI-compatible server at {url} did not answer within {ollama_timeout():g} s (a large "
            "model may still be loading or thinking): wait longer with VERA_LAB_OLLAMA_TIMEOUT=600, or use "
            "a smaller model"
        ) from None
    except httpx.HTTPError as exc:
        raise OllamaError(f"no OpenAI-compatible server answered at {url} ({type(exc).__name__})") from None
    if reply.status_code != 200:
        raise OllamaError(f"{url} answered HTTP {reply.status_code}: {reply.text[:200]}")
    try:
        return reply.json()["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError):
        return ""
