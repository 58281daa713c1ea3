"""``ascend_lab.model_explorer.show(trace)``: a trace (or a comparison, a numerics result, a
profile: anything with ``to_payload``, or a payload dict) in Model Explorer, from a notebook.

The payload is saved as ``.json`` in a private temporary folder and opened by Model
Explorer through this package's adapter (so it takes the same road as
``model-explorer --extensions=ascend_lab.model_explorer``: the source table's saved-payload
row), with every node data the payload has (:mod:`.node_data`). In Colab, Model Explorer
embeds itself (``visualize_from_config``); elsewhere its server runs in a background thread
on 127.0.0.1 and the notebook shows it in an ``IFrame``.
"""

import json
import os
import socket
import tempfile
import threading
import time
from typing import Any, Dict, Optional

__all__ = ["show", "model_explorer_config"]

START_TIMEOUT_S = 60.0


def _payload(obj: Any) -> Dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    to_payload = getattr(obj, "to_payload", None)
    if to_payload is None:
        raise TypeError(
            f"show() takes a trace, a result with to_payload() or a payload, not {obj!r}"
        )
    return to_payload()


def model_explorer_config(obj: Any, folder: Optional[str] = None) -> Any:
    """A ``model_explorer`` config with ``obj``'s payload as a model (through this
    package's adapter) and its node data; the files go into ``folder`` (a new private
    temporary folder by default)."""
    import model_explorer

    from ascend_lab.model_explorer import ADAPTER_ID
    from ascend_lab.model_explorer.node_data import node_data_for
    from ascend_lab.safe_write import atomic_write_bytes

    payload = _payload(obj)
    folder = folder or tempfile.mkdtemp(prefix="ascend-lab-model-explorer-")
    title = str((payload.get("meta") or {}).get("title") or "trace")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in title)[:80] or "trace"
    path = os.path.join(folder, safe + ".json")
    atomic_write_bytes(path, json.dumps(payload).encode("utf-8"))
    config = model_explorer.config().add_model_from_path(path, adapterId=ADAPTER_ID)
    for name, data in node_data_for(payload).items():
        config.add_node_data(name, json.dumps(data), model_name=os.path.basename(path))
    return config


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def show(obj: Any, port: Optional[int] = None, height: int = 800) -> Any:
    """Open ``obj`` in Model Explorer; in Jupyter, return an ``IFrame`` of it (the last
    expression of a cell shows it). The server runs until the kernel stops."""
    import model_explorer

    from ascend_lab.model_explorer import EXTENSION

    config = model_explorer_config(obj)
    if "google.colab" in __import__("sys").modules:  # Model Explorer's own embed
        model_explorer.visualize_from_config(config, extensions=[EXTENSION], colab_height=height)
        return None
    port = port or _free_port()
    url = f"http://127.0.0.1:{port}/?data={config.to_url_param_value()}"
    thread = threading.Thread(
        target=model_explorer.visualize_from_config,
        kwargs={
            "config": config,
            "host": "127.0.0.1",
            "port": port,
            "extensions": [EXTENSION],
            "no_open_in_browser": True,
        },
        daemon=True,
        name="ascend-lab-model-explorer",
    )
    thread.start()
    _wait_for(port)
    from IPython.display import IFrame

    return IFrame(url, width="100%", height=height)


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"Model Explorer did not start on 127.0.0.1:{port}")
