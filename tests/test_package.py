# The package as a user meets it: the examples in its docstring run and say
# what they show, and dir() lists the names it imports on first use.

import doctest
import os
import subprocess
import sys
from pathlib import Path

import satcc

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_docstring_examples_run(tmp_path, monkeypatch):
    # "From the repository's root": examples/ as there, and the campaign the
    # example writes in a folder of the test's own.
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    results = doctest.testmod(satcc, optionflags=doctest.ELLIPSIS, verbose=False)
    assert results.attempted >= 9
    assert results.failed == 0
    assert (tmp_path / "campaigns" / "geo_cbr" / "campaign.json").is_file()


def test_dir_lists_the_lazy_names_and_submodules():
    # In a fresh interpreter: nothing imported on first use yet.
    code = "import satcc, sys; print(' '.join(dir(satcc))); print('satcc.runner' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split("\n")
    names = set(out[0].split())
    assert {"run", "load", "sweep", "results", "Scenario", "ScenarioError", "Result"} <= names
    assert {"analysis", "traffic", "studies", "report", "executors", "__version__"} <= names
    assert out[1] == "False"  # listing loads nothing
    assert all(hasattr(satcc, name) for name in names)
