"""The one client for the user's LLM server (Ollama).

Calls, errors that say what to do, and replies checked against a JSON schema. Nothing else in
vera_lab talks HTTP to a model.
"""

from vera_lab.llm.ollama import DEFAULT_HOST, OllamaError, ollama_call, ollama_host
from vera_lab.llm.structured import LLMOutputError, chat_json

__all__ = ["DEFAULT_HOST", "LLMOutputError", "OllamaError", "chat_json", "ollama_call", "ollama_host"]
