"""argparse's and shlex's error messages, made in English before we see them, translated
by finding which of their few templates (``magic_args.ARGPARSE_ERRORS``) made them: the one
place a message is matched back to its template (ours carry theirs: ``msg``)."""

from ascend_lab.i18n import localize, msg, using
from ascend_lab.i18n.magic_args import MAX_CHARS, argparse_text, split


def test_split_finds_the_arguments_left_to_right():
    pieces = tuple("invalid choice: {} (choose from {})".split("{}"))
    assert split("invalid choice: 'x' (choose from 'a', 'b')", pieces) == ["'x'", "'a', 'b'"]
    assert split("invalid choice: 'x'", pieces) is None
    assert split("valid choice: 'x' (choose from 'a')", pieces) is None


def test_argparse_messages_in_chinese_nested_ones_too():
    with using("zh"):
        assert argparse_text("the following arguments are required: path") == "缺少以下参数：path"
        nested = argparse_text("argument --port: invalid int value: 'abc'")
        assert nested == "参数 --port：无效的 int 值：'abc'"
        assert argparse_text("expected one argument") == "需要一个值"
        assert argparse_text("No closing quotation") != "No closing quotation"
    with using("en"):
        assert argparse_text("expected one argument") == "expected one argument"


def test_other_text_is_not_matched_against_templates():
    """A plain English sentence is looked up whole, never taken apart: the status, doctor
    and the rest say which template they used (``msg``)."""
    with using("zh"):
        assert localize("ASCEND_OPP_PATH=/opt/x y does not exist") == (
            "ASCEND_OPP_PATH=/opt/x y does not exist"
        )
        assert localize(msg("ASCEND_OPP_PATH={} does not exist", "/opt/x y")) == (
            "ASCEND_OPP_PATH=/opt/x y 不存在"
        )
        assert localize("npu-smi not found on PATH") == "PATH 中找不到 npu-smi"


def test_unknown_and_oversized_text_is_shown_as_it_is():
    with using("zh"):
        assert argparse_text("something argparse said") == "something argparse said"
        assert localize("", "zh") == ""  # not the catalogue header
        big = "unrecognized arguments: " + "x" * MAX_CHARS
        assert argparse_text(big) == big
        near = "invalid choice: x (choose " * 300  # many near-misses: still answered, linear
        assert argparse_text(near[:3999]) == near[:3999]


def test_a_value_that_looks_like_a_format_field_is_not_formatted():
    with using("zh"):
        text = localize(msg("ASCEND_HOME_PATH={} does not exist", "{0}{__class__}"))
    assert text == "ASCEND_HOME_PATH={0}{__class__} 不存在"
