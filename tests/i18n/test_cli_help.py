"""``ascend-lab ... --help`` in Chinese: under a Chinese locale or with ``--lang zh``."""

import argparse
import os
import re
import subprocess
import sys

import pytest

from ascend_lab import cli
from ascend_lab.i18n import localize, using
from ascend_lab.i18n.cli_help import lang_in_argv

HAN = re.compile(r"[\u4e00-\u9fff]")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_cli(args, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("ASCEND_LAB_LANG", "LC_ALL")}
    base.update({"COLUMNS": "200"}, **env)
    proc = subprocess.run(
        [sys.executable, "-m", "ascend_lab"] + args,
        capture_output=True,
        text=True,
        env=base,
        cwd=REPO,
        timeout=120,
    )
    return proc.returncode, proc.stdout, proc.stderr


def helps(parser):
    yield parser.description
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            yield action.help


@pytest.mark.parametrize("name", sorted(cli.SUBCOMMANDS))
def test_every_help_text_of_every_subcommand_has_a_translation(name):
    parser = cli._build_parser(name)
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    texts = list(helps(sub.choices[name])) + list(helps(parser))
    assert len(texts) >= 4
    with using("zh"):
        for text in texts:
            assert HAN.search(localize(text)), (name, text)
    for text in texts:  # English stays as written
        assert localize(text, "en") == text


def test_status_help_under_a_chinese_locale():
    code, out, err = run_cli(["status", "--help"], LANG="zh_CN.UTF-8")
    assert code == 0, err
    assert out.startswith("用法：ascend-lab status")
    assert "以 JSON 输出状态" in out and "显示此帮助信息并退出" in out
    assert "每次调用 npu-smi 允许的秒数（默认 5）" in out
    assert "print the status as JSON" not in out
    # the option names and values stay as they are
    assert "--json" in out and "$ASCEND_LAB_ASCEND_ROOT" in out


def test_lang_zh_beats_the_environment_and_english_is_the_default():
    code, out, err = run_cli(["status", "--help", "--lang", "zh"], LANG="en_US.UTF-8")
    assert code == 0 and "以 JSON 输出状态" in out, err
    code, out, err = run_cli(["install-kernel", "--help"], LANG="C", ASCEND_LAB_LANG="zh")
    assert code == 0 and "内核名称（默认：mindspore）" in out, err  # %(default)s filled in
    code, out, err = run_cli(["status", "--help"], LANG="C")
    assert code == 0 and "print the status as JSON" in out and not HAN.search(out), err


def test_the_main_help_lists_the_commands_in_chinese():
    code, out, err = run_cli([], LANG="zh_CN.UTF-8")
    assert code == 0, err
    assert "在 Jupyter 中使用昇腾 NPU 与 MindSpore。" in out
    assert "显示 NPU、HBM、健康状态、进程和版本" in out


def test_lang_is_read_before_parsing():
    assert lang_in_argv(["status", "--help", "--lang", "zh"]) == "zh_CN"
    assert lang_in_argv(["doctor", "--lang=zh-CN", "x.log"]) == "zh_CN"
    assert lang_in_argv(["doctor", "--", "--lang", "zh"]) is None  # a file named --lang
    assert lang_in_argv(["status", "--lang"]) is None
    assert lang_in_argv(["status", "--lang", "fr"]) is None


def test_chinese_help_is_wrapped_by_terminal_columns():
    from ascend_lab.i18n import display_width
    from ascend_lab.i18n.cli_help import wrap

    text = "把协助排查的人需要看到的本机信息写入一个 .tar.gz：npu-smi 的各个视图、驱动/固件"
    lines = wrap(text, 20)
    assert all(display_width(line) <= 20 for line in lines), lines
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
    assert "npu-smi" in "\n".join(lines)  # a word is not cut
    code, out, err = run_cli(["report", "--help"], LANG="zh_CN.UTF-8", COLUMNS="60")
    assert code == 0, err
    widths = [display_width(line) for line in out.splitlines()]
    assert max(widths) <= 60 and len(widths) > 15, out


@pytest.mark.parametrize(
    "args, english, chinese",
    [
        (
            ["view", "x.ir", "--port", "abc"],
            "ascend-lab view: error: argument --port: invalid int value: 'abc'",
            "ascend-lab view：错误：参数 --port：无效的 int 值：'abc'",
        ),
        (
            ["doctor", "--lang", "klingon"],
            "ascend-lab doctor: error: argument --lang: unknown language 'klingon': use zh or en",
            "ascend-lab doctor：错误：参数 --lang：未知的语言 'klingon'：请使用 zh 或 en",
        ),
        (
            ["view"],
            "ascend-lab view: error: the following arguments are required: path",
            "ascend-lab view：错误：缺少以下参数：path",
        ),
    ],
)
def test_usage_errors_in_the_readers_language(args, english, chinese):
    code, out, err = run_cli(args, LANG="C.UTF-8")
    assert code == 2 and out == "" and err.rstrip().endswith("\n" + english)
    assert err.startswith("usage: ascend-lab ")
    code, out, err = run_cli(args, ASCEND_LAB_LANG="zh")
    assert code == 2 and out == "" and err.rstrip().endswith("\n" + chinese)
    assert err.startswith("用法：ascend-lab ")


def test_section_titles_end_in_a_full_width_colon_in_chinese():
    # the zh review of 2026-12-06: 「选项:」 beside 「用法：」 on the same page
    code, out, err = run_cli(["--help", "--lang", "zh"])
    assert code == 0, err
    lines = out.splitlines()
    # argparse titles the options "options:" from Python 3.10, "optional arguments:" before
    options = "选项：" if sys.version_info >= (3, 10) else "可选参数："
    assert "位置参数：" in lines and options in lines, out
    assert not [line for line in lines if HAN.search(line) and line.endswith(":")], out
    code, out, err = run_cli(["--help", "--lang", "en"])
    english = "options:" if sys.version_info >= (3, 10) else "optional arguments:"
    assert code == 0 and english in out.splitlines(), err  # English keeps its colon


@pytest.mark.parametrize("name", sorted(cli.SUBCOMMANDS))
def test_every_subcommand_takes_lang(name):
    parser = cli._build_parser(name)
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert any("--lang" in a.option_strings for a in sub.choices[name]._actions), name


def test_kernels_speaks_the_language_it_is_given(tmp_path):
    # an empty Jupyter path: the list is empty, and says so in the language asked for
    empty = {"JUPYTER_PATH": str(tmp_path), "JUPYTER_DATA_DIR": str(tmp_path)}
    code, out, err = run_cli(["kernels", "--lang", "zh"], **empty)
    assert code == 0, err
    assert HAN.search(out) and "installed by" not in out and "No Jupyter" not in out, out
    code, out, err = run_cli(["kernels", "--lang", "en"], **empty)
    assert code == 0 and not HAN.search(out), out
