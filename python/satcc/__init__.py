"""satcc: congestion control over satellite and long-delay networks.

    import satcc
    sc = satcc.load("examples/geo_cbr.toml")
    sc.set("links.sat_up.rate", "4 Mbps")
    res = satcc.run(sc, seed=3)
    res.summary["flows.video.delay_mean_s"]
    res.series("sat_queue")          # pandas DataFrame: time_s, value
    c = satcc.sweep("examples/mm1.toml", set={"sources.arrivals.rate": ["4 Mbps", "8 Mbps"]},
                    seeds="1..5", campaign="campaigns/mm1")
    satcc.results("campaigns/mm1").summary()   # docs/campaigns.md

Names are imported on first use, so `import satcc` stays fast and a
sub-module (units, scenario) can be used without loading the engine.
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
