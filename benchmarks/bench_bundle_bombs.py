"""Cost of reading hostile bundles (issue #24, finding 5): time and peak memory of
``read_bundle`` on a pax-header bomb, a GNU long-name bomb, a decompression bomb (a member
of a type that is skipped, not read) and a member-count bomb.

Each read runs in a fresh interpreter (wall clock; peak RSS from ``getrusage`` of the
child). ``--tree DIR`` reads with the ``ascend_lab`` found in DIR instead (e.g. an older
checkout made with ``git archive 5cbfaf8 ascend_lab | tar -x -C DIR``), to compare.

    .venv/bin/python benchmarks/bench_bundle_bombs.py [--tree DIR] [--mb 320]
"""

import argparse
import gzip
import io
import os
import subprocess
import sys
import tarfile
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = "ascend-lab-report"


def _header(name: bytes, size: int, typeflag: bytes) -> bytes:
    h = bytearray(512)
    h[0 : len(name)] = name
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = typeflag
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def _manifest() -> bytes:
    body = io.BytesIO()
    with tarfile.open(fileobj=body, mode="w") as tar:
        info = tarfile.TarInfo(f"{TOP}/manifest.json")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"{}"))
    return body.getvalue()


def _write(path: str, blocks) -> None:
    with gzip.open(path, "wb", compresslevel=9) as f:
        for b in blocks:
            f.write(b)
        f.write(_manifest())


def _zeros(n: int, fill: bytes = b"a"):
    chunk = fill * (1 << 20)
    for _ in range(n >> 20):
        yield chunk
    yield fill * (n % (1 << 20))


def _pax(path: str, size: int) -> None:
    body = len(b" comment=") + size + 1  # a pax record: "<length> comment=<value>\n"
    n = body + len(str(body))
    n = body + len(str(n))
    pad = b"\0" * (-n % 512)
    head = str(n).encode() + b" comment="
    tail = [b"\n", pad, _header(f"{TOP}/x".encode(), 0, b"0")]
    _write(path, [_header(b"././@PaxHeader", n, b"x"), head, *_zeros(size), *tail])


def _gnu(path: str, size: int) -> None:
    pad = b"\0" * (-size % 512)
    _write(
        path,
        [
            _header(b"././@LongLink", size, b"L"),
            *_zeros(size - 1),
            b"\0",
            pad,
            _header(f"{TOP}/x".encode(), 0, b"0"),
        ],
    )


def _skipped(path: str, size: int) -> None:
    _write(path, [_header(f"{TOP}/skipped".encode(), size, b"Z"), *_zeros(size, b"\0")])


def _many(path: str, count: int) -> None:
    _write(path, [_header(f"{TOP}/e/{i}".encode(), 0, b"0") for i in range(count)])


CHILD = """
import resource, sys, time
from ascend_lab.report.bundle import BundleError, read_bundle
t = time.perf_counter()
try:
    files = read_bundle(sys.argv[1])
    verdict = "read: %d files" % len(files)
except BundleError as exc:
    verdict = "refused: " + str(exc)[-90:]
except MemoryError:
    verdict = "MemoryError"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("%.2f s in read_bundle, peak RSS %.0f MiB: %s" % (time.perf_counter() - t, peak, verdict))
"""


def _read(path: str, tree: str) -> str:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path], env=env, capture_output=True, text=True, cwd=tree
    )
    return out.stdout.strip() or ("crashed: " + (out.stderr.strip().splitlines() or ["?"])[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", default=REPO, help="folder holding the ascend_lab to measure")
    ap.add_argument("--mb", type=int, default=320, help="size of each bomb's header/member")
    args = ap.parse_args()
    size = args.mb << 20
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, arg in (
            ("pax header bomb", _pax, size),
            ("GNU long-name bomb", _gnu, size),
            ("decompression bomb (skipped member)", _skipped, 4 * size),
            ("member-count bomb (100000 members)", _many, 100000),
        ):
            path = os.path.join(tmp, name.split()[0] + ".tar.gz")
            make(path, arg)
            mb = os.path.getsize(path) / 1e6
            print(f"{name:38s} {mb:5.2f} MB archive: {_read(path, args.tree)}", flush=True)


if __name__ == "__main__":
    main()
