"""to_html: one self-contained file, no external URLs, payload strings escaped."""

import json
import re

import pytest

from ascend_lab.widgets import to_html
from ascend_lab.widgets.html import embed_json, render_html
from tests.viewer.payloads import XSS, course_payload


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
