"""The code tables of the tools downstream of CANN (#36): MindIE's MIE codes and MindX SDK /
Vision SDK's APP_ERR_* codes, built by scripts/build_error_tables.py from the facts read in
their documentation. Every documented code is in the table with ascend-lab's English and
Chinese words; a code in a log line is found, explained and ranked after the CANN code
printed with it."""

import json
from pathlib import Path

import pytest

from ascend_lab.doctor.codes import explain, find_codes, load_table
from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.knowledge import known_topics

ROOT = Path(__file__).resolve().parents[2]
FACTS = json.loads((ROOT / "scripts" / "error_tables" / "facts.json").read_text(encoding="utf-8"))
TABLE = load_table()
MIE_CODES = sorted(FACTS["mindie"]["codes"])
SERVER = FACTS["mindie"]["structure"]["04"]
SERVER_LISTS = [
    (sub, cat) for sub in SERVER["subcomponents"] for cat in SERVER["categories"]
]  # every sub-component x category the 1.0.0 pages list, each with sequences 01-09
APP_ERRS = sorted(n for n, e in FACTS["mindx_sdk"]["codes"].items() if e["info"] != "Success")


def _mindie_line(code: str) -> str:
    """A MindIE log line as its components print one: time, pid, level, then the code."""
    return (
        "[2025-06-12 10:21:33.517+08:00] [38211] [38211] [server] [ERROR] "
        f"[infer_instances.cpp:412] : [{code}] request failed, see above\n"
    )


def test_every_documented_mindie_code_is_in_the_table_with_english_and_chinese_words():
    mindie = TABLE["mindie"]
    assert set(mindie["codes"]) == set(MIE_CODES)
    assert set(mindie["components"]) == {f"{n:02d}" for n in range(9)}
    for code, item in mindie["codes"].items():
        assert item["meaning"] and item["zh"] and item["next"] and item["next_zh"], code
        assert item["versions"] and item["doc"].startswith("https://"), code
        assert (
            set(item["topics"][:-1]) <= set(known_topics()) and item["topics"][-1] == "code:" + code
        )
    for cat, item in mindie["server"]["categories"].items():
        assert item["meaning"] and item["zh"] and item["title"] and item["title_zh"], cat
    for t, item in mindie["ms"]["types"].items():
        assert item["meaning"] and item["zh"], t
    # every page group of the facts has words, and no words are left without a group
    words = json.loads((ROOT / "scripts" / "error_tables" / "words.json").read_text("utf-8"))
    used = {e["group"] for e in FACTS["mindie"]["codes"].values()}
    assert used == set(words["mindie"]["groups"])


def test_every_app_err_code_of_the_sdk_table_is_in_the_table_with_its_class_words():
    sdk = TABLE["mindx_sdk"]
    assert sorted(sdk["codes"]) == APP_ERRS and len(APP_ERRS) == 150
    for name, item in sdk["codes"].items():
        cls = sdk["classes"][item["class"]]
        assert cls["en"] and cls["zh"] and cls["next"] and cls["next_zh"], name
        assert set(item["topics"][:-1]) <= set(known_topics()), name
    # the ACL twins take CANN's topic for the same name: a model file that cannot be read
    assert sdk["codes"]["APP_ERR_ACL_READ_MODEL_FAILURE"]["topics"][0] == "model-file"
    assert sdk["codes"]["APP_ERR_ACL_OP_INPUT_NOT_MATCH"]["topics"][0] == "op-input-check"


@pytest.mark.sweep
@pytest.mark.parametrize("code", MIE_CODES)
def test_a_documented_mindie_code_in_a_log_line_gets_its_note_and_topic(code):
    notes = find_codes("Traceback (most recent call last):\n" + _mindie_line(code))
    assert [(n.code, n.kind, n.rank, n.line) for n in notes] == [(code, "mindie", "code", 2)]
    item = TABLE["mindie"]["codes"][code]
    assert notes[0].topics == tuple(item["topics"])
    assert notes[0].meaning == item["meaning"] and notes[0].docs[0] == (code, item["doc"])
    zh = explain(code, "mindie", lang="zh_CN")
    assert zh.meaning == item["zh"] and zh.next_steps[0] == item["next_zh"][0]


