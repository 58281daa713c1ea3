"""A :class:`~ascend_lab.results.comparison.Comparison` as an ``ascend-lab.graph/1`` payload.

Both final graphs go into ``graphs`` (keys ``a`` and ``b``, their fused-kernel subgraphs
as ``a/<name>``, ``b/<name>``), ``views.main`` is ``a``, and the ``compare`` section
carries the alignment and the summary bar's numbers (see ``graph.schema.json``).
"""

import datetime
from typing import TYPE_CHECKING, Any, Dict

from ascend_lab.parsers.gc_pause import gc_paused
from ascend_lab.payload.build import add_graph
from ascend_lab.payload.schema import SCHEMA_ID

if TYPE_CHECKING:  # pragma: no cover
    from ascend_lab.results.comparison import Comparison


def comparison_payload(cmp: "Comparison") -> Dict[str, Any]:
    with gc_paused():  # two graphs' worth of small dicts, no cycles: see gc_pause
        return _comparison_payload(cmp)


def _comparison_payload(cmp: "Comparison") -> Dict[str, Any]:
    graphs: Dict[str, Any] = {}
    key_a = add_graph(graphs, "a", cmp.a.graph)
    key_b = add_graph(graphs, "b", cmp.b.graph)
    versions = {cmp.a.mindspore_version, cmp.b.mindspore_version} - {None}
    return {
        "schema": SCHEMA_ID,
        "meta": {
            "title": f"{cmp.a.title} vs {cmp.b.title}",
            "mindspore_version": ", ".join(sorted(str(v) for v in versions)) or None,
            "device": None,
            "fusion": None,
            "source": "compare",
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        },
        "graphs": graphs,
        "views": {"main": key_a, "before": None, "after": None},
        "passes": [],
        "fusion": None,
        "memory": None,
        "compare": {
            "a": key_a,
            "b": key_b,
            "titles": [cmp.a.title, cmp.b.title],
            "matches": [m.to_dict() for m in cmp.alignment.matches],
            "added": list(cmp.alignment.added),
            "removed": list(cmp.alignment.removed),
            "summary": cmp.summary_dict(),
        },
    }
