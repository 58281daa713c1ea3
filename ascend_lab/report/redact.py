"""Replace what identifies a machine or a person with stable tokens. Pure text in, text out.

Categories: ``host`` (host names), ``user`` (user names), ``home`` (home folders), ``ip``
(IPv4 addresses except loopback and 0.0.0.0), ``mac`` (MAC addresses) and ``serial``
(the value of any ``Serial Number``/``SN``/``UUID``/``ELabel``-like key, as npu-smi's board
view prints it). The same value always becomes the same token (``<host-1>``, ``<serial-2>``)
in every file of one report, so a reader can still see that two files name the same chip.
Home folders become absolute tokens (``/<home-1>``) so recorded paths stay absolute and a
replay can mirror them. Every pattern is linear (no nested quantifiers).
"""

import re
from typing import Dict, Iterable, List, Optional, Pattern, Tuple

CATEGORIES = ("host", "user", "home", "ip", "mac", "serial")

# Names that identify nobody: redacting them would only make the text unreadable.
_NOT_SECRET = frozenset(["root", "localhost", "", "HwHiAiUser", "nobody"])
_MIN_LEN = 2  # a 1-letter name would hit ordinary words

_IPV4 = re.compile(r"(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?!\.?\d)")
_MAC = re.compile(r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:])")
# "Serial Number : 033GWR10M8000050", "SN=...", "Chip UUID: ..." (key, separator, value)
# Matched line by line, on lines of at most _SERIAL_LINE_MAX characters (keeps it linear).
_SERIAL_LINE = re.compile(
    r"(?i)[ \t]{0,40}[^:=]{0,40}?\b(?:serial(?:[ _-]?(?:number|no))?|sn|uuid|elabel|"
    r"chip[ _-]?id|board[ _-]?sn)\b[ \t]{0,40}[:=][ \t]{0,40}(\S[^\n]{0,120}?)[ \t]{0,40}$"
)
_SERIAL_LINE_MAX = 400
# version files hold dotted numbers that are not addresses ("Version=24.1.0.3")
_VERSION_LINE = re.compile(r"(?im)^[ \t]*[\w.-]{0,40}version[\w .-]{0,40}[:=]")
_HOME_USER = re.compile(r"(?<![\w/])/home/([A-Za-z0-9._-]{1,64})")


class Redactor:
    """Collects secrets (given up front or found by pattern) and replaces them everywhere."""

    def __init__(
        self,
        hosts: Iterable[str] = (),
        users: Iterable[str] = (),
        homes: Iterable[str] = (),
    ) -> None:
        self.tokens: Dict[str, Dict[str, str]] = {c: {} for c in CATEGORIES}
        self.counts: Dict[str, int] = {c: 0 for c in CATEGORIES}
        for h in hosts:
            if h and len(h) >= _MIN_LEN and h not in _NOT_SECRET:
                self._token("host", h)
                short = h.split(".", 1)[0]
                if len(short) >= _MIN_LEN and short not in _NOT_SECRET:
                    self._token("host", short)
        for u in users:
            if u and len(u) >= _MIN_LEN and u not in _NOT_SECRET:
                self._token("user", u)
        for home in homes:
            home = (home or "").rstrip("/")
            if home.count("/") >= 1 and home not in ("", "/root", "/tmp"):
                self._token("home", home)
        self._literal: Optional[Pattern[str]] = None

    def _token(self, category: str, value: str) -> str:
        table = self.tokens[category]
        if value not in table:
            n = len(table) + 1
            table[value] = f"/<home-{n}>" if category == "home" else f"<{category}-{n}>"
            self._literal = None
        return table[value]

    def learn(self, text: str) -> None:
        """Find serial numbers and /home/<name> users in ``text`` before any replacing."""
        for line in text.splitlines():
            m = _SERIAL_LINE.match(line) if len(line) <= _SERIAL_LINE_MAX else None
            if m is None:
                continue
            value = m.group(1).strip()
            if value and value.upper() not in ("NA", "N/A", "-", "NONE", "0"):
                self._token("serial", value)
        for m in _HOME_USER.finditer(text):
            name = m.group(1)
            if name not in _NOT_SECRET and len(name) >= _MIN_LEN and "<" not in name:
                self._token("user", name)

    def _literal_pattern(self) -> Optional[Pattern[str]]:
        if self._literal is None:
            values: List[Tuple[str, str]] = []
            for category in ("home", "serial", "host", "user"):
                values.extend((v, category) for v in self.tokens[category])
            if not values:
                return None
            # longest first, so /home/alice wins over alice; names match whole words only
            values.sort(key=lambda vc: -len(vc[0]))
            alternatives = "|".join(re.escape(v) for v, _ in values)
            # "_" is no boundary: the profiler names folders "<host>_<pid>_..."
            self._literal = re.compile(r"(?<![A-Za-z0-9])(?:" + alternatives + r")(?![A-Za-z0-9])")
        return self._literal

    def redact(self, text: str) -> str:
        """``text`` with every known secret and every address replaced by its token."""
        self.learn(text)
        literal = self._literal_pattern()
        if literal is not None:
            lookup = {v: (c, t) for c, table in self.tokens.items() for v, t in table.items()}

            def swap(m: "re.Match[str]") -> str:
                category, token = lookup[m.group(0)]
                self.counts[category] += 1
                return token

            text = literal.sub(swap, text)
        text = _MAC.sub(lambda m: self._count("mac", m.group(0)), text)
        return "".join(
            line if _VERSION_LINE.match(line) else _IPV4.sub(self._ip, line)
            for line in text.splitlines(keepends=True)
        )

    def redact_bytes(self, data: bytes) -> bytes:
        """A binary file (MindIR, .pb dumps): each known secret becomes ``*`` of the same
        length, so length-prefixed protobuf strings stay valid. Addresses are found only
        in text files."""
        for category in ("home", "serial", "host", "user"):
            for value in sorted(self.tokens[category], key=len, reverse=True):
                raw = value.encode("utf-8")
                n = data.count(raw)
                if n:
                    self.counts[category] += n
                    data = data.replace(raw, b"*" * len(raw))
        return data

    def _count(self, category: str, value: str) -> str:
        self.counts[category] += 1
        return self._token(category, value)

    def _ip(self, m: "re.Match[str]") -> str:
        octets = [int(g) for g in m.groups()]
        if any(o > 255 for o in octets) or octets[0] in (0, 127):
            return m.group(0)
        return self._count("ip", m.group(0))

    def summary(self) -> Dict[str, Dict[str, int]]:
        """Per category: how many distinct values and how many replacements (no values)."""
        return {
            c: {"distinct": len(self.tokens[c]), "replaced": self.counts[c]}
            for c in CATEGORIES
            if self.tokens[c] or self.counts[c]
        }


class NoRedaction(Redactor):
    """``--no-redact``: texts pass through unchanged."""

    def redact(self, text: str) -> str:
        return text

    def learn(self, text: str) -> None:
        return None

    def redact_bytes(self, data: bytes) -> bytes:
        return data
