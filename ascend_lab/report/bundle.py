"""A report bundle: files in memory, a manifest, one ``.tar.gz`` archive; and reading it back.

Why ``.tar.gz``: Python writes and reads it with the standard library, and ``tar xzf`` is on
every Linux image an NPU runs (minimal containers often lack ``unzip``).

Layout inside the archive (one top folder, ``ascend-lab-report/``)::

    manifest.json, MANIFEST.txt       what was collected, failed, timed out, redacted
    machine/...                       npu-smi views, version files, platform, environment
    status.json, status.txt           the device status, as `ascend-lab status` printed it
    doctor.json, doctor.txt, doctor_facts.json   the doctor's environment checks and facts
    logs/...                          tails of plog files and of --log files
    trace/...                         --with-trace: IR dumps per jit_level, profile, MindIR
"""

import importlib
import io
import json
import os
import re
import tarfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

from ascend_lab._version import __version__
from ascend_lab.errors import AscendLabError
from ascend_lab.report.redact import NOT_REDACTED, Redactor
from ascend_lab.safe_write import atomic_output

TOP = "ascend-lab-report"
SCHEMA = "ascend-lab.report/1"
MANIFEST = "manifest.json"
# tar spends a 512-byte header per member (and pads to 512): counted against the size limit
_PER_FILE_OVERHEAD = 1024
_READ_MAX_MEMBER = 64 * 1024 * 1024
_READ_MAX_TOTAL = 512 * 1024 * 1024
_READ_MAX_MEMBERS = 20000  # a --with-trace bundle holds about a thousand
_READ_MAX_HEADER = 64 * 1024  # one pax or GNU long-name header (a name is at most 4 KiB)
# decompressed bytes in all: the members' data plus their headers and padding
_READ_MAX_STREAM = _READ_MAX_TOTAL + _READ_MAX_MEMBERS * 2048 + 1024 * 1024

# What the replay needs: never dropped for size.
REPLAY_NEEDS = frozenset(
    [
        "status.json",
        "doctor_facts.json",
        "versions.json",
        "machine/npu-smi/calls.json",
        "machine/paths.json",
        "machine/environment.json",
    ]
)
# What to drop first when the archive would pass its size limit (lowest number first).
PRIORITY = {"trace": 0, "logs": 1, "machine": 3}


@dataclass
class Entry:
    """One manifest line: a thing the report tried to collect."""

    item: str  # what it is ("npu-smi info -t board -i 0")
    status: str  # ok | failed | timed out | missing | skipped | dropped
    path: Optional[str] = None  # file in the bundle
    detail: str = ""
    seconds: Optional[float] = None
    truncated: bool = False

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"item": self.item, "status": self.status}
        if self.path:
            out["path"] = self.path
        if self.detail:
            out["detail"] = self.detail
        if self.seconds is not None:
            out["seconds"] = round(self.seconds, 3)
        if self.truncated:
            out["truncated"] = True
        return out


