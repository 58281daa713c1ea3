"""Parse MindSpore's ``.ir`` text dumps into :class:`~ascend_lab.model.graph.Graph`.

A dump file (``00_bootstrap_0000.ir``, ``opt_pass_*``, ``hwopt_*``, ``graph_build_0_*.ir``,
``verbose_ir_files/graph_kernel/*``) looks like::

    # IR entry: @kernel_graph0
    # Total params: 7
    # Params:
    %para5_conv.weight: <Ref[Tensor[Float32]], (8, 3, 3, 3), ...>  :  has_default  :  ...
    Node counting information:
    Total number of nodes: 44
    Total number of cnodes: 16

    subgraph attr:
    info_name: Fused_BiasAdd_ReLU_fusion_978...
    # Parameters: 2, (<Tensor[Float32], (1, 84)>, <Tensor[Float32], (84)>)
    subgraph @seg_trans__anonymous__366(%para12_Parameter_368, %para13_Parameter_369) {
      %0(CNode_367) = PrimFunc_Add(%para12_Parameter_368, ...) cnode_attrs: {...}
          : (<in types>) -> (<out types>)              abstract dtype + shape
          : (<Float32xDefaultFormat[...]{1, 84}>) -> (...)   kernel select (device dtype x format)
          : (Tensor, Tensor) -> (Tensor)               kernel object types
          # Fullname with scope: (Default/fc2-Dense/expand_BiasAdd/Add-op0)
          # In file /path/net.py:12, 33~42/    return .../
      Return(%1)
          : (<Tensor[Float32], (1, 84)>)
    }
    # Order: ...

The parser is a line-based state machine with compiled regexes; it never imports MindSpore.

Choices:

- The entry graph (``# IR entry: @name``) is the returned Graph; every other ``subgraph``
  block (graph-kernel ``Fused_*`` kernels, frontend closures) goes into ``Graph.subgraphs``
  keyed by its name, with its ``subgraph attr:`` lines (``info_name``, ``graph_kernel``) in
  its ``attrs``.
- Parameters from ``# Params:`` open the entry graph: kind ``parameter`` for weights
  (``IsWeight: true`` / ``has_default`` / ``is_parameter``), ``input`` for graph inputs. A
  subgraph's own parameters (``subgraph @g(%para10_x, ...)``) are ``input`` nodes of it.
- Value inputs (``I64(0)``, ``Bool(0)``, ``UMonad[U]``, ``(1, 2)``, ``@graph``, ...)
  become **constant nodes** (kind ``constant``, op ``Constant``, the text in
  ``attrs["value"]``) with id ``<consumer id>#<slot>``, placed just before their consumer.
  Free variables of closures (``$(@outer:x)``, values of an enclosing graph) are made the
  same way but with kind ``input`` and op ``FreeVariable`` (``attrs["graph"]`` names the
  enclosing graph). So ``node.inputs[i]`` always lines up with ``node.input_types[i]`` and every
  input is a node id of the same graph.
- Attributes are text: ``{instance name: x}`` -> ``attrs["instance_name"]``,
  ``primitive_attrs`` entries under their own key, ``cnode_attrs`` entries as
  ``"cnode:<key>"``; kernel object types as ``attrs["object_types"]``; anything else
  unrecognised on a node line or continuation line is kept under ``"text"``/``"extra"``.
- ``Return(...)`` is a node with id ``return``. Op names drop the ``PrimFunc_`` prefix.
- Calls into subgraphs (``call @g(...)``, ``@g(...)``, ``%0[@@g](...)``,
  ``%0[@FuncUnion(@a, @b)](...)`` with all targets in ``attrs["callees"]``, ``Partial(@g,
  ...)``) are kind ``call`` with ``subgraph`` set (the first target); a call to a graph
  kernel takes the kernel name as op (``Fused_BiasAdd_ReLU_fusion``, from the callee's
  ``info_name`` without its hash) and keeps the full ``info_name`` in ``attrs``. Other
  calls have op ``call``.
- In kernel graphs (entry ``kernel_graph*``, files ``graph_build_*`` / ``hwopt_*kernel_graph*``)
  ``step`` is the execution index of each kernel in the entry graph.
- Sources are ``"path:line"`` (first line of a range), in printed order.

Lines of a kind this parser does not know inside a graph body are kept, with their line
numbers, in ``graph.attrs["unparsed"]``. Anything malformed (no ``# IR entry``, a node line
it cannot read, unbalanced brackets, a file that ends inside a graph) raises
:class:`~ascend_lab.parsers.errors.GraphParseError` with the file and line.

Hostile input: every regular expression here runs in linear time (no nested or adjacent
quantifiers over overlapping classes; the few shapes that would backtrack are scanned with
``str`` methods instead), text is accumulated in lists and joined once, counts read from the
file (``Float32*N``) are checked against what the line holds before anything is expanded,
and the file size and line length are capped (:mod:`ascend_lab.parsers.limits`).
"""

import hashlib
import os
import re
from dataclasses import replace
from sys import intern
from typing import Any, Dict, List, Optional, Set, Tuple, Union

from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.model.ops import fused_kernel_name
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.gc_pause import gc_paused
from ascend_lab.parsers.ir.ir_paste import (
    PARTIAL_ATTR,
    clean_pasted_ir,
    has_entry_header,
    strip_paste_marks,
)
from ascend_lab.parsers.ir.ir_values import (
    _device,
    _first_types,
    _has_device_type,
    _match_close,
    _parse_types_line,
    _small_int,
    _tail_attrs,
    _type_list,
    join_value_lines,
    parse_type,
    split_top,
    value_line_follows,
)
from ascend_lab.parsers.limits import (
    IR_MAX_BYTES_ENV,
    IR_MAX_LINE_ENV,
    limit,
    read_text_capped,
    too_large,
)

__all__ = [
    "parse_ir_text",
    "parse_ir_file",
    "read_ir_header",
    "is_kernel_graph_file",
    "UNREAD_ATTR",
    "NOTES_ATTR",
    "MARK_ATTR",
    "unread_lines",
]

# Graph.attrs keys of the returned graph. UNREAD_ATTR: the lines the reader did not
# understand and left out of the drawing, one ``"<line>: <why>: <text>"`` each (at most
# _UNREAD_MAX, then a count). NOTES_ATTR: what the reader chose on the way (a subgraph
# printed twice, a file that ends inside a graph), one a line. MARK_ATTR, on a node: the
# number of MindSpore's ``#------------------------> N`` line above it (analyze_fail.ir
# marks the node of each frame of the evaluation stack; the last is where it stopped).
UNREAD_ATTR = "unread_lines"
NOTES_ATTR = "reader_notes"
MARK_ATTR = "analyze_fail_mark"
_MARK_PREFIX = "#------------------------>"
_UNREAD_MAX = 1000
_UNREAD_TEXT_MAX = 300

