"""Record the MindSpore IR fixtures in ``tests/fixtures/ir/`` from real compiles on CPU.

Each case compiles one small net from ``tests/fixtures/ir/nets.py`` in a fresh subprocess
(so MindSpore's compile cache cannot hide the dumps), with ``MS_DEV_SAVE_GRAPHS`` pointing
into a temporary folder and the current directory set to that folder (graph-kernel fusion
writes ``./akg_kernel_meta``). A small selection of the dumped files is copied into the
fixtures folder with machine paths replaced by placeholders:

- ``<FIXTURES>``: the fixtures folder (where ``nets.py`` lives; ``In file`` lines keep
  their line numbers, so tests can check them against ``nets.py``),
- ``<SITE_PACKAGES>``: the site-packages folder MindSpore was imported from,
- ``<TMP>``: the temporary working folder.

Usage::

    .venv/bin/python scripts/record_ir_fixtures.py            # rewrite tests/fixtures/ir
    .venv/bin/python scripts/record_ir_fixtures.py --keep DIR   # also keep the full dumps
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "ir"

# name -> (net class in nets.py, input shape, graph-kernel fusion, save_graphs level, mindir)
CASES: Dict[str, Tuple[str, Tuple[int, ...], bool, int, bool]] = {
    "conv": ("ConvBNReLU", (1, 3, 16, 16), False, 1, True),
    "lenet": ("LeNet5", (1, 1, 32, 32), False, 1, True),
    "lenet_fusion": ("LeNet5", (1, 1, 32, 32), True, 2, False),
    "control_flow": ("ControlFlow", (2, 4), False, 1, True),
}

# Dump files to keep, by stage name (numbers differ between MindSpore versions). Only the
# first compile's file of each pattern is kept (``ms.export`` compiles the net again).
SELECT = [
    r"\d+_bootstrap_\d+\.ir",
    r"\d+_type_inference_\d+\.ir",
    r"opt_pass_\d+_opt_a_\d+\.ir",
    r"hwopt_comm_after_kernel_select_kernel_graph\d+_\d+\.ir",
    r"graph_build_\d+_\d+\.ir",
    r"verbose_ir_files/graph_kernel/\d+_stage1_cluster_\d+_graph_kernel_expander_\d+\.ir",
    r"verbose_ir_files/graph_kernel/\d+_stage1_cluster_\d+_graph_kernel_cluster_\d+\.ir",
    r"verbose_ir_files/graph_kernel/\d+_stage6_build_\d+_graph_kernel_build_\d+\.ir",
]
# Skip very large verbose files so the fixtures stay small.
MAX_FILE_BYTES = 120_000


def child(case: str, dump: Path) -> int:
    """Runs inside the subprocess: compile one net with dumps on, maybe export MindIR."""
    import numpy as np

    sys.path.insert(0, str(FIXTURES))
    import mindspore as ms
    import nets  # type: ignore[import-not-found]

    cls_name, shape, fusion, _level, mindir = CASES[case]
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    if fusion:
        ms.set_context(enable_graph_kernel=True)
    ms.set_seed(0)
    net = getattr(nets, cls_name)()
    net.set_train(False)
    x = ms.Tensor(np.random.default_rng(0).random(shape).astype(np.float32))
    out = net(x)
    print(case, "output", out.shape)
    if mindir:
        ms.export(net, x, file_name=str(dump / case), file_format="MINDIR")
    return 0


def scrub(text: str, tmp: str, site: str) -> str:
    text = text.replace(str(FIXTURES), "<FIXTURES>")
    text = text.replace(site, "<SITE_PACKAGES>")
    text = text.replace(tmp, "<TMP>")
    return text


def dump_order(path: Path) -> Tuple[int, str]:
    """Sort dump files by the global counter MindSpore appends (``..._0094.ir``)."""
    match = re.search(r"_(\d+)\.ir$", path.name)
    return (int(match.group(1)) if match else -1, path.as_posix())


def record(case: str, out: Path, keep: str) -> List[str]:
    import mindspore  # only for its location and version (the parent does not compile)

    site = str(Path(mindspore.__file__).resolve().parent.parent)
    level = CASES[case][3]
    kept: List[str] = []
    with tempfile.TemporaryDirectory(prefix="ascend-lab-ir-") as tmp:
        tmp = os.path.realpath(tmp)
        dump = Path(tmp) / "dump"
        dump.mkdir()
        env = dict(os.environ)
        env["MS_DEV_SAVE_GRAPHS"] = str(level)
        env["MS_DEV_SAVE_GRAPHS_PATH"] = str(dump)
        env["GLOG_v"] = "3"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--dump", str(dump)]
        subprocess.run(cmd, cwd=tmp, env=env, check=True)
        if keep:
            shutil.copytree(str(dump), os.path.join(keep, case), dirs_exist_ok=True)
        patterns = [re.compile(p) for p in SELECT]
        seen = set()
        target = out / case
        if target.exists():
            shutil.rmtree(str(target))
        target.mkdir(parents=True)
        for path in sorted(dump.rglob("*"), key=dump_order):
            rel = path.relative_to(dump).as_posix()
            if path.suffix == ".mindir":
                shutil.copyfile(str(path), str(target / path.name))
                kept.append(f"{case}/{path.name}")
                continue
            matched = [i for i, p in enumerate(patterns) if p.fullmatch(rel)]
            if not matched or matched[0] in seen:
                continue
            seen.add(matched[0])
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(scrub(text, tmp, site), encoding="utf-8")
            kept.append(f"{case}/{rel}")
    return kept


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(FIXTURES), help="fixtures folder to write")
    parser.add_argument("--keep", default="", help="also copy the full dumps into this folder")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only these")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, Path(args.dump))
    from importlib.metadata import version

    out = Path(args.out)
    manifest = {"mindspore": version("mindspore"), "python": sys.version.split()[0], "files": []}
    for case in args.case or list(CASES):
        files = record(case, out, args.keep)
        print(f"{case}: kept {len(files)} files")
        manifest["files"].extend(files)  # type: ignore[attr-defined]
    manifest_path = out / "manifest.json"
    if args.case and manifest_path.exists():
        old = json.loads(manifest_path.read_text())
        done = set(args.case)
        manifest["files"] = sorted(
            [f for f in old["files"] if f.split("/")[0] not in done] + manifest["files"]
        )
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"fixtures: {total / 1e6:.2f} MB in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