@pytest.mark.sweep
@pytest.mark.parametrize("sub,cat", SERVER_LISTS)
def test_mindie_server_codes_are_read_by_the_pages_lists(sub, cat):
    """MindIE Server's pages list every sub-component x 01-09 x category (MIE04E13030A:
    model_wrapper, 03, "other"): each is a known code with its category's words."""
    level = SERVER["categories"][cat]["level"]
    for seq in range(1, 10):
        code = f"MIE04{level}{sub}{seq:02d}{cat}"
        (note,) = find_codes(_mindie_line(code))
        assert (note.code, note.rank) == (code, "code")
        assert note.meaning == TABLE["mindie"]["server"]["categories"][cat]["meaning"]
        assert note.detail.startswith(SERVER["subcomponents"][sub] + ", ")


@pytest.mark.sweep
@pytest.mark.parametrize("name", APP_ERRS)
def test_an_app_err_name_in_a_log_line_gets_its_note_and_topic(name):
    item = TABLE["mindx_sdk"]["codes"][name]
    line = (
        "E20250612 10:21:33.517380 38211 ModelInferenceProcessor.cpp:214] Failed to execute "
        f'model. (Code = {item["value"]}, Message = "{item["info"]}") ret = {name}\n'
    )
    (note,) = find_codes(line)
    assert (note.code, note.kind, note.rank) == (name, "mindx_sdk", "code")
    assert note.topics == tuple(item["topics"])
    assert f"= {item['value']}:" in note.detail and item["info"] in note.detail


def test_unlisted_mindie_codes_are_read_by_their_fields_or_their_component():
    """MindIE MS's six digits are sub-component, feature and a documented type: a code no
    page lists still says what kind of error it is (family rank); other components' unlisted
    codes name the component; a 09 component or a longer word is no code."""
    (ms,) = find_codes("[MIE03E104708] controller: request failed")
    assert (ms.rank, ms.detail, ms.topics[-1]) == ("family", "DEADLINE_EXCEEDED", "family:MIE03")
    assert ms.meaning.startswith("ms-controller: ")
    (llm,) = find_codes("MIE05E990000 unknown")
    assert llm.rank == "family" and "MindIE LLM" in llm.meaning
    assert not find_codes("MIE09E000001 XMIE05E010019 MIE05E010019A ret = 2 APP_ERR_NOT_A_CODE")
    # a Chinese word right before a code does not hide it (only ASCII word characters do)
    assert [n.code for n in find_codes("错误码MIE05E010019，返回APP_ERR_COMM_INNER")] == [
        "MIE05E010019",
        "APP_ERR_COMM_INNER",
    ]


def test_a_cann_code_with_a_mindie_code_ranks_the_cann_code_first():
    """As with torch_npu's codes: the CANN message code printed with a MindIE code says why
    the call failed; two known codes keep CANN's first, and an internal MindIE error (a
    caught exception, internal logic) is a follow-on code like EE9999, after it."""
    both = diagnose(
        _mindie_line("MIE05E01001B") + "[ERROR] HCCL(3,python): failed, error code is EI0010\n",
        check_environment=False,
    )
    assert [f.code.code for f in both.findings if f.code][:2] == ["EI0010", "MIE05E01001B"]
    assert both.findings[1].topics[0] == "link-setup"
    internal = diagnose(
        _mindie_line("MIE03E10000A") + "EE9999: Inner Error!\nerror code is EL0004\n",
        check_environment=False,
    )
    codes = [f.code.code for f in internal.findings if f.code]
    assert codes == ["EL0004", "EE9999", "MIE03E10000A"]
    assert "internal error" in internal.to_text()


def test_a_mindie_server_note_names_both_numberings_in_both_languages():
    """The 1.0.0 pages read MindIE Server's last two digits as a category, 3.x as an error
    type: the note says both, so no Server code claims a topic."""
    en = explain("MIE04E13030A", "mindie")
    assert en.internal and en.topics == ("code:MIE04E13030A",)
    assert en.detail == (
        "model_wrapper, other; in MindIE 3.x's numbering the last two digits mean: tensor add / get"
    )
    zh = explain("MIE04E13030A", "mindie", lang="zh_CN")
    assert zh.module == "MindIE Server（推理服务化）" and "末两位" in zh.detail
    warning = diagnose(
        _mindie_line("MIE04W01010B") + "EE9999: Inner Error!\n", check_environment=False
    )
    assert [f.code.code for f in warning.findings if f.code] == ["EE9999", "MIE04W01010B"]
