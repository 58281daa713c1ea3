"""One list of view names: the viewer's (labextension/src/viewer/views.ts, which every
TypeScript host reads) and the Python side's (``ascend_lab.render.standalone.VIEWS``, which
``Profile.show(view=...)`` / ``to_html(view=...)`` accept) must not drift apart again
(the anywidget host once lacked 'profile' and showed every tab)."""

import re
from pathlib import Path

from ascend_lab.render.standalone import VIEWS

VIEWS_TS = Path(__file__).resolve().parents[2] / "labextension" / "src" / "viewer" / "views.ts"


def test_python_and_typescript_know_the_same_views():
    text = VIEWS_TS.read_text(encoding="utf-8")
    found = re.search(r"VIEW_NAMES = \[([^\]]{1,400})\] as const", text)
    assert found, "views.ts declares VIEW_NAMES"
    names = re.findall(r"'([a-z]{1,20})'", found.group(1))
    assert "profile" in names
    assert sorted(VIEWS) == sorted(names + ["all"])
