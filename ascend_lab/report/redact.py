"""Replace what identifies a machine or a person, and every credential, with stable tokens.
Pure text in, text out.

Categories: ``host`` (host names, and the values of host/node/pod name and id fields),
``user`` (user names), ``home`` (home folders), ``ip`` (IPv4 and IPv6 addresses except
loopback and the unspecified address), ``mac`` (MAC addresses), ``serial`` (the value of any
``Serial Number``/``SN``/``UUID``/``ELabel``/``VDie ID``/``NDie ID``-like key, as npu-smi's
board view prints it or as JSON holds it) and ``secret`` (credentials, found by value as
well as by name: URL user info ``scheme://user:pass@``, ``password=``/``token=``/
``secret=``/``api_key=``/``AK=``/``SK=``-like pairs, ``Authorization:`` headers, and the
shapes of cloud access keys: AWS ``AKIA…``/``ASIA…``, Huawei Cloud (OBS) 20-character AKs and
40-character SKs).

Secrets in free text (issue #37: 12 of 30 planted ones stayed in a log tail) are found
four more ways: any key *ending* in a credential word (``PGPASSWORD=``, ``DB_PASS=``,
``OBS_SECRET_ACCESS_KEY=``, ``AccountKey=`` in a connection string); phrases and flags
(``password is …``, ``the key was …``, ``--password …``, ``-p<pw>``, ``-u user:pw``),
where the value must look like a secret (letters with digits or symbols, or mixed case);
the documented prefixes of tokens (GitHub ``ghp_``/``github_pat_``, GitLab ``glpat-``,
Slack ``xox?-``, OpenAI/Anthropic ``sk-``, Google ``AIza``, Hugging Face ``hf_``, Stripe
``sk_live_``, npm ``npm_``, JWTs ``eyJ….eyJ….…``, PEM private key blocks); and entropy: a
run of 16+ letters and digits with upper case, lower case and digits that changes
character class at least every second character and carries 3.5+ bits a character, or a
run of 32+ hexadecimal digits mixing letters and digits (a 40-hex API key looks like a
SHA-1: such digests are masked too, consistently, which keeps them comparable).

The same value always becomes the same token (``<host-1>``, ``<serial-2>``) in every file of
one report, so a reader can still see that two files name the same chip. Home folders become
absolute tokens (``/<home-1>``) so recorded paths stay absolute and a replay can mirror them.
Every pattern is linear: bounded repeats of single character classes, no nested quantifiers.
"""

import ipaddress
import math
import re
from typing import Dict, Iterable, List, Optional, Pattern, Tuple

CATEGORIES = ("host", "user", "home", "ip", "mac", "serial", "secret")
# What the redactor does not look for: said in MANIFEST.txt, so nobody assumes more.
NOT_REDACTED = (
    "file and folder names other than home folders (your script and model names stay)",
    "operator, layer and scope names, shapes and dtypes in IR dumps and profiles",
    "free text in logs beyond the patterns above (a secret without a key name, a known "
    "shape or a random look, e.g. an all-lower-case password alone on a line, stays)",
    "numbers that are not addresses or serials (device ids, ports, sizes, timings)",
)

# Names that identify nobody: redacting them would only make the text unreadable.
_NOT_SECRET = frozenset(["root", "localhost", "", "HwHiAiUser", "nobody"])
_MIN_LEN = 2  # a 1-letter name would hit ordinary words
_LITERAL_SECRET_MIN = 6  # shorter credentials are replaced where found, not everywhere
_LITERAL_SECRET_MAX = 256  # distinct credentials replaced everywhere (the rest: where found)
_NO_VALUE = frozenset(["NA", "N/A", "-", "NONE", "NULL", "0", "", "TRUE", "FALSE", "***"])

