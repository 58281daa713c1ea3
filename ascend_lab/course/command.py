"""``ascend-lab course``: register the MindSpore kernel and open the course in JupyterLab.

Steps: say whether this is CPU mode or an NPU machine; register the kernel if Jupyter does
not have ours yet; find the notebooks (the repo's ``notebooks/`` in a source checkout, or
``<prefix>/share/ascend-lab/notebooks`` from a wheel); copy them once to the learner's own
folder (``--dir``, ``$ASCEND_LAB_COURSE_DIR``, else ``~/ascend-lab-course``), never
overwriting a learner's edits: a source checkout too, so that autosave and the learner's
answers never touch the repository's files (issue #41); then replace this process with
``python -m jupyterlab`` whose URL opens the first notebook of the learner's edition:
``--lang zh`` the Chinese one (``notebooks/zh``), ``--lang en`` the English one; without
``--lang``, ``$ASCEND_LAB_LANG``, then the locale (``LC_ALL`` / ``LC_MESSAGES`` / ``LANG``
zh_*). The server's root is the course folder, so both editions stay a click away. The
server culls idle kernels nobody is connected to, and closing a notebook's tab shuts its
kernel down (a MindSpore kernel holds ~0.5-0.7 GB; Binder gives 2 GB). ``--dry-run`` does
everything except starting JupyterLab and prints the command instead.
"""

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import sys
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab.course import files as course_files
from ascend_lab.course.files import SHARE_SUBDIR
from ascend_lab.exercises import language
from ascend_lab.i18n import edition_tag, msg
from ascend_lab.kernel import spec

PREFIX_ENV = "ASCEND_LAB_KERNEL_PREFIX"  # where to register the kernel (tests, unusual setups)
COURSE_DIR_ENV = "ASCEND_LAB_COURSE_DIR"
DEFAULT_COURSE_DIR = os.path.join("~", "ascend-lab-course")
EDITION_TAGS = (edition_tag(language.CHINESE), edition_tag(language.ENGLISH))  # --lang zh|en
_SKIP = frozenset([".ipynb_checkpoints", "__pycache__", ".git"])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dir",
        metavar="D",
        help=msg(
            "your own copy of the course (default: ${} or {}); made once, your edits there "
            "are kept",
            COURSE_DIR_ENV,
            DEFAULT_COURSE_DIR,
        ),
    )
    parser.add_argument(
        "--lang",
        choices=EDITION_TAGS,
        help="open the Chinese (zh, 中文版) or English (en) edition of the course (default: "
        "$ASCEND_LAB_LANG, else the locale: LC_ALL/LC_MESSAGES/LANG zh_* -> zh, else en)",
    )
    parser.add_argument("--port", type=int, metavar="P", help="JupyterLab port")
    parser.add_argument("--ip", metavar="ADDR", help="address JupyterLab listens on")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--kernel-name", default=spec.DEFAULT_NAME, help="kernel to use (default: %(default)s)"
    )
    parser.add_argument(
        "--prefix",
        metavar="P",
        help=msg(
            "register the kernel in P/share/jupyter/kernels (default: ${}, else this venv/conda "
            "env, else your user folder)",
            PREFIX_ENV,
        ),
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="register the kernel and prepare the folder, then print the JupyterLab command",
    )
    parser.add_argument(
        "jupyter_args",
        nargs="*",
        metavar="-- JUPYTER_ARGS",
        help="extra arguments for `jupyter lab`, after `--`",
    )


# -- finding and copying the notebooks ---------------------------------------------------


# (kept here by name: tests and ``main`` look them up on this module)
_package_parent = course_files.package_parent
_share_prefixes = course_files.share_prefixes


def find_notebooks(
    package_parent: Optional[str] = None, prefixes: Optional[List[str]] = None
) -> Optional[Tuple[str, str]]:
    """``(folder, "source" | "installed")`` for the course notebooks, or None if not found
    (:func:`ascend_lab.course.files.find_notebooks`, from this module's folders)."""
    return course_files.find_notebooks(
        _package_parent() if package_parent is None else package_parent,
        _share_prefixes() if prefixes is None else prefixes,
    )


