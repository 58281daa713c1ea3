"""to_html: one self-contained file, no external URLs, payload strings escaped, no machine
paths, a hash-based CSP and the umask's file mode."""

import base64
import hashlib
import json
import os
import re
import stat
import tempfile

import pytest

from ascend_lab.payload.redact import redact_paths
from ascend_lab.render import to_html
from ascend_lab.render.standalone import embed_json, render_html
from benchmarks.support.payloads import XSS, course_payload


def _payload_json(page):
    m = re.search(
        r'<script type="application/json" id="ascend-lab-payload">(.*?)</script>', page, re.S
    )
    assert m, "payload element missing"
    return m.group(1)


def test_to_html_writes_one_self_contained_file(tmp_path):
    payload = course_payload()
    path = to_html(payload, str(tmp_path / "trace.html"), title="Conv net")
    assert path == str(tmp_path / "trace.html")
    assert [p.name for p in tmp_path.iterdir()] == ["trace.html"]
    page = (tmp_path / "trace.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Conv net</title>" in page
    # no external resources: nothing loaded by src/href, no @import, only the SVG namespace URL
    assert not re.search(r'\b(src|href)\s*=\s*["\']?(https?:)?//', page)
    assert "<link" not in page and "@import" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    assert "default-src 'none'" in page and "connect-src 'none'" in page
    # the embedded payload round-trips exactly
    assert json.loads(_payload_json(page)) == payload
    assert page.count("<script") == 2


def test_script_end_tags_in_payload_are_escaped(tmp_path):
    payload = course_payload()
    payload["meta"]["title"] = "</script><script>alert(1)</script><!--"
    payload["graphs"]["after"]["nodes"][2]["attrs"]["x"] = "</SCRIPT>"
    page = render_html(payload)
    data = _payload_json(page)
    assert "</" not in data and "<!--" not in data
    assert "<\\/script>" in data
    assert json.loads(data) == payload
    # the <title> is HTML-escaped; the only </script> tags are the two real ones
    assert "<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--</title>" in page
    assert page.lower().count("</script>") == 2
    assert XSS not in page.split('id="ascend-lab-payload">')[0]


def test_embed_json_is_valid_json():
    text = embed_json({"a": "</b><!-- \u2028"})
    assert json.loads(text) == {"a": "</b><!-- \u2028"}


def test_to_html_errors_are_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        to_html(course_payload(), str(tmp_path / "missing" / "x.html"))
    with pytest.raises(ValueError, match="view must be one of"):
        to_html(course_payload(), str(tmp_path / "x.html"), view="3d")
    with pytest.raises(ValueError, match="unsupported payload schema"):
        to_html({"schema": "x"}, str(tmp_path / "x.html"))
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ sharing: paths, CSP, mode


def _machine(monkeypatch, tmp_path):
    """A home folder, a temporary folder and a project folder of this test's own."""
    home = tmp_path / "home" / "alice"
    project = home / "course"
    tmp = tmp_path / "tmp"
    for folder in (project, tmp):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return home, project, tmp


def _payload_with_paths(home, project, tmp):
    payload = course_payload()
    site = "/opt/conda/lib/python3.9/site-packages"
    nodes = payload["graphs"]["after"]["nodes"]
    nodes[2]["source"] = [
        f"In file {project}/nets/lenet.py:12, 4~8",
        f"In file {site}/mindspore/nn/layer/conv.py:374",
        f"In file {home}/private/experiments/net.py:7",
        f"In file {tmp}/ipykernel_123/456.py:3",
    ]
    nodes[3]["attrs"]["path"] = f"{home}/data/x.bin"
    payload["graphs"]["after"]["file"] = f"{tmp}/ascend-lab-trace-ab12/dump/graph_build_0_0094.ir"
    return payload


def test_redact_paths_relative_to_the_project_or_shortened(monkeypatch, tmp_path):
    home, project, tmp = _machine(monkeypatch, tmp_path)
    out = redact_paths(_payload_with_paths(home, project, tmp), project=str(project))
    node = out["graphs"]["after"]["nodes"][2]
    assert node["source"] == [
        "In file nets/lenet.py:12, 4~8",
        "In file <site-packages>/mindspore/nn/layer/conv.py:374",
        "In file \u2026/net.py:7",
        "In file \u2026/456.py:3",
    ]
    assert out["graphs"]["after"]["nodes"][3]["attrs"]["path"] == "\u2026/x.bin"
    assert out["graphs"]["after"]["file"] == "<dump>/dump/graph_build_0_0094.ir"
    # scopes, tags and ratios are not paths
    kept = ["Default/conv-Conv2d/Conv2D-op0", "</script>", "x / y", "a/b"]
    assert redact_paths(kept) == kept


def test_to_html_redacts_by_default_and_keeps_paths_when_asked(monkeypatch, tmp_path):
    home, project, tmp = _machine(monkeypatch, tmp_path)
    payload = _payload_with_paths(home, project, tmp)
    monkeypatch.chdir(project)
    page = open(to_html(payload, str(project / "net.html")), encoding="utf-8").read()
    for secret in (str(home), str(tmp), "ascend-lab-trace-ab12", "/opt/conda", "private"):
        assert secret not in page, secret
    assert "nets/lenet.py:12" in page and "<site-packages>/mindspore/nn/layer/conv.py" in page
    raw = open(to_html(payload, str(project / "raw.html"), redact=False), encoding="utf-8").read()
    assert f"{home}/private/experiments/net.py:7" in raw
    assert json.loads(_payload_json(raw)) == payload


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_to_html_file_mode_follows_the_umask(tmp_path, umask, mode):
    target = tmp_path / "trace.html"
    target.write_text("an older export")
    target.chmod(0o600)
    old = os.umask(umask)
    try:
        to_html(course_payload(), str(target))
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert [p.name for p in tmp_path.iterdir()] == ["trace.html"]


def test_csp_allows_exactly_the_inlined_module_by_its_hash():
    page = render_html(course_payload())
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert "unsafe-inline" not in directives["script-src"]
    assert "unsafe-eval" not in csp
    module = re.search(r'<script type="module">(.*?)</script>', page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(module.encode("utf-8")).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    assert directives["worker-src"] == "blob:"


def test_profile_view_needs_a_profile_section(tmp_path):
    """`view="profile"` draws the Profile tab alone; a payload without a profile is refused."""
    with pytest.raises(ValueError, match="needs a payload with a profile section"):
        to_html(course_payload(), str(tmp_path / "x.html"), view="profile")
    assert list(tmp_path.iterdir()) == []
    fixture = os.path.join(
        os.path.dirname(__file__), "..", "fixtures", "profile", "lenet-profile-payload.json"
    )
    with open(fixture, encoding="utf-8") as fh:
        payload = json.load(fh)
    target = tmp_path / "profile.html"
    to_html(payload, str(target), view="profile")
    page = target.read_text(encoding="utf-8")
    assert 'data-view="profile"' in page
    assert json.loads(_payload_json(page))["profile"] == payload["profile"]


def test_the_page_packs_passes_as_they_are_built_only_for_a_source_that_builds_them():
    from ascend_lab.payload.packing import PassPacker
    from ascend_lab.render.standalone import pass_packer

    # a payload dict holds its passes already: packed after (pack_passes), no packer
    assert pass_packer(course_payload(), None) is None

    class BuildsPasses:  # a Trace, or a source that builds a Trace's payload
        def to_payload(self, passes="changed", memory=True, pass_sink=None):
            return course_payload()

    packer = pass_packer(BuildsPasses(), None)
    try:
        assert isinstance(packer, PassPacker)
    finally:
        packer.close()

    # either way, the page holds the same payload and passes
    def embedded(page):
        found = re.findall(r'id="ascend-lab-(payload|passes)">(.*?)</script>', page, re.S)
        return {kind: json.loads(text) for kind, text in found}

    built, given = embedded(render_html(BuildsPasses())), embedded(render_html(course_payload()))
    assert built["payload"] == given["payload"]
    assert built.get("passes") == given.get("passes")
