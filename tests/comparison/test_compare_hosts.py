"""The hosts of ascend_lab.compare: ``ascend-lab view A B`` and ``%ascend_compare``, on the
recorded IR dumps (tests/fixtures/ir): LeNet without and with graph-kernel fusion."""

import json
import os

from ascend_lab.cli import main
from ascend_lab.comparison import compare
from ascend_lab.viewfile.sources import payload_for_path

HERE = os.path.dirname(__file__)
LENET = os.path.join(HERE, "..", "fixtures", "ir", "lenet")
LENET_FUSION = os.path.join(HERE, "..", "fixtures", "ir", "lenet_fusion")


def test_view_two_dump_folders_writes_one_page(tmp_path, capsys):
    out = tmp_path / "cmp.html"
    assert main(["view", LENET, LENET_FUSION, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "A = lenet, B = lenet_fusion" in printed
    assert "fusion 5" in printed  # five fused kernels paired with the ops they replaced
    page = out.read_text(encoding="utf-8")
    assert '"compare"' in page and "lenet vs lenet_fusion" in page


def test_view_a_saved_payload_against_a_dump_folder(tmp_path, capsys):
    saved = tmp_path / "lenet.json"
    saved.write_text(json.dumps(payload_for_path(LENET, passes="none")), encoding="utf-8")
    out = tmp_path / "cmp.html"
    assert main(["view", str(saved), LENET_FUSION, "-o", str(out)]) == 0
    assert "fusion 5" in capsys.readouterr().out


def test_view_two_with_a_bad_input_says_why(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["view", str(bad), LENET, "-o", str(tmp_path / "x.html")]) == 2
    assert "broken.json" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_compare_of_saved_payloads_uses_their_fusion_maps():
    a = payload_for_path(LENET, passes="none")
    b = payload_for_path(LENET_FUSION, passes="none")
    cmp = compare(a, b)
    assert len(cmp.fused) == 5
    assert cmp.added == [] and cmp.removed == []
    assert cmp.peaks == (a["memory"]["peak"], b["memory"]["peak"])


def test_magic_in_a_real_ipython_shell(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "ascend_lab")
    shell.user_ns.update(
        {
            "a": payload_for_path(LENET, passes="none"),
            "b": payload_for_path(LENET_FUSION, passes="none"),
        }
    )
    shell.run_line_magic("ascend_compare", "a b --no-view -o cmp")
    cmp = shell.user_ns["cmp"]
    assert len(cmp.fused) == 5
    shell.run_line_magic("ascend_compare", "a nope --no-view")
    assert "'nope' is not defined" in capsys.readouterr().out


def test_the_public_compare_is_the_function_after_its_package_is_imported():
    import ascend_lab
    import ascend_lab.comparison  # noqa: F401  (a subpackage named compare would shadow it)

    assert callable(ascend_lab.compare) and ascend_lab.compare.__module__ == "ascend_lab"


def test_show_is_the_viewer_widget_with_both_graphs():
    cmp = compare(
        payload_for_path(LENET, passes="none"), payload_for_path(LENET_FUSION, passes="none")
    )
    widget = cmp.show()
    assert widget.view == "all"
    section = widget.payload["compare"]
    assert section["titles"] == [cmp.a.title, cmp.b.title]
    assert set(widget.payload["graphs"]) >= {section["a"], section["b"]}
    assert len([m for m in section["matches"] if m["how"] == "fusion"]) == 5
