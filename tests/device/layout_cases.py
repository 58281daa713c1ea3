"""Real CANN install layouts (``tests/fixtures/real/cann/layouts/``), as fake machines.

Each case folder holds files copied verbatim from a public source and a ``case.json`` that
says where the source is, how the machine was laid out (``tree``), the environment the
source shows (``env``), the root the user names (``root``) and what a right reading is
(``expect``). :func:`build` lays the tree out under a temporary folder, every absolute path
moved inside it, and :func:`read` runs :func:`ascend_lab.probes.ascend_install.discover` on
it with :class:`Locations` pointing into it: the code path a real machine takes.

Tree entries (``path: spec``):

- ``file:NAME``: the case's file NAME, as it is; a ``.cat-n`` file is a ``cat -n`` paste,
  written without its line numbers;
- ``text:...``: the given text (values a source quotes inline, written as lines);
- ``stand-in``: a set_env.sh that is not the real one (said in the file);
- ``dir``: an empty folder; ``link:TARGET``: a symlink (an absolute target is moved
  inside the machine too, so a dangling link stays dangling);
- ``listing:NAME``: the entries an ``ls -l`` / ``ll`` paste shows in that folder: links as
  links (their targets made as folders), folders as folders, files as empty files.

:func:`judge` compares a reading with ``expect`` field by field. The split into a dev half
and a held-out half is by the sha1 of the case's name (even: dev), fixed before anything
was measured.
"""

import hashlib
import json
import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.probes import ascend_install as install

LAYOUTS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "fixtures",
    "real",
    "cann",
    "layouts",
)
STAND_IN = "# stand-in set_env.sh, written by the test (the real script is not public)\n"
_CAT_N = re.compile(r"^ {0,8}\d{1,4}(?:\t|  )")
_LS_LINE = re.compile(r"^([dl-])[rwxst-]{9}\S*\s+\d+\s+\S+\s+\S+\s+\d+\s+(.*)$")


def names() -> List[str]:
    return sorted(n for n in os.listdir(LAYOUTS) if os.path.isfile(_case_json(n)))


def _case_json(name: str) -> str:
    return os.path.join(LAYOUTS, name, "case.json")


def load(name: str) -> Dict[str, Any]:
    with open(_case_json(name), encoding="utf-8") as f:
        case = json.load(f)
    case["name"] = name
    return case


def half(name: str) -> str:
    """``dev`` or ``held-out``: the parity of the sha1 of the case's name."""
    return "dev" if int(hashlib.sha1(name.encode()).hexdigest(), 16) % 2 == 0 else "held-out"


def _uncat(text: str) -> str:
    return "".join(_CAT_N.sub("", line, count=1) for line in text.splitlines(True))


def _read_case_file(name: str, file_name: str) -> str:
    with open(os.path.join(LAYOUTS, name, file_name), encoding="utf-8") as f:
        text = f.read()
    return _uncat(text) if file_name.endswith(".cat-n") else text