def inside(path: str, folder: str) -> bool:
    """Is ``path`` the folder ``folder`` or somewhere under it (symlinks resolved)?"""
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def _walk(source: str) -> Any:
    """``os.walk`` that enters symlinked folders pointing inside ``source`` (the Chinese
    edition's ``zh/data`` -> ``../data``) but never one that would loop or leave it."""
    for dirpath, dirnames, filenames in os.walk(source, followlinks=True):
        kept = []
        for d in sorted(dirnames):
            path = os.path.join(dirpath, d)
            if d in _SKIP:
                continue
            if os.path.islink(path) and (
                not inside(path, source) or inside(dirpath, path)  # outside, or a loop
            ):
                continue
            kept.append(d)
        dirnames[:] = kept
        yield dirpath, dirnames, filenames


def copy_course(source: str, destination: str) -> List[str]:
    """Copy files that are not in ``destination`` yet; return the relative paths copied.

    Files already there (the learner's edited copies) are never overwritten, so running the
    command again after an upgrade only adds new notebooks. Symlinks (``zh/course_nets.py``,
    ``zh/data``) are copied as the files they point to. ``destination`` must not be inside
    ``source`` (the copy would be copied again on the next run).
    """
    if inside(destination, source):
        raise ValueError(f"{destination} is inside {source}")
    copied = []  # type: List[str]
    for dirpath, _dirnames, filenames in _walk(source):
        rel_dir = os.path.relpath(dirpath, source)
        target_dir = os.path.normpath(os.path.join(destination, rel_dir))
        os.makedirs(target_dir, exist_ok=True)
        for name in sorted(filenames):
            target = os.path.join(target_dir, name)
            origin = os.path.join(dirpath, name)
            if os.path.lexists(target) or not os.path.isfile(origin):  # kept, or dangling
                continue
            shutil.copyfile(origin, target)
            copied.append(os.path.normpath(os.path.join(rel_dir, name)))
    return copied


def first_notebook(folder: str) -> Optional[str]:
    """``00_*.ipynb`` in ``folder`` (the first by name), or None."""
    try:
        names = sorted(
            n for n in os.listdir(folder) if n.startswith("00_") and n.endswith(".ipynb")
        )
    except OSError:
        return None
    return os.path.join(folder, names[0]) if names else None


def edition_folder(folder: str, lang: str) -> Tuple[str, Optional[str]]:
    """``(folder of the edition, note or None)``: ``<course>/zh`` for "zh" when it holds the
    course, else the course folder itself (with a note saying the Chinese one is missing)."""
    if language.normalize(lang) != language.CHINESE:
        return folder, None
    zh = os.path.join(folder, language.ZH_FOLDER)
    if first_notebook(zh):
        return zh, None
    return folder, f"The Chinese edition is not in {zh}; opening the English one."


def choose_language(explicit: Optional[str]) -> str:
    """--lang, else $ASCEND_LAB_LANG, else the locale, else English."""
    return language.normalize(explicit) or language.from_environment()


# -- device mode ---------------------------------------------------------------------------


def device_mode() -> Tuple[str, str]:
    """``(mode, one friendly line)``; "cpu" whenever the probe is missing or fails."""
    from ascend_lab.probes.device import collect_status

    try:
        status = collect_status()
    except Exception as exc:  # noqa: BLE001 - the course must open even if probing breaks
        return "cpu", f"CPU mode (could not read the device status: {exc})."
    mode = str(getattr(status, "mode", "cpu") or "cpu")
    if mode == "ascend":
        summary = status.summary() if hasattr(status, "summary") else "NPU found"
        return mode, f"Ascend NPU mode: {summary}. Cells run on the NPU."
    reason = str(getattr(status, "reason", "") or "no NPU found")
    if mode == "gpu":
        return mode, f"GPU mode ({reason}). The course runs; NPU-only parts say so."
    return "cpu", (
        f"CPU mode ({reason}). Every notebook runs on CPU; the parts that need an NPU say so."
    )


# -- the kernel ----------------------------------------------------------------------------


