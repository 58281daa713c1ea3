"""Validate a payload against ``graph.schema.json`` (uses ``jsonschema`` when installed)."""

import json
import os
from functools import lru_cache
from typing import Any, Dict, List

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph.schema.json")


class PayloadError(ValueError):
    """The payload does not match the schema; ``errors`` lists each problem."""

    def __init__(self, errors: List[str]) -> None:
        self.errors = errors
        shown = "\n".join("- " + e for e in errors[:20])
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"payload does not match ascend-lab.graph/1:\n{shown}{more}")


@lru_cache(maxsize=1)
def load_schema() -> Dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def _references(obj: Dict[str, Any]) -> List[str]:
    """Problems the schema cannot express: keys and node ids that point nowhere."""
    errors: List[str] = []
    graphs = obj.get("graphs") or {}
    views = obj.get("views") or {}
    for name in ("main", "before", "after"):
        key = views.get(name)
        if key is not None and key not in graphs:
            errors.append(f"views.{name} = {key!r} is not a key of graphs")
    for i, entry in enumerate(obj.get("passes") or []):
        key = entry.get("graph")
        if key is not None and key not in graphs:
            errors.append(f"passes[{i}].graph = {key!r} is not a key of graphs")
    for gkey, graph in graphs.items():
        for node in graph.get("nodes", []):
            sub = node.get("subgraph")
            if sub is not None and sub not in graphs:
                errors.append(f"graphs[{gkey!r}] node {node.get('id')!r}: subgraph {sub!r} missing")
    fusion = obj.get("fusion")
    if fusion:
        after = graphs.get(views.get("after") or "", {})
        before = graphs.get(views.get("before") or "", {})
        after_ids = {n["id"] for n in after.get("nodes", [])}
        before_ids = {n["id"] for n in before.get("nodes", [])}
        for k in fusion.get("kernels", []):
            if k.get("kernel") not in after_ids:
                errors.append(f"fusion kernel {k.get('kernel')!r} is not a node of views.after")
            for orig in k.get("originals", []):
                if orig not in before_ids:
                    errors.append(f"fusion original {orig!r} is not a node of views.before")
    return errors


def validate_payload(obj: Any) -> None:
    """Raise :class:`PayloadError` if ``obj`` is not a valid ``ascend-lab.graph/1`` payload.

    Uses ``jsonschema`` (Draft 2020-12) when it is installed, and always checks that graph
    keys and node ids referred to by views, passes and the fusion map exist.
    """
    errors: List[str] = []
    if not isinstance(obj, dict):
        raise PayloadError([f"payload must be an object, got {type(obj).__name__}"])
    try:
        import jsonschema
    except ImportError:
        jsonschema = None  # type: ignore[assignment]
    if jsonschema is not None:
        validator = jsonschema.Draft202012Validator(load_schema())
        for err in sorted(validator.iter_errors(obj), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in err.path) or "<root>"
            errors.append(f"{where}: {err.message[:300]}")
    else:
        for key in ("schema", "meta", "graphs", "views"):
            if key not in obj:
                errors.append(f"<root>: {key!r} is a required property")
    if not errors:
        errors.extend(_references(obj))
    if errors:
        raise PayloadError(errors)


def is_valid(obj: Any) -> bool:
    try:
        validate_payload(obj)
    except PayloadError:
        return False
    return True
