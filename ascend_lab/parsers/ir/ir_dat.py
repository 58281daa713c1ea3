"""Read the ``.dat`` IR text of MindSpore 1.x (``analyze_fail.dat``, ``*_0013.dat``) into a
:class:`~ascend_lab.model.graph.Graph`, as :mod:`.ir_text` reads the ``.ir`` form of 2.x.

The 1.x form (MindSpore's ``AnfExporter``; the docs' "Reading analyze_fail.dat")::

    # [No.2] construct.2
    # In file test.py(15)/  def construct(self, x1):/
    funcgraph fg_2[fg_1](
            %para4 : Tensor(F32)[3, 32]    # x1
            , %para5 : Ref[Tensor(F32)][4]    # bias
        ) {
        %1 : Tensor(F32)[3, 8] = DoSignaturePrimitive::S-Prim-MatMul{prim_type=1}[...](%para4,
            %para3)    #(Tensor(F32)[3, 32], Ref[Tensor(F32)][32, 8]) #scope: Default  (one line)
          # In file test.py(16)/    x = self.matmul(x1, self.weight)/#x

    #------------------------> 1
        %2 = FuncGraph::fg_18(%1, %1, %2)    #(...)    # fg_18=func.18 #scope: Default
    #[CNode]3
        Primitive::Return{prim_type=1}(%2)    #(Undefined) #scope: Default
    }
    # order:
    #   1: construct.2:x{[0]: ...}

Graph ``[No.1]`` is the entry (the returned Graph); the others are its ``subgraphs``, by
their names (``construct.2``). ``FuncGraph::fg_N(...)`` is a call into graph ``fg_N``; a
``%paraN`` of an enclosing graph (``fg_2[fg_1]``) is a ``FreeVariable`` input. Types
``Tensor(F32)[3, 32]`` become ``Float32`` / ``(3, 32)``. The node after the last
``#------------------------> N`` line is where inference stopped (:data:`.ir_text.MARK_ATTR`).

Tolerant like :mod:`.ir_text`: a line it does not understand is flagged in
:data:`.ir_text.UNREAD_ATTR` with its number, and the rest is drawn; a text in which no node
can be read is a :class:`~ascend_lab.parsers.errors.GraphParseError` saying why. Linear:
every line is read once, brackets are matched by one scan (:func:`.ir_text.split_top`).
"""

import re
from typing import Dict, List, Optional, Tuple

from ascend_lab.model.graph import Graph, Node, TensorType
from ascend_lab.parsers.errors import GraphParseError
from ascend_lab.parsers.ir.ir_text import MARK_ATTR, NOTES_ATTR, UNREAD_ATTR, source_code
from ascend_lab.parsers.ir.ir_values import SHORT_DTYPES as _DTYPES
from ascend_lab.parsers.ir.ir_values import _match_close as match_close
from ascend_lab.parsers.ir.ir_values import split_top
from ascend_lab.parsers.limits import IR_MAX_BYTES_ENV, IR_MAX_LINE_ENV, limit, too_large

__all__ = ["looks_like_dat", "parse_dat_text"]

_FUNCGRAPH = "funcgraph fg_"
_NO_RE = re.compile(r"# \[No\.(\d{1,9})\] (\S+)")
_FG_RE = re.compile(r"funcgraph fg_(\d{1,12})(?:\[fg_(\d{1,12})\])?\($")
_TENSOR_RE = re.compile(r"(?:Ref\[)?Tensor\((\w+)\)\]?\[([^\]]*)\]")
_FG_NAME_RE = re.compile(r"# (fg_\d{1,12})=(\S+)")
_MARK_PREFIX = "#------------------------>"
_UNREAD_MAX = 1000
_EXTRA_MAX = 4096
_OP_PREFIXES = ("S-Prim-", "S_Prim_")


def looks_like_dat(text: str) -> bool:
    """Whether ``text`` is 1.x ``.dat`` IR: a ``funcgraph fg_`` line (perhaps after an
    editor's line number) and no 2.x ``# IR entry`` header."""
    at = text.find(_FUNCGRAPH)
    return at >= 0 and (at == 0 or text[at - 1] in "\n ")


