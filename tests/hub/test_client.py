"""The learner-server side: when there is no hub service, say why (the caller probes itself)."""

import http.server
import json
import threading

from ascend_lab.hub.client import MAX_BYTES, fetch_hub_status
from benchmarks.support.lab import free_port


def test_without_the_hub_environment_there_is_no_hub_status():
    assert fetch_hub_status(environ={}) == (
        None,
        "ASCEND_LAB_HUB_SERVICE_URL is not set (not under the ascend-lab hub service)",
    )
    doc, why = fetch_hub_status(environ={"ASCEND_LAB_HUB_SERVICE_URL": "file:///etc/passwd"})
    assert doc is None and "not an http(s) URL" in why
    doc, why = fetch_hub_status(environ={"ASCEND_LAB_HUB_SERVICE_URL": "http://127.0.0.1:1/"})
    assert doc is None and why == "JUPYTERHUB_API_TOKEN is not set"


def _serve(body: bytes, status: int = 200):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_bad_answers_give_a_reason_not_an_exception():
    env = {"JUPYTERHUB_API_TOKEN": "t"}
    cases = [
        (b"{}", 403, "answered HTTP 403"),
        (b"<html>", 200, "not JSON"),
        (json.dumps({"user": "a"}).encode(), 200, "without chips"),
        (b" " * (MAX_BYTES + 10), 200, "more than 1024 KiB"),
    ]
    for body, status, reason in cases:
        server = _serve(body, status)
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/services/ascend-lab/"
            doc, why = fetch_hub_status(5, dict(env, ASCEND_LAB_HUB_SERVICE_URL=url))
        finally:
            server.shutdown()
            server.server_close()
        assert doc is None and reason in why, (reason, why)
    url = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    doc, why = fetch_hub_status(5, dict(env, ASCEND_LAB_HUB_SERVICE_URL=url))
    assert doc is None and why.startswith("the hub service did not answer")
