"""The line magics' usage and argument errors in Chinese, with the same names and values as
the English ones; the usage line itself (syntax) is the same in both."""

import argparse
import re

import pytest

from ascend_lab.device.magic import status_magic
from ascend_lab.i18n import language_argument, using
from ascend_lab.magic_support import run_net_magic
from ascend_lab.profiling.magic import parse_line as profile_line
from ascend_lab.report.magic import report_magic
from ascend_lab.tracing.magic import USAGE as TRACE_USAGE
from ascend_lab.tracing.magic import parse_line as trace_line

HAN = re.compile(r"[\u4e00-\u9fff]")
# what must survive translation: options, values, quoted names, numbers
TOKEN = re.compile(r"--?[a-z][a-z-]*|'[^']*'|\d+")


def both(make):
    out = []
    for lang in ("en", "zh"):
        with using(lang):
            out.append(make())
    return out


def error_of(parse, line):
    with pytest.raises(ValueError) as err:
        parse(line)
    return str(err.value)


def assert_same_tokens_in_chinese(en, zh):
    assert HAN.search(zh) and not HAN.search(en), (en, zh)
    assert sorted(TOKEN.findall(zh)) == sorted(TOKEN.findall(en)), (en, zh)


@pytest.mark.parametrize(
    "line, english",
    [
        ("", "name the net and its inputs"),
        ("net --level 7", "argument --level: invalid choice: 7 (choose from 1, 2, 3)"),
        ("net --level x", "argument --level: invalid int value: 'x'"),
        ("net --bogus", "unrecognized arguments: --bogus"),
        ("net 'x", "cannot read the arguments: No closing quotation"),
        ("net -o 1x", "-o needs a Python name, got '1x'"),
    ],
)
def test_trace_magic_errors_in_chinese(line, english):
    en, zh = both(lambda: error_of(trace_line, line))
    assert en.startswith(english)
    assert_same_tokens_in_chinese(en, zh)
    if "\n" in en:  # the usage line: translated prefix, same syntax
        assert en.endswith("\nusage: " + TRACE_USAGE) and zh.endswith("\n用法：" + TRACE_USAGE)


def test_profile_magic_errors_in_chinese():
    en, zh = both(lambda: error_of(profile_line, "net x --steps 0"))
    assert en.startswith("--steps must be >= 1 and --warmup >= 0\nusage: %ascend_profile")
    assert zh.startswith("--steps 必须 >= 1，--warmup 必须 >= 0\n用法：%ascend_profile")
    en, zh = both(lambda: error_of(profile_line, "net --steps"))
    assert "argument --steps: expected one argument" in en and "参数 --steps：需要一个值" in zh


def test_an_undefined_name_is_printed_in_chinese(capsys):
    class Shell:
        user_ns = {}

    def call(net, inputs, args):
        raise AssertionError("not reached: the net is not defined")

    both(lambda: run_net_magic(Shell(), "nope x", "%ascend_trace", trace_line, call, ()))
    en, zh = capsys.readouterr().out.splitlines()
    assert en == "%ascend_trace: 'nope' is not defined in the notebook"
    assert zh == "%ascend_trace: Notebook 中没有定义 'nope'"


@pytest.mark.parametrize(
    "magic, line, english",
    [
        (status_magic, "--nope", "%ascend_status: unrecognized arguments: --nope. Usage: "),
        (
            status_magic,
            "--lang fr",
            "%ascend_status: argument --lang: unknown language 'fr': use zh or en. Usage: ",
        ),
        (report_magic, "--budget", "%ascend_report: argument --budget: expected one argument."),
        (report_magic, "'x", "%ascend_report: No closing quotation. Usage: %ascend_report"),
    ],
)
def test_status_and_report_magic_errors_in_chinese(magic, line, english, capsys):
    both(lambda: magic(None, line))  # bad arguments: printed, nothing collected or written
    en, zh = capsys.readouterr().out.splitlines()
    assert en.startswith(english)
    assert_same_tokens_in_chinese(en, zh)
    usage = en.split(". Usage: ", 1)[1]
    assert zh.endswith("。用法：" + usage)  # the syntax is the same


def test_unknown_language_refused_in_the_readers_language():
    en, zh = both(lambda: pytest.raises(argparse.ArgumentTypeError, language_argument, "fr"))
    assert str(en.value) == "unknown language 'fr': use zh or en"
    assert str(zh.value) == "未知的语言 'fr'：请使用 zh 或 en"


def test_magic_help_follows_the_language_they_are_registered_in():
    """`%ascend_trace?` shows the docstring IPython finds on the magic: Chinese in a
    Chinese session, with the same usage and options as the English one."""
    from IPython.core.interactiveshell import InteractiveShell

    from ascend_lab.magics import HELP, register

    shell = InteractiveShell.instance()
    docs = []
    try:
        for lang in ("en", "zh"):
            with using(lang):
                register(shell)
            docs.append({name: shell.find_magic(name).__doc__ for name in HELP})
    finally:
        with using("en"):
            register(shell)
    en, zh = docs
    assert en == HELP
    for name in HELP:
        assert_same_tokens_in_chinese(en[name], zh[name])
        assert re.findall(r"%\w+", zh[name]) == re.findall(r"%\w+", en[name])
