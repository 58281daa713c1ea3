"""The ``ascend-lab.graph/1`` payload: the one JSON contract between Python and the viewer.

- :mod:`.schema`: the schema id, the MIME type and ``graph.schema.json``;
- :mod:`.build`: a Trace -> payload (:func:`build_payload`);
- :mod:`.validate`: :func:`check_payload` (what every view runs on what it is handed:
  structure and references, linear in the payload's size) and :func:`validate_payload`
  (that plus the full JSON Schema, with ``jsonschema``; used by the tests);
- :mod:`.view_input`: a Trace or a payload dict -> the checked payload a view shows.

Importing it is cheap (no MindSpore, no jsonschema).
"""

from ascend_lab.payload.build import add_graph, build_payload
from ascend_lab.payload.schema import MIME_TYPE, SCHEMA_ID, SCHEMA_PATH
from ascend_lab.payload.validate import PayloadError, check_payload, is_valid, validate_payload
from ascend_lab.payload.view_input import payload_for_view

__all__ = [
    "MIME_TYPE",
    "SCHEMA_ID",
    "SCHEMA_PATH",
    "PayloadError",
    "add_graph",
    "build_payload",
    "check_payload",
    "is_valid",
    "payload_for_view",
    "validate_payload",
]
