"""Every message status and doctor can show has a Chinese translation, and nothing else."""

import gettext
import re
import string

import pytest

from ascend_lab.doctor.knowledge import KnowledgeBaseError, load_entries, parse_entries
from tests.i18n.catalogue import MO, PO, load_script, po_messages

extract = load_script("i18n_extract").extract
msgfmt = load_script("msgfmt")
HAN = re.compile(r"[\u4e00-\u9fff]")
CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")  # with full-width punctuation
CODE = re.compile(r"`[^`]{1,500}`")
ARGPARSE_FIELD = re.compile(r"%\(\w{1,40}\)[sdr]")


def _fields(template):
    return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]


def test_extraction_finds_the_messages_of_every_layer():
    found = extract()
    # one of each kind: a marked doctor line, a doctor label, a status warning made
    # as an f-string in the device package, a status reason, a summary word
    for msgid in (
        "RANK_TABLE_FILE {} does not exist or is not readable",
        "Collect next:",
        "NPU {} chip {} health is {}",
        "npu-smi not found on PATH",
        "CPU mode",
        # what the course's code cells print, and the command line's --help
        "Trace of {}: MindSpore {} on {}, {}, save_graphs level {}",
        "compiling in graph mode",
        "Memory plan",
        "{} graph kernel(s) without a measured time",
        "MindSpore {}, device: {}",
        "print the status as JSON",
        "kernel name (default: %(default)s)",
        "this Python environment ({})",
        "show this help message and exit",
        "Basic ops clustered into fused kernels (Fused_*).",  # a pass explanation (table)
    ):
        assert msgid in found, msgid
    assert len(found) >= 350


HOW = (
    "a status/doctor message changed: run `python scripts/i18n_extract.py`, translate the "
    "empty msgstr entries of ascend_lab_py.po, then `python scripts/msgfmt.py <the .po>`"
)


def test_every_extracted_message_is_translated_and_none_is_stale():
    found = extract()
    catalogue = po_messages()
    untranslated = sorted(m for m in found if not catalogue.get(m, "").strip())
    stale = sorted(set(catalogue) - set(found))
    assert untranslated == [], HOW
    assert stale == [], HOW


def test_the_po_file_is_what_the_extractor_writes():
    script = load_script("i18n_extract")
    assert PO.read_text(encoding="utf-8") == script.write_po(extract(), po_messages()), HOW


def test_translations_keep_placeholders_and_commands():
    for msgid, msgstr in po_messages().items():
        n = len(_fields(msgid))
        args = [100 + i for i in range(n)]  # numbers: some fields have {:,} or {:g}
        assert msgid.format(*args) and msgstr.format(*args), msgid  # no stray braces
        for field in _fields(msgstr):  # only the arguments the English has
            assert field == "" or field.split(":")[0].split("!")[0].isdigit(), msgstr
        shown = msgstr.format(*args)
        # every argument shown (plural endings excepted: "chip{}" is "" or "s")
        dropped = [a for a in args if str(a) not in shown]
        assert not dropped or msgid.endswith(("chip{} found by npu-smi",)), (msgid, msgstr)
        assert sorted(CODE.findall(msgid)) == sorted(CODE.findall(msgstr)), msgid
        # argparse fills %(default)s in help texts
        assert sorted(ARGPARSE_FIELD.findall(msgid)) == sorted(ARGPARSE_FIELD.findall(msgstr))
        if HAN.search(msgid.replace("{}", "")) is None and re.search(r"[A-Za-z]{4}", msgid):
            # words to translate: Chinese text or punctuation (product names and commands stay)
            assert CHINESE.search(msgstr) or msgid == msgstr, msgid


def test_compiled_catalogue_matches_the_po_file():
    assert MO.read_bytes() == msgfmt.compile_po(PO.read_text(encoding="utf-8")), (
        "run: python scripts/msgfmt.py " + str(PO)
    )
    with MO.open("rb") as f:
        cat = gettext.GNUTranslations(f)
    assert cat.gettext("CPU mode") == "CPU 模式"
    assert cat.gettext("Collect next:") == "接下来请收集："
    assert cat.info()["language"] == "zh_CN"


def test_every_knowledge_base_entry_has_chinese_text():
    entries = load_entries()
    assert len(entries) >= 25  # all of them, not a truncated file
    for e in entries:
        for name in ("title", "term", "cause", "explanation"):
            zh = e.text(name, "zh_CN")
            assert zh != getattr(e, name) and HAN.search(zh), (e.id, name)
        assert len(e.text("fix", "zh_CN")) == len(e.fix)
        assert all(HAN.search(step) for step in e.text("fix", "zh_CN")), e.id
        assert e.text("cause", "en") == e.cause  # English stays the default


def _entry(**zh):
    english = {
        "id": "x",
        "title": "T",
        "term": "t",
        "category": "c",
        "kind": "error",
        "priority": 1,
        "patterns": ["boom"],
        "cause": "c",
        "fix": ["run `npu-smi info`"],
        "explanation": "e",
        "examples": ["boom"],
    }
    texts = {"title": "标题", "term": "术语", "cause": "原因", "fix": ["执行 `npu-smi info`"]}
    texts["explanation"] = "说明"
    texts.update(zh)
    english["zh"] = texts
    return {"format": "ascend-lab.doctor-kb/1", "entries": [english]}


def test_knowledge_base_refuses_a_translation_that_changes_a_command():
    assert parse_entries(_entry())[0].text("fix", "zh_CN") == ("执行 `npu-smi info`",)
    with pytest.raises(KnowledgeBaseError, match="code"):
        parse_entries(_entry(fix=["执行 `npu-smi  info -t health`"]))
    with pytest.raises(KnowledgeBaseError, match="one step per English step"):
        parse_entries(_entry(fix=["一", "二"]))
    with pytest.raises(KnowledgeBaseError, match="needs exactly"):
        doc = _entry()
        del doc["entries"][0]["zh"]["cause"]
        parse_entries(doc)
    with pytest.raises(KnowledgeBaseError, match="non-empty"):
        parse_entries(_entry(title="  "))


def test_a_changed_status_message_is_noticed(tmp_path):
    import shutil

    from tests.i18n.catalogue import REPO

    folders = ("ascend_lab/doctor", "ascend_lab/device", "ascend_lab/probes", "ascend_lab/i18n")
    for folder in folders:
        shutil.copytree(REPO / folder, tmp_path / folder)
    envcheck = tmp_path / "ascend_lab/probes/envcheck.py"
    text = envcheck.read_text(encoding="utf-8")
    assert '"ASCEND_OPP_PATH is not set"' in text
    envcheck.write_text(
        text.replace('"ASCEND_OPP_PATH is not set"', 'f"ASCEND_OPP_PATH is empty ({home})"'),
        encoding="utf-8",
    )
    found = extract(tmp_path)
    assert "ASCEND_OPP_PATH is empty ({})" in found
    assert "ASCEND_OPP_PATH is not set" not in found  # the old msgid would now be stale
    assert "ASCEND_OPP_PATH is empty ({})" not in po_messages()
