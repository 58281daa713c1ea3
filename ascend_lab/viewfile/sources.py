"""A path -> the ``ascend-lab.graph/1`` payload the viewer draws, through one table of
source kinds (:data:`SOURCES`, tried in order; each row a class with ``match(path)`` and
``load(path)``). ``ascend-lab view``, the Jupyter server's file routes, the report and the
Model Explorer adapter all open paths through it:

- a report bundle (``ascend-lab report``'s archive or folder): handed to the CLI layer;
- a ``.mindir`` file (``ms.export``): its graph; weights show as parameters with shape and
  dtype;
- a ``.ir`` file (one pass of ``save_graphs``): that pass's graph, with a memory plan when
  it is a kernel graph;
- a ``.dat`` file (MindSpore 1.x IR text) the same way; an ``analyze_fail`` file opens on the
  graph where inference stopped, that node selected and its source line in a note;
- a dump folder (``save_graphs_path``, possibly with a ``rank_N`` folder inside): the whole
  compile pipeline, as ``ascend_lab.trace`` shows it;
- a profiler folder (the Ascend profiler's ``*_ascend_ms`` / ``*_ascend_pt`` folder, the
  folder holding one per rank, or MindSpore's CPU profiler output): the measured kernels,
  steps and memory, as ``ascend_lab.load_profile`` reads them (the page opens on Profile);
- a ``.txt`` file holding pasted IR text: read as a paste (the graph says it is partial);
- a saved payload (``.json`` with the ``ascend-lab.graph/1`` schema): shown as it is.

Every failure is a :class:`ViewFileError` whose message says what is wrong with which file.
Nothing here imports MindSpore.
"""

import datetime
import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ascend_lab._version import __version__
from ascend_lab.errors import AscendLabError
from ascend_lab.i18n import msg
from ascend_lab.model.graph import Graph
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.regular_file import NotARegularFile
from ascend_lab.payload import SCHEMA_ID, add_graph
from ascend_lab.payload.build import memory_section

MINDIR_SUFFIX = ".mindir"
IR_SUFFIX = ".ir"
DAT_SUFFIX = ".dat"  # MindSpore 1.x IR text (analyze_fail.dat)


class ViewFileError(AscendLabError):
    """A path that cannot be shown: missing, unreadable, corrupt or of an unknown kind."""


def payload_for_path(path: str, passes: str = "changed") -> Dict[str, Any]:
    """The payload for ``path`` (see the module doc); ``passes`` as in ``Trace.to_payload``."""
    source = view_source(path, passes)
    if isinstance(source, ReportBundleRef):
        raise ViewFileError(msg("{}: a report bundle is shown by `ascend-lab view`", path))
    return source if isinstance(source, dict) else source.to_payload(passes=passes)


