"""Serve one page on 127.0.0.1 until interrupted (``ascend-lab view --serve``)."""

import http.server
from typing import Callable, Optional


class _PageHandler(http.server.BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.split("?", 1)[0] not in ("/", "/index.html"):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return


def make_server(page: str, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server for ``page`` on 127.0.0.1 (``port`` 0: any free port); not yet serving."""
    handler = type("PageHandler", (_PageHandler,), {"page": page.encode("utf-8")})
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve_page(page: str, port: int = 0, announce: Optional[Callable[[str], None]] = None) -> None:
    """Serve ``page`` until Ctrl-C; ``announce`` gets the URL once the port is open."""
    server = make_server(page, port)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        if announce is not None:
            announce(url)
        server.serve_forever()
    finally:
        server.server_close()
