"""Fixtures shared by the numerics tests."""

import tempfile

import pytest


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Every temporary file of the capture (ours and the child's) goes to ``tmp_path``."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    return tmp_path
