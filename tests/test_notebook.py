# examples/geo_dumbbell.ipynb: it is stored without outputs, and it runs
# from top to bottom without an error, drawing its figures, in a kernel of
# this interpreter that imports the satcc this test process imports.

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
import satcc

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "geo_dumbbell.ipynb"
KERNEL = "satcc-under-test"
# The figure cells: congestion windows and queue, goodputs, the sweep.
FIGURES = 3


def test_the_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


def kernel_manager(tmp_path: Path):
    """A kernel of this interpreter (sys.executable's ipykernel), whatever
    kernels the machine has installed under the name python3."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec = tmp_path / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"})
    )
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")])
    return KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    from nbclient import NotebookClient

    tmp = tmp_path_factory.mktemp("notebook")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import satcc\nprint(satcc.__file__)"))
    env = dict(os.environ)
    # The satcc this test process imports: the source tree in a development
    # install, site-packages after `pip install .` (whose source tree has no
    # compiled core).
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(satcc.__file__).parent.parent), *filter(None, [env.get("PYTHONPATH")])]
    )
    env["IPYTHONDIR"] = str(tmp / "ipython")  # no user profile or startup files
    env.pop("MPLBACKEND", None)  # the kernel's inline backend draws into the outputs
    client = NotebookClient(
        nb,
        km=kernel_manager(tmp),
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env=env)
    return nb


def outputs(nb, kind=None):
    return [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if kind is None or out.output_type == kind
    ]


def text(nb) -> str:
    return "".join(
        out.get("text", "") + out.get("data", {}).get("text/plain", "") for out in outputs(nb)
    )


def test_the_notebook_runs_without_errors_against_the_tree_under_test(executed):
    errors = outputs(executed, "error")
    assert not errors, "\n".join(f"{e.ename}: {e.evalue}" for e in errors)
    assert not [o for o in outputs(executed, "stream") if o.name == "stderr"]
    here = executed.cells[-1].outputs[0]["text"].strip()
    assert Path(here) == Path(satcc.__file__), here


def test_the_notebook_draws_its_figures_and_shows_its_results(executed):
    images = [o for o in outputs(executed, "display_data") if "image/png" in o.data]
    assert len(images) == FIGURES
    html = [o.data["text/html"] for o in outputs(executed) if "text/html" in o.get("data", {})]
    assert any('<div class="satcc-result">' in h for h in html)
    shown = text(executed)
    assert "Jain's index: 0." in shown
    assert "{'units': 'packets'} ['50 packets', '200 packets', '1000 packets']" in shown