@dataclass
class Bundle:
    """Files and manifest entries of a report being built (texts redacted on write)."""

    files: Dict[str, bytes] = field(default_factory=dict)
    texts: Dict[str, str] = field(default_factory=dict)
    entries: List[Entry] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    # --with-trace: the backend MindSpore really compiled on ("Ascend" only on a real NPU:
    # the worker falls back to "CPU" when the Ascend backend cannot load, e.g. a fake machine)
    trace_device: Optional[str] = None
    # --course: ``recorded_on`` and ``course`` (device kind, chip, versions, date), put into
    # the manifest as they are (report/course.py)
    labels: Dict[str, Any] = field(default_factory=dict)

    def add_text(self, path: str, text: str) -> None:
        self.texts[path] = text

    def add_json(self, path: str, data: Any) -> None:
        self.texts[path] = json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"

    def add_binary(self, path: str, data: bytes) -> None:
        self.files[path] = data

    def record(self, item: str, status: str, **kw: Any) -> Entry:
        entry = Entry(item, status, **kw)
        self.entries.append(entry)
        return entry

    def finish(
        self, redactor: Redactor, redacted: bool, max_bytes: int, started: float, budget: float
    ) -> Dict[str, bytes]:
        """Redact every text (serials learnt from all files first), add the manifest, and
        drop the lowest-priority files until the whole fits ``max_bytes``."""
        for text in self.texts.values():
            redactor.learn(text)
        out: Dict[str, bytes] = {}
        for path, text in self.texts.items():
            out[redactor.redact(path)] = redactor.redact(text).encode("utf-8")
        for path, data in self.files.items():
            out[redactor.redact(path)] = redactor.redact_bytes(data)
        # The manifest itself: written after redaction, with its own size counted.
        reserve = 256 * 1024
        dropped = _fit(out, max(0, max_bytes - reserve))
        for path in dropped:
            self.record(path, "dropped", detail=f"the archive would pass {max_bytes} bytes")
        manifest = self.manifest(redactor, redacted, max_bytes, started, budget)
        out[MANIFEST] = redactor.redact(
            json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        ).encode("utf-8")
        # only what was collected goes through the redactor: the fixed text and the counts
        # would read as "secret: 9" and "serial: 4 ..." pairs themselves
        out["MANIFEST.txt"] = manifest_text(manifest, redactor.redact).encode("utf-8")
        return out

    def manifest(
        self, redactor: Redactor, redacted: bool, max_bytes: int, started: float, budget: float
    ) -> Dict[str, Any]:
        counts: Dict[str, int] = {}
        for e in self.entries:
            counts[e.status] = counts.get(e.status, 0) + 1
        return {
            "schema": SCHEMA,
            "generator": f"ascend-lab {__version__}",
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": round(time.monotonic() - started, 2),
            "time_budget_seconds": budget,
            "size_limit_bytes": max_bytes,
            "redacted": redacted,
            "redactions": redactor.summary() if redacted else {},
            "counts": counts,
            "entries": [e.to_dict() for e in self.entries],
            "notes": list(self.notes),
            "trace_device": self.trace_device,
            **self.labels,
        }


def _fit(files: Dict[str, bytes], limit: int) -> List[str]:
    """Remove files (largest of the least important part first) until they fit ``limit``."""

    def size() -> int:
        return sum(len(d) + _PER_FILE_OVERHEAD for d in files.values())

    dropped = []
    order = sorted(files, key=lambda p: (PRIORITY.get(p.split("/", 1)[0], 2), -len(files[p]), p))
    for path in order:
        if size() <= limit:
            break
        if path in REPLAY_NEEDS:
            continue
        del files[path]
        dropped.append(path)
    return dropped


def manifest_text(manifest: Dict[str, Any], redact: Callable[[str], str] = str) -> str:
    """The manifest for a person reading it before sharing the archive (``redact`` applied
    to the collected entries and notes)."""
    lines = [
        f"ascend-lab report ({manifest['generator']}, {manifest['created']}, "
        f"{manifest['seconds']} s of a {manifest['time_budget_seconds']} s budget)",
        "",
    ]
    if manifest["redacted"]:
        red = manifest["redactions"]
        lines.append("Redacted (replaced by tokens such as <host-1>; the values are not here):")
        if not red:
            lines.append("  nothing of these kinds was found")
        for cat, c in sorted(red.items()):
            lines.append(f"  {cat}: {c['distinct']} distinct value(s), {c['replaced']} place(s)")
        lines.extend(
            [
                "Looked for in every file, by value as well as by name: host, user and home",
                "names; IPv4 and IPv6 addresses; MAC addresses; serial numbers, VDie/NDie and",
                "node ids; credentials (URL user:password@, password=/token=/secret=/AK=/SK=",
                "pairs, Authorization headers, AWS and Huawei Cloud access-key shapes).",
                "set_env.sh: only its path is here, not its text; of the variables it sets only",
                "the Ascend/MindSpore/path ones are kept (the others by name only).",
                "NOT redacted:",
            ]
            + [f"  {what}" for what in NOT_REDACTED]
        )
    else:
        lines.append("NOT REDACTED (--no-redact): host names, user names, home paths, IP")
        lines.append("addresses, serial numbers and credentials found in logs or environment")
        lines.append("values appear as they are. Read before sharing.")
    lines.append("")
    lines.append("Collected:")
    collected = []
    for e in manifest["entries"]:
        where = f" -> {e['path']}" if e.get("path") else ""
        extra = f" ({e['detail']})" if e.get("detail") else ""
        cut = " [tail only]" if e.get("truncated") else ""
        collected.append(f"  [{e['status']}] {e['item']}{where}{cut}{extra}")
    for note in manifest.get("notes") or []:
        collected.append("Note: " + note)
    return "\n".join(lines) + "\n" + redact("".join(c + "\n" for c in collected))