_IPV4 = re.compile(r"(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?!\.?\d)")
# A run of hex digits, colons and dots that is not part of a word: checked by ipaddress
_IPV6 = re.compile(r"(?<![\w:.])[0-9A-Fa-f:.]{2,45}(?![\w:])")
_MAC = re.compile(r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:])")
# "Serial Number : 033GWR10M8000050", "SN=...", "Chip UUID: ...", '"vdie_id": "..."' (key,
# separator, value). Matched line by line, on lines of at most _SERIAL_LINE_MAX characters.
_SERIAL_KEYS = (
    r"serial|serial[ _-]?number|serial[ _-]?no|sn|uuid|elabel|chip[ _-]?id|board[ _-]?sn|"
    r"[vn]die[ _-]?id"
)
_HOST_KEYS = r"host[ _-]?name|node[ _-]?name|node[ _-]?id|pod[ _-]?name|server[ _-]?id"
# group 1: a serial-like key, group 2: a host-like key, group 3: the value
_ID_KEY = r"\b(?:(" + _SERIAL_KEYS + r")|(" + _HOST_KEYS + r"))\b"
_SERIAL_LINE = re.compile(
    r"(?i)[ \t]{0,40}[^:=\n]{0,40}?"
    + _ID_KEY
    + r"\"?[ \t]{0,40}[:=][ \t]{0,40}\"?(\S[^\n\"]{0,120}?)\"?,?[ \t]{0,40}$"
)
_SERIAL_LINE_MAX = 400
# the same keys in one-line JSON ('{"vdie_id": "...", "hostname": "..."}')
_ID_JSON = re.compile(
    r"(?i)\"[\w -]{0,40}?" + _ID_KEY + r"\"[ \t]{0,8}:[ \t]{0,8}\"([^\"\n]{1,120})\""
)
# "Version=24.1.0.3", '"driver": "24.1.0.3"': a dotted number that is a version, not an
# address, only as the value of a key that ends with "version" or names a component
_VERSION_VALUE = re.compile(
    r"(?i)(?<![\w.-])[\w.-]{0,40}(?:version|\"driver|\"firmware|\"cann|\"npu_smi)\"?"
    r"[ \t]{0,8}[:=][ \t]{0,8}\"?(?=\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d.]))"
)
_HOME_USER = re.compile(
    r"(?:(?<![\w/])|(?<=file://))/home/([A-Za-z0-9._-]{1,64})( [A-Za-z0-9._ -]{1,64}(?=/))?"
)

# Credentials by context. Values end at whitespace, quotes and separators.
_VALUE = r"([^\s\"',;&<>]{1,512})"
_URL_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,30}://([^\s/?#@\"'<>]{1,512})@")
_AUTH_SCHEME = re.compile(
    r"(?i)\b(?:proxy-)?authorization\"?[ \t]{0,8}[:=][ \t]{0,8}\"?"
    r"(?:bearer|basic|digest|token|negotiate)[ \t]{1,8}" + _VALUE
)
_KEY_SECRET = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?=[pPtTsSaAcC])(?:password|passwd|passphrase|token|secret|api[_-]?key|"
    r"access[_-]?key[_-]?id|access[_-]?key|secret[_-]?access[_-]?key|secret[_-]?key|"
    r"private[_-]?key|credentials|credential|authorization|ak|sk)\"?[ \t]{0,8}[:=][ \t]{0,8}"
    r"\"?" + _VALUE
)
_AUTH_WORDS = frozenset(["bearer", "basic", "digest", "token", "negotiate"])
# Credentials by shape alone
_AWS_KEY = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AK20 = re.compile(r"(?<![A-Za-z0-9])[A-Z0-9]{20}(?![A-Za-z0-9])")  # Huawei Cloud AK
_SK40 = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{40}(?![A-Za-z0-9])")  # Huawei Cloud SK
# A key that ends in a credential word: PGPASSWORD=, DB_PASS=, OBS_SECRET_ACCESS_KEY=,
# AccountKey= (connection strings), MODELSCOPE_API_TOKEN=, pwd:
_SUFFIX_KEY = re.compile(
    r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.-]{0,40}?(?:pass(?:word|wd|phrase)?|pwd|token|secret|"
    r"(?:api|access|account|private|secret|auth|signing|master)[_-]?key|credentials?)"
    r"\"?[ \t]{0,8}[:=][ \t]{0,8}\"?" + _VALUE
)
_CONTEXT = (_URL_USERINFO, _AUTH_SCHEME, _KEY_SECRET, _SUFFIX_KEY)
# Phrases and command-line flags; the value must look like a secret (_looks_secret)
_PHRASE = re.compile(
    r"(?i)\b(?:password|passwd|passphrase|secret|token|api[ _-]?key|key)"
    r"(?:[ \t]{1,4}(?:is|was|for[ \t][\w \t]{1,30}?))?[ \t]{0,4}[:=]?[ \t]{1,8}" + _VALUE
)
_FLAG = re.compile(
    r"(?:^|(?<=\s))(?:--(?:password|passwd|token|api-key|secret)(?:=|[ \t]{1,8})|-p(?=[^\s-]))"
    + _VALUE
)
_USER_FLAG = re.compile(r"(?:^|(?<=\s))(?:-u|--user)[ \t]{1,8}[^\s:]{1,64}:" + _VALUE)
# Documented token prefixes (each provider's published format)
_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{20,255}|"
    r"glpat-[A-Za-z0-9_-]{20,64}|xox[abprs]-[A-Za-z0-9-]{10,255}|sk-[A-Za-z0-9_-]{20,255}|"
    r"AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{30,64}|[spr]k_(?:live|test)_[A-Za-z0-9]{16,255}|"
    r"npm_[A-Za-z0-9]{36}|eyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,4096}\.[A-Za-z0-9_-]{5,4096})"
    r"(?![A-Za-z0-9_-])"
)
_PEM = re.compile(
    r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----([^-]{1,16384})-----END [A-Z ]{0,40}PRIVATE KEY-----"
)
# Entropy candidates: runs of letters and digits (base64 padding allowed)
_RANDOM_RUN = re.compile(r"(?<![A-Za-z0-9+])[A-Za-z0-9+]{16,512}={0,2}(?![A-Za-z0-9+])")
_DIGEST_WORDS = ("commit", "sha", "hash", "digest", "md5", "checksum", "git", "build", "version")
_HEX_RUN = re.compile(r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,128}(?![A-Za-z0-9])")


