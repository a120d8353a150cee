"""satcc: congestion control over satellite and long-delay networks.

Run from the repository's root, where examples/ is. geo_cbr.toml sends CBR
video and a Poisson background over a 2.048 Mb/s GEO uplink (270 ms); at
4 Mb/s its video is delayed by little more than serialisation and
propagation (1.2 + 1 + 3 + 270 ms):

>>> import satcc
>>> sc = satcc.load("examples/geo_cbr.toml").set("links.sat.rate", "4 Mbps")
>>> res = satcc.run(sc, seed=3)
>>> res.summary["flows.video.delay_mean_s"]
0.27532...
>>> res.series("sat_queue").columns.tolist()    # a pandas DataFrame, a row per 100 ms
['time_s', 'value']

A sweep runs every point of a grid into a campaign folder (docs/campaigns.md);
the uplink's queue shows in the mean delay:

>>> c = satcc.sweep("examples/geo_cbr.toml", set={"links.sat.rate": ["2.048 Mbps", "4 Mbps"]},
...                 seeds="1..2", campaign="campaigns/geo_cbr")
>>> c.last_sweep.line()
'4 runs: 4 done now, 0 skipped (already in the store), 0 failed -> campaigns/geo_cbr'
>>> runs = satcc.results("campaigns/geo_cbr").summary()
>>> runs.groupby("param.links.sat.rate")["flows.video.delay_mean_s"].mean().round(4)
param.links.sat.rate
2.048 Mbps    0.2833
4 Mbps        0.2753
Name: flows.video.delay_mean_s, dtype: float64

Names are imported on first use, so `import satcc` stays fast and a
sub-module (units, scenario) can be used without loading the engine.
tests/test_package.py runs these examples.
"""

import importlib

_EXPORTS = {
    "Result": "runner",
    "run": "runner",
    "Scenario": "scenario",
    "ScenarioError": "scenario",
    "load": "scenario",
    "sweep": "sweeps",
    "results": "store",
}

# Sub-modules reachable as attributes after a plain `import satcc`.
_SUBMODULES = {"analysis", "traffic", "studies", "report", "executors"}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name == "__version__":
        from ._core import version

        return version()
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _EXPORTS:
        module = importlib.import_module(f".{_EXPORTS[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module 'satcc' has no attribute {name!r}")


def __dir__() -> list[str]:
    # What __getattr__ serves as well as what is loaded, so that dir() and
    # tab completion show run, load, sweep, results ... before first use.
    return sorted({*globals(), *_EXPORTS, *_SUBMODULES, "__version__"})