def write_archive(files: Dict[str, bytes], target: str) -> str:
    """Write ``files`` under ``TOP/`` as a .tar.gz at ``target`` (atomically); return it."""
    target = os.path.abspath(target)
    now = time.time()
    # an exclusive, randomly named temp file (never a predictable, link-following .part)
    with atomic_output(target) as out, tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path in sorted(files):
            data = files[path]
            info = tarfile.TarInfo(f"{TOP}/{path}")
            info.size = len(data)
            info.mtime = int(now)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return target


class BundleError(AscendLabError):
    """A bundle that cannot be read: not an archive or folder of ascend-lab's, corrupt."""


# Control characters (C0 but tab and newline, DEL, C1) and bidirectional overrides: a
# bundle's strings reach terminals and pages, where these would clear the screen, set the
# clipboard (OSC 52) or reorder text. Removed from every string the moment it is loaded.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean_text(text: str) -> str:
    """``text`` without control characters (tab and newline kept)."""
    return _CONTROL.sub("", text)


def clean_bytes(data: bytes) -> bytes:
    """A recorded text file's bytes without control characters (decoded as UTF-8)."""
    return clean_text(data.decode("utf-8", "replace")).encode("utf-8")


def _clean_json(obj: Any) -> Any:
    if isinstance(obj, str):
        return clean_text(obj)
    if isinstance(obj, list):
        return [_clean_json(v) for v in obj]
    if isinstance(obj, dict):
        return {clean_text(k): _clean_json(v) for k, v in obj.items()}
    return obj


class _CappedStream(io.RawIOBase):
    """A decompressed stream that raises :class:`BundleError` past ``limit`` bytes, so what
    an archive skips (unread members, padding) costs against the budget as well."""

    def __init__(self, inner: Any, limit: int, path: str) -> None:
        super().__init__()
        self.inner, self.limit, self.path, self.seen = inner, limit, path, 0

    def readable(self) -> bool:
        return True

    def read(self, size: Optional[int] = -1) -> bytes:
        room = self.limit + 1 - self.seen
        data = self.inner.read(room if size is None or size < 0 else min(size, room))
        self.seen += len(data)
        if self.seen > self.limit:
            raise BundleError(
                f"{self.path}: more than {self.limit} bytes when decompressed (a bundle bomb?)"
            )
        return bytes(data)

    def readinto(self, buf: Any) -> int:
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)


_LONG_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
_PAX_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)


class _CappedInfo(tarfile.TarInfo):
    """Refuses pax and GNU long-name headers over ``_READ_MAX_HEADER`` before tarfile reads
    them (it keeps a header's whole payload in memory and parses it)."""

    def _proc_member(self, tar: Any) -> Any:
        if self.type in _LONG_TYPES + _PAX_TYPES and self.size > _READ_MAX_HEADER:
            raise BundleError(
                f"a tar header of {self.size} bytes (at most {_READ_MAX_HEADER} are read)"
            )
        return super()._proc_member(tar)  # type: ignore[misc]


_DECOMPRESSORS = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "lzma"))


