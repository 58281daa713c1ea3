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
     "bundles": ["<base64 of gzip of the bundle's JSON>", …]}
"""

import base64
import gzip
import hashlib
import json
from typing import Any, Dict, List, Optional, Set, Tuple

PACKED_FORMAT = "ascend-lab.packed-passes/1"


def _view_keys(payload: Dict[str, Any]) -> Set[str]:
    roots = {key for key in (payload.get("views") or {}).values() if key}
    return {key for key in payload["graphs"] if key in roots or key.split("/", 1)[0] in roots}


def pack_passes(
    payload: Dict[str, Any], level: int = 6
) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """``(payload without the passes' own graphs, packed)``; ``packed`` is None when no
    pass has a graph of its own (the input is not modified)."""
    keep = _view_keys(payload)
    graphs = payload["graphs"]
    parts: Dict[str, Dict[str, Any]] = {}
    for key, graph in graphs.items():
        if key not in keep:
            parts.setdefault(key.split("/", 1)[0], {})[key] = graph
    if not parts:
        return payload, None
    bundles: List[str] = []
    number_of: Dict[str, int] = {}
    packed_passes: Dict[str, int] = {}
    passes = []
    for entry in payload.get("passes") or []:
        key = entry.get("graph")
        if key in parts:
            text = json.dumps(parts[key], ensure_ascii=False, separators=(",", ":"))
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if digest not in number_of:
                number_of[digest] = len(bundles)
                blob = gzip.compress(text.encode("utf-8"), compresslevel=level, mtime=0)
                bundles.append(base64.b64encode(blob).decode("ascii"))
            packed_passes[str(entry["index"])] = number_of[digest]
            entry = dict(entry, graph=None)
        passes.append(entry)
    lean = dict(payload, graphs={k: g for k, g in graphs.items() if k in keep}, passes=passes)
    packed = {"format": PACKED_FORMAT, "passes": packed_passes, "bundles": bundles}
    return lean, packed


def unpack_pass(packed: Dict[str, Any], index: int) -> Dict[str, Any]:
    """The bundle of pass ``index`` (what the page decodes; for tests and tools)."""
    blob = base64.b64decode(packed["bundles"][packed["passes"][str(index)]])
    return json.loads(gzip.decompress(blob).decode("utf-8"))
