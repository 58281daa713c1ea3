"""Pass snapshots packed for the standalone HTML: out of the page's JSON, deduplicated,
gzip-compressed and base64-encoded, decoded by the browser only when a pass is opened.

The main views (``views``: main, before, after, and the subgraphs they call) stay in the
payload as plain JSON, so the first view needs no decoding. Each other graph that a pass
shows goes, with its subgraphs, into one *bundle* ``{key: graph, "key/sub": graph, …}``;
identical bundles are stored once. The page's viewer decodes a bundle with the browser's
``DecompressionStream('gzip')`` (no library) when the pass slider reaches that pass.

``packed`` (embedded next to the payload) is::

    {"format": "ascend-lab.packed-passes/1",
     "passes": {"<pass index>": <bundle number>, …},
     "bundles": ["<base64 of gzip of the bundle's JSON>", …],
     "diffs": "<base64 of gzip of {"<pass index>": {added, removed, modified}}>"}

(``diffs`` is optional: pages written before it keep the diffs in the payload's passes.)

A :class:`PassPacker` takes bundles one at a time, so a trace can hand each pass over as
soon as it is built and drop it (``Trace.to_payload(pass_sink=...)``): a 32-layer LLM's
hundred passes are never all in memory as Python objects.
"""

import base64
import gzip
import hashlib
import json
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Deque, Dict, List, Optional, Set, Tuple, Union

PACKED_FORMAT = "ascend-lab.packed-passes/1"

BundleTransform = Callable[[Any], Any]


def _gzip_base64(data: bytes, level: int) -> str:
    return base64.b64encode(gzip.compress(data, compresslevel=level, mtime=0)).decode("ascii")