def _key_shaped(value: str, lower: bool) -> bool:
    """Does a 20/40-character run look like a generated key (letters and digits mixed)?"""
    has = (any(c.isdigit() for c in value), any(c.isupper() for c in value))
    return all(has) and (not lower or any(c.islower() for c in value))


def _shaped_secrets(text: str) -> Iterable[str]:
    for m in _AWS_KEY.finditer(text):
        yield m.group(0)
    for m in _AK20.finditer(text):
        if _key_shaped(m.group(0), lower=False):
            yield m.group(0)
    for m in _SK40.finditer(text):
        if _key_shaped(m.group(0), lower=True):
            yield m.group(0)


def _class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def _looks_random(value: str) -> bool:
    """A run that reads as generated, not as words (module doc): upper, lower and digits,
    a change of character class at least every second character, and 3.5+ bits a
    character, leaving out a trailing number. ``Float32xDefaultFormat``,
    ``DropOutDoMask100``, ``LpNormUpdateV2159`` and mangled C++ names
    (``ZN5torch10ValueErrorC1EPKcz``) fail."""
    run = value.rstrip("=").rstrip("0123456789")  # a name's trailing number is no key's
    if len(run) < 16:
        return False
    classes = [_class(c) for c in run]
    if not {0, 1, 2} <= set(classes):
        return False
    changes = sum(1 for a, b in zip(classes, classes[1:]) if a != b)
    if changes * 2 < len(run) - 1:  # random: ~0.6 of steps; CamelCase names: ~0.3-0.45
        return False
    counts: Dict[str, int] = {}
    for c in run:
        counts[c] = counts.get(c, 0) + 1
    n = len(run)
    bits = -sum(k / n * math.log2(k / n) for k in counts.values())
    return bits >= 3.5


def _looks_secret(value: str) -> bool:
    """A value after ``password is`` or ``-p`` that is not a plain word: 6+ characters
    with letters and digits or symbols, or mixed case with a digit or symbol."""
    v = value.strip()
    if len(v) < 6 or v[0] in "<$%{[/":
        return False
    kinds = {_class(c) for c in v}
    return (2 in kinds or 3 in kinds) and bool(kinds & {0, 1}) and (len(kinds) >= 3 or 2 in kinds)


def _free_text_secrets(text: str) -> Iterable[str]:
    """Secrets found by phrase, flag, prefix, PEM block and entropy (module doc)."""
    for pattern in (_PHRASE, _FLAG, _USER_FLAG):
        for m in pattern.finditer(text):
            if _looks_secret(m.group(1)):
                yield m.group(1)
    for m in _PREFIXED.finditer(text):
        yield m.group(0)
    for m in _PEM.finditer(text):
        for part in m.group(1).split():
            if len(part) >= 8:
                yield part
    for m in _RANDOM_RUN.finditer(text):
        if _looks_random(m.group(0)):
            yield m.group(0)
    for m in _HEX_RUN.finditer(text):
        run = m.group(0)
        before = text[max(0, m.start() - 32) : m.start()].lower()
        if any(word in before for word in _DIGEST_WORDS):
            continue  # a commit, a checksum: what a reader compares, not a credential
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run):
            yield run


def _has_alnum(value: str) -> bool:
    return any(c.isalnum() for c in value)