def kernel_location(prefix: Optional[str]) -> Tuple[Dict[str, Any], bool]:
    """``(location, explicit)``: --prefix, else $ASCEND_LAB_KERNEL_PREFIX, else the default."""
    chosen = prefix or os.environ.get(PREFIX_ENV)
    if chosen:
        return {"user": False, "prefix": os.path.abspath(os.path.expanduser(chosen))}, True
    return spec.default_location(), False


def _python_exists(data: Optional[Dict[str, Any]]) -> bool:
    argv = (data or {}).get("argv") or [""]
    return os.path.isfile(str(argv[0]))


def ensure_kernel(
    name: str, location: Dict[str, Any], explicit: bool = True
) -> Tuple[str, Optional[str]]:
    """Register our kernel unless Jupyter already has a usable one of that name.

    With ``explicit`` (a prefix was given) only that place is looked at; otherwise the kernel
    Jupyter would pick, wherever it is. Our own kernel whose Python no longer exists (a
    deleted venv) is replaced. Returns ``(message, resource_dir or None)``; raises only
    :class:`spec.KernelSpecError` for an invalid name.
    """
    from ascend_lab.kernel.cli_install import install_from_args

    if explicit:
        existing = spec.find_installed(
            name, user=location["user"], prefix=location["prefix"], anywhere=False
        )
    else:
        existing = spec.find_installed(name)
    notes = []  # type: List[str]
    if existing:
        data = spec.read_kernel_json(existing)
        if spec.ours(data) is None:
            return (
                f"Kernel {name!r} in {existing} was not installed by ascend-lab; leaving it "
                f"alone (use --kernel-name to register ours under another name).",
                existing,
            )
        if _python_exists(data):
            return f"Kernel {name!r} is registered ({existing}).", existing
        allowed = (
            [spec.kernels_dir(user=location["user"], prefix=location["prefix"])]
            if explicit
            else spec.search_dirs()
        )
        try:
            spec.uninstall(existing, name, allowed)
            notes.append(f" (replaced {existing}: its Python no longer exists)")
        except spec.KernelSpecError as exc:
            notes.append(f" (could not remove the stale {existing}: {exc})")
    args = argparse.Namespace(
        name=name, set_env=None, cpu=False, device_id=None, display_name=None, force=False
    )
    try:
        destination = install_from_args(args, location, quiet=True)
    except spec.KernelSpecError as exc:
        if "invalid kernel name" in str(exc):
            raise
        return f"Could not register the kernel: {exc}", None
    data = spec.read_kernel_json(destination) or {}
    return (
        f"Registered kernel {name!r} ({data.get('display_name', '')}) in {destination}."
        + "".join(notes),
        destination,
    )


# -- JupyterLab ----------------------------------------------------------------------------


# The course's server: kernels nobody is connected to (their tab closed without shutting
# them down) are shut down after 10 idle minutes; every 2 minutes the server looks.
CULL_IDLE_SECONDS = 600
CULL_INTERVAL_SECONDS = 120
# JupyterLab settings for the course's server only (an ``overrides.d`` file in a settings
# folder of its own): closing a notebook's tab shuts its kernel down; the file browser
# gives the notebooks' names the room of its "Modified" column (they were cut off).
LAB_OVERRIDES = {
    "@jupyterlab/notebook-extension:tracker": {"kernelShutdown": True},
    "@jupyterlab/filebrowser-extension:browser": {"showLastModifiedColumn": False},
}
LAB_SETTINGS_SUBDIR = os.path.join("ascend-lab", "course-lab-settings")


def notebook_url(folder: str, notebook: Optional[str]) -> str:
    """The Lab URL path (below the server's base URL) that opens ``notebook``, a file under
    ``folder`` (the server's root); ``/lab`` without one."""
    if not notebook:
        return "/lab"
    from urllib.parse import quote

    rel = os.path.relpath(notebook, folder).replace(os.sep, "/")
    return "/lab/tree/" + quote(rel)