def _in_file(text: str) -> Optional[Tuple[str, str, int]]:
    """``# In file x.py(17)/code/`` (1.x; ``#  In file`` in 1.0/1.1) or ``# In file
    x.py:17/code/`` (later) -> ``(path, line, index just past the line number)``; None if
    not one. str scans only: a path may hold brackets and colons (``C:\\...``), each
    position is looked at once."""
    text = text.lstrip()
    body = text[1:].lstrip(" ")  # 1.0/1.1 print "#  In file" (two spaces)
    if not text.startswith("#") or not body.startswith("In file "):
        return None
    start = len(text) - len(body) + len("In file ")
    at = start
    while True:
        paren, colon = text.find("(", at), text.find(":", at)
        hits = [i for i in (paren, colon) if i > start]
        if not hits:
            return None
        at = min(hits)
        end = at + 1
        while end < len(text) and text[end].isdigit() and end - at < 10:
            end += 1
        if end > at + 1 and (text[at] == ":" or text.startswith(")", end)):
            return text[start:at].strip(), text[at + 1 : end], end + (text[at] == "(")
        at += 1


def _dat_type(text: str) -> TensorType:
    text = text.strip()
    m = _TENSOR_RE.match(text)
    if m:
        dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
        shape: Optional[Tuple[int, ...]] = None
        if all(d.lstrip("-").isdigit() and len(d) < 20 for d in dims):
            shape = tuple(int(d) for d in dims)
        return TensorType(dtype=_DTYPES.get(m.group(1), m.group(1)), shape=shape)
    if text in _DTYPES:
        return TensorType(dtype=_DTYPES[text], shape=())
    return TensorType(dtype=text or None)


def _op_name(text: str) -> str:
    """``DoSignaturePrimitive::S-Prim-Add`` -> ``Add``; ``PrimitivePy::Sub`` -> ``Sub``."""
    name = text.rpartition("::")[2]
    for prefix in _OP_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name or text


