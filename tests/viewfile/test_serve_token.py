"""``ascend-lab view --serve``'s token: every request carries it (``?token=`` or an
``Authorization: token`` header) or is refused with 403, as Jupyter does."""

import http.client
import threading

import pytest

from ascend_lab.viewfile.serve import make_server


@pytest.fixture
def server():
    answers = []

    def stats(name):
        answers.append(name)
        return 200, {"name": name}

    srv = make_server("<html><head></head><body>the page</body></html>", 0, stats)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv, answers
    srv.shutdown()
    srv.server_close()


def _get(srv, path, headers=()):
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", **dict(headers)})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body, response.getheader("Referrer-Policy")


def test_requests_without_the_token_are_refused(server):
    srv, answers = server
    wrong = srv.token[:-1] + ("a" if srv.token[-1] != "a" else "b")
    for path in ("/", "/index.html", "/weight-stats?name=w", "/nope"):
        for query, headers in (
            ("", ()),
            (f"token={wrong}", ()),
            ("token=", ()),
            ("", [("Authorization", f"token {wrong}")]),
            ("", [("Authorization", f"Bearer {srv.token}")]),
        ):
            sep = "&" if "?" in path else "?"
            status, body, _ = _get(srv, path + (sep + query if query else ""), headers)
            assert status == 403 and b"the page" not in body, (path, query, headers)
    assert answers == []  # nothing was read for a refused request


def test_requests_with_the_token_are_answered(server):
    srv, answers = server
    status, body, referrer = _get(srv, f"/?token={srv.token}")
    assert status == 200 and b"the page" in body and referrer == "no-referrer"
    status, body, _ = _get(srv, f"/weight-stats?name=w&token={srv.token}")
    assert status == 200 and body == b'{"name": "w"}'
    status, body, _ = _get(srv, "/weight-stats?name=v", [("Authorization", f"token {srv.token}")])
    assert status == 200 and answers == ["w", "v"]
    assert srv.url == f"http://127.0.0.1:{srv.server_address[1]}/?token={srv.token}"


def test_each_server_has_its_own_random_token():
    servers = [make_server("<html><head></head></html>") for _ in range(3)]
    try:
        tokens = {s.token for s in servers}
        assert len(tokens) == 3 and all(len(t) >= 40 for t in tokens)
    finally:
        for s in servers:
            s.server_close()