def lab_settings_dir(data_dir: Optional[str] = None) -> str:
    """Write the course's JupyterLab overrides into a settings folder of its own and return
    it. The settings files this environment's JupyterLab already has (``overrides.json``,
    ``page_config.json``, ``overrides.d/``) are copied in beside ours, so they still apply."""
    if data_dir is None:
        from jupyter_core.paths import jupyter_data_dir

        data_dir = jupyter_data_dir()
    folder = os.path.join(data_dir, LAB_SETTINGS_SUBDIR)
    overrides_d = os.path.join(folder, "overrides.d")
    os.makedirs(overrides_d, exist_ok=True)
    env_settings = os.path.join(sys.prefix, "share", "jupyter", "lab", "settings")
    for name in ("overrides.json", "overrides.json5", "page_config.json"):
        if os.path.isfile(os.path.join(env_settings, name)):
            shutil.copyfile(os.path.join(env_settings, name), os.path.join(folder, name))
    env_d = os.path.join(env_settings, "overrides.d")
    if os.path.isdir(env_d):
        for name in sorted(os.listdir(env_d)):
            if name.endswith((".json", ".json5")) and not name.startswith("zz-ascend-lab"):
                shutil.copyfile(os.path.join(env_d, name), os.path.join(overrides_d, name))
    with open(os.path.join(overrides_d, "zz-ascend-lab-course.json"), "w") as fh:
        json.dump(LAB_OVERRIDES, fh, indent=1)  # last by name: ours win
    return folder


def install_course_settings(prefix: str) -> List[str]:
    """Make every JupyterLab of the environment at ``prefix`` a course server: its kernels
    culled as ``ascend-lab course`` culls them (a server config file in
    ``etc/jupyter/jupyter_server_config.d``) and :data:`LAB_OVERRIDES` as JupyterLab's
    defaults (``share/jupyter/lab/settings/overrides.d``). For Binder (``binder/postBuild``),
    where repo2docker starts JupyterLab itself. Returns the files written."""
    server = {
        "MappingKernelManager": {
            "cull_idle_timeout": CULL_IDLE_SECONDS,
            "cull_interval": CULL_INTERVAL_SECONDS,
            "cull_connected": False,
        }
    }
    targets = [
        (os.path.join(prefix, "etc", "jupyter", "jupyter_server_config.d"), server),
        (os.path.join(prefix, "share", "jupyter", "lab", "settings", "overrides.d"), LAB_OVERRIDES),
    ]
    written = []
    for folder, data in targets:
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "ascend-lab-course.json")
        with open(path, "w") as fh:
            json.dump(data, fh, indent=1)
        written.append(path)
    return written


def jupyter_command(
    folder: str,
    notebook: Optional[str],
    kernel_name: str,
    port: Optional[int] = None,
    ip: Optional[str] = None,
    no_browser: bool = False,
    extra: Optional[List[str]] = None,
    settings_dir: Optional[str] = None,
) -> List[str]:
    """``python -m jupyterlab`` for the course in ``folder``: the printed URL (and the
    browser it opens) lands on ``notebook``; idle kernels nobody is connected to are culled;
    with ``settings_dir`` (:func:`lab_settings_dir`), closing a tab shuts its kernel."""
    extra = list(extra or [])
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={folder}",
        f"--LabApp.default_url={notebook_url(folder, notebook)}",
        f"--MappingKernelManager.default_kernel_name={kernel_name}",
        f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_SECONDS}",
        f"--MappingKernelManager.cull_interval={CULL_INTERVAL_SECONDS}",
        "--MappingKernelManager.cull_connected=False",
    ]
    if settings_dir:
        argv.append(f"--LabApp.app_settings_dir={settings_dir}")
    if port is not None:
        argv.append(f"--ServerApp.port={port}")
    if ip:
        argv.append(f"--ServerApp.ip={ip}")
    if no_browser:
        argv.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        argv.append("--allow-root")  # notebook containers on Ascend machines often run as root
    argv += extra
    return argv


def _jupyter_env(location: Dict[str, Any]) -> Dict[str, str]:
    """Extra variables so JupyterLab sees a kernel registered under a custom prefix."""
    prefix = location.get("prefix")
    if not prefix or prefix == sys.prefix:
        return {}
    share = os.path.join(prefix, "share", "jupyter")
    current = os.environ.get("JUPYTER_PATH", "")
    parts = [p for p in current.split(os.pathsep) if p]
    if share in parts:
        return {}
    return {"JUPYTER_PATH": os.pathsep.join([share] + parts)}


