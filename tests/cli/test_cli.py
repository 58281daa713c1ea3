"""The ``ascend-lab`` entry point: version, help, unknown commands, cheap imports."""

import subprocess
import sys

from ascend_lab import __version__
from ascend_lab.cli import SUBCOMMANDS, main
from tests.support.python import run_python


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ascend_lab", *args], capture_output=True, text=True, timeout=60
    )


def test_version_flag_prints_package_version():
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == "ascend-lab " + __version__


def test_help_lists_every_subcommand(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert name in out


def test_unknown_subcommand_fails_with_usage():
    result = run_cli("no-such-command")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_every_subcommand_module_has_the_cli_contract():
    import importlib

    for module_name, _help in SUBCOMMANDS.values():
        module = importlib.import_module(module_name)
        assert callable(module.add_arguments), module_name
        assert callable(module.run), module_name


def test_importing_the_package_and_cli_does_not_import_heavy_modules():
    code = (
        "import sys, ascend_lab, ascend_lab.cli, ascend_lab.magics;"
        "heavy = [m for m in ('mindspore', 'numpy', 'matplotlib', 'networkx') if m in sys.modules];"
        "print(heavy)"
    )
    result = run_python(code, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
