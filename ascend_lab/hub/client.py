"""For a learner's server: read the hub service's status instead of running npu-smi itself.

Under the hub, ``configure_hub`` gives every server ``ASCEND_LAB_HUB_SERVICE_URL`` (the
service's address inside the machine) and JupyterHub gives it ``JUPYTERHUB_API_TOKEN``,
whose ``server`` role may access the service. Anywhere else this answers ``None`` and the
server probes for itself. Blocking (urllib): call it from a worker thread.
"""

import json
import os
import urllib.error
import urllib.request
from typing import Any, Dict, Mapping, Optional, Tuple

from ascend_lab.hub.spawner import SERVICE_URL

# The service's answer for one learner is a few KiB; for an instructor, tens of KiB.
MAX_BYTES = 1024 * 1024


def fetch_hub_status(
    timeout: float = 5.0, environ: Optional[Mapping[str, str]] = None
) -> Tuple[Optional[Dict[str, Any]], str]:
    """``(the service's JSON for this server's user, "")`` or ``(None, why not)``."""
    env = os.environ if environ is None else environ
    url = env.get(SERVICE_URL, "")
    token = env.get("JUPYTERHUB_API_TOKEN", "")
    if not url:
        return None, f"{SERVICE_URL} is not set (not under the ascend-lab hub service)"
    if not url.startswith(("http://", "https://")):
        return None, f"{SERVICE_URL}={url[:200]!r} is not an http(s) URL"
    if not token:
        return None, "JUPYTERHUB_API_TOKEN is not set"
    request = urllib.request.Request(
        url.rstrip("/") + "/api/status", headers={"Authorization": "token " + token}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            raw = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as e:
        return None, f"the hub service answered HTTP {e.code}"
    except (urllib.error.URLError, OSError) as e:
        return None, f"the hub service did not answer: {getattr(e, 'reason', e)}"
    if len(raw) > MAX_BYTES:
        return None, f"the hub service answered more than {MAX_BYTES // 1024} KiB"
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, "the hub service answered something that is not JSON"
    if not isinstance(doc, dict) or "chips" not in doc:
        return None, "the hub service answered JSON without chips"
    return doc, ""