def view_source(path: str, passes: str = "changed") -> Any:
    """What a page is drawn from: what the first row of :data:`SOURCES` that matches
    ``path`` loads. A file's payload; a dump folder's :class:`DumpFolderSource`, whose passes a
    standalone page packs one at a time as they are built (a 32-layer LLM's folder never has
    all its passes in memory); a report bundle's :class:`ReportBundleRef`."""
    path = os.fspath(path)
    try:
        return find_kind(path).load(path)
    except GraphParseError as exc:
        raise ViewFileError(str(exc)) from None
    except NotARegularFile as exc:  # a FIFO, device or socket: refused, never waited on
        raise ViewFileError(msg("{}: {}", path, exc.strerror)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ViewFileError(msg("{}: cannot read it ({})", path, exc)) from None


def find_kind(path: str) -> "SourceKind":
    """The first row of :data:`SOURCES` whose ``match`` takes ``path``; a
    :class:`ViewFileError` when the path is missing or no row takes it."""
    path = os.fspath(path)
    if not os.path.isdir(path) and not os.path.exists(path):
        raise ViewFileError(msg("{}: no such file or folder", path))
    for kind in SOURCES:
        if kind.match(path):
            return kind
    raise ViewFileError(
        msg("{}: not a .mindir file, a .ir file or a folder of MindSpore IR dumps", path)
    )


class SourceKind:
    """One kind of thing ``ascend-lab view`` opens: ``match(path)`` says whether ``path``
    is of this kind (by its name and, for a folder, what it holds: cheap, never parses),
    ``load(path)`` reads it into what the views draw. A new kind is one subclass and one
    row of :data:`SOURCES`; the CLI, the server and the report all go through the table."""

    name = "?"

    def match(self, path: str) -> bool:  # pragma: no cover - every row says
        raise NotImplementedError

    def load(self, path: str) -> Any:  # pragma: no cover - every row says
        raise NotImplementedError


class ReportBundle(SourceKind):
    """An ``ascend-lab report`` archive (or its extracted folder). The viewer never imports
    the support bundle (issue #25): loading gives a :class:`ReportBundleRef` that the CLI
    layer hands to ``report.view``."""

    name = "report-bundle"

    def match(self, path: str) -> bool:
        return looks_like_report_bundle(path)

    def load(self, path: str) -> "ReportBundleRef":
        return ReportBundleRef(path)


class ProfilerFolder(SourceKind):
    """A profiler folder with no IR dumps: the measured kernels, steps and memory."""

    name = "profile-folder"

    def match(self, path: str) -> bool:
        return os.path.isdir(path) and is_profiler_output(path)

    def load(self, path: str) -> Dict[str, Any]:
        return profile_folder_payload(path)


class DumpFolder(SourceKind):
    """A ``save_graphs_path`` folder (or the one holding its ``rank_N``): the pipeline."""

    name = "ir-dump-folder"

    def match(self, path: str) -> bool:
        return os.path.isdir(path)

    def load(self, path: str) -> "DumpFolderSource":
        return DumpFolderSource(_dump_folder_trace(path), path)


class BySuffix(SourceKind):
    """A file kind known by its name's ending (any case)."""

    suffix = ""

    def match(self, path: str) -> bool:
        return path.lower().endswith(self.suffix)


class MindirFile(BySuffix):
    """A ``.mindir`` export: its graph, weights as parameters (their bytes stay on disk)."""

    name = "mindir"
    suffix = MINDIR_SUFFIX

    def load(self, path: str) -> Dict[str, Any]:
        return _mindir_payload(path)


class IrFile(BySuffix):
    """One ``.ir`` pass dump (a kernel graph gets its memory plan; a text without the
    ``# IR entry`` header is read as pasted IR and says it is partial)."""

    name = "ir-file"
    suffix = IR_SUFFIX

    def load(self, path: str) -> Dict[str, Any]:
        return _ir_payload(path)


class DatFile(BySuffix):
    """MindSpore 1.x IR text (``analyze_fail.dat``, ``*_0013.dat``): drawn as an ``.ir``."""

    name = "ir-dat-file"
    suffix = DAT_SUFFIX

    def load(self, path: str) -> Dict[str, Any]:
        return _ir_payload(path)


class PastedIr(SourceKind):
    """IR text pasted into a ``.txt`` file (from a bug report or a tutorial): read as the
    ``.ir`` parser reads a paste. Only a text whose head has an IR node line matches."""

    name = "pasted-ir"

    def match(self, path: str) -> bool:
        if not path.lower().endswith(PASTED_SUFFIX) or not os.path.isfile(path):
            return False
        from ascend_lab.parsers.regular_file import open_regular

        try:
            with open_regular(os.path.realpath(path)) as f:
                head = f.read(PASTED_HEAD_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return False
        return _IR_LINE.search(head) is not None

    def load(self, path: str) -> Dict[str, Any]:
        payload = _ir_payload(path)
        payload["meta"]["source"] = "pasted-ir"
        return payload


class SavedPayload(SourceKind):
    """A payload saved as ``.json`` (``Trace.to_payload()`` written out, or a page's data)."""

    name = "saved-payload"

    def match(self, path: str) -> bool:
        return path.lower().endswith(".json") and os.path.isfile(path)

    def load(self, path: str) -> Dict[str, Any]:
        import json

        try:
            payload = json.loads(_read_regular_capped(path))
        except ValueError as exc:
            raise ViewFileError(msg("{}: not a saved payload ({})", path, exc)) from None
        if not isinstance(payload, dict) or payload.get("schema") != SCHEMA_ID:
            raise ViewFileError(msg("{}: not a saved payload ({})", path, SCHEMA_ID))
        return payload


class ReportBundleRef:
    """What loading a report bundle gives: its path, for the CLI layer's bundle viewer."""

    def __init__(self, path: str) -> None:
        self.path = path


def looks_like_report_bundle(path: str) -> bool:
    """An ``ascend-lab report`` archive (or its extracted folder), not a graph file."""
    if os.path.isdir(path):
        return os.path.isfile(os.path.join(path, "manifest.json")) and os.path.isfile(
            os.path.join(path, "MANIFEST.txt")
        )
    return path.endswith((".tar.gz", ".tgz"))


PASTED_SUFFIX = ".txt"
PASTED_HEAD_BYTES = 64 * 1024
# a node line (``%3(CNode_7) = Op(...)``) or a graph block: linear, no nested quantifiers
_IR_LINE = re.compile(r"(?m)^[ \t\d]*(?:%\d+(?:\([^)\n]*\))? = |subgraph @|funcgraph fg_)")

#: The kinds in the order they are tried: the first match wins (a bundle folder before a
#: profiler folder before a dump folder; file kinds by their names).
SOURCES: Tuple[SourceKind, ...] = (
    ReportBundle(),
    ProfilerFolder(),
    DumpFolder(),
    MindirFile(),
    IrFile(),
    DatFile(),
    PastedIr(),
    SavedPayload(),
)


def is_profiler_output(path: str) -> bool:
    """``path`` holds profiler output and no IR dumps (a dump folder wins: it has a graph)."""
    from ascend_lab.parsers.profiler.profiler_files import find_files
    from ascend_lab.profiling.layout import profiler_folders

    try:
        dump_folder(path)
        return False
    except (ViewFileError, OSError):
        pass
    if profiler_folders(path):
        return True
    found = find_files(path)
    return found.is_ascend or found.is_ascend_db or found.is_msprof_db or found.is_cpu


def profile_folder_payload(path: str, rank: Optional[int] = None) -> Dict[str, Any]:
    """The payload of a profiler folder: no graph (nothing was traced), a Profile section."""
    from ascend_lab.errors.profile import ProfileError
    from ascend_lab.profiling.api import load_profile

    name = os.path.basename(os.path.normpath(path)) or path
    try:
        profile = load_profile(path, net_name=name, rank=rank)
    except ProfileError as exc:
        raise ViewFileError(exc.args[0] if exc.args else str(exc)) from None
    payload = profile.to_payload()
    payload["meta"]["source"] = "profile-folder"
    payload["meta"]["generator"] = f"ascend-lab {__version__}"
    return payload


def single_graph_payload(graph: Graph, title: str, source: str, memory: bool) -> Dict[str, Any]:
    """A payload with one graph and no pass timeline."""
    graphs: Dict[str, Any] = {}
    key = add_graph(graphs, "main", graph)
    return {
        "schema": SCHEMA_ID,
        "meta": _meta(title, source, producer=graph.attrs.get("producer")),
        "graphs": graphs,
        "views": {"main": key, "before": None, "after": key},
        "passes": [],
        "fusion": None,
        "memory": memory_section(graph, key) if memory else None,
    }


def _meta(title: str, source: str, producer: Optional[str] = None) -> Dict[str, Any]:
    return {
        "title": title,
        "mindspore_version": producer,
        "device": None,
        "fusion": False,
        "source": source,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "generator": f"ascend-lab {__version__}",
    }


def _mindir_payload(path: str) -> Dict[str, Any]:
    from ascend_lab.parsers.mindir.mindir import parse_mindir
    from ascend_lab.parsers.mindir.mindir_skeleton import read_mindir_skeleton

    # the weights' bytes stay on disk: the graph needs only their shapes and dtypes
    try:
        model, weights, skipped = read_mindir_skeleton(path)
    except GraphParseError as exc:
        _say_what_the_file_is(path, exc)  # an encrypted export, a cut file
        raise
    graph = parse_mindir(model, path)
    for node in graph.nodes:
        if node.kind == "parameter" and "bytes" not in node.attrs and node.outputs:
            size = node.outputs[0].nbytes  # what the skipped data holds: dtype x shape
            if size is not None:
                node.attrs["bytes"] = str(size)
    graph.attrs["weights"] = f"{weights} tensors, {skipped:,} bytes of data not loaded"
    return single_graph_payload(graph, os.path.basename(path), "mindir", memory=False)


def _say_what_the_file_is(path: str, failed: GraphParseError) -> None:
    """Raise what a .mindir the skeleton could not read is, when its bytes show it: an
    encrypted export, or a cut (truncated) file (added to the skeleton's reason)."""
    from ascend_lab.parsers.mindir.mindir import check_mindir_head, check_not_truncated
    from ascend_lab.parsers.regular_file import open_regular

    try:
        with open_regular(path) as f:
            check_mindir_head(f.read(16), path)
            check_not_truncated(f, os.fstat(f.fileno()).st_size, path)
    except GraphParseError as exc:
        if exc.reason.startswith("encrypted"):
            raise
        raise GraphParseError(f"{failed.reason}; {exc.reason}", path, offset=exc.offset) from None
    except (OSError, ValueError):
        return


def _read_regular_capped(path: str) -> str:
    """The text of the user-named file ``path``, read only when it is a regular file (a
    FIFO named ``x.ir`` is refused at once, not waited on: issue #24) and within
    ``ASCEND_LAB_IR_MAX_BYTES``. A symlink is followed once, by ``realpath``."""
    from ascend_lab.parsers.ir.ir_text import read_ir_regular

    return read_ir_regular(path)


def _refuse_special_dumps(folder: str) -> None:
    """Every pass dump the timeline will read in ``folder``, and every ``actor_set/*.ir``,
    is a regular file: a FIFO or device among them is refused before any is read (it would
    block the reader)."""
    from ascend_lab.parsers.ir.timeline import list_dump_files
    from ascend_lab.parsers.regular_file import open_fd

    paths = [path for _counter, _name, path in list_dump_files(folder)]
    actors = os.path.join(folder, "actor_set")
    if os.path.isdir(actors):
        paths += [os.path.join(actors, n) for n in sorted(os.listdir(actors)) if n.endswith(".ir")]
    for path in paths:
        try:
            os.close(open_fd(os.path.realpath(path)))
        except NotARegularFile as exc:
            raise ViewFileError(msg("{}: {}", path, exc.strerror)) from None


def _ir_payload(path: str) -> Dict[str, Any]:
    from ascend_lab.parsers.ir.analyze_fail import failing_graph, failure_point
    from ascend_lab.parsers.ir.ir_paste import PARTIAL_ATTR
    from ascend_lab.parsers.ir.ir_text import is_kernel_graph_file, parse_ir_text

    graph = parse_ir_text(_read_regular_capped(path), path)
    kernel = is_kernel_graph_file(path)
    notes: List[str] = []
    point = failure_point(graph)
    select = None
    if point is not None:  # analyze_fail: draw the graph where inference stopped
        graph = failing_graph(graph, point)
        notes.append(failure_note(point))
        select = point.stop.node_id
    payload = single_graph_payload(graph, os.path.basename(path), "ir-file", memory=kernel)
    partial = graph.attrs.get(PARTIAL_ATTR)
    if partial:  # pasted text: a banner above the graph says it is partial
        notes.append(partial)
    notes.extend(reader_notes(graph))
    if notes:
        payload["meta"]["notes"] = notes
    if select is not None:
        payload["meta"]["select"] = select
    return payload


def failure_note(point: Any) -> str:
    """One line: where inference stopped, and the user's line that led there."""
    stop = point.stop
    text = msg(
        "Compile failure: inference stopped at {} ({}) in @{}", stop.node_id, stop.op, stop.graph
    )
    if stop.source:
        text = msg("{}, {}", text, _code_at(stop.source, stop.code))
    user = point.user
    if user is not None and user is not stop:
        text = msg("{}; your code: {}", text, _code_at(user.source, user.code))
    return text


def _code_at(source: Optional[str], code: str) -> str:
    return f"{source}: {code}" if code else str(source)


def reader_notes(graph: Graph) -> List[str]:
    """The reader's notes on an IR text (a graph printed twice, a cut file) and a count of
    the lines it did not read, with the first of them."""
    from ascend_lab.parsers.ir.ir_text import NOTES_ATTR, unread_lines

    notes = [n for n in graph.attrs.get(NOTES_ATTR, "").split("\n") if n]
    unread = unread_lines(graph)
    if unread:
        notes.append(
            msg(
                "{} lines not read (left out of the drawing), the first at line {}",
                len(unread),
                unread[0],
            )
        )
    return notes


def dump_folder(path: str) -> str:
    """The folder holding the ``.ir`` files: ``path`` itself or its one ``rank_N`` folder."""
    if _ir_names(path):
        return path
    ranks = sorted(
        name
        for name in os.listdir(path)
        if name.startswith("rank_") and os.path.isdir(os.path.join(path, name))
    )
    for rank in ranks:
        inner = os.path.join(path, rank)
        if _ir_names(inner):
            return inner
    raise ViewFileError(msg("{}: no MindSpore IR dumps (.ir files) in this folder", path))


def _ir_names(folder: str) -> List[str]:
    return [n for n in os.listdir(folder) if n.endswith(IR_SUFFIX)]


def _dump_folder_trace(path: str) -> Any:
    from ascend_lab.results.trace import Trace

    folder = dump_folder(path)
    _refuse_special_dumps(folder)
    name = os.path.basename(os.path.normpath(path)) or path
    try:
        return Trace.from_dump_folder(folder, name=name)
    except ValueError as exc:  # no kernel graph among the dumps
        raise ViewFileError(f"{path}: {exc}") from None


class DumpFolderSource:
    """A dump folder's Trace, as the views take it (``to_payload``, ``snapshot``, ``diff``);
    a dump that turns out unreadable while its pass is built is a :class:`ViewFileError`."""

    def __init__(self, trace: Any, path: str) -> None:
        self.trace = trace
        self.path = path

    def to_payload(
        self, passes: str = "changed", memory: bool = True, pass_sink: Any = None
    ) -> Dict[str, Any]:
        try:
            payload = self.trace.to_payload(passes=passes, memory=memory, pass_sink=pass_sink)
        except GraphParseError as exc:
            raise ViewFileError(str(exc)) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ViewFileError(msg("{}: cannot read it ({})", self.path, exc)) from None
        payload["meta"]["source"] = "ir-dump-folder"
        return payload

    def snapshot(self, index: int) -> Graph:
        return self.trace.snapshot(index)

    def diff(self, index: int) -> Any:
        return self.trace.diff(index)
