"""Compile networks on CPU with MindSpore's IR dumps on, one dump folder per case.

Run in a subprocess (MindSpore's compile cache and global context must not leak into the
test process)::

    python tests/memory/dump_nets.py OUT_DIR conv lenet lenet_fusion resnet50 ...

Each case writes ``OUT_DIR/<case>/`` (``graph_build_*.ir``, ``actor_set/...``), with the
current directory set to ``OUT_DIR/<case>/work`` so AKG's ``akg_kernel_meta`` lands there.
Prints one line per case: ``case <name> <seconds>``.
"""

import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# name -> (net, input shape, fusion, dynamic batch). Cases ending in "_compiled" only
# compile (``Cell.compile``): ResNet-50 at batch 32 takes minutes to *run* on CPU.
CASES = {
    "conv": ("ConvBNReLU", (1, 3, 16, 16), False, False),
    "conv_dynamic": ("ConvBNReLU", (1, 3, 16, 16), False, True),
    "lenet": ("LeNet5", (1, 1, 32, 32), False, False),
    "lenet_b32": ("LeNet5", (32, 1, 32, 32), False, False),
    "lenet_fusion": ("LeNet5", (1, 1, 32, 32), True, False),
    "resnet50": ("ResNet50", (1, 3, 224, 224), False, False),
    "resnet50_compiled": ("ResNet50", (1, 3, 224, 224), False, False),
    "resnet50_b32_compiled": ("ResNet50", (32, 3, 224, 224), False, False),
    "encoder": ("EncoderBlock", (1, 32, 128), False, False),
}


def main(argv):
    out = Path(argv[1]).resolve()
    sys.path.insert(0, str(HERE.parents[1]))  # the repo, for ascend_lab
    import mindspore as ms

    from ascend_lab.course import nets

    ms.set_context(mode=ms.GRAPH_MODE)
    for case in argv[2:]:
        cls_name, shape, fusion, dynamic = CASES[case]
        dump = out / case
        work = dump / "work"
        work.mkdir(parents=True, exist_ok=True)
        os.chdir(str(work))
        ms.set_context(save_graphs=1, save_graphs_path=str(dump), enable_graph_kernel=fusion)
        ms.set_seed(0)
        net = getattr(nets, cls_name)()
        net.set_train(False)
        if dynamic:
            net.set_inputs(ms.Tensor(shape=[None] + list(shape[1:]), dtype=ms.float32))
        x = ms.Tensor(np.random.default_rng(0).random(shape).astype(np.float32))
        started = time.perf_counter()
        if case.endswith("_compiled"):
            net.compile(x)
        else:
            net(x)
        print("case", case, round(time.perf_counter() - started, 2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