_ENTRY_PREFIX = "# IR entry: @"
_OLD_ENTRY_RE = re.compile(r"^#IR entry +: @", re.M)
_SOURCE_CACHE_MAX = 100_000
_COUNT_RE = re.compile(r"Total number of (nodes|cnodes): (\d+)")
_TOTAL_RE = re.compile(r"# Total (subgraphs|params): (\d+)")
_PARAM_TYPE_RE = re.compile(r"<(.*?)>(?=\s+:\s|\s*$)")
# `(?<!\s)`: a run of spaces is tried once, from its start (else each start rescans the run).
_FIELD_SEP_RE = re.compile(r"^\s*:\s+|(?<!\s)\s+:\s+")
_PARAM_RE = re.compile(r"(%para\d+_[^:\s]*|%[^:\s]+): ?(.*)$")
# A parameter named with spaces, commas, brackets or colons (`Parameter(name="w (1), {x}: y")`):
# its name runs to the first `: <` (its type).
_PARAM_TYPED_RE = re.compile(r"(%para\d+_.*?): (<.*)$")
_ODD_NAME_RE = re.compile(r"[\s()\[\]{}\"',]")
_SUBGRAPH_PREFIX = "subgraph @"
# A block's return line: `  Return(%2)`; 1.11-2.0 `  Primitive::Return{prim_type=1}(%2)`;
# 1.2 `  return(%1)`.
_RETURNS = ("  Return(", "  Primitive::Return{", "  return(")
_PARENT_PREFIX = " parent: [subgraph @"
_SPACE_RE = re.compile(r"\s")
_NODE_RE = re.compile(r"  (%[^\s(=]+)(?:\(([^)]*)\))? = (.*)$")
_CALLEE_RE = re.compile(
    r"(?:call @(?P<call>[^\s(]+)|@(?P<direct>[^\s(]+)|(?P<ref>%[^\s(\[]+)(?:\[(?P<sw>[^\]]+)\])?"
    r"|(?P<prim>[^\s(%@]+))\("
)
# `Parameter_335[@@g](...)`: a call through a graph parameter printed by its name (a training
# step's frontend dumps). Rare: tried only when _CALLEE_RE finds no operator.
_PARAM_CALL_RE = re.compile(
    r"(?:call @(?P<call>[^\s(]+)|@(?P<direct>[^\s(]+)|(?P<ref>[^\s(\[%@]+)\[(?P<sw>[^\]]+)\]"
    r"|(?P<prim>[^\s(%@]+))\("
)
_GRAPH_REF_RE = re.compile(r"(?<!@)@+([^\s,()@\]]+)")
_FULLNAME_RE = re.compile(r"\s*# Fullname with scope: \((.*)\)\s*$")
_SCOPE_RE = re.compile(r"\s*# Scope: \((.*)\)\s*$")
_INFILE_RE = re.compile(r"\s*# In file ([^:]+):(\d+)")
_INFILE_SLOW_RE = re.compile(r"\s*# In file (.+?):(\d+)")
_PARAMETERS_RE = re.compile(r"# Parameters: (\d+), \((.*)\)\s*$")
_PARA_NUM_RE = re.compile(r"%para(\d+)_")

CALL_OPS = frozenset({"Partial"})


def is_kernel_graph_file(path: Optional[str], entry: str = "") -> bool:
    """True for kernel graphs, whose textual order is the execution order."""
    if path:
        base = path.replace(os.sep, "/").rpartition("/")[2]
        if base.endswith(".ir") and (
            base.startswith("graph_build_")
            or (base.startswith("hwopt_") and "kernel_graph" in base[6:])
        ):
            return True
    return entry.startswith("kernel_graph")


class _LineFinder:
    """The first of ``lines`` from a start that equals ``line`` (-1: none), found with
    ``list.index`` (C speed). Starts come in increasing order: a start at or before the
    last answer gets that answer again without a scan, so all the searches of one file
    read each line once at most."""

    def __init__(self, lines: List[str], line: str) -> None:
        self.lines = lines
        self.line = line
        self.last = -1  # the last answer's index (len(lines) when there was none)

    def find(self, start: int) -> int:
        if start > self.last:
            try:
                self.last = self.lines.index(self.line, start)
            except ValueError:
                self.last = len(self.lines)
        return self.last if self.last < len(self.lines) else -1


def _entry_name(line: str) -> Optional[str]:
    """``# IR entry: @name`` -> ``name`` (trailing spaces dropped)."""
    name = line[len(_ENTRY_PREFIX) :].rstrip()
    return name or None


def _loose_subgraph_header(line: str) -> Optional[Tuple[str, str]]:
    """A header :func:`_subgraph_header` does not read (a name with brackets or spaces, text
    after the arguments): the name up to its first ``(``, the arguments up to the last
    ``)``. None without a name or a ``(...)`` before the ``{``."""
    head = line.rstrip()
    if not head.endswith("{"):
        return None
    body = head[len(_SUBGRAPH_PREFIX) : -1]
    paren = body.find("(")
    close = body.rfind(")")
    if paren <= 0 or close < paren:
        return None
    name = body[:paren].strip()
    return (name, body[paren + 1 : close]) if name and " " not in name else None


def _multiline_header(lines: List[str], idx: int) -> Optional[Tuple[str, str, List[str], int]]:
    """A block's header over several lines, as MindSpore 1.11-2.0 print it in
    ``analyze_fail.ir``: ``subgraph @name(`` (a ``parent: [...]`` clause may come before the
    ``(``), one parameter a line (``, %para2_b : <Ref[Tensor(F32)], (4)>  :  has_default``),
    then ``) {``. -> (name, the ids joined by commas, their types without ``<>``, the index of
    the ``) {`` line); None when the lines are not one. Reads only the parameter lines."""
    head = lines[idx].rstrip()
    if not head.endswith("("):
        return None
    name = head[len(_SUBGRAPH_PREFIX) : -1].split(" ", 1)[0]
    if not name:
        return None
    ids: List[str] = []
    types: List[str] = []
    for j in range(idx + 1, len(lines)):
        text = lines[j].strip()
        if text.startswith(")"):
            return (name, ", ".join(ids), types, j) if text.endswith("{") else None
        if text.startswith(","):
            text = text[1:].lstrip()
        if not text.startswith("%"):
            return None
        pid, _, rest = text.partition(" : ")
        ptype = rest.split("  :  ", 1)[0].strip()
        ids.append(pid.strip())
        types.append(ptype[1:-1] if ptype.startswith("<") and ptype.endswith(">") else "")
    return None


def _shifted(line: str, shift: int) -> str:
    """``line`` of a block printed ``shift`` spaces deeper (or, below 0, shallower) than
    MindSpore prints it, at MindSpore's indent; a block's ``}`` stays as it is."""
    if shift > 0 and line.startswith(" " * shift):
        return line[shift:]
    if shift < 0 and line and line != "}":
        return " " * -shift + line
    return line


def _block_shift(lines: List[str], start: int) -> int:
    """How much deeper than the two spaces MindSpore prints a block's node lines are (a
    block pasted deeper into a page: ``    %0(x) = ...``; flush left, -2, when a paste lost
    its indent), read off its first line that is not blank or a comment; 0."""
    for line in lines[start : start + 8]:
        body = line.lstrip(" ")
        if not body or body.startswith("#"):  # a blank line, a comment or a mark
            continue
        depth = len(line) - len(body)
        if depth != 2 and (body.startswith("%") or body.startswith("Return(")):
            return depth - 2
        return 0
    return 0


def source_code(comment: str, start: int = 0) -> str:
    """``# In file x.py:18, 23~41/        c = f(a)/`` -> ``c = f(a)`` (the user's code MindSpore
    prints between slashes; 1.x prints ``x.py(18)/code/#name``); ``start``: just past the
    line number (the path has slashes too)."""
    first = comment.find("/", start)
    if first < 0:
        return ""
    code = comment[first + 1 :]
    end = code.rfind("/")
    return (code[:end] if end >= 0 else code).strip()[:_UNREAD_TEXT_MAX]


def _first_graph_name(text: str) -> Optional[str]:
    """The name of the first ``subgraph @name`` block at a line start, if any."""
    at = 0 if text.startswith(_SUBGRAPH_PREFIX) else text.find("\n" + _SUBGRAPH_PREFIX)
    if at < 0:
        return None
    end = text.find("\n", at + 1)
    line = text[at + 1 if at else 0 : end if end >= 0 else len(text)]
    header = _subgraph_header(line) or _loose_subgraph_header(line)
    if header is None and line.rstrip().endswith("("):  # a header over several lines
        header = (line[len(_SUBGRAPH_PREFIX) :].split("(", 1)[0].split(" ", 1)[0], "")
    return header[0] if header and header[0] else None


def unread_lines(graph: Graph) -> List[str]:
    """The lines of a parsed ``.ir`` the reader did not understand: the file-level ones
    (:data:`UNREAD_ATTR`) and the unknown lines kept inside each graph (``unparsed``)."""
    out: List[str] = []
    for g in [graph] + list(graph.subgraphs.values()):
        for key in (UNREAD_ATTR, "unparsed"):
            if g is not graph and key == UNREAD_ATTR:
                continue
            text = g.attrs.get(key)
            if text:
                out.extend(text.split("\n"))
    return out


