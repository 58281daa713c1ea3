"""A text that is only warnings: the log levels read by grammar (ascend_lab/doctor/levels.py),
and the 'not-a-failure' finding the doctor gives it when nothing else is recognised."""

import pytest

from ascend_lab.doctor.diagnosis import diagnose
from ascend_lab.doctor.levels import ERROR, INFO, NONE, WARNING, line_level, read_levels
from ascend_lab.i18n import using
from tests.hostile.test_budgets import check_budget

# one line per form a tool prints a level in (the forms of the module's description)
FORMS = [
    (
        "[WARNING] LITE(1596,ffff8631,converter_lite):2024-04-26-12:30:06.616.711 [x.cc:1] F] y",
        WARNING,
    ),
    (
        "+  [WARNING] GE_ADPT(8379,7feb6e13,converter_lite):2024-10-26-07:37:40.545 [u.cc:59]",
        WARNING,
    ),
    ("[W OpCommand.cpp:88] Warning: [Check][offset] Check input storage_offset", WARNING),
    ("[W1207 10:00:00.123456 ProcessGroup.cpp:12] Warning: something", WARNING),
    (
        "W1210 02:55:05.548102       1 device_info.go:97] lookup of node devices came back empty",
        WARNING,
    ),
    ("I1210 02:55:05.548009       1 device_info.go:547] load ascend vnpu config", INFO),
    ("E1210 02:55:05.548009       1 device_info.go:547] allocate", ERROR),
    ("F1210 02:55:05.548009       1 main.go:5] bye", ERROR),
    ("WARNING 11-07 06:32:37 [config.py:12] the chunked prefill is off", WARNING),
    ("(EngineCore_DP0 pid=17833) WARNING 11-07 06:32:37 [config.py:12] hi", WARNING),
    ("(Worker_TP0 pid=940663) ERROR 11-07 06:32:37 [multiproc_executor.py:671] x", ERROR),
    ("2025-06-13 10:11:38 [INFO] [912663] profiler.py: data parsed", INFO),
    ("2025-06-13 10:13:28 [ERROR] [911684] profiler.py: a step", ERROR),
    ("2024-01-01 00:00:00,000 - trainer - WARNING - slow step", WARNING),
    ('time="2024-01-01T00:00:00Z" level=warning msg="retrying"', WARNING),
    ('{"ts": 1, "level": "warn", "msg": "retrying"}', WARNING),
    ("/usr/lib/python3/site-packages/x.py:12: UserWarning: torch.npu.x is deprecated", WARNING),
    ("[ERROR] RUNTIME(1234,python):2024-01-01 [x.cc:1] y", ERROR),
    ("[EXCEPTION] PIPELINE(1,python):2024 x", ERROR),
    ("[CRITICAL] ME(1,python):2024 x", ERROR),
    ("RuntimeError: the call returned 1", ERROR),
    ("[rank3]: ValueError: a", ERROR),
    ("Traceback (most recent call last):", ERROR),
    ("EZ9999: Inner Error!", ERROR),
    ("Segmentation fault (core dumped)", ERROR),
    ("Fatal Python error: Aborted", ERROR),
    ("    performance implications. (function npu_cpu_fallback)", NONE),
    ("", NONE),
]


@pytest.mark.parametrize("line,level", FORMS, ids=[str(i) for i in range(len(FORMS))])
def test_each_form_of_a_level(line, level):
    assert line_level(line) == level


WARNINGS = (
    "I1210 02:55:05.548009       1 device_info.go:547] load ascend vnpu config Ascend310P: {}\n"
    "W1210 02:55:05.548102       1 device_info.go:97] Failed to get node devices. nodeName n1,"
    " deviceType Ascend310P, error annos not found <node-register>\n"
    "W1210 02:55:05.548407       1 device_info.go:97] Failed to get node devices. nodeName n2\n"
)


def test_only_warnings_read_as_not_a_failure():
    diag = diagnose(WARNINGS, check_environment=False)
    assert [f.id for f in diag.findings] == ["only-warnings"]
    f = diag.findings[0]
    assert f.topics == ("not-a-failure",) and f.rank == "levels"
    assert f.evidence[0][0] == 2  # the first warning, by its line number
    assert "2 warning lines, 1 information lines" in f.entry.cause
    assert "&lt;node-register&gt;" in diag._repr_html_()  # the warning is escaped
    assert "<node-register>" not in diag._repr_html_()
    assert "only warnings" in diag.to_text().lower()
    with using("zh_CN"):
        assert "只有警告" in f.title and "只有警告" in diag.to_text()


@pytest.mark.parametrize(
    "extra",
    [
        # a warning that says an action failed reports a failure (Paddle-Lite logs a failed
        # inference at warning level)
        "[W  1/ 8 18:48:16.252 .../engine.cc:245 Execute] Warning: Failed to run the execution(2)!",
        "W1210 02:55:05.548102       1 x.go:1] could not load the plugin",
        "W1210 02:55:05.548102       1 x.go:1] retry, error code 507033",
        # a line with no level that says it failed
        "the worker process exited unexpectedly, init failed",
        # an error level, an exception, a death
        "E1210 02:55:05.548102       1 x.go:1] bind",
        "RuntimeError: stop",
        "Killed",
    ],
)
def test_a_warning_text_with_one_failure_line_is_not_called_harmless(extra):
    levels = read_levels(WARNINGS + extra + "\n")
    assert levels.errors == 1 and not levels.only_warnings
    diag = diagnose(WARNINGS + extra + "\n", check_environment=False)
    assert "only-warnings" not in [f.id for f in diag.findings]


def test_no_level_at_all_is_not_called_harmless():
    # unlevelled text is read by the rules and codes only; the levels say nothing about it
    text = "loading the model\nserving on port 8000\n"
    assert not read_levels(text).only_warnings
    assert diagnose(text, check_environment=False).findings == []


def test_a_rule_or_code_wins_over_the_levels():
    # a warning a rule knows (torch_npu falls back to the CPU for an operator): the rule's
    # finding, not the levels'
    text = (
        "[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator 'torchvision::nms' is "
        "not currently supported on the NPU backend and will fall back to run on the CPU. This "
        "may have performance implications. (function npu_cpu_fallback)\n"
    )
    diag = diagnose(text, check_environment=False)
    assert diag.findings and diag.findings[0].id != "only-warnings"
    assert "only-warnings" not in [f.id for f in diag.findings]


@pytest.mark.parametrize(
    "line",
    [
        "W111 " + "[" * 5000 + "WARNIN" * 2000,  # almost a glog prefix, almost a word
        "(" + "a" * 79 + " " * 4000 + "WARNING" * 300,  # almost a process prefix
        "x" * 79 + "-" * 3000 + "UserWarnin" * 400,  # almost a Python warning
    ],
    ids=["brackets", "prefix", "python-warning"],
)
def test_levels_cost_no_more_than_the_text(line):
    # lines that almost carry a level: read in time and memory proportional to the text
    # (anchored, bounded patterns; a line is read at its first 2,000 characters)
    assert read_levels(line).warnings == 0
    check_budget(read_levels, lambda n: "\n".join([line] * n), 25, 8)