@contextmanager
def open_tar(path: str) -> Iterator[tarfile.TarFile]:
    """A bundle archive, read as a stream within the byte, member and header caps.

    Raises :class:`BundleError` for an archive that breaks one (or is not an archive)."""
    from ascend_lab.parsers.regular_file import gate, open_regular

    try:  # the one gate: a regular file (a FIFO named x.tar.gz is refused, not waited on)
        raw = open_regular(gate(path))
    except OSError as exc:
        raise BundleError(f"{path}: not a readable ascend-lab report archive ({exc})") from None
    try:
        magic = raw.read(6)
        raw.seek(0)
        inner: Any = raw
        for head, module in _DECOMPRESSORS:
            if magic.startswith(head):
                inner = importlib.import_module(module).open(raw, "rb")
        stream: Any = _CappedStream(inner, _READ_MAX_STREAM, path)
        with tarfile.open(fileobj=stream, mode="r|", tarinfo=_CappedInfo) as tar:
            yield tar
    except BundleError as exc:
        msg = str(exc)
        raise BundleError(msg if msg.startswith(path) else f"{path}: {msg}") from None
    except (tarfile.TarError, OSError, EOFError, ValueError, LookupError) as exc:
        raise BundleError(f"{path}: not a readable ascend-lab report archive ({exc})") from None
    finally:
        raw.close()


def _too_many(path: str, count: int) -> None:
    if count > _READ_MAX_MEMBERS:
        raise BundleError(f"{path}: more than {_READ_MAX_MEMBERS} members")


def read_bundle(path: str) -> Dict[str, bytes]:
    """The files of a bundle (a .tar.gz, or a folder it was extracted to), by relative path.

    Reads regular files only, each at most 64 MiB and 512 MiB in all, from at most
    ``_READ_MAX_MEMBERS`` members and ``_READ_MAX_STREAM`` decompressed bytes, with tar
    headers of at most ``_READ_MAX_HEADER`` bytes; never extracts to disk.
    """
    from ascend_lab.parsers.regular_file import read_gated

    path = os.fspath(path)
    out: Dict[str, bytes] = {}
    total = 0
    count = 0
    if os.path.isdir(path):
        base = os.path.join(path, TOP) if os.path.isdir(os.path.join(path, TOP)) else path
        for dirpath, _dirs, names in os.walk(base):
            for name in names:
                count += 1
                _too_many(path, count)
                full = os.path.join(dirpath, name)
                if os.path.islink(full) or not os.path.isfile(full):
                    continue
                size = os.path.getsize(full)
                total += size
                if size > _READ_MAX_MEMBER or total > _READ_MAX_TOTAL:
                    raise BundleError(f"{path}: too large to read ({full})")
                try:  # the one gate: regular, inside the bundle's folder, within its cap
                    content = read_gated(full, _READ_MAX_MEMBER, root=base)
                except OSError as exc:
                    raise BundleError(f"{path}: cannot read {full} ({exc.strerror})") from None
                out[os.path.relpath(full, base).replace(os.sep, "/")] = content
    else:
        with open_tar(path) as tar:
            for member in tar:
                count += 1
                _too_many(path, count)
                if not member.isfile():
                    continue
                total += member.size
                if member.size > _READ_MAX_MEMBER or total > _READ_MAX_TOTAL:
                    raise BundleError(f"{path}: {member.name} is too large to read")
                name = member.name.split("/", 1)[1] if "/" in member.name else member.name
                data = tar.extractfile(member)
                if data is not None:
                    out[name] = data.read(member.size)
    if MANIFEST not in out:
        raise BundleError(f"{path}: no {MANIFEST}: not an ascend-lab report")
    return out


def load_json(files: Dict[str, bytes], name: str) -> Any:
    """A JSON member of the bundle with every string in it (keys too) freed of control
    characters; None when absent."""
    data = files.get(name)
    if data is None:
        return None
    try:
        return _clean_json(json.loads(data.decode("utf-8")))
    except (ValueError, RecursionError) as exc:
        raise BundleError(f"{name} in the bundle is not valid JSON ({exc})") from None
