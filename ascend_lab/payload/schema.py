"""The payload's identity: its schema id, MIME type and JSON Schema file."""

import json
import os
from functools import lru_cache
from typing import Any, Dict

SCHEMA_ID = "ascend-lab.graph/1"
MIME_TYPE = "application/vnd.ascend-lab.graph+json"
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph.schema.json")


@lru_cache(maxsize=1)
def load_schema() -> Dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return json.load(fh)
