"""Device-status speed: prints numbers (targets from issue 2), asserts nothing.

- ``ascend-lab status`` in CPU mode, whole process wall time (target < 0.3 s)
- ``ascend-lab status`` on the fake 8 x 910B3 machine (fake npu-smi is a shell script)
- ``%load_ext ascend_lab`` in a fresh IPython process (target < 100 ms, no MindSpore import)
- ``%ascend_status`` once loaded, cache bypassed and cached (target < 50 ms)
- a fake ``npu-smi`` that floods its output (``yes``): time and peak RSS of the probe

Every line is the median of ``--repeat`` samples: one-off costs (``%load_ext``, the first
``%ascend_status``, ``_repr_html_``) are sampled once per fresh IPython process.

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
    from benchmarks.support.fakes.ascend_machine import make_fake_machine

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
            runs = [_in_ipython(env, n) for _ in range(n)]  # one fresh process per sample
            print(
                "IPython, {}: mode={} mindspore imported={}".format(
                    label, runs[0]["mode"], any(r["mindspore_imported"] for r in runs)
                )
            )
            _report("  %load_ext ascend_lab", [r["load_ext"] for r in runs], 0.1)
            _report(
                "  %ascend_status first call (imports + probe)", [r["first"] for r in runs], 0.05
            )
            _report("  %ascend_status --refresh (probe again)", runs[0]["refresh"], 0.05)
            _report("  %ascend_status (cached)", runs[0]["cached"], 0.05)
            _report("  _repr_html_()", [r["html"] for r in runs])
        flood = make_fake_machine(os.path.join(tmp, "flood"), behaviour="flood")
        samples = [_flood_probe(flood.environ(base=_env())) for _ in range(n)]
        _report("probe with npu-smi flooding its output", [t for t, _ in samples])
        rss = sorted(r for _, r in samples)
        print(
            f"{'  peak RSS of that probe':<48} median {statistics.median(rss):7.1f} MB  "
            f"max {rss[-1]:7.1f} MB  (n={len(rss)})"
        )


_FLOOD = r"""
import json, resource, time
from ascend_lab.probes.device import collect_status
t = time.perf_counter()
s = collect_status(refresh=True, timeout=3.0)
print(json.dumps({"seconds": time.perf_counter() - t, "reason": s.reason,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _flood_probe(env):
    """(seconds, peak RSS MB) of one probe, in a fresh process, against a flooding npu-smi."""
    import json

    out = subprocess.run(
        [sys.executable, "-c", _FLOOD], env=env, capture_output=True, text=True, check=True
    )
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return r["seconds"], r["rss_mb"]


if __name__ == "__main__":
    main()
