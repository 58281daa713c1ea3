"""How fast is the doctor on large logs? Prints numbers; asserts nothing.

.venv/bin/python benchmarks/bench_doctor.py [MB ...]
"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LINES = [
    "[INFO] DEVICE(1234,ffff8d9e6010,python):2024-05-01-10:00:00.000.000 "
    "[mindspore/ccsrc/runtime/device/kernel_runtime.cc:120] step {i} launched, stream 3, memory ok",
    "epoch: 1 step: {i}, loss is 0.6931471824645996",
    "[WARNING] ME(3011:281473411063824,MainProcess):2024-07-10-09:12:31.442.000 "
    "[mindspore/train/callback.py:10] step {i} took 12 ms",
    '  File "/home/user/train.py", line {i}, in <module>',
]
ERRORS = (
    "RuntimeError: Malloc device memory failed, size[32212254720], ret[207001]\n"
    "dcmi model initialized failed, because the device is used. ret is -8020\n"
)


def make_log(path: str, megabytes: float) -> int:
    target = int(megabytes * 1e6)
    written = 0
    i = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            line = LINES[i % len(LINES)].format(i=i) + "\n"
            f.write(line)
            written += len(line)
            i += 1
        f.write(ERRORS)
    return os.path.getsize(path)


def main() -> None:
    from ascend_lab.doctor.knowledge import load_entries
    from ascend_lab.doctor.match import match_text

    t0 = time.perf_counter()
    entries = load_entries()
    print(
        f"load knowledge base ({len(entries)} entries): {1000 * (time.perf_counter() - t0):.1f} ms"
    )
    sizes = [float(a) for a in sys.argv[1:]] or [1.0, 20.0]
    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            path = os.path.join(tmp, f"log_{mb}.txt")
            size = make_log(path, mb)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            t0 = time.perf_counter()
            found = match_text(text, entries)
            dt = time.perf_counter() - t0
            print(
                f"match_text on {size / 1e6:.1f} MB ({text.count(chr(10))} lines): {dt:.2f} s, "
                f"{size / 1e6 / dt:.1f} MB/s, findings {[m.entry.id for m in found]}"
            )
            env = dict(
                os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            )
            t0 = time.perf_counter()
            r = subprocess.run(
                [sys.executable, "-m", "ascend_lab", "doctor", path, "--json"],
                capture_output=True,
                env=env,
            )
            dt = time.perf_counter() - t0
            print(
                f"ascend-lab doctor {size / 1e6:.1f} MB log (with machine checks): "
                f"{dt:.2f} s, exit {r.returncode}"
            )
    code = (
        "import time; t=time.perf_counter(); import ascend_lab.doctor.magic, sys; "
        "print(round(1000*(time.perf_counter()-t),1), 'mindspore' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    ms, imported = r.stdout.split()
    print(f"import ascend_lab.doctor.magic: {ms} ms (imports mindspore: {imported})")


if __name__ == "__main__":
    main()
