"""GE's internal status numbers (#36): packed as GE's macros pack them (scripts/ge_status_table.py),
every one in the table with English and Chinese words, and read in a text only where the text
introduces it as a status, return or error code."""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from ascend_lab.doctor.codes import MAX_CODES, explain, find_codes, load_table
from ascend_lab.doctor.diagnosis import diagnose, is_follow_on, rank_label_key
from ascend_lab.doctor.knowledge import known_topics

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "scripts" / "error_tables" / "facts.json"
HAN = re.compile(r"[\u4e00-\u9fff]")


def _module():
    sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location(
        "ge_status_table", ROOT / "scripts" / "ge_status_table.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GE = _module()
TABLE = load_table()
NUMBERS = sorted(TABLE["ge_status"])


def test_the_packing_is_the_macros():
    # GE_ERRORNO_COMMON(PARAM_INVALID, 1): RT_HOST 1, ERROR_CODE 1, COMMON_LEVEL 0, SYSID_GE 8,
    # COMMON_MODULE 0 -- the header's own comment says 1343225857
    assert GE.ge_errorno(1, 1, 0, 8, 0, 1) == 1343225857
    assert GE.ge_errorno(1, 1, 0, 8, 4, 30) == 1343242270  # GRAPH_MODULE, INFERSHAPE_FAILED
    assert GE.ge_errorno(2, 1, 0, 8, 9, 15) == 2417004559  # RT_DEVICE, EXECUTOR_MODULE
    assert GE.ge_errorno(0b11, 0b11, 0b111, 0xFF, 0b11111, 0xFFF) == 0xFFFFFFFF  # FAILED
    assert GE.ge_errorno(1, 1, 0, 8, 0, 0x1001) == 1343225857  # value is masked to 12 bits
    assert GE.domi_errorno(3, 0, 1) == 50331649  # register_error_codes.h: PARAM_INVALID
    assert GE.domi_errorno(0xFF, 0xFF, 0xFFFFFFFF) == 0xFFFFFFFF
    assert GE.unpack(1343266818) == {
        "runtime": 1, "type": 1, "level": 0, "sysid": 8, "modid": 10, "value": 2,
    }  # fmt: skip


def test_the_parser_reads_the_macros_of_a_header():
    header = (
        "enum class InnSystemIdType : std::uint8_t { SYSID_GE = 8 };\n"
        "enum class InnLogRuntime : std::uint8_t { RT_HOST = 0b01, RT_DEVICE = 0b10, };\n"
        "enum class InnSubModuleId : std::uint8_t { COMMON_MODULE = 0, GRAPH_MODULE = 4, };\n"
        "enum class InnErrorCodeType : std::uint8_t { ERROR_CODE = 0b01, };\n"
        "enum class InnErrorLevel : std::uint8_t { COMMON_LEVEL = 0b000, };\n"
        "#define GE_ERRORNO_GRAPH(name, value, desc) \\\n"
        "  GE_ERRORNO(ge::InnLogRuntime::RT_HOST, ge::InnErrorCodeType::ERROR_CODE, \\\n"
        "             ge::InnErrorLevel::COMMON_LEVEL, ge::InnSystemIdType::SYSID_GE, \\\n"
        "             ge::InnSubModuleId::GRAPH_MODULE, name, (value), (desc))\n"
        'GE_ERRORNO_GRAPH(GE_GRAPH_ASSIGN_ENGINE_FAILED, 42, "assign engine failed");\n'
        "const graphStatus GRAPH_PARAM_INVALID = 50331649;\n"
    )
    codes = {c["name"]: (c["number"], c["family"], c["printed"]) for c in GE.parse(header)}
    assert codes == {
        "GE_GRAPH_ASSIGN_ENGINE_FAILED": (1343242282, "graph", "assign engine failed"),
        "GRAPH_PARAM_INVALID": (50331649, "graph-status", ""),
    }


def test_every_number_of_the_sources_is_in_the_table():
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    assert set(facts["ge_status"]) == set(TABLE["ge_status"])
    assert len(TABLE["ge_status"]) >= 240
    for key in ("ge-status-metadef", "ge-status-ge", "ge-status-graphengine"):
        assert re.fullmatch(r"[0-9a-f]{40}", facts["sources"][key]["commit"]), key
    families = {item["family"] for item in TABLE["ge_status"].values()}
    assert {"common", "client", "init", "session", "graph", "engine", "ops", "runtime",
            "executor", "generator", "llm", "graph-status", "omg"} <= families  # fmt: skip
    # several stacks reuse a number: all its names are kept
    assert TABLE["ge_status"]["50331649"]["name"] == "PARAM_INVALID / GRAPH_PARAM_INVALID"
    assert TABLE["ge_status"]["4294967295"]["name"] == "FAILED / GRAPH_FAILED"


def test_every_family_and_kind_has_english_and_chinese_words():
    for key, (en, zh) in TABLE["ge_status_families"].items():
        assert en and HAN.search(zh), key
    for key, kind in TABLE["ge_status_kinds"].items():
        assert kind["en"] and HAN.search(kind["zh"]), key
        assert len(kind["next"]) == len(kind["next_zh"]) >= 1, key
        assert all(t in known_topics() for t in kind["topics"]), key


# Verbatim lines of public texts (the search tool's code index, read 2026-12-07): GE plogs
# pasted in issues and notes, and MindSpore's distributed FAQ ("Init plugin so failed").
# GE prints each number's registered description beside it, so the decoding is checked by
# what GE itself says.
PUBLIC = [
    ("[ERROR] GE(45311,python):2024-05-24-21:17:48.149.129 [graph_prepare.cc:1769]45311 "
     "FormatAndShapeProcess: ErrorNo: 1343242270(Prepare Graph infershape failed) [COMP][PRE_OPT]"
     "[Call][InferShapeForPreprocess] Prepare Graph infershape failed",
     "1343242270", "GE_GRAPH_INFERSHAPE_FAILED", "Prepare Graph infershape failed"),
    ("[graph_loader.cc:143]69072 LoadModelFromData: ErrorNo: 1343225857(Parameter's invalid!) "
     "[LOAD][DEFAULT][Load][Model] failed, model_id:1.",
     "1343225857", "PARAM_INVALID", "Parameter invalid!"),
    ("[model.cpp:280]69072 ModelLoadFromFileWithMem: [LOAD][DEFAULT][Model][FromData]load model "
     "from data failed, ge result[1343225857]", "1343225857", "PARAM_INVALID", ""),
    ("[execution_engine.cc:450]191154 ValidInputTensor:ErrorNo: 1343225860(Internal errors) "
     "[EXEC][EXEC][Check][Size] for [PartitionedCall_14(PartitionedCall)] Input[40]:tensor size "
     "mismatches.expected: 768032, but given 32.", "1343225860", "INTERNAL_ERROR",
     "Internal errors"),
    ("[dnnengine_manager.cc:273]32344 GetDNNEngineName: ErrorNo: 1343242282(assign engine "
     "failed) [COMP][SUB_OPT][Check][OpSupported]Op type BroadcastToD of ops kernel "
     "AIcoreEngine is unsupported", "1343242282", "GE_GRAPH_ASSIGN_ENGINE_FAILED",
     "assign engine failed"),
    ("[om_file_helper.cc:265]34201 CheckModelCompatibility: ErrorNo: 1343225859(Failed to call "
     "runtime API!) [LOAD][DEFAULT]Call rt api failed, ret: 0x7BC80", "1343225859", "RT_FAILED",
     "Failed to call runtime API!"),
    ("[graph_prepare.cc:2282]45311 InferShapeForPreprocess: ErrorNo: 4294967295(failed) "
     "[COMP][PRE_OPT][Recover][IrDefinitions] failed, graph[kernel_graph0]", "4294967295",
     "FAILED", "failed"),
    ("[shape_refiner.cc:768]11393 InferShapeAndType: ErrorNo: -1(failed) Expand_456 call infer "
     "function failed.", "4294967295", "FAILED", "failed"),
    ("Q: What should I do if the error message `Init plugin so failed, ret = 1343225860` is "
     "displayed during the HCCL distributed training?", "1343225860", "INTERNAL_ERROR", ""),
]  # fmt: skip


@pytest.mark.parametrize("line, number, name, printed", PUBLIC)
def test_public_lines_decode_to_what_ge_prints_beside_them(line, number, name, printed):
    notes = [n for n in find_codes(line) if n.kind == "ge_status"]
    assert [n.code for n in notes] == [number]
    assert name in notes[0].name.split(" / ")
    assert printed.rstrip("!").lower().replace("'s", "") in TABLE["ge_status"][number][
        "printed"
    ].lower().replace("'s", "")


@pytest.mark.sweep
@pytest.mark.parametrize("number", NUMBERS)
def test_each_number_reads_as_a_code_with_its_words(number):
    item = TABLE["ge_status"][number]
    for text in (f"ErrorNo: {number}(x) failed", f"Init failed, ret = {number}",
                 f"GE error code: {number}", f"status 0x{int(number):08X}"):  # fmt: skip
        (note,) = find_codes(text)
        assert (note.code, note.kind, note.rank) == (number, "ge_status", "code"), text
    en, zh = explain(number, "ge_status", 1), explain(number, "ge_status", 1, lang="zh_CN")
    assert en.meaning and en.next_steps and en.docs[0][1].startswith("https://"), number
    assert HAN.search(zh.meaning) and HAN.search(" ".join(zh.next_steps)), number
    assert len(en.next_steps) == len(zh.next_steps) and en.topics == zh.topics, number
    assert en.detail.startswith(item["name"]), number
    assert all(t in known_topics() or t.startswith("code:") for t in en.topics), number


@pytest.mark.parametrize(
    "text",
    [
        "x.shape = [1343225857, 3]",  # a shape
        "2012-07-25 1343225857 epoch seconds",  # a timestamp
        "pid 1343242270 started, rank 50331649",  # a pid, a rank
        "allocated 4294967295 bytes",  # a size
        "step 1343225860 loss 0.25",
        "secret = 1343225857",  # 'ret' inside a word
        "ret = 1343225857000",  # a longer number
        "ret = 1343225857.5",  # a float
        "ret = 12345678",  # in context, but no GE status
    ],
)
def test_a_bare_number_is_not_a_ge_status(text):
    assert not [n for n in find_codes(text) if n.kind == "ge_status"]


def test_a_topic_only_where_the_meaning_names_one():
    status = TABLE["ge_status"]
    assert status["2417004559"]["topics"][0] == "oom-device"  # feature map memory
    assert status["1343258651"]["topics"][0] == "oom-host"  # runtime alloc host memory
    assert status["2417004553"]["topics"][0] == "model-file"  # read model file failed
    assert status["50397184"]["topics"][0] == "model-file"  # domi PARSE_MODEL_FAILED
    assert status["1343242282"]["topics"][0] == "op-unsupported"  # assign engine failed
    assert status["1343258625"]["topics"][0] == "device-id"
    assert status["1343234052"]["topics"][0] == "profiler"
    assert status["1343270921"]["topics"][0] == "link-setup"  # LLM DataDist link
    for number in ("1343225857", "1343225860", "1343242270", "4294967295", "1343225856"):
        assert status[number]["topics"] == ["code:" + number]  # no cause named


def test_a_status_without_a_cause_follows_the_code_that_names_one():
    text = (
        "[ERROR] GE(1,python):2025-01-01 [graph_prepare.cc:1]1 Run: ErrorNo: 1343242270(Prepare "
        "Graph infershape failed) infershape failed. node: Expand_456\n"
        "EE1002: something of the runtime\n"
        "[ERROR] GE(1,python):2025-01-01 [model.cc:1]1 Load: ErrorNo: 2417004559(Failed to "
        "allocate feature map memory.) failed\n"
    )
    diag = diagnose(text, check_environment=False)
    codes = [f.code.code for f in diag.findings if f.code is not None]
    assert codes.index("2417004559") < codes.index("1343242270")
    (infer,) = [f for f in diag.findings if f.code is not None and f.code.code == "1343242270"]
    assert is_follow_on(infer.code) and rank_label_key(infer) == "code-no-cause"
    assert "how sure: known error code, but its meaning names no cause" in diag.to_text()
    diag.lang = "zh_CN"
    assert "图的 shape 或数据类型推导失败" in diag.to_text()


def test_ge_statuses_never_push_the_other_codes_out():
    lines = [f"ErrorNo: {n}(x) failed" for n in NUMBERS[20 : 20 + MAX_CODES + 3]]
    notes = find_codes("\n".join(lines) + "\nEE1002: late runtime code\n")
    assert len(notes) == MAX_CODES and "EE1002" in [n.code for n in notes]


def test_hostile_text_stays_bounded():
    hostile = "ErrorNo: " * 20000 + "ret = " + "1" * 200000 + " status" * 20000
    assert find_codes(hostile) == []


def test_ges_errorno_of_a_public_code_is_the_return_code():
    # GE's plog prints the ACL_ERROR_GE_* numbers the same way (the public plog of PUBLIC)
    line = (
        "[model_manager.cc:954]69072 GetInputOutputDescInfo: ErrorNo: 145003(Model id invalid.) "
        "[GET][DEFAULT][Get][Model] Failed, Invalid model id 0!"
    )
    (note,) = find_codes(line)
    assert (note.code, note.kind) == ("145003", "return")
    assert note.name == "ACL_ERROR_GE_EXEC_MODEL_ID_INVALID"
