"""The one HTTP client for the user's local Ollama server: address, calls, errors that say what to do.

Embedding (``ollama:<model>``) and LLM calls (quality gate, grounding judge) both go through here, so
a missing server or model reads the same everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_TIMEOUT = 120.0  # seconds per request; loading a big model can take longer: VERA_LAB_OLLAMA_TIMEOUT


class OllamaError(RuntimeError):
    """The Ollama server cannot answer (absent, model missing, error reply); the message says what to do."""


def ollama_host(host: str | None = None) -> str:
    """The server address: the argument, else OLLAMA_HOST, else the local default (checked to be a URL)."""
    from urllib.parse import urlparse

    given = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
    url = given if "://" in given else f"http://{given}"
    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018 - raises on a port that is not a number
        ok = parsed.scheme in ("http", "https") and bool(parsed.hostname)
    except ValueError:
        ok = False
    if not ok:
        source = "the host given" if host else "OLLAMA_HOST"
        raise OllamaError(
            f"{source} {given!r} is not a server address; give one such as 127.0.0.1:11434 or "
            "http://HOST:PORT"
        )
    return url


def ollama_timeout() -> float:
    """Seconds to wait for one reply: VERA_LAB_OLLAMA_TIMEOUT, else :data:`DEFAULT_TIMEOUT`."""
    value = os.environ.get("VERA_LAB_OLLAMA_TIMEOUT")
    if value is None:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise OllamaError(f"VERA_LAB_OLLAMA_TIMEOUT {value!r}: a number of seconds above 0")
    return seconds


def ollama_call(host: str, model: str, call: Callable[[Any], Any]) -> Any:
    """Run ``call(client)`` and turn every failure into an :class:`OllamaError` saying what to do."""
    try:
        import httpx
        import ollama
    except ImportError as exc:
        raise OllamaError("the Ollama client is missing: pip install 'vera-lab[ollama]'") from exc
    timeout = ollama_timeout()
    try:
        return call(ollama.Client(host=host, timeout=timeout))
    except ollama.ResponseError as exc:
        if exc.status_code == 404:
            raise OllamaError(
                f"Ollama at {host} has no model {model!r}: "
                f"run `ollama pull {model}` (or choose --embedder minilm)"
            ) from None
        if str(exc.error).lstrip().startswith("<"):  # an HTML error page: some other web server
            raise OllamaError(
                f"{host} did not answer like an Ollama server (HTTP {exc.status_code} with an HTML page); "
                "check OLLAMA_HOST"
            ) from None
        raise OllamaError(f"Ollama at {host} answered {exc.status_code}: {exc.error}") from None
    except (httpx.ReadTimeout, httpx.WriteTimeout, httpx.PoolTimeout):
        raise OllamaError(
            f"Ollama at {host} did not answer within {timeout:g} s (it may still be loading {model!r}); "
            "try again, or wait longer with VERA_LAB_OLLAMA_TIMEOUT=SECONDS"
        ) from None
    except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise OllamaError(
            f"no Ollama server at {host} ({type(exc).__name__}): start it with `ollama serve`, "
            "set OLLAMA_HOST, or use the offline default --embedder minilm"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a non-JSON body, an HTML error page, a bad URL, a reply of another shape
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
        raise OllamaError(
            f"{host} did not answer like an Ollama server ({type(exc).__name__}: {first}); check OLLAMA_HOST "
            "and that the server is Ollama"
        ) from None