def _subgraph_header(line: str) -> Optional[Tuple[str, str]]:
    """``subgraph @name[ parent: [subgraph @p]](args) {`` -> ``(name, args)``; None if not one.

    Scanned with str methods: as a regex (a lazy name before a greedy argument list) this
    took quadratic time on a line of brackets.
    """
    head = line.rstrip()
    if not head.startswith(_SUBGRAPH_PREFIX) or not head.endswith(") {"):
        return None
    body = head[len(_SUBGRAPH_PREFIX) : -3]
    if not body or body[0].isspace():
        return None
    # The name is the shortest run of non-spaces followed by `(` or by the parent clause.
    paren = body.find("(", 1)
    ws = _SPACE_RE.search(body)
    space = ws.start() if ws else -1
    if paren >= 0 and (space < 0 or paren < space):
        return body[:paren], body[paren + 1 :]
    if space > 0 and body.startswith(_PARENT_PREFIX, space):
        close = body.find("]", space + len(_PARENT_PREFIX))
        if close >= 0 and body.startswith("(", close + 1):
            return body[:space], body[close + 2 :]
    return None


# ---------------------------------------------------------------------------- parser


class _OpMatch:
    """What :data:`_CALLEE_RE` gives, for an operator printed with its attributes in
    brackets (``S_Prim_Cast[output_names: ["output"], SrcT: I32](%3, %7)``, MindSpore 2.2)."""

    def __init__(self, prim: str, end: int) -> None:
        self.prim = prim
        self._end = end

    def group(self, name: str) -> Optional[str]:
        return self.prim if name == "prim" else None

    def end(self) -> int:
        return self._end


def _bracketed_op(rest: str) -> Optional[_OpMatch]:
    """``Name[...](`` at the start of ``rest``, or ``Name[...]{...}(`` / ``Name{...}(``
    (attribute groups, each matched with its nesting and quotes, then the arguments); None
    if not one. Each character is looked at once."""
    starts = [i for i in (rest.find("["), rest.find("{")) if i > 0]
    if not starts:
        return None
    name_end = min(starts)
    if any(c in rest[:name_end] for c in " (%@"):
        return None
    at = name_end
    while rest.startswith("[", at) or rest.startswith("{", at):
        at = _match_close(rest, at)
        if at < 0:
            return None
    if not rest.startswith("(", at):
        return None
    return _OpMatch(rest[:name_end], at + 1)


def _strip_prim(op: str) -> str:
    """The operator's name: ``PrimFunc_Add`` -> ``Add``; as 1.x-2.0 print it,
    ``DoSignaturePrimitive::S-Prim-MatMul{prim_type=1}`` -> ``MatMul``."""
    if op == "return":  # 1.2 prints `  return(%1)`
        return "Return"
    if "::" in op:
        op = op.rpartition("::")[2].split("{", 1)[0] or op
        for prefix in ("S-Prim-", "S_Prim_"):
            if op.startswith(prefix) and len(op) > len(prefix):
                op = op[len(prefix) :]
    return op[9:] if op.startswith("PrimFunc_") else op


def _param_node(text: str, path: Optional[str], lineno: int) -> Node:
    m = _PARAM_RE.match(text)
    if not m or not m.group(2).startswith("<"):
        m = _PARAM_TYPED_RE.match(text) or m
    if not m:
        raise GraphParseError(f"cannot read parameter line {text[:80]!r}", path, lineno)
    pid, rest = m.group(1), m.group(2).strip()
    num = _PARA_NUM_RE.match(pid)
    name = pid[num.end() :] if num else pid[1:]
    outputs: List[TensorType] = []
    fields: List[str] = []
    m = _PARAM_TYPE_RE.match(rest)
    if m:
        type_text = m.group(1)
        outputs = parse_type(type_text)
        fields = [f for f in _FIELD_SEP_RE.split(rest[m.end() :]) if f]
    elif rest.startswith("<"):
        raise GraphParseError(f"unterminated parameter type in {text[:80]!r}", path, lineno)
    else:
        fields = [rest] if rest else []
        type_text = ""
    attrs: Dict[str, str] = {}
    extra: List[str] = []
    weight = "is_parameter" in type_text or "ref_key=" in type_text
    for f in fields:
        if f.startswith("IsWeight:"):
            attrs["is_weight"] = f.split(":", 1)[1].strip()
            weight = attrs["is_weight"] == "true"
        elif f == "has_default":
            attrs["has_default"] = "true"
            weight = True
        elif f.startswith("<") and f.endswith(">"):
            dev = _device(f[1:-1])
            if dev and len(outputs) == 1:
                outputs = [replace(outputs[0], device_dtype=dev[0], format=dev[1])]
            attrs["device_type"] = f[1:-1]
        elif f.startswith("[") and f.endswith("]"):
            attrs["runtime_shape"] = f
        else:
            extra.append(f)
    if extra:
        attrs["extra"] = " : ".join(extra).strip(" :")
    if type_text:
        attrs["type"] = type_text
    return Node(
        id=pid,
        op="Parameter",
        kind="parameter" if weight else "input",
        name=name,
        outputs=outputs,
        attrs=attrs,
    )


