"""Pass snapshots packed for the standalone page (ascend_lab.payload.packing)."""

import copy

from ascend_lab.parsers.ir.ir_text import parse_ir_file
from ascend_lab.payload import check_payload
from ascend_lab.payload.packing import PACKED_FORMAT, pack_passes, unpack_pass
from ascend_lab.viewfile import payload_for_path
from tests.support.ir_fixtures import FIXTURES

LENET = FIXTURES / "lenet"


def test_main_views_stay_plain_and_pass_graphs_round_trip():
    payload = payload_for_path(str(LENET), passes="all")
    original = copy.deepcopy(payload)
    lean, packed = pack_passes(payload)
    assert payload == original  # the input is not modified
    check_payload(lean)
    assert packed["format"] == PACKED_FORMAT
    views = {v for v in lean["views"].values() if v}
    assert views <= set(lean["graphs"])
    assert all(k in views or k.split("/", 1)[0] in views for k in lean["graphs"])
    for entry in original["passes"]:
        key = entry["graph"]
        if key is None or key.split("/", 1)[0] in views:
            continue
        bundle = unpack_pass(packed, entry["index"])
        assert bundle == {k: g for k, g in original["graphs"].items() if k.split("/", 1)[0] == key}
        lean_entry = next(p for p in lean["passes"] if p["index"] == entry["index"])
        assert lean_entry["graph"] is None and lean_entry["name"] == entry["name"]


def test_identical_bundles_are_stored_once():
    payload = payload_for_path(str(LENET), passes="all")
    graph = parse_ir_file(LENET / "opt_pass_2_opt_a_0016.ir").to_dict()
    # two passes showing the same graph under different keys -> one bundle after renaming
    payload["graphs"]["pass:900"] = graph
    payload["graphs"]["pass:901"] = graph
    base = payload["passes"][0]
    payload["passes"] += [
        dict(base, index=900, graph="pass:900"),
        dict(base, index=901, graph="pass:901"),
    ]
    _, packed = pack_passes(payload)
    assert packed["passes"]["900"] != packed["passes"]["901"]  # keys differ inside
    payload["graphs"]["pass:901"] = payload["graphs"]["pass:900"]
    payload["passes"][-1]["graph"] = "pass:900"
    _, packed = pack_passes(payload)
    assert packed["passes"]["900"] == packed["passes"]["901"]
    assert len(packed["bundles"]) == len(set(packed["bundles"]))


def test_nothing_to_pack():
    payload = payload_for_path(str(LENET / "graph_build_0_0094.ir"))
    lean, packed = pack_passes(payload)
    assert packed is None and lean is payload


def _page_parts(page):
    import json
    import re

    def script(element_id):
        m = re.search(
            rf'<script type="application/json" id="{element_id}">(.*?)</script>', page, re.S
        )
        return json.loads(m.group(1).replace("<\\/", "</")) if m else None

    payload = script("ascend-lab-payload")
    payload["meta"].pop("created")
    return payload, script("ascend-lab-passes")


def test_passes_packed_as_they_are_built_give_the_same_page(tmp_path):
    """A dump folder's page packs each pass while it is built (no payload with every pass
    in memory); the page is the one built from the whole payload, paths redacted alike."""
    import shutil

    from ascend_lab.render.standalone import render_html
    from ascend_lab.viewfile.sources import DumpFolderSource, view_source

    folder = tmp_path / "dumps"
    shutil.copytree(FIXTURES / "conv", folder, ignore=shutil.ignore_patterns("*.mindir"))
    source = view_source(str(folder))
    assert isinstance(source, DumpFolderSource)
    streamed = _page_parts(render_html(source, project=str(tmp_path)))
    whole = _page_parts(render_html(payload_for_path(str(folder)), project=str(tmp_path)))
    assert streamed == whole
    payload, packed = streamed
    assert packed is not None and packed["passes"]
    assert payload["meta"]["source"] == "ir-dump-folder"
    assert str(tmp_path) not in json_text(payload, packed)


def json_text(*values):
    import base64
    import gzip
    import json

    texts = [json.dumps(v) for v in values]
    for bundle in values[-1]["bundles"]:
        texts.append(gzip.decompress(base64.b64decode(bundle)).decode("utf-8"))
    return "\n".join(texts)


def _bundles_of(count):
    payload = payload_for_path(str(LENET), passes="all")
    graphs = list(payload["graphs"].values())
    return [{f"pass:{i}": graphs[i % len(graphs)], "n": i} for i in range(count)]


def test_background_compression_packs_what_the_page_thread_would():
    from ascend_lab.payload.packing import PassPacker

    def pack(background):
        packer = PassPacker(background=background)
        numbers = [packer.add(i, b) for i, b in enumerate(_bundles_of(7))]
        return numbers, packer.packed()

    assert pack(True) == pack(False)


def test_background_compression_keeps_at_most_a_few_bundles_waiting(monkeypatch):
    import threading

    from ascend_lab.payload import packing

    gate = threading.Event()
    real = packing._gzip_base64

    def slow(data, level):
        gate.wait(5)  # the thread is held until the packer must wait for it
        return real(data, level)

    monkeypatch.setattr(packing, "_gzip_base64", slow)
    packer = packing.PassPacker()
    seen = []
    original_wait = packer._wait

    def watch(keep):
        seen.append(len(packer._pending))
        if len(packer._pending) > keep:
            gate.set()
        original_wait(keep)

    monkeypatch.setattr(packer, "_wait", watch)
    for i, bundle in enumerate(_bundles_of(6)):
        packer.add(i, bundle)
    assert max(seen) <= packer.MAX_PENDING
    assert len(packer.packed()["bundles"]) == 6
    assert packer._pool is None  # the thread is gone once everything is packed


def test_a_failure_on_the_compression_thread_is_raised_and_the_thread_stopped(monkeypatch):
    import pytest

    from ascend_lab.payload import packing

    def broken(data, level):
        raise MemoryError("no room for the bundle")

    monkeypatch.setattr(packing, "_gzip_base64", broken)
    packer = packing.PassPacker()
    packer.add(0, _bundles_of(1)[0])
    with pytest.raises(MemoryError, match="no room"):
        packer.packed()
    packer.close()
    assert packer._pool is None
