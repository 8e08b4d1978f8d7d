"""A small stand-in for an Ollama server on 127.0.0.1, speaking the real JSON of its endpoints."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


class FakeOllama:
    """``with FakeOllama(models={"nomic-embed-text": 768}) as server: server.url``."""

    def __init__(self, models: dict[str, int], chat=None) -> None:
        """``models`` maps model names to embedding sizes; ``chat(prompt_text) -> str`` answers chats."""
        self.models = models
        self.chat = chat or (lambda prompt: "{}")
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, **body})
                model = body.get("model", "")
                if self.path in ("/api/chat", "/v1/chat/completions"):
                    return self.chat(model, body)
                if self.path != "/api/embed":
                    return self.reply(404, {"error": "404 page not found"})
                if model == "broken":
                    return self.reply(500, {"error": "llama runner process has terminated"})
                if model not in outer.models:
                    return self.reply(404, {"error": f'model "{model}" not found, try pulling it first'})
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                vectors = [outer.vector(t, outer.models[model]) for t in texts]
                self.reply(
                    200,
                    {
                        "model": model,
                        "embeddings": vectors,
                        "total_duration": 1000,
                        "load_duration": 10,
                        "prompt_eval_count": len(texts),
                    },
                )

            def chat(self, model, body):
                if model not in outer.models:
                    if self.path.startswith("/v1"):
                        return self.reply(
                            404, {"error": {"message": f'model "{model}" not found', "type": "api_error"}}
                        )
                    return self.reply(404, {"error": f'model "{model}" not found, try pulling it first'})
                prompt = "\n".join(
                    m["content"] for m in body["messages"] if isinstance(m.get("content"), str)
                )
                content = outer.chat(prompt)
                if self.path == "/api/chat":
                    return self.reply(
                        200,
                        {
                            "model": model,
                            "created_at": "2026-11-22T00:00:00Z",
                            "done": True,
                            "message": {"role": "assistant", "content": content},
                            "done_reason": "stop",
                        },
                    )
                self.reply(
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

            def reply(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @staticmethod
    def vector(text: str, dim: int) -> list[float]:
        rng = np.random.default_rng(abs(hash(text)) % (2**32))
        return (rng.normal(size=dim) * 3).tolist()  # deliberately not normalised

    def __enter__(self) -> FakeOllama:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
