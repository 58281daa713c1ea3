"""Generate ascend_lab/parsers/mindir/mind_ir_fields.py from the vendored mind_ir.proto.

The .proto is ascend_lab/parsers/mindir/mind_ir.proto.

The builtin MindIR decoder (ascend_lab/parsers/mindir/protobuf_wire.py) needs, for every message of
mind_ir.proto, each field's number, name, type and whether it repeats; this script reads them
from the .proto so that nobody writes that table by hand (as Netron does for its decoders).

    python scripts/generate_mind_ir_fields.py           # rewrite the module
    python scripts/generate_mind_ir_fields.py --check   # exit 1 if the module is out of date

It understands the proto2 subset mind_ir.proto uses (messages, nested messages and enums,
optional/required/repeated fields, map<,> fields) and stops with an error on anything else.
"""

import argparse
import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
PROTO = REPO / "ascend_lab" / "parsers" / "mindir" / "mind_ir.proto"
OUTPUT = REPO / "ascend_lab" / "parsers" / "mindir" / "mind_ir_fields.py"

# proto scalar type -> the decoder's kind (how the wire value is read).
KINDS = {
    "string": "str",
    "bytes": "bytes",
    "int64": "int",
    "int32": "int",
    "uint64": "uint",
    "uint32": "uint",
    "bool": "bool",
    "float": "float",
    "double": "double",
}
_TOKEN = re.compile(r'"[^"\n]*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+|[{}<>=;,\[\]()]')

Field = Tuple[str, str, bool, Optional[str]]


class ProtoError(ValueError):
    pass


def _tokens(text: str) -> Iterator[str]:
    for line in text.splitlines():
        line = line.split("//", 1)[0]
        pos = 0
        for m in _TOKEN.finditer(line):
            if line[pos : m.start()].strip():
                raise ProtoError(f"cannot read {line.strip()!r}")
            pos = m.end()
            yield m.group()
        if line[pos:].strip():
            raise ProtoError(f"cannot read {line.strip()!r}")


class _Reader:
    def __init__(self, text: str) -> None:
        self.toks = list(_tokens(text))
        self.pos = 0
        # message name -> [(field number, name, label, type name)]
        self.messages: Dict[str, List[Tuple[int, str, str, str]]] = {}
        self.enums: Dict[str, Dict[int, str]] = {}  # qualified name -> number -> value name

    def next(self) -> str:
        if self.pos >= len(self.toks):
            raise ProtoError("unexpected end of file")
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def expect(self, want: str) -> None:
        got = self.next()
        if got != want:
            raise ProtoError(f"expected {want!r}, found {got!r}")

    def skip_statement(self) -> None:
        while self.next() != ";":
            pass

    def file(self) -> None:
        while self.pos < len(self.toks):
            tok = self.next()
            if tok in ("syntax", "package", "option", "import"):
                self.skip_statement()
            elif tok == "message":
                self.message("")
            elif tok == "enum":
                self.enum("")
            else:
                raise ProtoError(f"unexpected {tok!r} at top level")

    def enum(self, scope: str) -> None:
        name = self.next()
        self.expect("{")
        values: Dict[int, str] = {}
        while True:
            tok = self.next()
            if tok == "}":
                break
            if tok in ("option", "reserved"):
                self.skip_statement()
                continue
            self.expect("=")
            values[int(self.next())] = tok
            self.skip_statement()
        self.enums[scope + name] = values

    def message(self, scope: str) -> None:
        name = self.next()
        if name in self.messages:
            raise ProtoError(f"two messages named {name}: the table keys messages by name")
        fields: List[Tuple[int, str, str, str]] = []
        self.messages[name] = fields
        self.expect("{")
        while True:
            tok = self.next()
            if tok == "}":
                return
            if tok == "message":
                self.message(scope + name + ".")
            elif tok == "enum":
                self.enum(scope + name + ".")
            elif tok in ("option", "reserved", "extensions"):
                self.skip_statement()
            elif tok == "map":
                self.expect("<")
                key = self.next()
                self.expect(",")
                value = self.next()
                self.expect(">")
                fname = self.next()
                self.expect("=")
                number = int(self.next())
                self.skip_statement()
                # protobuf encodes map<K, V> f as `repeated FEntry f` with key = 1, value = 2.
                entry = "".join(p.capitalize() for p in fname.split("_")) + "Entry"
                self.messages[entry] = [
                    (1, "key", "optional", key),
                    (2, "value", "optional", value),
                ]
                fields.append((number, fname, "repeated", entry))
            elif tok in ("optional", "required", "repeated"):
                ftype = self.next()
                fname = self.next()
                self.expect("=")
                number = int(self.next())
                self.skip_statement()
                fields.append((number, fname, tok, ftype))
            else:
                raise ProtoError(f"unexpected {tok!r} in message {name}")