class BlockMemo:
    """Parsed subgraph blocks of recent dumps, by their exact text, for reuse.

    Consecutive passes of one compile print mostly the same blocks: a 32-layer net's
    frontend dumps hold 3,190 closures each, and a pass rewrites a few. A block (from its
    ``subgraph attr:`` line to its closing ``}``) whose text is identical to one parsed in
    one of the last :attr:`GENERATIONS` parses is not parsed again: its nodes are shared.
    That is safe because nothing changes a node once its parse is finished, and a reused
    block whose calls resolve differently in the new dump (a callee's ``info_name``) is
    parsed afresh. The entry graph, and blocks with unparsed lines (which carry their line
    numbers), are never reused.
    """

    GENERATIONS = 3

    def __init__(self) -> None:
        # block digest -> its parsed graph, one dict per parse, newest last (digests, not
        # texts, are kept: a 32-layer net's frontend dump is 11 MB of blocks)
        self._generations: List[Dict[bytes, Graph]] = []
        self.hits = 0  # blocks reused, over this memo's life
        self.misses = 0

    @staticmethod
    def key(block: str) -> bytes:
        """The key of a block's text (128-bit BLAKE2b)."""
        return hashlib.blake2b(block.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def get(self, key: bytes) -> Optional[Graph]:
        for generation in reversed(self._generations):
            found = generation.get(key)
            if found is not None:
                return found
        return None

    def start(self) -> Dict[bytes, Graph]:
        """A new generation for one parse; only the GENERATIONS before it are kept."""
        current: Dict[bytes, Graph] = {}
        self._generations.append(current)
        del self._generations[: -(self.GENERATIONS + 1)]
        return current


class _IRParser:
    def __init__(self, text: str, path: Optional[str], memo: Optional[BlockMemo] = None) -> None:
        self.text = text
        self.path = path
        self.memo = memo
        self._shared: Dict[int, str] = {}  # id(reused graph) -> its block text
        self.lineno = 0
        # Text gathered line by line, joined once at the end (`+=` made it quadratic).
        self._extras: Dict[int, Tuple[Node, List[str]]] = {}
        # Node ids each graph holds: an id printed twice (a corrupted dump) is an error,
        # not two nodes that edges cannot tell apart.
        self._ids: Dict[int, Set[str]] = {}
        # Parameters whose names hold spaces, commas or brackets, which MindSpore prints as
        # they are in the arguments of the nodes that read them: a stand-in without them
        # is put in their place before the arguments are split (stand-in -> real id).
        self._odd_ids: Dict[str, str] = {}
        # Lines not understood (kept as text, flagged, left out of the drawing) and what
        # the reader chose: see UNREAD_ATTR / NOTES_ATTR.
        self._unread: List[str] = []
        self._unread_more = 0
        self._first_unread: Optional[Tuple[int, str]] = None
        self._notes: List[str] = []

    def _skip(self, why: str, text: str, line: Optional[int] = None) -> None:
        """Flag one line the reader does not understand: kept as text, not drawn."""
        lineno = line if line is not None else self.lineno
        if self._first_unread is None:
            self._first_unread = (lineno, why)
        if len(self._unread) >= _UNREAD_MAX:
            self._unread_more += 1
            return
        text = text.strip()
        if len(text) > _UNREAD_TEXT_MAX:
            text = text[:_UNREAD_TEXT_MAX] + f"... ({len(text):,} characters)"
        self._unread.append(f"{lineno}: {why}: {text}")

    def error(self, message: str, line: Optional[int] = None) -> GraphParseError:
        return GraphParseError(message, self.path, line if line is not None else self.lineno)

    def parse(self) -> Graph:
        # Read first: a bad setting is the caller's ValueError, not a malformed file.
        self.max_bytes = limit(IR_MAX_BYTES_ENV)
        self.max_line = limit(IR_MAX_LINE_ENV)
        try:
            return self._parse()
        except GraphParseError:
            raise
        except (ValueError, IndexError, KeyError, AttributeError, TypeError) as exc:
            raise self.error(f"malformed IR ({type(exc).__name__}: {exc})") from exc
        except (MemoryError, RecursionError) as exc:
            raise self.error(
                f"input too large or too deeply nested ({type(exc).__name__})"
            ) from None

    # ------------------------------------------------------------------ the file, by grammar
    #
    # A dump is a header (``# IR entry``, ``# Attrs:``, ``# Params:``, counts, settings
    # blocks), then blocks, each with a preamble (``subgraph attr:``, ``# Parameters:``,
    # ``# In file``), a ``subgraph @name(...) {`` line, node lines with their indented
    # continuation lines, and ``}``. _parse walks the lines once and hands each to the part
    # of the grammar it belongs to: between blocks _comment_line, _open_block and
    # _header_line (``# Params:`` _param_line, ``subgraph attr:`` _subgraph_attr, settings
    # _setting_line); in a block a node line to _node / _read_node (``Return`` through
    # _return_line), its continuation lines to _types and _continuation, ``}`` to
    # _close_block, anything else to _unparsed_line; after the last line _assemble makes the
    # Graph. The walk keeps the block's state in locals and reads the commonest lines (a
    # call-stack line seen before, a types line, a node line) without a call of its own:
    # they are most of a big dump's lines (benchmarks/bench_parse.py).

    def _lines(self) -> List[str]:
        """The file's lines (size capped; Windows line ends undone)."""
        text = self.text
        if len(text) > self.max_bytes:
            raise too_large("the text", len(text), "characters", IR_MAX_BYTES_ENV, self.path)
        if "\r" in text:  # a dump that went through Windows
            text = text.replace("\r\n", "\n")
        return text.split("\n")

    def _parse(self) -> Graph:
        lines = self._lines()
        # the file's state, which the grammar's parts share
        self._entry: Optional[str] = None
        self._file_attrs: Dict[str, str] = {}
        self._params: List[Node] = []
        self._param_ids: Set[str] = set()
        self._blocks: Dict[str, Graph] = {}
        self._order: List[str] = []
        self._spans: Dict[str, Tuple[int, int]] = {}  # block name -> (header, "}") indexes
        self._section = ""  # "attrs", "params", "subgraph_attr", "block:<name>"
        self._pending_attrs: Dict[str, str] = {}  # a block's preamble, for its header
        self._pending_param_types: List[str] = []
        self._pending_source: List[str] = []
        self._header_extra: List[str] = []
        self._unparsed: Dict[int, Tuple[Graph, List[str]]] = {}
        self._current: Dict[bytes, Graph] = self.memo.start() if self.memo is not None else {}
        self._block_end = _LineFinder(lines, "}")  # where a block that opens at a line ends
        # (key, "}" index, state) of the block being read, to remember it in the memo
        self._chunk: Optional[Tuple[bytes, int, Tuple[int, ...]]] = None
        self._skip_to = 0  # lines of a reused or repeated block are not read (to here)
        self._skipping: Optional[int] = None  # a block that is not drawn (its header)
        # "# In file" line -> its "file:line": each node repeats its whole call stack, so
        # a 32-layer net prints the same few hundred lines some 100,000 times.
        source_of: Dict[str, str] = {}
        self._source_of = source_of

        max_line = self.max_line
        node_re = _NODE_RE.match
        graph: Optional[Graph] = None  # the block being read
        node: Optional[Node] = None  # the node its continuation lines describe
        type_lines = 0
        block_start = 0
        skip_to = 0
        skipping: Optional[int] = None  # index of a header whose block is not drawn
        dropping = False  # continuation lines of a node that was not read are dropped
        mark: Optional[int] = None  # a `#------------------------> N` line before a node
        marks: List[Tuple[int, str, str]] = []  # (N, graph, node id) of each marked node
        marked: Optional[Node] = None  # the last marked node (its source code is kept)
        shift = 0  # indent the block's lines have beyond the usual two spaces (or below)

        for idx, line in enumerate(lines):
            if idx < skip_to:
                continue
            self.lineno = idx + 1
            if len(line) > max_line:
                self._skip(f"a line of {len(line):,} characters (over {IR_MAX_LINE_ENV})", line)
                node = None
                dropping = True
                continue
            if skipping is not None:  # inside a block the reader does not draw
                if line.rstrip() == "}":
                    skipping = None
                continue
            if graph is None:
                # Between blocks: one call for each line (a fifth of a dump's lines are
                # blocks' preambles)
                if not line:
                    if self._section in ("attrs", "params"):
                        self._section = ""
                elif line[0] == "#":
                    self._comment_line(line)
                elif line.startswith(_SUBGRAPH_PREFIX):
                    graph = self._open_block(lines, idx, line)
                    skip_to = self._skip_to
                    if self._skipping is not None:
                        skipping, self._skipping = self._skipping, None
                    if graph is not None:
                        block_start = self.lineno
                        node = None
                        dropping = False
                        mark = None
                        shift = _block_shift(lines, max(idx + 1, skip_to))
                else:
                    self._header_line(lines, idx, line)
                    skip_to = self._skip_to
                continue
            # Inside `subgraph @name(...) { ... }`.
            if shift:  # a block printed deeper (docs' pages) or flush left (a paste)
                line = _shifted(line, shift)
            if line.startswith("      "):
                if node is None:
                    if not dropping:  # the lines of a node that was not read go with it
                        self._skip("continuation line outside a node", line)
                    continue
                known = source_of.get(line)
                if known is not None and node is marked and "code" not in node.attrs:
                    known = None  # the marked node's own line: its code is kept
                if known is not None:  # most lines: a call-stack line seen before
                    node.source.append(known)
                    continue
                stripped = line.lstrip()
                if stripped.startswith(": "):  # the next commonest: a types line
                    self._types(node, stripped[2:], type_lines)
                    type_lines += 1
                elif stripped.startswith(":("):  # 1.11-2.0 print it without the space
                    self._types(node, stripped[1:], type_lines)
                    type_lines += 1
                else:
                    self._continuation(node, line, stripped, node is marked)
                continue
            if line.startswith("  %"):
                if idx + 1 < len(lines) and value_line_follows(_shifted(lines[idx + 1], shift)):
                    # a tensor constant printed over the lines below (numpy's layout)
                    line, skip_to = join_value_lines(lines, idx, max_line)
                    line = _shifted(line, shift)
                m = node_re(line)
                node = (
                    self._read_node(graph, m.group(1), m.group(2), m.group(3), line)
                    if m
                    else self._node_not_read(line)
                )
                dropping = True
                if node is not None and mark is not None:
                    marked = self._mark(node, graph, mark, marks)
                    mark = None
                type_lines = 0
                continue
            if line.startswith(_RETURNS):
                node, skip_to = self._return_line(graph, lines, idx, line, skip_to, shift)
                dropping = True
                if node is not None and mark is not None:
                    marked = self._mark(node, graph, mark, marks)
                    mark = None
                type_lines = 0
                continue
            if line.startswith(_MARK_PREFIX):
                # analyze_fail.ir: the next node is where this frame's inference was
                mark = _small_int(line[len(_MARK_PREFIX) :])
                node = None
                continue
            if line == "}" or line.rstrip() == "}":
                self._close_block(graph, idx)
                mark = None
                graph = None
                node = None
                continue
            if not line.strip():
                continue
            if line.lstrip().startswith("#"):  # a comment of its own in a block (docs' pages)
                continue
            self._unparsed_line(graph, line)
            node = None
            dropping = True

        return self._assemble(lines, graph, block_start, marks)

    # ------------------------------------------------------------------ a block's lines

    def _node_not_read(self, line: str) -> Optional[Node]:
        """A node line (``  %3(CNode_5) = Conv2D(...)``) that does not read as one: no node."""
        self._skip("node line not read", line)
        return None

    def _return_line(
        self, graph: Graph, lines: List[str], idx: int, line: str, skip_to: int, shift: int
    ) -> Tuple[Optional[Node], int]:
        """``  Return(...)``: its node (None when not read), and the line to read next from
        (past a tensor constant printed over the lines below it, which is joined in).
        ``shift``: the block's extra indent (see :func:`_block_shift`)."""
        if idx + 1 < len(lines) and value_line_follows(_shifted(lines[idx + 1], shift)):
            line, skip_to = join_value_lines(lines, idx, self.max_line)
            line = _shifted(line, shift)
        return self._read_node(graph, "return", None, line[2:], line), skip_to

    def _continuation(self, node: Node, line: str, stripped: str, is_marked: bool) -> None:
        """A continuation line of ``node`` (``stripped`` of its indent) other than a types
        line or a call-stack line seen before: a new call-stack line (``# In file``), its
        scope, a side effect, or extra text."""
        if stripped.startswith("# In file "):
            m = _INFILE_RE.match(stripped) or _INFILE_SLOW_RE.match(stripped)
            if m and is_marked and "code" not in node.attrs:
                node.attrs["code"] = source_code(stripped, m.end())
            if m:
                known = intern(f"{m.group(1)}:{m.group(2)}")
                node.source.append(known)
                if len(self._source_of) < _SOURCE_CACHE_MAX:
                    self._source_of[line] = known
            else:
                self._extra(node, stripped)
        elif stripped.startswith("# Fullname with scope: "):
            m = _FULLNAME_RE.match(stripped)
            if not m:
                self._skip("unterminated 'Fullname with scope' line", line)
                return
            name = m.group(1)
            node.name = name
            slash = name.rfind("/")
            node.scope = intern(name[:slash]) if slash > 0 else None
        elif stripped.startswith("# Scope: "):
            m = _SCOPE_RE.match(stripped)
            if not m:
                self._skip("unterminated 'Scope' line", line)
                return
            node.scope = m.group(1)
        elif stripped.startswith("# SideEffect: "):
            node.attrs["side_effect"] = stripped[14:].strip()
        else:
            self._extra(node, stripped)

    def _close_block(self, graph: Graph, idx: int) -> None:
        """A block's ``}``: remember the block in the memo when it was read as one unit that
        depends on nothing before it."""
        chunk = self._chunk
        if chunk is not None:
            if (
                chunk[1] == idx
                and chunk[2] == self._file_state()
                and id(graph) not in self._unparsed
                and graph.name != self._entry
            ):
                self._current[chunk[0]] = graph
            self._chunk = None

    def _unparsed_line(self, graph: Graph, line: str) -> None:
        """A line this parser does not know (another MindSpore version?): kept as text with
        its line number, not dropped and not fatal."""
        kept = self._unparsed.get(id(graph))
        if kept is None:
            old = graph.attrs.get("unparsed")
            graph.attrs["unparsed"] = ""  # joined at the end
            kept = self._unparsed[id(graph)] = (graph, [] if old is None else [old])
        kept[1].append(f"{self.lineno}: {line.strip()}")

    # ------------------------------------------------------------------ between blocks

    def _header_line(self, lines: List[str], idx: int, line: str) -> None:
        """A line between blocks other than a comment, a block's header or a blank line: a
        ``# Params:`` parameter, a count, ``subgraph attr:`` (a block's preamble starts) or a
        setting."""
        if self._section == "params" and line.startswith("%"):
            self._param_line(line)
        elif line.startswith("Total number of "):
            m = _COUNT_RE.match(line)
            if m:
                self._file_attrs["total_" + m.group(1)] = m.group(2)
        elif line.startswith("Node counting information"):
            pass
        elif line.startswith("subgraph attr:"):
            self._subgraph_attr(lines, idx)
        else:
            self._setting_line(line)

    def _comment_line(self, line: str) -> None:
        """``# IR entry``, ``# Total``, ``# Attrs:`` / ``# Params:`` (a section starts),
        ``# Parameters:`` and ``# In file`` (a block's preamble)."""
        if line.startswith(_ENTRY_PREFIX):
            self._entry = _entry_name(line) or self._entry
        elif line.startswith("# Total "):
            m = _TOTAL_RE.match(line)
            if m:
                self._file_attrs["total_" + m.group(1)] = m.group(2)
        elif line.startswith("# Attrs:"):
            self._section = "attrs"
        elif line.startswith("# Params:"):
            self._section = "params"
        elif line.startswith("# Parameters: "):
            m = _PARAMETERS_RE.match(line)
            if not m:
                self._skip("'# Parameters:' line not read", line)
                return
            self._pending_param_types = _type_list(m.group(2))
        elif line.startswith("# In file "):
            m = _INFILE_RE.match(line)
            if m:
                self._pending_source.append(f"{m.group(1)}:{m.group(2)}")
        # "# Order:" listings and other comments carry nothing new.

    def _param_line(self, line: str) -> None:
        """A ``# Params:`` line: a parameter of the entry graph."""
        try:
            param = _param_node(line, self.path, self.lineno)
        except GraphParseError as exc:
            self._skip(exc.reason, line)
            return
        if param.id in self._param_ids:
            self._skip("parameter listed twice", line)
            return
        self._param_ids.add(param.id)
        num = _PARA_NUM_RE.match(param.id)
        if num and _ODD_NAME_RE.search(param.id):
            self._odd_ids[num.group(0) + "\x01"] = param.id
        self._params.append(param)

    def _setting_line(self, line: str) -> None:
        """A ``key: value`` line of ``# Attrs:``, ``subgraph attr:`` or a named settings block
        (``jit config {`` ... ``}``); any other header line is kept as text."""
        section = self._section
        if line.endswith(" {"):
            # A named block of settings, e.g. `jit config {` ... `}`.
            self._section = "block:" + line[:-2].strip()
            return
        if section.startswith("block:") and line.strip() == "}":
            self._section = ""
            return
        key, sep, value = line.partition(": ")
        if not sep and line.endswith(":"):
            key, sep, value = line[:-1], ":", ""
        if sep and section in ("attrs", "subgraph_attr"):
            if key == "subgraph instance":
                value = value.split(" : ")[0]
            (self._file_attrs if section == "attrs" else self._pending_attrs)[key.strip()] = value
            return
        if sep and section.startswith("block:"):
            self._file_attrs[section[6:] + "." + key.strip()] = value.strip()
            return
        # Unknown header lines are kept as text, not dropped.
        if not self._header_extra:
            old = self._file_attrs.get("header_extra")
            self._file_attrs["header_extra"] = ""  # joined at the end
            self._header_extra = [] if old is None else [old]
        self._header_extra.append(line)

    def _end_preamble(self) -> None:
        self._pending_attrs, self._pending_param_types, self._pending_source = {}, [], []

    def _subgraph_attr(self, lines: List[str], idx: int) -> None:
        """``subgraph attr:``, a block's preamble starts. With a memo, a block whose text (from
        here to its ``}``) was parsed in a recent dump is taken as it is, not read again."""
        self._section = "subgraph_attr"
        self._pending_attrs = {}
        self._chunk = None
        memo = self.memo
        if memo is None or self._pending_source or self._pending_param_types:
            return
        # the block's closing line: the first "}" line from here (C-speed)
        end = self._block_end.find(idx)
        if end < 0:
            return
        block_text = "\n".join(lines[idx : end + 1])
        block_key = memo.key(block_text)
        reused = memo.get(block_key)
        # never as this dump's entry graph: it is finished with the file's parameters and
        # numbered as kernel steps, in place
        if reused is not None and reused.name not in self._blocks and reused.name != self._entry:
            memo.hits += 1
            graph_copy = Graph(
                name=reused.name, file=self.path, attrs=dict(reused.attrs), nodes=reused.nodes
            )
            self._shared[id(graph_copy)] = block_text
            self._blocks[reused.name] = graph_copy
            self._order.append(reused.name)
            self._current[block_key] = reused
            self._skip_to = end + 1
            self._section = ""
            return
        memo.misses += 1
        self._chunk = (block_key, end, self._file_state())

    def _open_block(self, lines: List[str], idx: int, line: str) -> Optional[Graph]:
        """``subgraph @name(%para1_x, ...) {``: the block's graph with its parameters and its
        preamble's attributes, or None when its block is not drawn (a header not read, or a
        block printed twice the same)."""
        header = _subgraph_header(line) or _loose_subgraph_header(line)
        if header is None:
            multi = _multiline_header(lines, idx)
            if multi is not None:  # its parameter lines are read: the nodes come next
                header, self._pending_param_types = multi[:2], multi[2]
                self._skip_to = multi[3] + 1
        end = self._block_end.find(idx)
        if header is None:
            self._skip("cannot read subgraph header; its block is not drawn", line)
            self._skipping = idx if line.rstrip().endswith("{") else None
            self._end_preamble()
            return None
        name = header[0]
        blocks = self._blocks
        if name in blocks:
            first, first_end = self._spans.get(name, (-1, -1))
            if (
                end > idx
                and first >= 0
                and lines[idx + 1 : end + 1] == lines[first + 1 : first_end + 1]
            ):
                self._notes.append(
                    f"@{name} is printed again at line {self.lineno}, the same as at "
                    f"line {first + 1}: drawn once"
                )
                self._skip_to = end + 1
                self._end_preamble()
                self._section = ""
                return None
            copy = 2
            while f"{name}~{copy}" in blocks:
                copy += 1
            self._notes.append(
                f"@{name} is printed again at line {self.lineno}, different from the "
                f"one at line {first + 1}: drawn as @{name}~{copy}"
            )
            name = f"{name}~{copy}"
        self._spans[name] = (idx, end)
        graph = Graph(name=name, file=self.path, attrs=self._pending_attrs)
        if self._pending_source:
            graph.attrs["source"] = ", ".join(self._pending_source)
        header_ids: Set[str] = set()
        param_types = self._pending_param_types
        for i, pid in enumerate(split_top(header[1])):
            if pid in header_ids:  # MindSpore 2.3 prints `(%para0_f, %para0_f)`: one node
                self._notes.append(f"@{name} lists {pid} twice: drawn once")
                continue
            if not pid.startswith("%"):
                self._skip("subgraph parameter not read", pid)
                continue
            header_ids.add(pid)
            num = _PARA_NUM_RE.match(pid)
            ptype = param_types[i] if i < len(param_types) else ""
            graph.nodes.append(
                Node(
                    id=pid,
                    op="Parameter",
                    kind="input",
                    name=pid[num.end() :] if num else pid[1:],
                    outputs=parse_type(ptype) if ptype else [],
                )
            )
        blocks[name] = graph
        self._order.append(name)
        self._end_preamble()
        self._section = ""
        return graph

    # ------------------------------------------------------------------ the graph

    def _assemble(
        self,
        lines: List[str],
        graph: Optional[Graph],
        block_start: int,
        marks: List[Tuple[int, str, str]],
    ) -> Graph:
        """After the last line: the text kept line by line joined, the entry graph chosen and
        given the file's parameters and attributes, every graph finished, and the notes,
        unread lines, analyze_fail mark and kernel steps recorded on it."""
        blocks = self._blocks
        file_attrs = self._file_attrs
        params = self._params
        for g, kept_lines in self._unparsed.values():
            g.attrs["unparsed"] = "\n".join(kept_lines)
        for n, texts in self._extras.values():
            n.attrs["extra"] = "\n".join(texts)
        if self._header_extra:
            file_attrs["header_extra"] = "\n".join(self._header_extra)

        last = max(1, len(lines) - 1 if lines and not lines[-1] else len(lines))
        if graph is not None:
            self._notes.append(
                f"the file ends inside @{graph.name} (opened at line {block_start}): it "
                "looks truncated; what was printed is drawn"
            )
        entry = self._choose_entry(self._entry, blocks, self._order, last, params)
        main = blocks.pop(entry)
        # `# Params:` describe the entry graph's parameters best; a header that lists some
        # of them too (`subgraph @main(%para1_x)`) must not make duplicates.
        described = {p.id for p in params}
        main.nodes = params + [
            n for n in main.nodes if not (n.op == "Parameter" and n.id in described)
        ]
        for key, value in file_attrs.items():
            main.attrs.setdefault(key, value)
        for name, g in list(blocks.items()):
            if id(g) in self._shared and self._calls_differ(g, blocks):
                blocks[name] = self._parse_block(self._shared[id(g)])
        main.subgraphs = blocks
        for g in [main] + list(blocks.values()):
            if id(g) not in self._shared:  # a reused block was finished when first parsed
                self._finish(g, blocks)
        if marks:
            # the last mark (the highest number) is where inference stopped
            top = max(marks, key=lambda m: m[0])
            main.attrs[MARK_ATTR] = f"{top[1]}\t{top[2]}\t{top[0]}"
        if self._unread:
            more = [f"... and {self._unread_more:,} more"] if self._unread_more else []
            main.attrs[UNREAD_ATTR] = "\n".join(self._unread + more)
        if self._notes:
            main.attrs[NOTES_ATTR] = "\n".join(self._notes)
        if is_kernel_graph_file(self.path, entry):
            step = 0
            for n in main.nodes:
                if n.is_kernel:
                    n.step = step
                    step += 1
        return main

    def _choose_entry(
        self,
        entry: Optional[str],
        blocks: Dict[str, Graph],
        order: List[str],
        last: int,
        params: List[Node],
    ) -> str:
        """The graph to return: the ``# IR entry``, else the last graph printed that has
        nodes (MindSpore prints the entry last), with a note; a refusal saying why when no
        node at all could be read."""
        drawn = [name for name in order if name in blocks and blocks[name].nodes]
        if not drawn and not params:
            if self._first_unread is not None:
                line, why = self._first_unread
                raise self.error(f"no node could be read: {why}", line)
            if entry is None:
                raise self.error("no '# IR entry: @<graph>' header: not a MindSpore IR dump", 1)
            if entry not in blocks:
                raise self.error(f"entry graph @{entry} not found (the file looks truncated)", last)
            raise self.error(f"no node could be read in @{entry}", last)
        if entry is not None and entry in blocks:
            return entry
        if not drawn:
            raise self.error(f"entry graph @{entry} not found (the file looks truncated)", last)
        chosen = drawn[-1]
        if entry is None:
            self._notes.append(f"no '# IR entry' name: @{chosen} (the last graph) is drawn")
        else:
            self._notes.append(f"entry graph @{entry} is not in the file: @{chosen} is drawn")
        return chosen

    def _read_node(
        self, graph: Graph, nid: str, out_name: Optional[str], rest: str, line: str
    ) -> Optional[Node]:
        """One node line, or None (flagged as not read) when it cannot be read."""
        try:
            return self._node(graph, nid, out_name, rest, _CALLEE_RE.match)
        except GraphParseError as exc:
            self._skip(exc.reason, line)
            return None

    @staticmethod
    def _mark(node: Node, graph: Graph, mark: int, marks: List[Tuple[int, str, str]]) -> Node:
        node.attrs[MARK_ATTR] = str(mark)
        marks.append((mark, graph.name, node.id))
        return node

    def _file_state(self) -> Tuple[int, ...]:
        """What a block's lines could change outside the block (compared before/after)."""
        return (
            len(self._file_attrs),
            len(self._params),
            len(self._header_extra),
            hash(self._entry),
        )

    @staticmethod
    def _calls_differ(graph: Graph, blocks: Dict[str, Graph]) -> bool:
        """Whether finishing ``graph`` against ``blocks`` would change a (shared) call node."""
        for n in graph.nodes:
            if n.kind == "call" and n.subgraph:
                callee = blocks.get(n.subgraph)
                info = callee.attrs.get("info_name") if callee is not None else None
                if info != n.attrs.get("info_name"):
                    return True
        return False

    def _parse_block(self, block: str) -> Graph:
        """One block's own graph, parsed afresh (not finished: the caller finishes it)."""
        name = next(h[0] for h in map(_subgraph_header, block.split("\n")) if h is not None)
        # no path: a kernel-graph file name would number this block's nodes as steps
        sub = _IRParser(f"# IR entry: @{name}\n" + block, None)
        sub.max_bytes, sub.max_line = self.max_bytes, self.max_line
        graph = sub._parse()
        graph.file = self.path
        return graph

    # ------------------------------------------------------------------ node lines

    def _node(
        self, graph: Graph, nid: str, out_name: Optional[str], rest: str, callee_re: Any
    ) -> Node:
        for stand_in, real in self._odd_ids.items():
            rest = rest.replace(real, stand_in)
        m = callee_re(rest)
        prim = m.group("prim") if m is not None else None
        if prim is not None and ("[" in prim or "{" in prim):
            # `Op{prim_type=1}[attr=Bool(0)](...)`: the `(` was inside its attributes
            m = _bracketed_op(rest) or m
        if not m:
            m = _PARAM_CALL_RE.match(rest)
            if m is not None and m.group("ref") is not None and "@" not in m.group("sw"):
                m = None  # `Op[attr: x](...)`: an operator with its attributes, not a call
            m = m or _bracketed_op(rest)
        if not m:
            raise self.error(f"cannot read operator in {rest[:80]!r}")
        open_at = m.end() - 1
        close = rest.find(")", open_at)
        if close < 0 or any(c in rest[open_at + 1 : close] for c in '([{"'):
            close = _match_close(rest, open_at)
        else:
            close += 1
        if close < 0:
            raise self.error("unbalanced parentheses in node arguments")
        args = split_top(rest[open_at + 1 : close - 1])
        node = Node(id=nid, op="")
        subgraph: Optional[str] = None
        inputs: List[str] = []
        if m.group("call") is not None or m.group("direct") is not None:
            subgraph = m.group("call") or m.group("direct")
            node.kind = "call"
            node.op = "call"
        elif m.group("ref") is not None:
            inputs.append(m.group("ref"))
            node.kind = "call"
            node.op = "call"
            # `%0[@@g](...)` calls g chosen by a Switch; `%0[@FuncUnion(@a, @b)](...)`
            # one of several graphs: keep the first as `subgraph`, all of them as text.
            targets = m.group("sw")
            if targets:
                node.attrs["callees"] = targets
                names = [g for g in _GRAPH_REF_RE.findall(targets) if g != "FuncUnion"]
                subgraph = names[0] if names else None
        else:
            node.op = intern(_strip_prim(m.group("prim")))
            if node.op in CALL_OPS:
                node.kind = "call"
        if out_name:
            node.attrs["output_name"] = out_name
        constants: List[Node] = []
        for arg in args:
            if arg.startswith("%") and " " not in arg:
                inputs.append(self._odd_ids.get(arg, arg))
                continue
            if node.kind == "call" and subgraph is None and arg.startswith("@"):
                subgraph = arg[1:]
            cid = f"{nid}#{len(inputs)}"
            if arg.startswith("$(@"):
                # A free variable: a value of an enclosing graph (closure), not a constant.
                graph_name = arg[3:].split(":", 1)[0]
                constants.append(
                    Node(
                        id=cid,
                        op="FreeVariable",
                        kind="input",
                        attrs={"value": arg, "graph": graph_name},
                    )
                )
            else:
                constants.append(Node(id=cid, op="Constant", kind="constant", attrs={"value": arg}))
            inputs.append(cid)
        node.inputs = inputs
        node.subgraph = subgraph
        tail = rest[close:].strip()
        if tail:
            self._attrs(node, tail)
        ids = self._ids.get(id(graph))
        if ids is None:
            ids = self._ids[id(graph)] = {n.id for n in graph.nodes}  # its parameters
        if nid in ids:
            raise self.error(f"node {nid} is defined twice in @{graph.name}")
        ids.add(nid)
        ids.update(c.id for c in constants)
        graph.nodes.extend(constants)
        graph.nodes.append(node)
        return node

    def _attrs(self, node: Node, tail: str) -> None:
        pairs = _tail_attrs(tail)
        if pairs is None:  # the node is drawn; its attributes are kept as text
            self._skip("unbalanced braces in node attributes (kept as text)", tail)
            node.attrs["text"] = tail
            return
        node.attrs.update(pairs)

    def _extra(self, node: Node, text: str) -> None:
        kept = self._extras.get(id(node))
        if kept is None:
            old = node.attrs.get("extra")
            node.attrs["extra"] = ""  # keeps the key's place; the text is joined at the end
            kept = self._extras[id(node)] = (node, [] if old is None else [old])
        kept[1].append(text)

    def _types(self, node: Node, body: str, index: int) -> None:
        if index == 0:
            ins, outs = _first_types(body)
            node.input_types = list(ins)
            node.outputs = list(outs)
        elif _has_device_type(body):
            device_ins, device_outs = _parse_types_line(body)
            self._apply_device(node, device_ins, device_outs)
        elif "object_types" not in node.attrs:
            # Kernel object types: `(Tensor, Scalar) -> (TupleUnfold)`.
            node.attrs["object_types"] = body
        else:
            self._extra(node, ": " + body)

    def _apply_device(self, node: Node, ins: List[str], outs: Optional[List[str]]) -> None:
        def merge(types: List[TensorType], texts: List[str]) -> List[TensorType]:
            merged = list(types)
            for i, text in enumerate(texts):
                dev = _device(text)
                if dev is None:
                    continue
                if i < len(merged):
                    old = merged[i]
                    merged[i] = TensorType(old.dtype, old.shape, dev[0], dev[1])
                else:
                    merged.append(TensorType(shape=dev[2], device_dtype=dev[0], format=dev[1]))
            return merged

        node.input_types = merge(node.input_types, ins)
        if outs is not None:
            node.outputs = merge(node.outputs, outs)

    # ------------------------------------------------------------------ finishing

    def _finish(self, graph: Graph, blocks: Dict[str, Graph]) -> None:
        ids = {n.id for n in graph.nodes}
        by_num: Dict[str, str] = {}
        by_name: Dict[str, str] = {}  # `Parameter_335` -> `%para199_Parameter_335`
        for n in graph.nodes:
            if n.kind in ("parameter", "input"):
                m = _PARA_NUM_RE.match(n.id)
                if m:
                    by_num[m.group(1)] = n.id
                if n.name:
                    by_name.setdefault(n.name, n.id)
        for n in graph.nodes:
            if n.kind == "constant":
                continue
            for i, src in enumerate(n.inputs):
                if src not in ids:
                    m = _PARA_NUM_RE.match(src)
                    if m and m.group(1) in by_num:
                        n.inputs[i] = by_num[m.group(1)]
                    elif src in by_name:
                        n.inputs[i] = by_name[src]
            if n.kind == "call" and n.subgraph and n.subgraph in blocks:
                info = blocks[n.subgraph].attrs.get("info_name")
                if info:
                    n.op = fused_kernel_name(info)
                    n.attrs["info_name"] = info
        # Constant nodes take the scope and the type of the slot they feed.
        consumers = {}
        for n in graph.nodes:
            if n.kind != "constant":
                for slot, src in enumerate(n.inputs):
                    if src.startswith(n.id + "#"):
                        consumers[src] = (n, slot)
        for n in graph.nodes:
            if n.kind in ("constant", "input") and n.id in consumers:
                user, slot = consumers[n.id]
                n.scope = user.scope
                if slot < len(user.input_types):
                    n.outputs = [user.input_types[slot]]


def parse_ir_text(text: str, path: Optional[str] = None, memo: Optional[BlockMemo] = None) -> Graph:
    """Parse the text of one ``.ir`` dump; ``path`` is only used in errors and ``Graph.file``.

    ``memo``: blocks of earlier dumps of the same compile to reuse (see :class:`BlockMemo`).
    """
    if not isinstance(text, str):
        raise TypeError("parse_ir_text() takes the text of an .ir file (str)")
    notes: List[str] = []
    if "#IR entry " in text:  # 1.0-1.10: `#IR entry      : @name`, read as the later header
        text = _OLD_ENTRY_RE.sub(_ENTRY_PREFIX, text, count=1)
    if not has_entry_header(text):
        from ascend_lab.parsers.ir.ir_dat import looks_like_dat, parse_dat_text

        if looks_like_dat(text):  # MindSpore 1.x `.dat` (analyze_fail.dat)
            text, notes = strip_paste_marks(text)
            graph = parse_dat_text(text, path)
            if notes:
                graph.attrs[PARTIAL_ATTR] = "partial IR (pasted text): " + "; ".join(notes)
            return graph
        first = _first_graph_name(text)
        if first is not None and "\n" + _MARK_PREFIX in text:
            # an analyze_fail.ir of MindSpore 2.0-2.2: no `# IR entry`, the evaluation
            # stack's top graph first (a real file, not a paste)
            text = f"{_ENTRY_PREFIX}{first}\n" + text
        else:  # pasted text (see ir_paste): the parts that are there
            text, notes = clean_pasted_ir(text)
    with gc_paused():
        graph = _IRParser(text, path, memo).parse()
    if notes:
        graph.attrs[PARTIAL_ATTR] = "partial IR (pasted text): " + "; ".join(notes)
    return graph


def parse_ir_file(path: Union[str, "os.PathLike[str]"]) -> Graph:
    """Read and parse one ``.ir`` file (UTF-8; undecodable bytes become U+FFFD).

    A file over ``ASCEND_LAB_IR_MAX_BYTES`` raises GraphParseError without being read.
    """
    p = os.fspath(path)
    return parse_ir_text(read_text_capped(p, IR_MAX_BYTES_ENV), p)


def read_ir_regular(path: str) -> str:
    """The text of the IR file ``path`` named by a user or a log: read only when it is a
    regular file (a FIFO is refused at once, not waited on; a symlink is followed once,
    by ``realpath``) and within ``ASCEND_LAB_IR_MAX_BYTES``. Raises OSError (including
    :class:`~ascend_lab.parsers.regular_file.NotARegularFile`) or GraphParseError."""
    from ascend_lab.parsers.limits import decode_text, read_capped

    # through the one gate, in chunks: ``read(cap + 1)`` reserved the whole cap (256 MiB)
    # for a file of a few KB, more than a viewer worker's memory limit may allow
    return decode_text(read_capped(path, IR_MAX_BYTES_ENV))


# ---------------------------------------------------------------------------- header

_HEADER_SCAN_RE = re.compile(
    r"^(?:# IR entry: @(?P<entry>[^\n]+)|Total number of (?P<kind>nodes|cnodes): (?P<count>\d+)"
    r"|# Total (?P<tkind>subgraphs|params): (?P<tcount>\d+)|info_name: (?P<info>\S+)"
    r"|subgraph @(?P<sub>[^\s(]+))",
    re.M,
)


def read_ir_header(text_or_path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Cheap summary of one ``.ir`` dump without parsing node bodies.

    Accepts the text itself (a str with a newline, or starting with ``#``) or a path.
    Returns ``entry``, ``nodes``/``cnodes`` (from the ``Total number of`` lines),
    ``subgraphs_total``, ``params``, ``subgraphs`` (names in file order, entry included),
    ``info_names`` (subgraph -> graph-kernel ``info_name``), ``kernel_graph`` and ``file``.
    Only (linear) regular-expression scans over the text: about 300 MB/s.
    """
    path: Optional[str] = None
    if isinstance(text_or_path, str) and (
        not text_or_path or "\n" in text_or_path or text_or_path.startswith("#")
    ):
        text = text_or_path
    else:
        path = os.fspath(text_or_path)
        text = read_text_capped(path, IR_MAX_BYTES_ENV)
    if len(text) > limit(IR_MAX_BYTES_ENV):
        raise too_large("the text", len(text), "characters", IR_MAX_BYTES_ENV, path)
    info: Dict[str, Any] = {
        "file": path,
        "entry": None,
        "nodes": None,
        "cnodes": None,
        "subgraphs_total": None,
        "params": None,
        "subgraphs": [],
        "info_names": {},
    }
    pending_info: Optional[str] = None
    for m in _HEADER_SCAN_RE.finditer(text):
        if m.group("entry") is not None:
            if info["entry"] is None:
                info["entry"] = _entry_name(_ENTRY_PREFIX + m.group("entry"))
        elif m.group("kind") is not None:
            info[m.group("kind")] = _small_int(m.group("count"))
        elif m.group("tkind") is not None:
            key = "subgraphs_total" if m.group("tkind") == "subgraphs" else "params"
            info[key] = _small_int(m.group("tcount"))
        elif m.group("info") is not None:
            pending_info = m.group("info")
        else:
            name = m.group("sub")
            info["subgraphs"].append(name)
            if pending_info:
                info["info_names"][name] = pending_info
            pending_info = None
    if info["entry"] is None:
        raise GraphParseError("no '# IR entry: @<graph>' header: not a MindSpore IR dump", path, 1)
    info["kernel_graph"] = is_kernel_graph_file(path, info["entry"])
    return info


def _last_line_value(data: bytes, prefix: bytes) -> Optional[bytes]:
    """The rest of the last line of ``data`` that starts with ``prefix``, if any."""
    at = data.rfind(b"\n" + prefix)
    if at >= 0:
        start = at + 1 + len(prefix)
    elif data.startswith(prefix):
        start = len(prefix)
    else:
        return None
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)]


def read_ir_counts(data: bytes) -> Dict[str, Any]:
    """``entry``, ``nodes`` and ``cnodes`` of one ``.ir`` dump's bytes, found with byte
    searches only (no regular expression, no decoding: ~30× faster than
    :func:`read_ir_header`, for listing hundreds of big dumps). Same answers: the first
    ``# IR entry:`` line, the last ``Total number of`` lines."""
    if len(data) > limit(IR_MAX_BYTES_ENV):
        raise too_large("the text", len(data), "bytes", IR_MAX_BYTES_ENV, None)
    prefix = _ENTRY_PREFIX.encode()
    at = 0 if data.startswith(prefix) else data.find(b"\n" + prefix)
    if at < 0:
        raise GraphParseError("no '# IR entry: @<graph>' header: not a MindSpore IR dump", None, 1)
    start = at + (0 if at == 0 else 1)
    end = data.find(b"\n", start)
    line = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace")
    counts: Dict[str, Any] = {"entry": _entry_name(line.rstrip("\r"))}
    for kind in ("nodes", "cnodes"):
        value = _last_line_value(data, b"Total number of " + kind.encode() + b": ")
        counts[kind] = None if value is None else _small_int(value.decode("ascii", "replace"))
    return counts
