"""Serve one page on 127.0.0.1 until interrupted (``ascend-lab view --serve``).

For a ``.mindir`` the same server answers ``/weight-stats?name=`` (a weight's statistics,
read on request: :mod:`.weight_page`). Requests naming another host are refused, so a web
page elsewhere cannot reach the server by rebinding a domain name to 127.0.0.1.
"""

import http.server
import json
from typing import Any, Callable, Dict, Optional, Tuple, cast
from urllib.parse import parse_qs, urlsplit

from .weight_page import ENDPOINT

StatsAnswer = Callable[[str], Tuple[int, Dict[str, Any]]]


class _PageHandler(http.server.BaseHTTPRequestHandler):
    page = b""
    weight_stats: Optional[StatsAnswer] = None

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        url = urlsplit(self.path)
        port = cast(Tuple[str, int], self.server.server_address)[1]
        if self.headers.get("Host") not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            self.send_error(403, "unexpected Host")
            return
        if url.path in ("/", "/index.html"):
            self._send(200, "text/html; charset=utf-8", self.page)
        elif url.path == "/" + ENDPOINT and self.weight_stats is not None:
            names = parse_qs(url.query).get("name", [""])
            status, body = self.weight_stats(names[0])
            self._send(status, "application/json; charset=utf-8", json.dumps(body).encode())
        else:
            self.send_error(404)

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return


def make_server(
    page: str, port: int = 0, weight_stats: Optional[StatsAnswer] = None
) -> http.server.ThreadingHTTPServer:
    """A server for ``page`` on 127.0.0.1 (``port`` 0: any free port); not yet serving.
    ``weight_stats`` answers ``/weight-stats?name=`` when given."""
    attrs: Dict[str, Any] = {"page": page.encode("utf-8")}
    if weight_stats is not None:
        attrs["weight_stats"] = staticmethod(weight_stats)
    handler = type("PageHandler", (_PageHandler,), attrs)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve_page(
    page: str,
    port: int = 0,
    announce: Optional[Callable[[str], None]] = None,
    weight_stats: Optional[StatsAnswer] = None,
) -> None:
    """Serve ``page`` until Ctrl-C; ``announce`` gets the URL once the port is open."""
    server = make_server(page, port, weight_stats)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        if announce is not None:
            announce(url)
        server.serve_forever()
    finally:
        server.server_close()