def read_proto(text: str) -> Tuple[Dict[str, Dict[int, Field]], Dict[str, Dict[int, str]]]:
    """``(messages, enums)`` of a .proto text, in the shape mind_ir_fields.py holds."""
    reader = _Reader(text)
    reader.file()
    enum_by_short: Dict[str, str] = {}
    for qualified in reader.enums:
        short = qualified.rsplit(".", 1)[-1]
        if short in enum_by_short:
            raise ProtoError(f"two enums named {short}")
        enum_by_short[short] = qualified
    messages: Dict[str, Dict[int, Field]] = {}
    for msg, fields in reader.messages.items():
        table: Dict[int, Field] = {}
        for number, fname, label, ftype in fields:
            short = ftype.lstrip(".").rsplit(".", 1)[-1]
            if ftype in KINDS:
                spec: Field = (fname, KINDS[ftype], label == "repeated", None)
            elif short in reader.messages:
                spec = (fname, "msg", label == "repeated", short)
            elif short in enum_by_short:
                spec = (fname, "enum", label == "repeated", enum_by_short[short])
            else:
                raise ProtoError(f"{msg}.{fname}: unknown type {ftype}")
            if number in table:
                raise ProtoError(f"{msg}: field number {number} used twice")
            table[number] = spec
        messages[msg] = dict(sorted(table.items()))
    return messages, reader.enums


def _literal(value: object) -> str:
    """``repr`` with double-quoted strings (what ruff format writes)."""
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ")"
    return repr(value)


def _table(name: str, annotation: str, table: Dict[str, Dict[int, object]]) -> List[str]:
    # One entry per line with trailing commas, so that ruff format leaves the output as it is.
    lines = [f"{name}: {annotation} = {{"]
    for key, entries in table.items():
        lines.append(f'    "{key}": {{')
        lines.extend(f"        {number}: {_literal(v)}," for number, v in entries.items())
        lines.append("    },")
    lines.append("}")
    return lines


def render(text: str) -> str:
    """The source of mind_ir_fields.py for the .proto ``text``."""
    messages, enums = read_proto(text)
    lines = [
        '"""The field table of mind_ir.proto, for the builtin MindIR decoder.',
        "",
        "GENERATED from mind_ir.proto by scripts/generate_mind_ir_fields.py: do not edit.",
        '"""',
        "",
        "from typing import Dict, Optional, Tuple",
        "",
        "# message -> field number -> (name, kind, repeated, message or enum type).",
        "# Kinds: str, bytes, int (int32/int64), uint, bool, float, double, enum, msg.",
    ]
    annotation = "Dict[str, Dict[int, Tuple[str, str, bool, Optional[str]]]]"
    lines += _table("MESSAGES", annotation, messages)  # type: ignore[arg-type]
    lines += ["", "# enum (qualified name) -> value -> name."]
    lines += _table("ENUMS", "Dict[str, Dict[int, str]]", enums)  # type: ignore[arg-type]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the module is current")
    args = parser.parse_args()
    source = render(PROTO.read_text(encoding="utf-8"))
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != source:
            print(f"{OUTPUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        print(f"{OUTPUT.name} is up to date")
        return 0
    OUTPUT.write_text(source, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
