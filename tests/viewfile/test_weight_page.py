"""``ascend-lab view`` and weight statistics: ``-o --weight-stats`` writes them into the page
(progress on stderr), ``--serve`` answers ``/weight-stats?name=`` on 127.0.0.1 only."""

import http.client
import json
import re
import threading
import urllib.request

import pytest

from ascend_lab.cli import main
from ascend_lab.render.standalone import render_html
from ascend_lab.viewfile.serve import make_server
from ascend_lab.viewfile.weight_page import stats_answerer, with_stats_endpoint
from ascend_lab.viewfile.weight_stats import weight_names, weight_stats
from benchmarks.support import mindir_writer as mw
from tests.support.ir_fixtures import FIXTURES
from tests.viewfile.serving import at, cli_serving

LENET = FIXTURES / "lenet" / "lenet.mindir"
ELEMENT = re.compile(r'<script type="application/json" id="ascend-lab-weight-stats">(.*?)</script>')


def embedded(page):
    found = ELEMENT.findall(page)
    return json.loads(found[0]) if found else None


def test_weight_stats_are_written_into_the_page(tmp_path, capsys):
    out = tmp_path / "lenet.html"
    assert main(["view", str(LENET), "-o", str(out), "--weight-stats"]) == 0
    stats = embedded(out.read_text(encoding="utf-8"))["stats"]
    assert list(stats) == weight_names(str(LENET))
    assert stats["fc2.weight"] == weight_stats(str(LENET), "fc2.weight")
    err = capsys.readouterr().err
    assert "weight statistics: 8/8" in err and "weight statistics: 1/8" in err
    # without the flag the page has none (and the panel says how to get them)
    plain = tmp_path / "plain.html"
    assert main(["view", str(LENET), "-o", str(plain)]) == 0
    assert embedded(plain.read_text(encoding="utf-8")) is None


def test_a_weight_that_cannot_be_read_says_why_without_the_folder(tmp_path, capsys):
    model = tmp_path / "odd.mindir"
    mw.write_mindir(
        str(model),
        [
            mw.Weight("w", mw.FLOAT, [2], bytes(8)),
            mw.Weight("c", mw.COMPLEX64, [2], bytes(16)),
        ],
    )
    out = tmp_path / "odd.html"
    assert main(["view", str(model), "-o", str(out), "--weight-stats"]) == 0
    page = out.read_text(encoding="utf-8")
    stats = embedded(page)["stats"]
    assert stats["w"]["zeros"] == 2
    assert stats["c"]["error"].startswith("odd.mindir: weight c has dtype Complex64")
    assert str(tmp_path) not in page


def test_weight_stats_flag_on_other_inputs_is_ignored_with_a_note(tmp_path, capsys):
    ir = FIXTURES / "lenet" / "graph_build_0_0094.ir"
    out = tmp_path / "ir.html"
    assert main(["view", str(ir), "-o", str(out), "--weight-stats"]) == 0
    assert "--weight-stats ignored (only a .mindir has weights)" in capsys.readouterr().err
    assert embedded(out.read_text(encoding="utf-8")) is None


@pytest.fixture
def served():
    page = with_stats_endpoint(render_html(_payload()))
    server = make_server(page, 0, stats_answerer(str(LENET)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _TOKENS[server.server_address[1]] = server.token
    yield server.server_address[1], page
    server.shutdown()
    server.server_close()


def _payload():
    from ascend_lab.viewfile.sources import payload_for_path

    return payload_for_path(str(LENET))


_TOKENS = {}  # port -> the served page's token


def _get(port, path, host=None, token=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    token = _TOKENS.get(port, "") if token is None else token
    conn.request(
        "GET",
        path,
        headers={"Host": host or f"127.0.0.1:{port}", "Authorization": f"token {token}"},
    )
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body


def test_served_page_answers_statistics_on_request(served):
    port, page = served
    assert embedded(page) == {"endpoint": "weight-stats"}
    assert "connect-src 'self'" in page and "connect-src 'none'" not in page
    status, body = _get(port, "/weight-stats?name=fc1.bias")
    assert status == 200 and json.loads(body) == weight_stats(str(LENET), "fc1.bias")
    status, body = _get(port, "/weight-stats?name=conv7")
    message = json.loads(body)["message"]
    assert status == 400 and message.startswith("lenet.mindir: no weight named 'conv7'")
    assert str(LENET.parent) not in message
    status, body = _get(port, "/weight-stats")
    assert status == 400 and "name parameter is missing" in json.loads(body)["message"]
    status, _ = _get(port, "/", host=f"localhost:{port}")
    assert status == 200


def test_served_page_refuses_other_hosts(served):
    port, _ = served
    for path in ("/", "/weight-stats?name=fc1.bias"):
        status, body = _get(port, path, host=f"attacker.example:{port}")
        assert status == 403 and b"fc1.bias" not in body


def test_cli_serve_of_a_mindir_answers_statistics():
    with cli_serving(str(LENET)) as url:
        with urllib.request.urlopen(url, timeout=60) as response:
            assert embedded(response.read().decode("utf-8")) == {"endpoint": "weight-stats"}
        stats_url = at(url, "weight-stats?name=fc3.weight")
        with urllib.request.urlopen(stats_url, timeout=60) as response:
            assert json.loads(response.read()) == weight_stats(str(LENET), "fc3.weight")
