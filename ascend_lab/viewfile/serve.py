"""Serve one page on 127.0.0.1 until interrupted (``ascend-lab view --serve``).

For a ``.mindir`` the same server answers ``/weight-stats?name=`` (a weight's statistics,
read on request: :mod:`.weight_page`). Requests naming another host are refused, so a web
page elsewhere cannot reach the server by rebinding a domain name to 127.0.0.1.

On a shared NPU host every local user can connect to 127.0.0.1, so, as Jupyter does, the
server makes a random token (``secrets.token_urlsafe``) and answers only requests that
carry it: ``?token=`` in the URL (the printed URL has it, and the page passes it on to its
``/weight-stats`` requests) or an ``Authorization: token <token>`` header. Anything else is
403. Tokens are compared with ``hmac.compare_digest``.
"""

import hmac
import http.server
import json
import secrets
from typing import Any, Callable, Dict, Optional, Tuple, cast
from urllib.parse import parse_qs, urlsplit

from ascend_lab.viewfile.weight_page import ENDPOINT

StatsAnswer = Callable[[str], Tuple[int, Dict[str, Any]]]


def new_token() -> str:
    """A token for one server: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


class _PageHandler(http.server.BaseHTTPRequestHandler):
    page = b""
    token = ""
    weight_stats: Optional[StatsAnswer] = None

    def _authorized(self, query: Dict[str, Any]) -> bool:
        given = (query.get("token") or [""])[0]
        header = self.headers.get("Authorization") or ""
        if not given and header[:6].lower() == "token ":
            given = header[6:].strip()
        expected = self.token.encode("utf-8")
        return bool(expected) and hmac.compare_digest(given.encode("utf-8"), expected)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        url = urlsplit(self.path)
        port = cast(Tuple[str, int], self.server.server_address)[1]
        if self.headers.get("Host") not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            self.send_error(403, "unexpected Host")
            return
        query = parse_qs(url.query)
        if not self._authorized(query):
            self.send_error(403, "a token is needed: open the URL `ascend-lab view` printed")
            return
        if url.path in ("/", "/index.html"):
            self._send(200, "text/html; charset=utf-8", self.page)
        elif url.path == "/" + ENDPOINT and self.weight_stats is not None:
            names = query.get("name", [""])
            status, body = self.weight_stats(names[0])
            self._send(status, "application/json; charset=utf-8", json.dumps(body).encode())
        else:
            self.send_error(404)

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")  # the URL holds the token
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return


class PageServer(http.server.ThreadingHTTPServer):
    """The page's server; ``token`` is what every request must carry, ``url`` the address
    to open (with the token)."""

    token = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/?token={self.token}"


def make_server(
    page: str,
    port: int = 0,
    weight_stats: Optional[StatsAnswer] = None,
    token: Optional[str] = None,
) -> PageServer:
    """A server for ``page`` on 127.0.0.1 (``port`` 0: any free port); not yet serving.
    ``weight_stats`` answers ``/weight-stats?name=`` when given. ``token`` (default: a new
    random one) is what requests must carry; it is the server's ``token``."""
    token = token or new_token()
    attrs: Dict[str, Any] = {"page": page.encode("utf-8"), "token": token}
    if weight_stats is not None:
        attrs["weight_stats"] = staticmethod(weight_stats)
    handler = type("PageHandler", (_PageHandler,), attrs)
    server = PageServer(("127.0.0.1", port), handler)
    server.token = token
    return server


def serve_page(
    page: str,
    port: int = 0,
    announce: Optional[Callable[[str], None]] = None,
    weight_stats: Optional[StatsAnswer] = None,
) -> None:
    """Serve ``page`` until Ctrl-C; ``announce`` gets the URL (with its token) once the
    port is open."""
    server = make_server(page, port, weight_stats)
    try:
        if announce is not None:
            announce(server.url)
        server.serve_forever()
    finally:
        server.server_close()
