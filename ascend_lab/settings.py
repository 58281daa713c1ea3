"""Every ``ASCEND_LAB_*`` environment variable in one registry (issue #25).

Each :class:`Setting` has its name, its default, its parser (``kind``), the parts of
ascend-lab that read it and a one-line doc in English and Chinese. ``scripts/settings_table.py``
writes the configuration tables of README.md and README_zh.md from :data:`SETTINGS`, and
``tests/lint/test_settings.py`` checks that every ``ASCEND_LAB_*`` name in the package is
registered here (or listed in :data:`NOT_SETTINGS`).

Reading never raises: a value that does not parse gives the default, and
:meth:`Setting.problem` says why (``get(name)`` / ``setting.value(environ)``). This module
imports nothing of the package, so every layer may import it (``.importlinter``).
"""

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

KINDS = ("int", "bytes", "number", "bool", "flag", "path", "choice", "str")
PARTS = (
    "status",
    "trace",
    "viewer server",
    "doctor",
    "profile",
    "report",
    "hub",
    "course",
    "tests-only",
    "all",
)

# Longest value looked at: anything longer is garbage (a megabyte string is refused at once,
# never scanned or converted). Paths may be long; numbers never are.
MAX_VALUE_CHARS = 4096
MAX_NUMBER_CHARS = 64

# digits with ``_`` separators, and for byte sizes a binary suffix (K, M, G, T; ``Ki``,
# ``KiB``, ``KB`` all mean 1024). Linear: no nested quantifiers.
_INT = re.compile(r"[0-9][0-9_]*")
_BYTES = re.compile(r"([0-9][0-9_]*)\s?([KMGTkmgt])?(i?[Bb])?")
_SUFFIX = {"k": 10, "m": 20, "g": 30, "t": 40}
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _short(text: str) -> str:
    """``text`` as shown in a problem message: repr, at most ~60 characters."""
    return repr(text[:60]) + ("..." if len(text) > 60 else "")