class _DatReader:
    def __init__(self, text: str, path: Optional[str]) -> None:
        self.path = path
        self.text = text
        self.unread: List[str] = []
        self.unread_more = 0
        self.first_unread: Optional[Tuple[int, str]] = None
        self.notes: List[str] = []
        self.lineno = 0

    def skip(self, why: str, text: str) -> None:
        if self.first_unread is None:
            self.first_unread = (self.lineno, why)
        if len(self.unread) >= _UNREAD_MAX:
            self.unread_more += 1
            return
        text = text.strip()
        if len(text) > 300:
            text = text[:300] + f"... ({len(text):,} characters)"
        self.unread.append(f"{self.lineno}: {why}: {text}")

    def error(self, message: str, line: int) -> GraphParseError:
        return GraphParseError(message, self.path, line)

    def parse(self) -> Graph:
        max_bytes, max_line = limit(IR_MAX_BYTES_ENV), limit(IR_MAX_LINE_ENV)
        if len(self.text) > max_bytes:
            raise too_large("the text", len(self.text), "characters", IR_MAX_BYTES_ENV, self.path)
        lines = self.text.replace("\r\n", "\n").split("\n")
        graphs: List[Graph] = []
        by_fg: Dict[str, str] = {}  # "fg_2" -> "construct.2"
        parents: Dict[str, str] = {}  # graph name -> its enclosing graph's fg id
        pending_name: Optional[str] = None
        pending_source: Optional[str] = None
        graph: Optional[Graph] = None
        in_params = False
        node: Optional[Node] = None
        mark: Optional[int] = None
        marks: List[Tuple[int, str, str]] = []
        ids: Dict[str, None] = {}
        header: List[str] = []
        in_order = False
        for idx, line in enumerate(lines):
            self.lineno = idx + 1
            if len(line) > max_line:
                self.skip(f"a line of {len(line):,} characters (over {IR_MAX_LINE_ENV})", line)
                node = None
                continue
            stripped = line.strip()
            if graph is None:
                m = _NO_RE.match(line)
                if m:
                    pending_name, pending_source = m.group(2), None
                    continue
                if pending_name is not None and _in_file(line) is not None:
                    pending_source = line
                    continue
                if line.startswith(_FUNCGRAPH):
                    m = _FG_RE.match(line.rstrip())
                    if m is None:
                        self.skip("cannot read the funcgraph line", line)
                        continue
                    fg = "fg_" + m.group(1)
                    name = pending_name or fg
                    if name in by_fg.values():
                        self.notes.append(f"@{name} is printed again at line {self.lineno}")
                        name = f"{name}~{self.lineno}"
                    by_fg.setdefault(fg, name)
                    graph = Graph(name=name, file=self.path)
                    if m.group(2):
                        parents[name] = "fg_" + m.group(2)
                    found = _in_file(pending_source) if pending_source else None
                    if found:
                        graph.attrs["source"] = f"{found[0]}:{found[1]}"
                    graphs.append(graph)
                    ids = {}
                    in_params, node, mark, pending_name = True, None, None, None
                    continue
                if line.startswith("# order:"):
                    in_order = True
                elif in_order and line.startswith("#   "):
                    pass  # the order listing: nothing the nodes do not say
                elif stripped:
                    in_order = False
                    header.append(line)
                continue
            # inside a funcgraph
            if in_params:
                if stripped.endswith(") {") or stripped == ") {":
                    in_params = False
                    continue
                param = self._param(stripped)
                if param is None:
                    self.skip("parameter line not read", line)
                elif param.id in ids:
                    self.skip("parameter listed twice", line)
                else:
                    ids[param.id] = None
                    graph.nodes.append(param)
                continue
            if stripped == "}" and not line.startswith(" "):
                graph, node, mark = None, None, None
                continue
            if not stripped:
                continue
            if line.startswith(_MARK_PREFIX):
                mark = _small(line[len(_MARK_PREFIX) :])
                node = None
                continue
            if line.startswith("#[") or (line.startswith("#") and node is not None):
                if node is not None and line.startswith("#"):
                    node.name = node.name or stripped[1:]  # 1.8: the debug name, own line
                continue
            if line.startswith("      #") and node is not None:
                self._continuation(node, stripped)
                continue
            if line.startswith("    ") and not line.startswith("     "):
                node = self._node(graph, stripped, ids)
                if node is not None and mark is not None:
                    node.attrs[MARK_ATTR] = str(mark)
                    marks.append((mark, graph.name, node.id))
                    mark = None
                continue
            self.skip("line not read", line)
            node = None
        if graph is not None:
            self.notes.append(
                f"the file ends inside @{graph.name}: it looks truncated; what was printed is drawn"
            )
        last = max(1, len(lines) - 1 if lines and not lines[-1] else len(lines))
        return self._finish(graphs, by_fg, parents, marks, header, last)

    @staticmethod
    def _param(text: str) -> Optional[Node]:
        """``%para1 : Tensor(F32)[3, 32]    # x1`` (or ``, %para2 ...``) -> an input node."""
        if text.startswith(","):
            text = text[1:].strip()
        if not text.startswith("%para"):
            return None
        pid, sep, rest = text.partition(" : ")
        if not sep or " " in pid:
            return None
        type_text, _, name = rest.partition("    # ")
        weight = type_text.strip().startswith("Ref[")
        return Node(
            id=pid,
            op="Parameter",
            kind="parameter" if weight else "input",
            name=name.strip() or pid[1:],
            outputs=[_dat_type(type_text)],
            attrs={"type": type_text.strip()},
        )

    def _node(self, graph: Graph, text: str, ids: Dict[str, None]) -> Optional[Node]:
        out_type = ""
        if text.startswith("%"):
            eq = text.find(" = ")
            if eq < 0:
                self.skip("node line not read (no ' = ')", text)
                return None
            head, rest = text[:eq], text[eq + 3 :]
            nid, _, out_type = head.partition(" : ")
            nid = nid.strip()
        else:
            nid, rest = "", text
        owner = ""
        if rest.startswith("$("):  # `$(graph):Op(...)`: a node of another graph, used here
            end = match_close(rest, 1)
            if end > 0 and rest.startswith(":", end):
                owner, rest = rest[2 : end - 1], rest[end + 1 :]
        # the operator: a name, then {...} and [...] groups, then (arguments)
        pos = 0
        while pos < len(rest) and rest[pos] not in "([{":
            pos += 1
        op_text = rest[:pos]
        while pos < len(rest) and rest[pos] in "[{":
            close = match_close(rest, pos)
            if close < 0:
                self.skip("unbalanced brackets in the operator's attributes", text)
                return None
            pos = close
        if pos >= len(rest) or rest[pos] != "(" or not op_text:
            self.skip("cannot read the operator", text)
            return None
        close = match_close(rest, pos)
        if close < 0:
            self.skip("unbalanced parentheses in node arguments", text)
            return None
        attrs_text = rest[len(op_text) : pos]
        args = split_top(rest[pos + 1 : close - 1])
        tail = rest[close:].strip()
        op = _op_name(op_text.strip())
        if not nid:
            nid = "return" if op == "Return" else f"line{self.lineno}"
        if nid in ids:
            self.skip(f"node {nid} is printed twice in @{graph.name}", text)
            return None
        node = Node(id=nid, op=op)
        if owner:
            node.attrs["graph"] = owner
        if attrs_text:
            node.attrs["attrs"] = attrs_text
        if op_text.startswith("FuncGraph::"):
            node.kind, node.op = "call", "call"
            node.attrs["callee"] = op_text.strip().rpartition("::")[2]  # resolved at the end
        elif op_text.startswith("%"):
            node.kind, node.op = "call", "call"
        inputs: List[str] = []
        constants: List[Node] = []
        if op_text.startswith("%"):
            inputs.append(op_text.strip())
        for arg in args:
            if arg.startswith("%") and " " not in arg:
                inputs.append(arg)
                continue
            cid = f"{nid}#{len(inputs)}"
            constants.append(Node(id=cid, op="Constant", kind="constant", attrs={"value": arg}))
            inputs.append(cid)
        node.inputs = inputs
        if out_type.strip():
            node.outputs = [_dat_type(out_type)]
        if tail.startswith("#("):
            end = match_close(tail, 1)
            if end > 0:
                node.input_types = [_dat_type(t) for t in split_top(tail[2 : end - 1])]
                tail = tail[end:].strip()
        if tail:
            node.attrs["text"] = tail
            if "callee" in node.attrs:  # `# fg_18=func.18`: the callee's name, printed or not
                named = _FG_NAME_RE.search(tail)
                if named and named.group(1) == node.attrs["callee"]:
                    node.attrs["callee_name"] = named.group(2)
        for c in constants:
            ids[c.id] = None
        ids[nid] = None
        graph.nodes.extend(constants)
        graph.nodes.append(node)
        return node

    @staticmethod
    def _continuation(node: Node, text: str) -> None:
        found = _in_file(text)
        if found is None:
            extra = node.attrs.get("extra", "")
            if len(extra) < _EXTRA_MAX:  # capped: appending stays linear in the file
                node.attrs["extra"] = (extra + "\n" + text[:_EXTRA_MAX]).strip()
            return
        node.source.append(f"{found[0]}:{found[1]}")
        if "code" not in node.attrs:
            node.attrs["code"] = source_code(text.lstrip(), found[2])
        debug = text.rpartition("/#")[2] if "/#" in text else ""
        if debug and not node.name:
            node.name = debug

    def _finish(
        self,
        graphs: List[Graph],
        by_fg: Dict[str, str],
        parents: Dict[str, str],
        marks: List[Tuple[int, str, str]],
        header: List[str],
        last: int,
    ) -> Graph:
        if not any(g.nodes for g in graphs):
            if self.first_unread is not None:
                line, why = self.first_unread
                raise self.error(f"no node could be read: {why}", line)
            raise self.error("no node could be read: no 'funcgraph' block has one", last)
        owner = {n.id: (g.name, n) for g in graphs for n in g.nodes if n.id.startswith("%para")}
        for g in graphs:
            own = {n.id for n in g.nodes}
            free: List[Node] = []
            for n in g.nodes:
                callee = n.attrs.pop("callee", None)
                named = n.attrs.pop("callee_name", None)
                if callee is not None:
                    n.subgraph = by_fg.get(callee) or named or callee
                for src in n.inputs:
                    if src.startswith("%para") and src not in own and src in owner:
                        own.add(src)
                        free.append(
                            Node(
                                id=src,
                                op="FreeVariable",
                                kind="input",
                                name=owner[src][1].name,
                                outputs=list(owner[src][1].outputs),
                                attrs={"graph": owner[src][0]},
                            )
                        )
            g.nodes = free + g.nodes
        main = next(g for g in graphs if g.nodes)
        if main is not graphs[0]:
            self.notes.append(f"@{graphs[0].name} has no node read: @{main.name} is drawn")
        main.subgraphs = {g.name: g for g in graphs if g is not main}
        main.attrs["format"] = "MindSpore 1.x .dat"
        if header:
            main.attrs["header_extra"] = "\n".join(header)
        if marks:
            top = max(marks, key=lambda m: m[0])
            main.attrs[MARK_ATTR] = f"{top[1]}\t{top[2]}\t{top[0]}"
        if self.unread:
            more = [f"... and {self.unread_more:,} more"] if self.unread_more else []
            main.attrs[UNREAD_ATTR] = "\n".join(self.unread + more)
        if self.notes:
            main.attrs[NOTES_ATTR] = "\n".join(self.notes)
        return main


def _small(text: str) -> Optional[int]:
    text = text.strip()
    return int(text) if text.isdigit() and len(text) < 10 else None


def parse_dat_text(text: str, path: Optional[str] = None) -> Graph:
    """The graph of one 1.x ``.dat`` IR text (see the module doc)."""
    return _DatReader(text, path).parse()
