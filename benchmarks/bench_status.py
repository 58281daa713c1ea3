"""Device-status speed: prints numbers (targets from issue 2), asserts nothing.

- ``ascend-lab status`` in CPU mode, whole process wall time (target < 0.3 s)
- ``ascend-lab status`` on the fake 8 x 910B3 machine (fake npu-smi is a shell script)
- ``%load_ext ascend_lab`` in a fresh IPython process (target < 100 ms, no MindSpore import)
- ``%ascend_status`` once loaded, cache bypassed and cached (target < 50 ms)

Run: ``.venv/bin/python benchmarks/bench_status.py [--repeat N]``
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def _env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra or {})
    return env


def _wall(argv, env, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
        )
        times.append(time.perf_counter() - t)
    return times


def _report(label, times, target=None):
    med = statistics.median(times)
    line = f"{label:<48} median {med * 1000:7.1f} ms  min {min(times) * 1000:7.1f} ms"
    line += f"  (n={len(times)})"
    if target is not None:
        line += "  target < {:g} ms: {}".format(target * 1000, "OK" if med < target else "SLOW")
    print(line)


_IN_KERNEL = r"""
import sys, time, json
t0 = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
t1 = time.perf_counter()
shell.run_line_magic("load_ext", "ascend_lab")
t2 = time.perf_counter()
def timed(line):
    t = time.perf_counter()
    result = shell.run_line_magic("ascend_status", line)
    return time.perf_counter() - t, result
first, s = timed("--refresh")
refresh, cached = [], []
for _ in range(REPEAT):
    refresh.append(timed("--refresh")[0])
    cached.append(timed("")[0])
t = time.perf_counter(); html = s._repr_html_(); render = time.perf_counter() - t
print(json.dumps({"load_ext": t2 - t1, "first": first, "refresh": refresh, "cached": cached,
                  "html": render, "mode": s.mode,
                  "mindspore_imported": "mindspore" in sys.modules}))
"""


def _in_ipython(env, repeat):
    import json

    code = _IN_KERNEL.replace("REPEAT", str(repeat))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    n = args.repeat
    from tests.fakes.ascend_machine import make_fake_machine

    print("python", sys.version.split()[0], "on", os.cpu_count(), "cores")
    with tempfile.TemporaryDirectory() as tmp:
        cpu_env = _env({"PATH": tmp, "ASCEND_LAB_ASCEND_ROOT": os.path.join(tmp, "none")})
        _report(
            "python -c pass (interpreter start)", _wall([sys.executable, "-c", "pass"], cpu_env, n)
        )
        _report(
            "ascend-lab status (CPU mode, whole process)",
            _wall([sys.executable, "-m", "ascend_lab", "status"], cpu_env, n),
            0.3,
        )
        _report(
            "ascend-lab status --json (CPU mode)",
            _wall([sys.executable, "-m", "ascend_lab", "status", "--json"], cpu_env, n),
            0.3,
        )
        machine = make_fake_machine(os.path.join(tmp, "fake"))
        fake_env = machine.environ(base=_env())
        _report(
            "ascend-lab status (fake 8x910B3, whole process)",
            _wall([sys.executable, "-m", "ascend_lab", "status"], fake_env, n),
        )
        for label, env in (("CPU mode", cpu_env), ("fake 8x910B3", fake_env)):
            r = _in_ipython(env, n)
            print(
                "IPython, {}: mode={} mindspore imported={}".format(
                    label, r["mode"], r["mindspore_imported"]
                )
            )
            _report("  %load_ext ascend_lab", [r["load_ext"]], 0.1)
            _report("  %ascend_status first call (imports + probe)", [r["first"]], 0.05)
            _report("  %ascend_status --refresh (probe again)", r["refresh"], 0.05)
            _report("  %ascend_status (cached)", r["cached"], 0.05)
            _report("  _repr_html_()", [r["html"]])


if __name__ == "__main__":
    main()