MISSING_MINDSPORE = (
    "MindSpore is not installed in this Python ({python}), so the course's code cells will "
    "fail. Install the CPU build with: {python} -m pip install 'ascend-lab[mindspore]'  "
    "(on an Ascend image, use the image's own MindSpore instead).\n"
)


def run(args: argparse.Namespace) -> int:
    _mode, line = device_mode()
    print(line)
    if importlib.util.find_spec("mindspore") is None:
        sys.stderr.write(MISSING_MINDSPORE.format(python=sys.executable))

    location, explicit = kernel_location(args.prefix)
    try:
        message, _ = ensure_kernel(args.kernel_name, location, explicit)
    except spec.KernelSpecError as exc:  # e.g. an invalid --kernel-name
        sys.stderr.write(f"ascend-lab course: error: {exc}\n")
        return 2
    print(message)

    found = find_notebooks()
    if found is None:
        looked = [os.path.join(_package_parent(), "notebooks")] + [
            os.path.join(p, SHARE_SUBDIR) for p in _share_prefixes()
        ]
        sys.stderr.write(
            "ascend-lab course: error: the course notebooks were not found (looked in {}). "
            "Reinstall ascend-lab, or run from a source checkout.\n".format(", ".join(looked))
        )
        return 1
    source, _kind = found  # a source checkout is copied too: autosave never touches it
    folder = os.path.abspath(
        os.path.expanduser(args.dir or os.environ.get(COURSE_DIR_ENV) or DEFAULT_COURSE_DIR)
    )
    if inside(folder, source):
        sys.stderr.write(
            f"ascend-lab course: error: the copy's folder {folder} is inside the course's "
            f"own folder {source}; copying there would nest one more copy on every run. "
            f"Choose a folder outside it with --dir (e.g. {DEFAULT_COURSE_DIR}).\n"
        )
        return 2
    try:
        copied = copy_course(source, folder)
    except OSError as exc:
        sys.stderr.write(f"ascend-lab course: error: cannot copy the course: {exc}\n")
        return 1
    if copied:
        print(f"Copied {len(copied)} course file(s) from {source} to {folder}.")
    print(f"Your copy of the course: {folder} (your edits there are kept; start with README.md).")

    lang = choose_language(getattr(args, "lang", None))
    edition, note = edition_folder(folder, lang)
    if note:
        sys.stderr.write(note + "\n")
    else:
        print("Edition: 中文版 (Chinese), " + edition if edition != folder else "Edition: English")
    notebook = first_notebook(edition)
    if notebook:
        print(f"The URL JupyterLab prints opens {os.path.relpath(notebook, folder)}.")
    try:
        settings_dir = lab_settings_dir()  # type: Optional[str]
    except OSError as exc:  # the course still opens, with JupyterLab's own settings
        sys.stderr.write(f"ascend-lab course: cannot write JupyterLab settings: {exc}\n")
        settings_dir = None
    command = jupyter_command(
        folder,
        notebook,
        args.kernel_name.lower(),
        port=args.port,
        ip=args.ip,
        no_browser=args.no_browser,
        extra=args.jupyter_args,
        settings_dir=settings_dir,
    )
    extra_env = _jupyter_env(location)
    if args.dry_run:
        print("Would run: " + " ".join(shlex.quote(a) for a in command))
        print("  in: " + shlex.quote(folder))
        for key, value in sorted(extra_env.items()):
            print(f"  with {key}={shlex.quote(value)}")
        return 0
    sys.stdout.flush()
    env = dict(os.environ)
    env.update(extra_env)
    os.chdir(folder)
    if os.name == "posix":
        os.execve(command[0], command, env)  # JupyterLab replaces this process (Ctrl-C works)
    import subprocess  # pragma: no cover - Windows has no real exec

    return subprocess.call(command, env=env)  # noqa: S603 - fixed argv, no shell
