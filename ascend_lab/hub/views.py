"""What the status service answers: one probe snapshot, cut to what a hub user may see.

Pure functions (snapshot + seats + who asks -> JSON-ready dict). A learner sees their own
chip and only the processes that are theirs; an instructor (admin scope) sees every chip,
every seat and each process mapped to its learner.
"""

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

from ascend_lab.hub.allocator import Assignment
from ascend_lab.hub.owners import PidUser
from ascend_lab.parsers.npu_smi import NpuSmiInfo


@dataclass
class Snapshot:
    """One ``npu-smi info`` run, shared by every request until the next one."""

    info: Optional[NpuSmiInfo] = None  # None until the first probe, or when it failed
    reason: str = "not probed yet"  # why there is no info
    at: float = 0.0  # time.time() of the probe
    seconds: float = 0.0  # how long npu-smi took
    runs: int = 0  # probes so far
    interval: float = 0.0
    extra: Dict[str, Any] = field(default_factory=dict)


ADMIN_SCOPE = "custom:ascend-lab:admin"


def is_instructor(user_model: Dict[str, Any]) -> bool:
    """May this hub user (the model HubAuth returns) see every chip and learner?"""
    scopes = set(user_model.get("scopes") or [])
    return bool(user_model.get("admin")) or ADMIN_SCOPE in scopes or "admin:users" in scopes


def status_for(
    snapshot: Snapshot,
    seats: Dict[str, Assignment],
    user: str,
    admin: bool,
    pid_user: PidUser,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """The status ``user`` may see. ``pid_user`` tells whose a process is, if it can
    (``owners.process_owners``); a process it cannot place stays unknown (``user: None``)."""
    now = time.time() if now is None else now
    own_keys = [k for k in seats if k == user or k.startswith(user + "/")]
    own_chips = {seats[k].chip for k in own_keys if seats[k].chip is not None}
    learners_on: Dict[int, List[str]] = {}
    for key, seat in seats.items():
        if seat.chip is not None:
            learners_on.setdefault(seat.chip, []).append(key.split("/", 1)[0])
    out: Dict[str, Any] = {
        "user": user,
        "admin": admin,
        "probe": {
            "ok": snapshot.info is not None,
            "reason": snapshot.reason,
            "at": snapshot.at,
            "age_s": round(now - snapshot.at, 3) if snapshot.at else None,
            "npu_smi_seconds": round(snapshot.seconds, 3),
            "interval_s": snapshot.interval,
            "runs": snapshot.runs,
        },
        "seats": [
            {"server": k, **seats[k].to_dict()} for k in sorted(seats if admin else own_keys)
        ],
        "chips": [],
    }
    if snapshot.info is None:
        return out
    logical = {(c.npu, c.chip): i for i, c in enumerate(snapshot.info.chips)}
    processes: Dict[int, List[Dict[str, Any]]] = {}
    for p in snapshot.info.processes:
        chip_id = logical.get((p.npu, p.chip))
        if chip_id is None:
            continue
        # never guessed from the chip's seats: any learner can open any chip on one server
        owner = pid_user(p.pid)
        processes.setdefault(chip_id, []).append(dict(p.to_dict(), user=owner))
    for chip_id, chip in enumerate(snapshot.info.chips):
        if not admin and chip_id not in own_chips:
            continue
        row = dict(chip.to_dict(), id=chip_id)
        procs = processes.get(chip_id, [])
        if admin:
            row["learners"] = sorted(learners_on.get(chip_id, []))
            row["processes"] = procs
        else:
            row["processes"] = [p for p in procs if p["user"] == user]
            row["other_processes"] = len(procs) - len(row["processes"])
        out["chips"].append(row)
    return out


# A hub's /users answer for a class of 40 is tens of KiB; read no more than this of it.
MAX_USERS_BYTES = 4 * 1024 * 1024


def parse_hub_time(value: Any) -> Optional[float]:
    """``time.time()`` of a hub REST API timestamp (``2026-11-30T20:00:00.123456Z``)."""
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:  # the hub writes UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def last_activity_of(users: Any) -> Dict[str, Optional[float]]:
    """``{user: last activity}`` from the hub's ``GET /users`` answer (odd rows skipped)."""
    out: Dict[str, Optional[float]] = {}
    for row in users if isinstance(users, list) else []:
        if isinstance(row, dict) and isinstance(row.get("name"), str):
            out[row["name"]] = parse_hub_time(row.get("last_activity"))
    return out


def class_view(
    status: Dict[str, Any], activity: Dict[str, Optional[float]], now: float
) -> List[Dict[str, Any]]:
    """One row per learner's server, from an instructor's ``status_for``: its chip, the
    chip's HBM use, the learner's processes on it and seconds since the hub last saw them."""
    chips = {c["id"]: c for c in status.get("chips", [])}
    rows = []
    for seat in status.get("seats", []):
        user = seat["server"].split("/", 1)[0]
        chip = chips.get(seat.get("chip")) if seat.get("chip") is not None else None
        seen = activity.get(user)
        rows.append(
            {
                "user": user,
                "server": seat["server"],
                "chip": seat.get("chip"),
                "reason": seat.get("reason", ""),
                "hbm_used_mb": chip.get("hbm_used_mb") if chip else None,
                "hbm_total_mb": chip.get("hbm_total_mb") if chip else None,
                "processes": [
                    {k: p.get(k) for k in ("pid", "name", "memory_mb")}
                    for p in (chip.get("processes", []) if chip else [])
                    if p.get("user") == user
                ],
                "idle_s": None if seen is None else max(0.0, round(now - seen, 1)),
            }
        )
    return rows
