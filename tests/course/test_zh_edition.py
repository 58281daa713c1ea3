"""The Chinese edition (notebooks/zh) against the English one: same code, Chinese prose.

Fast (no execution). The code cells are the same code in both editions: the zh ones may
differ only in their comments (a label a learner reads goes through ``tr("en", "中文")``,
which is the same call in both). That is what lets CI share executions: the English
notebooks run in test_execute.py, and every zh notebook runs the same code.
"""

import io
import os
import re
import tokenize

import jupytext
import nbformat
import pytest

from ascend_lab.doctor.knowledge import read_knowledge
from benchmarks.support.nbrun import EXPECTED, NOTEBOOKS

ZH = os.path.join(NOTEBOOKS, "zh")
ZH_SOURCES = os.path.join(ZH, "src")
GLOSSARY = os.path.join(ZH, "glossary.md")
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK_TARGET = re.compile(r"\]\([^)\s]*\)|https?://\S+")
MYST_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n.*?^```[ \t]*$", re.S | re.M)
# at least this share of a zh notebook's prose characters are Chinese (CJK characters
# against Latin words outside code spans and links; the English terms kept in brackets
# and API names keep it below 1: 0.84-0.94 for 00-09 today, the English edition 0.07-0.18)
MIN_CJK_SHARE = 0.7


def zh_notebooks():
    return sorted(n for n in os.listdir(ZH) if n.endswith(".ipynb")) if os.path.isdir(ZH) else []


TRANSLATED = zh_notebooks()


def load(folder, name):
    return nbformat.read(os.path.join(folder, name), as_version=4)


def without_comments(source):
    """The cell's code as tokens, its comments and blank lines left out: two cells that
    differ only in their comments (or in the blank lines around them) are equal. IPython
    lines (``%magic``, ``!cmd``) are code too and compare as text."""
    lines = [
        ("#ipython " + line) if line.lstrip()[:1] in ("%", "!") else line
        for line in source.splitlines()
    ]
    ipython = [line.strip() for line in lines if line.startswith("#ipython ")]
    try:
        tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
        code = [
            (t.type, t.string)
            for t in tokens
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return (source,)  # not Python: compared as written
    return tuple(code) + tuple(ipython)


def code_cells(nb):
    return [
        (without_comments(c.source), dict(c.get("metadata", {})))
        for c in nb.cells
        if c.cell_type == "code"
    ]


def test_cells_compare_without_their_comments_but_with_their_code():
    # a translated comment is the same code; a changed string, name or magic is not
    english = 'x = net(a)  # the output\n%ascend_status\nplt.title(tr("Memory", "内存"))\n'
    assert without_comments(english) == without_comments(
        '# 输出\nx = net(a)\n\n%ascend_status\nplt.title(tr("Memory", "内存"))  # 标题\n'
    )
    assert without_comments(english) != without_comments(english.replace("Memory", "内存"))
    assert without_comments(english) != without_comments(english.replace("(a)", "(b)"))
    assert without_comments(english) != without_comments(english.replace("status", "trace"))
    assert without_comments("if x:\n    y = 1\n") != without_comments("if x:\ny = 1\n")


def prose(markdown):
    """Markdown without code spans, link targets and fenced code."""
    text = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    return LINK_TARGET.sub("", CODE_SPAN.sub("", text))


def test_every_english_notebook_has_a_chinese_one():
    assert TRANSLATED == EXPECTED, (
        f"missing in notebooks/zh: {sorted(set(EXPECTED) - set(TRANSLATED))}; "
        f"not in the English course: {sorted(set(TRANSLATED) - set(EXPECTED))}"
    )


def test_there_is_something_to_compare():
    assert len(TRANSLATED) >= 5


@pytest.mark.parametrize("name", TRANSLATED)
def test_code_cells_are_identical_to_the_english_ones_in_the_same_order(name):
    english, chinese = code_cells(load(NOTEBOOKS, name)), code_cells(load(ZH, name))
    assert len(chinese) == len(english), (
        f"{name}: {len(chinese)} code cells, English has {len(english)}"
    )
    for i, (en, zh) in enumerate(zip(english, chinese)):
        assert zh == en, f"{name}: code cell {i} differs from the English one"


@pytest.mark.parametrize("name", TRANSLATED)
def test_myst_code_cells_are_the_same_code(name):
    md = name[: -len(".ipynb")] + ".md"
    with open(os.path.join(NOTEBOOKS, "src", md), encoding="utf-8") as fh:
        english = MYST_CODE_CELL.findall(fh.read())
    with open(os.path.join(ZH_SOURCES, md), encoding="utf-8") as fh:
        chinese = MYST_CODE_CELL.findall(fh.read())
    assert english and len(chinese) == len(english)
    for en, zh in zip(english, chinese):
        en_head, _, en_body = en.partition("\n")
        zh_head, _, zh_body = zh.partition("\n")
        assert zh_head == en_head and without_comments(zh_body) == without_comments(en_body)


def signature(nb):
    return [
        (c.cell_type, c.source.strip("\n"), tuple(c.get("metadata", {}).get("tags", [])))
        for c in nb.cells
    ]


@pytest.mark.parametrize("name", TRANSLATED)
def test_zh_notebook_matches_its_myst_source_and_has_no_outputs(name):
    committed = load(ZH, name)
    nbformat.validate(committed)
    source = jupytext.read(os.path.join(ZH_SOURCES, name[: -len(".ipynb")] + ".md"))
    assert signature(committed) == signature(source), (
        f"zh/{name} differs from zh/src: run jupytext --sync notebooks/zh/src/*.md"
    )
    for cell in committed.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"zh/{name} has outputs"
    assert committed.metadata["jupytext"]["formats"] == "ipynb,src//md:myst"
    assert source.metadata["jupytext"]["formats"] == "ipynb,src//md:myst"
    assert committed.metadata["kernelspec"]["name"] == "mindspore"


def test_every_zh_source_has_a_notebook_and_nothing_else_is_there():
    sources = sorted(n for n in os.listdir(ZH_SOURCES) if n.endswith(".md"))
    assert sources == [n[: -len(".ipynb")] + ".md" for n in TRANSLATED]


@pytest.mark.parametrize("name", TRANSLATED)
def test_prose_is_chinese(name):
    markdown = [c.source for c in load(ZH, name).cells if c.cell_type == "markdown"]
    text = prose("\n".join(markdown))
    cjk, latin = len(CJK.findall(text)), len(LATIN_WORD.findall(text))
    share = cjk / max(1, cjk + latin)
    assert share >= MIN_CJK_SHARE, f"{name}: {cjk} CJK characters, {latin} Latin words"
    # no paragraph left in English: each one with real prose holds Chinese
    for para in re.split(r"\n\s*\n", text):
        if len(LATIN_WORD.findall(para)) >= 8:
            assert CJK.search(para), f"{name}: untranslated paragraph: {para[:200]!r}"


@pytest.mark.parametrize("name", TRANSLATED)
def test_structure_goals_exercises_summary(name):
    nb = load(ZH, name)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    english = [c.source for c in load(NOTEBOOKS, name).cells if c.cell_type == "markdown"]
    assert "学习目标" in markdown[0] and markdown[0].count("\n- ") >= 2
    assert markdown[-1].startswith("## 小结")
    exercises = [m for m in markdown if m.lstrip().startswith("### 练习") or "\n### 练习" in m]
    english_ex = [m for m in english if "### Exercise" in m]
    assert len(exercises) == len(english_ex) >= 2


@pytest.mark.parametrize("name", TRANSLATED)
def test_documentation_links_are_the_chinese_pages(name):
    text = "\n".join(c.source for c in load(ZH, name).cells if c.cell_type == "markdown")
    for url in re.findall(r"https?://[^\s)\]>]+", text):
        if "mindspore.cn/docs/" in url or "mindspore.cn/tutorials/" in url:
            assert "/zh-CN/" in url, f"{name}: English documentation link {url}"
        assert "/en/" not in url, f"{name}: English page {url}"


def test_shared_files_are_links_to_the_english_edition():
    for name in ("course_nets.py", "data"):
        path = os.path.join(ZH, name)
        assert os.path.islink(path), f"notebooks/zh/{name} must be a symlink"
        assert os.path.realpath(path) == os.path.realpath(os.path.join(NOTEBOOKS, name))


def test_glossary_maps_chinese_to_english_to_api():
    with open(GLOSSARY, encoding="utf-8") as fh:
        text = fh.read()
    rows = [r for r in text.splitlines() if r.startswith("|") and not r.startswith("|---")]
    entries = [r.strip("|").split("|") for r in rows]
    terms = [
        e for e in entries if len(e) == 3 and CJK.search(e[0]) and re.search(r"[A-Za-z]", e[1])
    ]
    assert len(terms) >= 40
    for needed in (
        "静态图模式",
        "动态图模式",
        "算子融合",
        "图算融合",
        "内存复用",
        "整图下沉",
        "算子选择",
        "混合精度",
    ):
        assert any(needed in e[0] for e in terms), f"the glossary lacks {needed}"
    # where the documentation itself varies, the glossary says which term the course uses
    assert "文档写法不统一时的取舍" in text


def test_glossary_covers_the_terms_the_zh_notebooks_lean_on():
    with open(GLOSSARY, encoding="utf-8") as fh:
        glossary = fh.read()
    text = "\n".join(
        c.source for n in TRANSLATED for c in load(ZH, n).cells if c.cell_type == "markdown"
    )
    used = [
        t
        for t in (
            "昇腾",
            "算子",
            "图模式",
            "动态图",
            "算子融合",
            "内存复用",
            "生命周期",
            "下界",
            "数据格式",
            "执行序",
        )
        if t in text
    ]
    assert len(used) >= 8
    assert [t for t in used if t not in glossary] == []


# ---------------------------------------------------------------------------------------
# The style rules of glossary.md (排版与用语约定), as a lint. Code cells, inline code and
# URLs are exempt; everything else a Chinese reader sees is checked: the zh notebooks'
# Markdown, README_zh.md, the glossary and the Chinese of the catalogues.

ROOT = os.path.dirname(NOTEBOOKS)
README_ZH = os.path.join(ROOT, "README_zh.md")
LOCALE_ZH = os.path.join(ROOT, "ascend_lab", "locale", "zh_CN", "LC_MESSAGES")
ERROR_CODES = os.path.join(ROOT, "ascend_lab", "doctor", "error_codes.json")
EXERCISES_DIR = os.path.join(ROOT, "ascend_lab", "exercises")
HAN = "\u4e00-\u9fff"
# inline code, links' targets, bare URLs and HTML tags are not prose; each becomes a space
# (a URL may hold one level of brackets: ".../Parameter(1)"; no nested quantifier can
# backtrack, "(" is outside the outer class)
URL = r"https?://(?:[^\s()（）]|\([^\s()]*\))*"
# a call ("construct()", "log(0)") and a Latin tuple ("(B, 1, S)") are code, not punctuation;
# a catalogue's placeholders ("%1", "{}") are no Latin text
CODE_BRACKETS = r"[A-Za-z_][\w.]*\([^()\n]*\)|\([A-Za-z0-9_' ]*,[A-Za-z0-9_', ]*\)"
PLACEHOLDER = r"%\d|\{[^{}\n]*\}"
EXEMPT = re.compile(
    rf"`[^`\n]*`|\]\((?:[^\s()]|\([^\s()]*\))*\)|<https?://[^>\s]*>|{URL}|<[^<>\n]*>"
    rf"|{CODE_BRACKETS}|{PLACEHOLDER}"
)
FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)
STYLE_RULES = {
    # one half-width space between Chinese and Latin letters or digits, on both sides
    "spacing": re.compile(rf"[{HAN}][A-Za-z0-9]|[A-Za-z0-9][{HAN}]"),
    # ASCII punctuation touching Chinese: “” quotes, （） brackets and ！ are full-width
    "ascii-quote": re.compile(
        rf"[{HAN}，。：；、（）]\s?\"|\"\s?[{HAN}]|\"[^\"\n{HAN}]*[{HAN}][^\"\n]*\""
    ),
    "ascii-bracket": re.compile(
        rf"[{HAN}，。：；、]\s?[()]|[()]\s?[{HAN}，。：；、]|\([^()\n{HAN}]*[{HAN}]"
    ),
    "ascii-bang": re.compile(rf"[{HAN}]\s?!|!\s?[{HAN}]"),
    # Chinese typography has no italics: *x* and _x_ (not **bold**); every pattern here is
    # linear (bounded, or a class that excludes what follows it)
    "italics": re.compile(
        r"(?<![*\\])\*(?![*\s])[^*\n]{1,200}(?<![*\s\\])\*(?!\*)"
        r"|(?<![A-Za-z0-9_\\])_(?![_\s])[^_\n]{1,200}(?<![_\s\\])_(?![A-Za-z0-9_])"
    ),
}
# terms the editor's review found teaching something false or contradicting the glossary;
# the glossary's 排版与用语约定 says what to write instead
BANNED_TERMS = (
    "下沉为",  # lowered: 下降（lowering）/ 转换为
    "记账",  # bookkeeping nodes: 辅助节点
    "内存池峰值",  # arena peak: 规划峰值
    "融合轨迹",
    "启发算法",  # heuristic: 启发式算法
    "片上缓存",  # on-chip buffer: 片上缓冲区
    "废弃",  # deprecated: 弃用
    "编译级别",  # jit_level: 编译优化等级
    "内核图",  # collides with the Jupyter 内核: 算子图（kernel graph）
    "批大小",  # batch size: batch 大小
    "批次大小",
    "移动统计量",  # moving statistics: 滑动统计量
    "主机侧",  # Host 侧
    "空隙",  # 间隙
    "内存布局图",  # 内存分布图
    "代码单元 ",  # a Jupyter cell is a 单元格
    "Markdown 单元 ",
)