@dataclass(frozen=True)
class Setting:
    """One environment variable: what it is, how its text is parsed, who reads it.

    ``default`` is the parsed default (``None``: unset means "find out", said in
    ``default_en``/``default_zh``). ``minimum`` bounds numbers (``int``/``bytes``: at least
    it; ``number``: at least it, or above it when ``exclusive``). ``keep_empty``: an empty
    value is a value (else empty means unset).
    """

    name: str
    kind: str
    default: Any
    parts: Tuple[str, ...]
    doc_en: str
    doc_zh: str
    default_en: str = ""  # the default as the README shows it (else str(default))
    default_zh: str = ""
    choices: Tuple[str, ...] = ()
    minimum: Optional[float] = None
    exclusive: bool = False
    keep_empty: bool = False

    def raw(self, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
        """The text set in ``environ`` (default: this process's), ``None`` if unset."""
        env = os.environ if environ is None else environ
        return env.get(self.name)

    def parse(self, text: Optional[str]) -> Tuple[Any, str]:
        """``(value, problem)`` for ``text``: the default and ``""`` when unset (or empty,
        unless ``keep_empty``), the default and a sentence when ``text`` does not parse."""
        if text is None or (not text.strip() and not self.keep_empty):
            return self.default, ""
        if len(text) > MAX_VALUE_CHARS:
            return self.default, self._bad(text, f"longer than {MAX_VALUE_CHARS} characters")
        parsed = _PARSERS[self.kind](self, text)
        if isinstance(parsed, _Bad):
            return self.default, self._bad(text, parsed.why)
        return parsed, ""

    def value(self, environ: Optional[Mapping[str, str]] = None) -> Any:
        """The parsed value in ``environ``; the default when unset or not parseable."""
        return self.parse(self.raw(environ))[0]

    def problem(self, environ: Optional[Mapping[str, str]] = None) -> str:
        """Why the value in ``environ`` was not used (``""``: it was, or none was set)."""
        return self.parse(self.raw(environ))[1]

    def default_text(self, lang: str = "en") -> str:
        """The default as the README's table shows it."""
        text = self.default_zh if lang == "zh" and self.default_zh else self.default_en
        return text or str(self.default)

    def doc(self, lang: str = "en") -> str:
        return self.doc_zh if lang == "zh" else self.doc_en

    def _bad(self, text: str, why: str) -> str:
        return f"{self.name}={_short(text)}: {why}; used the default ({self.default_text()})"


class _Bad:
    """A parser's answer for text it refuses."""

    def __init__(self, why: str) -> None:
        self.why = why


def _below(setting: Setting, value: float) -> Optional[_Bad]:
    low = setting.minimum
    if low is None:
        return None
    if value < low or (setting.exclusive and value == low):
        word = "above" if setting.exclusive else "at least"
        return _Bad(f"expected a number {word} {low:g}")
    return None


def _parse_int(setting: Setting, text: str) -> Any:
    text = text.strip()
    if len(text) > MAX_NUMBER_CHARS or not _INT.fullmatch(text):
        return _Bad("expected a whole number (digits, `_` allowed)")
    value = int(text.replace("_", ""))
    return _below(setting, value) or value


def _parse_bytes(setting: Setting, text: str) -> Any:
    text = text.strip()
    match = _BYTES.fullmatch(text) if len(text) <= MAX_NUMBER_CHARS else None
    if match is None:
        return _Bad("expected a whole number of bytes (digits, `_` allowed; K/M/G/T suffix)")
    value = int(match.group(1).replace("_", ""))
    if match.group(2):
        value <<= _SUFFIX[match.group(2).lower()]
    elif match.group(3):  # "12B" / "12iB"
        if match.group(3).lower() != "b":
            return _Bad("expected a whole number of bytes (digits, `_` allowed; K/M/G/T suffix)")
    return _below(setting, value) or value


def _parse_number(setting: Setting, text: str) -> Any:
    text = text.strip()
    if len(text) > MAX_NUMBER_CHARS:
        return _Bad("expected a number")
    try:
        value = float(text)
    except ValueError:
        return _Bad("expected a number")
    if value != value or value in (float("inf"), float("-inf")):
        return _Bad("expected a finite number")
    return _below(setting, value) or value


def _parse_bool(setting: Setting, text: str) -> Any:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    return _Bad("expected 1/true/yes/on or 0/false/no/off")


def _parse_flag(setting: Setting, text: str) -> Any:
    return True  # any non-empty value turns it on


def _parse_path(setting: Setting, text: str) -> Any:
    if "\x00" in text:
        return _Bad("a path cannot hold a NUL character")
    return text


def _parse_choice(setting: Setting, text: str) -> Any:
    # a choice as it is, else the part before the first _ - . @ ("zh-CN.UTF-8" -> "zh")
    whole = text.strip().lower()
    for word in (whole, re.split(r"[_.@-]", whole, maxsplit=1)[0]):
        if word in setting.choices:
            return word
    return _Bad("expected one of " + ", ".join(setting.choices))


def _parse_str(setting: Setting, text: str) -> Any:
    return text


_PARSERS = {
    "int": _parse_int,
    "bytes": _parse_bytes,
    "number": _parse_number,
    "bool": _parse_bool,
    "flag": _parse_flag,
    "path": _parse_path,
    "choice": _parse_choice,
    "str": _parse_str,
}


def _settings(*items: Setting) -> Dict[str, Setting]:
    out: Dict[str, Setting] = {}
    for item in items:
        if item.name in out or item.kind not in KINDS or set(item.parts) - set(PARTS):
            raise AssertionError(f"bad or repeated setting {item.name}")
        out[item.name] = item
    return out


SETTINGS: Dict[str, Setting] = _settings(
    Setting(
        "ASCEND_LAB_ASCEND_ROOT",
        "path",
        None,
        ("status", "doctor", "report"),
        "Ascend install root (driver, firmware, CANN, `set_env.sh`); when set, only it "
        "(and `$ASCEND_HOME_PATH`) is searched; `--root` overrides",
        "昇腾安装根目录（驱动、固件、CANN、`set_env.sh`）；设置后只查找它（以及 "
        "`$ASCEND_HOME_PATH`）；`--root` 优先",
        default_en='found: see "Device status"',
        default_zh="自动查找",
    ),
    Setting(
        "ASCEND_LAB_NPU_SMI_TIMEOUT",
        "number",
        5.0,
        ("viewer server",),
        "seconds the server allows each `npu-smi` call",
        "服务器等待每次 `npu-smi` 调用的秒数",
        default_en="5",
        minimum=0,
    ),
    Setting(
        "ASCEND_LAB_CACHE_SECONDS",
        "number",
        2.0,
        ("viewer server",),
        "how long the server shares one status snapshot between clients (seconds)",
        "服务器在各客户端之间共用同一份状态快照的时间（秒）",
        default_en="2",
        minimum=0,
    ),
    Setting(
        "ASCEND_LAB_STATUS_KERNEL",
        "str",
        "mindspore",
        ("viewer server",),
        "the kernel whose environment the JupyterLab status describes (empty: the "
        "server's own Python)",
        "JupyterLab 状态栏所描述的内核环境（为空：服务器自己的 Python）",
        default_en="`mindspore`",
        keep_empty=True,
    ),
    Setting(
        "ASCEND_LAB_COURSE_DIR",
        "path",
        None,
        ("course", "viewer server"),
        "where `ascend-lab course` copies the course (and where the server finds it)",
        "`ascend-lab course` 复制课程的位置（服务器也从这里找课程）",
        default_en="`~/ascend-lab-course`",
    ),
    Setting(
        "ASCEND_LAB_KERNEL_PREFIX",
        "path",
        None,
        ("course",),
        "where `ascend-lab course` registers the kernel (`--prefix` overrides)",
        "`ascend-lab course` 注册内核的位置（`--prefix` 优先）",
        default_en="the active venv, else the user's folder",
        default_zh="当前虚拟环境，否则用户目录",
    ),
    Setting(
        "ASCEND_LAB_QUIET",
        "flag",
        False,
        ("trace",),
        "any non-empty value: no progress output from `trace()`",
        "任意非空值：`trace()` 不显示进度",
        default_en="unset",
        default_zh="未设置",
    ),
    Setting(
        "ASCEND_LAB_PROGRESS",
        "bool",
        None,
        ("trace",),
        "`1` forces the progress line of `trace()` on, `0` off (before `CI` and "
        "`ASCEND_LAB_QUIET`)",
        "`1` 强制显示 `trace()` 的进度行，`0` 强制关闭（优先于 `CI` 和 `ASCEND_LAB_QUIET`）",
        default_en="on in a notebook, off elsewhere",
        default_zh="Notebook 中显示，其他情况不显示",
    ),
    Setting(
        "ASCEND_LAB_LANG",
        "choice",
        None,
        ("all",),
        "language of messages and of the course edition (`zh` / `en`), before the locale",
        "消息和课程版本的语言（`zh` / `en`），优先于系统语言",
        default_en="from `LC_ALL` / `LC_MESSAGES` / `LANG`",
        default_zh="取自 `LC_ALL` / `LC_MESSAGES` / `LANG`",
        choices=("zh", "en"),
    ),
    Setting(
        "ASCEND_LAB_DOCTOR_MAX_MB",
        "number",
        20.0,
        ("doctor",),
        "MB of input (its tail) the doctor examines; `--max-mb` overrides",
        "诊断读取的输入量（末尾部分，MB）；`--max-mb` 优先",
        default_en="20",
        minimum=0.001,
    ),
    Setting(
        "ASCEND_LAB_DOCTOR_MAX_LINE_CHARS",
        "number",
        100_000.0,
        ("doctor",),
        "longest line the doctor examines in full (characters, at least 1000)",
        "诊断完整检查的最长行（字符数，至少 1000）",
        default_en="100000",
        minimum=1000,
    ),
    Setting(
        "ASCEND_LAB_IR_MAX_BYTES",
        "bytes",
        256 << 20,
        ("trace", "viewer server"),
        "largest `.ir` file the parser reads",
        "解析器读取的 `.ir` 文件的最大字节数",
        default_en="256 MiB",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_IR_MAX_LINE",
        "bytes",
        4 << 20,
        ("trace", "viewer server"),
        "longest `.ir` line the parser accepts (characters)",
        "解析器接受的 `.ir` 最长行（字符数）",
        default_en="4 Mi",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_MINDIR_MAX_BYTES",
        "bytes",
        (2 << 30) - 1,
        ("trace", "viewer server"),
        "largest `.mindir` the parser reads",
        "解析器读取的 `.mindir` 的最大字节数",
        default_en="2 GiB − 1",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_VIEW_MAX_BYTES",
        "bytes",
        1 << 30,
        ("viewer server",),
        "largest file (or dump folder's `.ir` files) the JupyterLab graph endpoint opens",
        "JupyterLab 图接口打开的最大文件（或 dump 文件夹中 `.ir` 文件的总量）",
        default_en="1 GiB",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_VIEW_MAX_GRAPH_BYTES",
        "bytes",
        16 << 20,
        ("viewer server",),
        "largest `.mindir` graph (without its weights) the endpoint parses",
        "该接口解析的 `.mindir` 图（不含权重）的最大字节数",
        default_en="16 MiB",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_VIEW_MAX_NODES",
        "int",
        250_000,
        ("viewer server",),
        "most nodes in one endpoint answer (edges: 4×)",
        "该接口一次应答的最多节点数（边：4 倍）",
        default_en="250000",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_VIEW_MAX_STATS_BYTES",
        "bytes",
        256 << 20,
        ("viewer server",),
        "largest weight whose statistics the endpoint computes",
        "该接口计算统计量的最大权重字节数",
        default_en="256 MiB",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_VIEW_TIMEOUT",
        "number",
        120.0,
        ("viewer server",),
        "seconds one file's parse may take in a viewer worker (then 504; a worker still "
        "busy a second later is ended and replaced)",
        "查看器工作进程解析一个文件可用的秒数（超时返回 504；再过一秒仍在运行的工作进程会被"
        "结束并替换）",
        default_en="120",
        minimum=0,
        exclusive=True,
    ),
    Setting(
        "ASCEND_LAB_VIEW_WORKERS",
        "int",
        2,
        ("viewer server",),
        "worker processes the server parses files in (started on first use; read once)",
        "服务器用于解析文件的工作进程数（首次使用时启动；只读取一次）",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_VIEW_WORKER_MEMORY",
        "bytes",
        1 << 30,
        ("viewer server",),
        "memory one viewer worker may use beyond its own start (address space; over it: 413)",
        "每个查看器工作进程在启动占用之外可用的内存（地址空间；超出返回 413）",
        default_en="1 GiB",
        minimum=1 << 20,
    ),
    Setting(
        "ASCEND_LAB_VIEW_WORKER_IDLE",
        "number",
        120.0,
        ("viewer server",),
        "seconds an idle viewer worker waits before it exits",
        "空闲的查看器工作进程退出前等待的秒数",
        default_en="120",
        minimum=0,
        exclusive=True,
    ),
    Setting(
        "ASCEND_LAB_MAX_ROWS",
        "int",
        None,
        ("profile", "viewer server"),
        "most rows one profiler table may hold (CSV, trace events, CPU launches, a database "
        "table); memory grows with it",
        "单个性能分析表（CSV、trace 事件、CPU 启动记录、数据库表）最多读取的行数；内存随之增长",
        default_en="10,000 + one per 24 bytes of the file, at most 2,000,000",
        default_zh="10,000 + 文件每 24 字节一行，最多 2,000,000",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_PROFILE_MAX_BYTES",
        "bytes",
        512 << 20,
        ("profile", "viewer server"),
        "largest profiler file `profile()` reads",
        "`profile()` 读取的性能分析文件的最大字节数",
        default_en="512 MiB",
        minimum=1,
    ),
    Setting(
        "ASCEND_LAB_HUB_PASSWORD",
        "str",
        "",
        ("hub",),
        "the learners' shared password of the trial hub (at least 8 characters; "
        "without it the hub does not start)",
        "试用 Hub 中学员共用的密码（至少 8 个字符；未设置时 Hub 不启动）",
        default_en="unset",
        default_zh="未设置",
    ),
    Setting(
        "ASCEND_LAB_HUB_INSTRUCTOR_PASSWORD",
        "str",
        "",
        ("hub",),
        "the trial hub's password of instructors and admins (at least 16 characters, not "
        "the learners')",
        "试用 Hub 中教师和管理员的密码（至少 16 个字符，不能与学员密码相同）",
        default_en="unset",
        default_zh="未设置",
    ),
)


def _hub_port(name: str, default: int, en: str, zh: str) -> Setting:
    return Setting(name, "int", default, ("hub",), en, zh, minimum=1)


def _tests_only(name: str, en: str, zh: str, default_en: str) -> Setting:
    return Setting(name, "path", None, ("tests-only",), en, zh, default_en=default_en)


# The trial hub's own settings (deploy/jupyterhub/jupyterhub_config.py reads them as
# "ASCEND_LAB_HUB_" + name), and the test suite's.
SETTINGS.update(
    _settings(
        Setting(
            "ASCEND_LAB_HUB_DIR",
            "path",
            "ascend-lab-hub",
            ("hub",),
            "the trial hub's state folder: seats, hub database, cookie secret, learners' homes",
            "试用 Hub 的状态文件夹：座位、Hub 数据库、cookie 密钥、学员的主目录",
            default_en="`./ascend-lab-hub`",
        ),
        Setting(
            "ASCEND_LAB_HUB_IP",
            "str",
            "127.0.0.1",
            ("hub",),
            "where the trial hub listens (a warning beyond this machine)",
            "试用 Hub 监听的地址（超出本机时给出警告）",
        ),
        _hub_port(
            "ASCEND_LAB_HUB_PORT", 8000, "the trial hub's public port", "试用 Hub 的公开端口"
        ),
        _hub_port(
            "ASCEND_LAB_HUB_API_PORT", 8081, "the hub's internal API port", "Hub 内部 API 端口"
        ),
        _hub_port(
            "ASCEND_LAB_HUB_PROXY_API_PORT",
            8001,
            "the hub proxy's internal API port",
            "Hub 代理的内部 API 端口",
        ),
        _hub_port(
            "ASCEND_LAB_HUB_SERVICE_PORT",
            10101,
            "the port of the hub's ascend-lab service (chip seats and status)",
            "Hub 的 ascend-lab 服务端口（芯片座位与状态）",
        ),
        Setting(
            "ASCEND_LAB_HUB_INSTRUCTORS",
            "str",
            "",
            ("hub",),
            "comma-separated instructor names (they see every chip and learner)",
            "以逗号分隔的教师用户名（可查看所有芯片和学员）",
            default_en="none",
            default_zh="无",
        ),
        Setting(
            "ASCEND_LAB_HUB_ADMINS",
            "str",
            "",
            ("hub",),
            "comma-separated hub admins (manage users and servers; see every chip)",
            "以逗号分隔的 Hub 管理员（管理用户和服务器；可查看所有芯片）",
            default_en="none",
            default_zh="无",
        ),
        Setting(
            "ASCEND_LAB_HUB_PER_CHIP",
            "int",
            2,
            ("hub",),
            "learners per chip",
            "每个芯片的学员数",
            minimum=1,
        ),
        Setting(
            "ASCEND_LAB_HUB_POLICY",
            "choice",
            "least-loaded",
            ("hub",),
            "how learners get chips: `least-loaded`, or `fixed` (`configure_hub(fixed_map=...)`)",
            "学员分配芯片的方式：`least-loaded`，或 `fixed`（`configure_hub(fixed_map=...)`）",
            default_en="`least-loaded`",
            choices=("least-loaded", "fixed"),
        ),
        Setting(
            "ASCEND_LAB_HUB_PROBE_INTERVAL",
            "number",
            5.0,
            ("hub",),
            "seconds between the hub service's `npu-smi` runs",
            "Hub 服务两次运行 `npu-smi` 之间的秒数",
            default_en="5",
            minimum=0,
            exclusive=True,
        ),
        _tests_only(
            "ASCEND_LAB_ARTIFACTS",
            "where the browser tests write their screenshots",
            "浏览器测试保存截图的位置",
            "`test-artifacts/`",
        ),
        Setting(
            "ASCEND_LAB_SWEEP_EVERY",
            "int",
            1,
            ("tests-only",),
            "of the tests marked `sweep` (one per row of a data table), run every N-th; the "
            "Python 3.8 leg sets 5",
            "标记为 `sweep` 的测试（每个数据表行一个）只运行每第 N 个；Python 3.8 测试设为 5",
            minimum=1,
        ),
        _tests_only(
            "ASCEND_LAB_WHEELHOUSE",
            "the wheels the Python 3.8 install test installs from",
            "Python 3.8 安装测试所用的 wheel 文件夹",
            "`.wheelhouse-py38/`",
        ),
        _tests_only(
            "ASCEND_LAB_PY38",
            "the Python 3.8 interpreter of the wheel install test",
            "wheel 安装测试所用的 Python 3.8 解释器",
            "`~/.pyenv/versions/3.8.18/bin/python3.8`",
        ),
    )
)

# ``ASCEND_LAB_*`` names in the package that are not settings: values ascend-lab writes for
# another of its own processes to read, and the prefix the support bundle collects.
NOT_SETTINGS: Dict[str, str] = {
    # report/machine.py: the prefix of the variables a support bundle records
    "ASCEND_LAB_": "a prefix, not a variable",
    # kernel/launcher.py writes these into the kernel it starts, for %ascend_status
    "ASCEND_LAB_SET_ENV": "the set_env.sh the kernel launcher sourced",
    "ASCEND_LAB_SET_ENV_ERROR": "why the kernel launcher could not source set_env.sh",
    "ASCEND_LAB_KERNEL_MODE": "the mode the kernel launcher started the kernel in",
    # hub/spawner.py writes these into each learner's server
    "ASCEND_LAB_CPU_REASON": "why the hub gave this server no NPU",
    "ASCEND_LAB_CHIP": "the chip the hub gave this server",
    "ASCEND_LAB_HUB_SERVICE_URL": "the hub service's URL, for the server extension",
    # deploy/jupyterhub/jupyterhub_config.py: the prefix of its settings
    "ASCEND_LAB_HUB_": "a prefix, not a variable",
    # tests/report/test_redact_by_value.py: a made-up variable in a set_env.sh it redacts
    "ASCEND_LAB_MIRROR": "a test's made-up secret, not read by ascend-lab",
    # tests/support/akg_watch.py: the pytest controller hands its workers one log per run
    "ASCEND_LAB_AKG_WATCH_LOG": "the test suite's AKG-server log, set per run by the suite",
}


def setting(name: str) -> Setting:
    """The registered setting ``name`` (KeyError if there is none)."""
    return SETTINGS[name]


def get(name: str, environ: Optional[Mapping[str, str]] = None) -> Any:
    """The value of setting ``name`` in ``environ`` (default: this process's environment);
    its default when unset or unparseable (:func:`problem` says why)."""
    return SETTINGS[name].value(environ)


def problem(name: str, environ: Optional[Mapping[str, str]] = None) -> str:
    """Why the value of ``name`` in ``environ`` is not used, ``""`` when it is (or unset)."""
    return SETTINGS[name].problem(environ)


def problems(environ: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """Every setting whose value in ``environ`` is not used, with why."""
    out = {}
    for name, item in SETTINGS.items():
        why = item.problem(environ)
        if why:
            out[name] = why
    return out