class PassPacker:
    """Bundles of pass graphs, each transformed (e.g. paths redacted), JSON-encoded,
    deduplicated, gzip-compressed and base64-encoded as it arrives.

    With ``background=True`` (the default) a bundle is compressed on one worker thread while
    the next pass is built: zlib releases the GIL, so on two cores the ~0.8 s that gzip
    level 9 takes for a 32-layer decoder's bundles overlap the parsing (CPU time is the
    same). At most :attr:`MAX_PENDING` encoded bundles wait for the thread, so memory stays
    bounded when building is faster than compressing."""

    MAX_PENDING = 2

    def __init__(
        self, level: int = 9, transform: Optional[BundleTransform] = None, background: bool = True
    ) -> None:
        self.level = level
        self.transform = transform
        self.passes: Dict[str, int] = {}
        self.diffs: Dict[str, Dict[str, Any]] = {}
        self._bundles: List[Union[str, Future]] = []  # a Future until its thread is done
        self._number_of: Dict[str, int] = {}
        self._pending: Deque[int] = deque()  # bundle numbers still on the thread
        self._pool: Optional[ThreadPoolExecutor] = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="ascend-lab-gzip")
            if background
            else None
        )

    @property
    def bundles(self) -> List[str]:
        """The packed bundles (base64 of gzip), in order; waits for the thread."""
        self._wait(0)
        return self._bundles  # type: ignore[return-value] # all str after _wait(0)

    def add(self, index: int, bundle: Dict[str, Any]) -> int:
        """Pack ``bundle`` as pass ``index``'s graphs; the bundle's number."""
        if self.transform is not None:
            bundle = self.transform(bundle)
        data = _json_bytes(bundle)
        digest = hashlib.sha256(data).hexdigest()
        number = self._number_of.get(digest)
        if number is None:
            number = self._number_of[digest] = len(self._bundles)
            if self._pool is None:
                self._bundles.append(_gzip_base64(data, self.level))
            else:
                self._wait(self.MAX_PENDING - 1)
                self._bundles.append(self._pool.submit(_gzip_base64, data, self.level))
                self._pending.append(number)
        self.passes[str(index)] = number
        return number

    def _wait(self, keep: int) -> None:
        """Resolve the oldest pending bundles until at most ``keep`` are left."""
        while len(self._pending) > keep:
            number = self._pending.popleft()
            future = self._bundles[number]
            assert isinstance(future, Future)
            self._bundles[number] = future.result()  # an error in the thread raises here
        if not self._pending and keep == 0 and self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def close(self) -> None:
        """Stop the compression thread (after an error: pending bundles are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def refer(self, index: int, number: int) -> None:
        """Pass ``index`` shows the bundle already packed as ``number``."""
        if not 0 <= number < len(self._bundles):
            raise IndexError(f"no packed bundle {number}")
        self.passes[str(index)] = number

    def take_diff(self, entry: Dict[str, Any]) -> Dict[str, Any]:
        """``entry`` (a packed pass's entry) without its diff lists, which go into the
        packed document's ``diffs`` (see :data:`DIFF_FIELDS`)."""
        diff = {name: entry[name] for name in DIFF_FIELDS if name in entry}
        if not diff:
            return entry
        if self.transform is not None:
            diff = self.transform(diff)
        self.diffs[str(entry["index"])] = diff
        return {k: v for k, v in entry.items() if k not in DIFF_FIELDS}

    def packed(self) -> Optional[Dict[str, Any]]:
        """The ``packed`` document, or None when no pass was packed."""
        if not self.passes:
            return None
        doc: Dict[str, Any] = {
            "format": PACKED_FORMAT,
            "passes": dict(self.passes),
            "bundles": self.bundles,
        }
        if self.diffs:
            doc["diffs"] = self._encode(self.diffs)
        return doc

    def _encode(self, value: Any) -> str:
        return _gzip_base64(_json_bytes(value), self.level)


def _json_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON of a payload part. No check for cycles (a payload is a tree, and
    a cycle still ends in RecursionError): the check costs 12% of encoding a pass."""
    try:  # no NaN or Infinity: not JSON, the page would not open (see standalone.embed_json)
        text = json.dumps(
            value, ensure_ascii=False, separators=(",", ":"), check_circular=False, allow_nan=False
        )
    except ValueError:
        raise ValueError("the page would hold a number that is not finite (inf or NaN)") from None
    return text.encode("utf-8")


# A pass entry's diff lists (node ids added and modified, stable keys removed). A packed
# pass's go, gzip-compressed, into the packed document's ``diffs`` ({pass index: diff}):
# they are most of a standalone page's plain JSON after the main views (DenseNet-121:
# 1.1 MB of 3.7 MB), one name per node each pass adds, changes or removes. The page merges
# a pass's diff when it opens that pass (``mergeDiff`` in the viewer's timeline).
DIFF_FIELDS = ("added", "removed", "modified")


def _view_keys(payload: Dict[str, Any]) -> Set[str]:
    roots = {key for key in (payload.get("views") or {}).values() if key}
    compare = payload.get("compare")  # two traces side by side: both graphs are views
    if isinstance(compare, dict):
        roots.update(compare.get(side) for side in ("a", "b") if compare.get(side))
    return {key for key in payload["graphs"] if key in roots or key.split("/", 1)[0] in roots}


def pack_passes(
    payload: Dict[str, Any], level: int = 9, transform: Optional[BundleTransform] = None
) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """``(payload without the passes' own graphs, packed)``; ``packed`` is None when no
    pass has a graph of its own (the input is not modified). ``transform`` is applied to
    each bundle before it is packed."""
    keep = _view_keys(payload)
    graphs = payload["graphs"]
    parts: Dict[str, Dict[str, Any]] = {}
    for key, graph in graphs.items():
        if key not in keep:
            parts.setdefault(key.split("/", 1)[0], {})[key] = graph
    if not parts:
        return payload, None
    packer = PassPacker(level=level, transform=transform)
    passes = []
    for entry in payload.get("passes") or []:
        key = entry.get("graph")
        if key in parts:
            packer.add(entry["index"], parts[key])
            entry = dict(packer.take_diff(entry), graph=None)
        passes.append(entry)
    lean = dict(payload, graphs={k: g for k, g in graphs.items() if k in keep}, passes=passes)
    return lean, packer.packed()


def unpack_pass(packed: Dict[str, Any], index: int) -> Dict[str, Any]:
    """The bundle of pass ``index`` (what the page decodes; for tests and tools)."""
    blob = base64.b64decode(packed["bundles"][packed["passes"][str(index)]])
    return json.loads(gzip.decompress(blob).decode("utf-8"))