def chinese_lines(text):
    """(line number, line) of prose: fenced code, MyST code cells and the front matter
    dropped, exempt spans blanked."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        text = "\n" * text.count("\n", 0, end + 5) + text[end + 5 :] if end > 0 else text
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for number, line in enumerate(text.splitlines(), 1):
        if re.search(f"[{HAN}]", line):
            yield number, EXEMPT.sub(" ", line)


# where the rules themselves name what not to write: 不写“批大小”, and the first column of
# the glossary's table of banned terms (| 不写 | 写 | 原因 |)
NOT_WRITTEN = re.compile(r"不写(?:“[^”\n]*”)+")
BANNED_ROW = re.compile(r"^\|[^|\n]*\|")


INLINE_CODE = re.compile(r"`[^`\n]+`")
# spacing across **bold** markers: 在**batch 大小** and **第二个**NPU need a space outside
BOLD_SPACING = re.compile(rf"[{HAN}]\*\*[A-Za-z0-9]|[A-Za-z0-9]\*\*[{HAN}]")


def code_spacing_breaks(text):
    """Inline code touching a Chinese character (在`x`中): the glossary asks for a space on
    both sides of inline code, as around any Latin text."""
    found = []
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        text = "\n" * text.count("\n", 0, end + 5) + text[end + 5 :] if end > 0 else text
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for number, line in enumerate(text.splitlines(), 1):
        for m in INLINE_CODE.finditer(line):
            before = line[m.start() - 1] if m.start() else ""
            after = line[m.end()] if m.end() < len(line) else ""
            if re.match(f"[{HAN}]", before) or re.match(f"[{HAN}]", after):
                found.append(("code-spacing", number, line[max(m.start() - 1, 0) : m.end() + 1]))
    return found


def style_breaks(text, markdown=True):
    """Every break of the style rules in ``text``: [(rule, line number, excerpt)]. Plain
    text (a catalogue's messages, where ``Ascend-cann-*-ops_*.run`` is a file name) has no
    italics to break, and backticks there are not Markdown code."""
    found = code_spacing_breaks(text) if markdown else []
    in_banned_table = False
    for number, line in chinese_lines(text):
        for rule, pattern in STYLE_RULES.items():
            if rule != "italics" or markdown:
                found += [(rule, number, m.group(0)) for m in pattern.finditer(line)]
        found += [("bold-spacing", number, m.group(0)) for m in BOLD_SPACING.finditer(line)]
        in_banned_table = line.startswith("| 不写 |") or (in_banned_table and line.startswith("|"))
        words = NOT_WRITTEN.sub(" ", BANNED_ROW.sub("|", line) if in_banned_table else line)
        found += [("term", number, t.strip()) for t in BANNED_TERMS if t in words]
    return found


def catalogue_texts():
    """The Chinese a learner sees at run time: msgstr of the .po catalogues, the Jed JSON
    of the front end, the doctor knowledge base's zh text."""
    import json

    texts = {}
    for name in ("ascend_lab_py.po", "ascend_lab.po"):
        with open(os.path.join(LOCALE_ZH, name), encoding="utf-8") as fh:
            po = fh.read()
        strings = re.findall(r'^msgstr(?:\[\d\])? "(.*)"$|^"(.*)"$', po, re.M)
        texts[name] = "\n".join(a or b for a, b in strings).replace('\\"', '"').replace("\\n", "\n")
    with open(os.path.join(LOCALE_ZH, "ascend_lab.json"), encoding="utf-8") as fh:
        jed = json.load(fh)
    texts["ascend_lab.json"] = "\n".join(
        s for k, v in jed.items() if k for s in v if isinstance(s, str)
    )

    def strings(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from strings(item)
        elif isinstance(node, dict):
            for item in node.values():
                yield from strings(item)

    entries = read_knowledge()["entries"]
    texts["doctor/knowledge"] = "\n".join(
        s.replace("\n", " ") for e in entries for s in strings(e.get("zh", {}))
    )
    # the error-code texts the doctor prints: every "zh" value and "*_zh" field
    with open(ERROR_CODES, encoding="utf-8") as fh:
        codes = json.load(fh)

    def zh_parts(node, chinese=False):
        if isinstance(node, str):
            if chinese:
                yield node
        elif isinstance(node, list):
            for item in node:
                yield from zh_parts(item, chinese)
        elif isinstance(node, dict):
            for key, item in node.items():
                yield from zh_parts(item, chinese or key == "zh" or key.endswith("_zh"))

    texts["error_codes.json"] = "\n".join(s.replace("\n", " ") for s in zh_parts(codes))
    texts.update(exercise_texts())
    return texts


def exercise_texts():
    """The Chinese of the exercise checks (hints, verdicts, solutions' messages): every string
    literal with a Chinese character in ``ascend_lab/exercises/*.py``; an f-string's literal
    parts with a space where each ``{...}`` was."""
    import ast

    texts = {}
    for name in sorted(os.listdir(EXERCISES_DIR)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(EXERCISES_DIR, name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        found = []
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                parts = [
                    v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
                    for v in node.values
                ]
                text = "".join(parts)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            else:
                continue
            if re.search(f"[{HAN}]", text):
                found.append(text.replace("\n", " "))
        if found:
            texts[f"exercises/{name}"] = "\n".join(found)
    return texts


def styled_documents():
    docs = {}
    for name in TRANSLATED:
        nb = load(ZH, name)
        docs[name] = "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for path in (README_ZH, GLOSSARY, os.path.join(ZH, "README.md")):
        with open(path, encoding="utf-8") as fh:
            docs[os.path.relpath(path, ROOT)] = fh.read()
    docs.update({name: (text, False) for name, text in catalogue_texts().items()})
    return {name: doc if isinstance(doc, tuple) else (doc, True) for name, doc in docs.items()}


STYLED = sorted(styled_documents())


@pytest.mark.parametrize("name", STYLED)
def test_the_chinese_follows_the_glossary_style_rules(name):
    breaks = style_breaks(*styled_documents()[name])
    assert breaks == [], f"{name}: {len(breaks)} breaks of 排版与用语约定: {breaks[:20]}"


def test_the_glossary_states_the_style_rules():
    with open(GLOSSARY, encoding="utf-8") as fh:
        text = fh.read()
    assert "## 排版与用语约定" in text
    for term in (
        "batch",
        "step",
        "epoch",
        "rank",
        "worker",
        "AllReduce",
        "stream",
        "下发",
        "fallback",
        "prefetch",
        "callback",
        "bundle",
        "prefill",
        "decode",
        "全量推理",
        "增量推理",
        "moving statistics",
        "workspace",
    ):
        assert term in text, f"the glossary lacks {term}"


@pytest.mark.parametrize(
    "rule, planted",
    [
        ("spacing", "用 ASCEND_RT_VISIBLE_DEVICES 选择NPU。"),
        ("spacing", "动态shape 的网络"),
        ("spacing", "从2.9 起"),
        ("ascii-quote", '正文简称"图模式"。'),
        ("ascii-bracket", "## 软件栈 (The stack)"),
        ("ascii-bracket", "**学习目标 (Learning goals)**"),
        ("ascii-bracket", "这是一个算子(kernel)。"),
        ("ascii-bang", "完成了!"),
        ("italics", "这是 *强调* 的写法。"),
        ("italics", "这是 _强调_ 的写法。"),
        ("italics", "其中*第二个*NPU"),
        ("term", "整个网络下沉为设备算子。"),
        ("term", "这些是记账用的节点。"),
        ("term", "内存池峰值是 2 MB。"),
        ("term", "该参数从 2.9 起废弃。"),
        ("term", "不写“批大小”，但这里写了批大小。"),
        ("term", "| 废弃 | 弃用 | 原因 |"),
    ],
)
def test_the_style_lint_finds_a_planted_break(rule, planted):
    clean = "这一段 NPU 的写法是对的：用 `device_id` 选择 NPU，见 https://a.example/x(1)。"
    assert style_breaks(clean) == []
    assert {b[0] for b in style_breaks(clean + "\n" + planted)} == {rule}


@pytest.mark.parametrize(
    "exempt",
    [
        '用 `x("图")!` 选择',  # inline code (its content; the space outside is the rule)
        "见 [文档](https://a.example/中文(1)) 。",  # link target
        "调用 construct() 时，shape 为 (B, 1, S) 的掩码",  # a call, a tuple
        '```\nprint("中文")  # 中文(注释)\n```',  # fenced code
        '```{code-cell}\nx = "中文"\n```',  # a MyST code cell
        "**加粗** 的文字和 ____ 填空",  # bold is not italics, a blank is not either
    ],
)
def test_code_inline_code_and_urls_are_exempt(exempt):
    assert style_breaks(exempt) == []


def readme_commands(path):
    """The commands, magics and modules a README shows in its code (fenced blocks and
    inline code, comments left out): ``ascend-lab report``, ``%ascend_doctor``,
    ``ascend_lab.hub``."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    code = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M) + CODE_SPAN.findall(text)
    code = [re.sub(r"(?m)(^|\s)#[^\n]*", " ", c) for c in code]
    pattern = r"ascend-lab [a-z][a-z-]*|%ascend_[a-z_]+|ascend_lab\.[a-z_]+(?:\.[a-z_]+)?"
    return set(re.findall(pattern, "\n".join(code)))


def test_readme_zh_shows_every_command_and_module_readme_shows():
    english = readme_commands(os.path.join(ROOT, "README.md"))
    assert {
        "ascend-lab report",
        "%ascend_profile",
        "ascend_lab.hub",
        "ascend-lab course",
    } <= english
    missing = english - readme_commands(README_ZH)
    assert missing == set(), f"README_zh.md lacks what README.md shows: {sorted(missing)}"


def test_next_lesson_names_the_next_notebooks_chinese_title():
    titles, nexts = [], {}
    for name in TRANSLATED:
        markdown = [c.source for c in load(ZH, name).cells if c.cell_type == "markdown"]
        titles.append(markdown[0].splitlines()[0].lstrip("# ").strip())
        found = re.findall(r"^下一课：\*\*([^*\n]+)\*\*", "\n".join(markdown), re.M)
        if found:
            nexts[len(titles) - 1] = found[-1]
    assert len(nexts) >= 8
    for i, named in nexts.items():
        assert named == titles[i + 1], (
            f"{TRANSLATED[i]}: 下一课 {named!r}, the title is {titles[i + 1]!r}"
        )


def test_the_style_rules_see_spacing_across_bold_and_code():
    # the editor's 12-06 finds: a space is needed outside the ** and ` markers too
    assert [b[0] for b in style_breaks("在**batch 大小 48** 时")] == ["bold-spacing"]
    assert [b[0] for b in style_breaks("见**第二个**NPU")] == ["bold-spacing"]
    assert [b[0] for b in style_breaks("设置`jit_level`即可")] == ["code-spacing"]
    assert [b[0] for b in style_breaks("设置 `jit_level`即可")] == ["code-spacing"]
    assert style_breaks("在 **batch 大小 48** 时，设置 `jit_level` 即可（`O0`）") == []
    # plain-text messages: the same spacing and term rules, no Markdown
    assert [b[0] for b in style_breaks("哪个NPU上", markdown=False)] == ["spacing", "spacing"]
    assert [b[0] for b in style_breaks("批大小 32", markdown=False)] == ["term"]


def test_the_exercise_messages_are_linted():
    texts = exercise_texts()
    assert "exercises/nb10_day_one_on_ascend.py" in texts
    assert "容器" in texts["exercises/nb10_day_one_on_ascend.py"]