class Machine:
    """A machine's filesystem under ``base``."""

    def __init__(self, base: str):
        self.base = base

    def at(self, path: str) -> str:
        return self.base + path

    def write(self, path: str, text: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def link(self, path: str, target: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if target.startswith("/"):
            target = self.at(target)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)

    def listing(self, folder: str, text: str) -> None:
        os.makedirs(folder, exist_ok=True)
        for line in text.splitlines():
            m = _LS_LINE.match(line.strip())
            if not m:
                continue
            kind, rest = m.group(1), m.group(2)
            # the name is what follows the date and time (three fields)
            parts = rest.split(None, 3)
            if len(parts) < 4:
                continue
            entry = parts[3]
            if kind == "l":
                name, _, target = entry.partition(" -> ")
                name, target = name.strip().rstrip("/"), target.strip().rstrip("/")
                os.makedirs(os.path.normpath(os.path.join(folder, target)), exist_ok=True)
                self.link(os.path.join(folder, name), target)
            elif kind == "d":
                name = entry.strip().rstrip("/")
                if name not in (".", ".."):
                    os.makedirs(os.path.join(folder, name), exist_ok=True)
            else:  # ls -F marks executables with '*'
                path = os.path.join(folder, entry.strip().rstrip("*"))
                if not os.path.exists(path):
                    self.write(path, "")


def build(case: Dict[str, Any], base: str) -> Machine:
    machine = Machine(base)
    for path, spec in case["tree"].items():
        where = machine.at(path)
        kind, _, arg = spec.partition(":")
        if kind == "file":
            machine.write(where, _read_case_file(case["name"], arg))
        elif kind == "text":
            machine.write(where, arg)
        elif kind == "stand-in":
            machine.write(where, STAND_IN)
        elif kind == "dir":
            os.makedirs(where, exist_ok=True)
        elif kind == "link":
            machine.link(where, arg)
        elif kind == "listing":
            machine.listing(where, _read_case_file(case["name"], arg))
        else:
            raise ValueError(f"{case['name']}: unknown tree entry {spec!r}")
    return machine


def environ(case: Dict[str, Any], machine: Machine) -> Dict[str, str]:
    env = {"HOME": "/root", "PATH": "/usr/bin:/bin"}
    env.update(case.get("env") or {})
    out = {}
    for key, value in env.items():
        out[key] = machine.at(value) if value.startswith("/") and key != "PATH" else value
    os.makedirs(out["HOME"], exist_ok=True)
    return out


def read(case: Dict[str, Any], base: str) -> Tuple[Machine, Any]:
    """Lay the case out under ``base`` and read it as a real machine would be read."""
    machine = build(case, base)
    env = environ(case, machine)
    locations = install.Locations(
        cann_install_info=machine.at("/etc/Ascend/ascend_cann_install.info"),
        driver_install_info=machine.at("/etc/ascend_install.info"),
        default_root=machine.at("/usr/local/Ascend"),
        python_prefix=None,
    )
    root = machine.at(case["root"]) if case.get("root") else None
    return machine, install.discover(root, environ=env, locations=locations)


def _got(field: str, info: Any, machine: Machine) -> Any:
    if field == "cann":
        return info.cann
    if field == "arch":
        return getattr(info, "cann_arch", None)
    if field == "home":
        return os.path.realpath(info.toolkit_home) if info.toolkit_home else None
    if field == "latest":
        found = sorted({i.version for i in info.cann_installs if i.latest and i.version})
        return found[0] if len(found) == 1 else (found or None)
    if field == "installs":
        return sorted(i.version or "?" for i in info.cann_installs) or None
    if field in ("driver", "firmware", "ops"):
        return getattr(info, field)
    if field == "atb":
        return getattr(info, "atb", None)
    if field == "atb_matches":
        return getattr(info, "atb_matches", None)
    raise ValueError(field)


def _want(field: str, value: Any, machine: Machine) -> Any:
    if field == "home":
        return os.path.realpath(machine.at(value))
    if field == "installs":
        return sorted(value)
    return value


def judge(case: Dict[str, Any], info: Any, machine: Machine) -> Dict[str, Any]:
    """``{"outcome": right|wrong|refused|missing, "fields": {field: (want, got, ok)}}``.

    - right: every expected field read as expected (an expected ``cann: null`` is right only
      when no version is given and a problem says why);
    - wrong: some field holds another value than the source's;
    - refused: no wrong value, some field missing, and a problem says why;
    - missing: no wrong value, some field missing, and nothing says why.
    """
    fields: Dict[str, Tuple[Any, Any, Optional[bool]]] = {}
    wrong = missing = False
    reasons = [p for p in info.problems if p[0] in ("cann", "nnal")]
    for field, value in case["expect"].items():
        got = _got(field, info, machine)
        want = _want(field, value, machine) if value is not None else None
        if field == "cann" and value is None:
            ok: Optional[bool] = got is None and bool(reasons)
            if got is not None:
                wrong = True
            elif not ok:
                missing = True
        elif got is None:
            ok = None
            missing = True
        else:
            ok = got == want
            wrong = wrong or not ok
        fields[field] = (want, got, ok)
    if wrong:
        outcome = "wrong"
    elif missing:
        outcome = "refused" if reasons else "missing"
    else:
        outcome = "right"
    return {"outcome": outcome, "fields": fields, "reasons": [p[1] for p in reasons]}
