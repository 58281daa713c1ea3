"""A trace's dump folder is read into a bundle through the one gate (issue #37): a FIFO
is skipped at once (a plain open() waited on it for good) and a link leading out of the
folder is not read."""

import os

from ascend_lab.report.bundle import Bundle
from ascend_lab.report.trace_part import _add_capped


def test_fifos_and_links_out_of_the_dump_folder_are_left_out(tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "graph_build_0_0094.ir").write_text("# IR entry: @kernel_graph0\n")
    os.mkfifo(dump / "hwopt_0001.ir")
    outside = tmp_path / "outside.txt"
    outside.write_text("a file beside the dump folder\n")
    os.symlink(outside, dump / "opt_pass_2.ir")
    bundle = Bundle()
    _add_capped(bundle, str(dump), "trace/O0/dump", 1 << 20, "IR dumps")
    assert sorted(bundle.texts) == ["trace/O0/dump/graph_build_0_0094.ir"]
    assert "2 files left out" in bundle.entries[0].detail
