"""A small HTTP client over the standard library: forms, JSON, no exceptions for 4xx/5xx."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Response:
    status: int
    url: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"<Response {self.status} {self.url} {self.text[:300]!r}>"


class Http:
    """Requests against one base URL; each call uses its own connection, so threads may share it."""

    def __init__(self, base_url: str, timeout: float = 60.0, language: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        # What the browser asks for (Accept-Language), as a player's does.
        self.language = language

    def speaking(self, language: str) -> Http:
        """The same server, asked in `language`."""
        return Http(self.base_url, self.timeout, language)

    def url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return self.base_url + path_or_url

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        sent = dict(headers or {})
        if self.language:
            sent.setdefault("Accept-Language", self.language)
        req = urllib.request.Request(self.url(path), data=body, method=method, headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return Response(resp.status, resp.geturl(), resp.read(), dict(resp.headers))
        except urllib.error.HTTPError as err:
            with err:
                return Response(err.code, err.geturl(), err.read(), dict(err.headers or {}))

    def get(self, path: str, token: str | None = None) -> Response:
        return self.request("GET", path, headers=_auth(token))

    def post_form(self, path: str, data: dict[str, Any]) -> Response:
        body = urllib.parse.urlencode({k: str(v) for k, v in data.items()}).encode()
        return self.request(
            "POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"}
        )

    def post_json(self, path: str, data: Any, token: str | None = None) -> Response:
        headers = {"Content-Type": "application/json", **_auth(token)}
        return self.request("POST", path, json.dumps(data).encode(), headers)


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}
