"""The front end's Chinese (``ascend_lab.po``, served to JupyterLab and bundled into the
viewer) uses the terms of ``notebooks/zh/glossary.md``, beyond what its typography lint
(tests/course/test_zh_edition.py) checks:

- launch / dispatch is 下发 (术语表: 下发 | launch / dispatch), not 算子执行;
- kernel is 算子 in Chinese text (术语表的 kernel 条), not a bare "kernel 数";
- batch, step, epoch, rank, worker are kept in English and written as the docs write them,
  lower case ("每个 step"、"rank 0"), and "每个 step" rather than 每步;
- a Jupyter notebook is a Notebook (as the glossary and the course write it).
"""

import os
import re

import pytest

from scripts.locale_files import parse_po

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PO = os.path.join(ROOT, "ascend_lab", "locale", "zh_CN", "LC_MESSAGES", "ascend_lab.po")


def messages():
    with open(PO, encoding="utf-8") as fh:
        return parse_po(fh.read())[1]


def test_the_catalogue_is_there():
    assert len(messages()) >= 200


def test_a_launch_is_xiafa():
    launches = [(i, s) for i, s in messages() if re.search(r"\blaunch", i, re.I)]
    assert len(launches) >= 3
    assert [(i, s) for i, s in launches if "下发" not in s or "算子执行" in s] == []


@pytest.mark.parametrize(
    "word", ["Rank", "Step", "Epoch", "Batch", "Worker", "notebook", "kernel 数", "每步"]
)
def test_terms_the_glossary_writes_otherwise(word):
    # a label that starts with the word is lower case too, as the docs write "rank 0"
    found = [(i, s) for i, s in messages() if word in s]
    assert found == []