def _credential(value: str) -> bool:
    v = value.strip()
    return _has_alnum(v) and v.upper() not in _NO_VALUE and v[0] not in "<$%{[/"


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
        """Find serials, ids, /home/<name> users and credentials in ``text`` before any
        replacing, so each is replaced in every file, wherever it appears."""
        found = [
            _SERIAL_LINE.match(line) for line in text.splitlines() if len(line) <= _SERIAL_LINE_MAX
        ]
        if '"' in text:
            found.extend(_ID_JSON.finditer(text))
        for m in found:
            if m is None:
                continue
            value = m.group(3).strip()
            if value.upper() in _NO_VALUE or (value.isdigit() and len(value) <= 4):
                continue  # "Chip ID : 1" is an index, not an identity
            if value[:1] in ("<", "{", "[") or value == "localhost" or not _has_alnum(value):
                continue  # a token already, JSON structure, or punctuation
            self._token("serial" if m.group(1) else "host", value)
        for m in _HOME_USER.finditer(text):
            name = m.group(1)
            if name not in _NOT_SECRET and len(name) >= _MIN_LEN and "<" not in name:
                self._token("user", name)
                if m.group(2):  # "/home/Ann Lee/...": the whole name is one home
                    self._token("home", "/home/" + name + m.group(2))
                    self._token("user", name + m.group(2))
        for pattern in _CONTEXT:
            for m in pattern.finditer(text):
                if _credential(m.group(1)) and m.group(1).lower() not in _AUTH_WORDS:
                    self._secret(m.group(1))
        for value in _shaped_secrets(text):
            self._secret(value)
        for value in _free_text_secrets(text):
            self._secret(value)

    def _secret(self, value: str) -> None:
        if len(self.tokens["secret"]) < _LITERAL_SECRET_MAX:
            self._token("secret", value)

    def _literal_pattern(self) -> Optional[Pattern[str]]:
        if self._literal is None:
            values: List[Tuple[str, str]] = []
            for category in ("home", "serial", "host", "user", "secret"):
                values.extend(
                    (v, category)
                    for v in self.tokens[category]
                    if category != "secret" or len(v) >= _LITERAL_SECRET_MIN
                )
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
        for pattern in _CONTEXT:  # short credentials, replaced only where they stand
            text = pattern.sub(self._in_context, text)
        for pattern in (_PHRASE, _FLAG, _USER_FLAG):  # -pSecret: glued to its flag
            text = pattern.sub(self._in_phrase, text)
        text = _MAC.sub(lambda m: self._count("mac", m.group(0)), text)
        text = _IPV6.sub(self._ip6, text)
        keep = {m.end() for m in _VERSION_VALUE.finditer(text)}  # versions, not addresses
        return _IPV4.sub(lambda m: m.group(0) if m.start() in keep else self._ip(m), text)

    def _in_context(self, m: "re.Match[str]") -> str:
        value = m.group(1)
        if not _credential(value) or value.lower() in _AUTH_WORDS:
            return m.group(0)
        start, end = m.span(1)
        base = m.start(0)
        whole = m.group(0)
        return whole[: start - base] + self._count("secret", value) + whole[end - base :]

    def _in_phrase(self, m: "re.Match[str]") -> str:
        if not _looks_secret(m.group(1)):
            return m.group(0)
        return self._in_context(m)

    def redact_bytes(self, data: bytes) -> bytes:
        """A binary file (MindIR, .pb dumps): each known secret becomes ``*`` of the same
        length, so length-prefixed protobuf strings stay valid. Addresses are found only
        in text files."""
        for category in ("home", "serial", "host", "user", "secret"):
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

    def _ip6(self, m: "re.Match[str]") -> str:
        text = m.group(0)
        tail = "." if text.endswith(".") else ""
        candidate = text[: len(text) - len(tail)]
        groups = [g for g in candidate.split(":") if g]
        if candidate.count(":") < 2 or (len(groups) < 3 and sum(map(len, groups)) < 5):
            return text  # "x[0::2]", "a[1::3]": Python slices, not addresses
        try:
            address = ipaddress.IPv6Address(candidate)
        except ValueError:
            return text
        if address.is_loopback or address.is_unspecified:
            return text
        return self._count("ip", candidate) + tail

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

    def _in_phrase(self, m: "re.Match[str]") -> str:
        if not _looks_secret(m.group(1)):
            return m.group(0)
        return self._in_context(m)

    def redact_bytes(self, data: bytes) -> bytes:
        return data
