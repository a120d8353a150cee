"""What a sweep checks before it writes into an existing campaign: that the
campaign holds this scenario's runs (not another's, not an edited copy's)
and that this build wrote it (satcc.build), so its tables never mix runs
that are not comparable."""

from __future__ import annotations

import json
from typing import Any

from .store import Campaign, CampaignError


def check_scenario(store: Campaign, meta: dict[str, Any]) -> None:
    """A campaign holds one scenario's runs: its tables have a column per
    swept key only, so runs of another scenario, or of this one edited
    between two sweeps, would sit beside them as if they were comparable."""
    theirs, ours = store.meta.get("scenario"), meta["scenario"]
    hint = "use another --campaign, or --allow-other-scenario to mix them deliberately"
    if theirs != ours:
        raise CampaignError(
            f"{store.path}: campaign of scenario {theirs!r}; this sweep is of scenario "
            f"{ours!r}: {hint}"
        )
    if store.version != meta["satcc_version"]:
        return  # normalisation may differ between versions; the name must do
    changed = _differences(store.meta.get("base_description"), meta["base_description"])
    if changed:
        shown = "; ".join(changed[:3]) + ("; ..." if len(changed) > 3 else "")
        raise CampaignError(
            f"{store.path}: scenario {ours!r} differs from the one this campaign holds "
            f"({shown}): {hint}"
        )


def _differences(theirs: Any, ours: Any) -> list[str]:
    """Where two descriptions differ, as 'KEY: CAMPAIGN -> NOW' (nothing when
    either is unknown: a base left incomplete for the sweep to fill in)."""
    if theirs is None or ours is None:
        return []
    return _diff(theirs, ours, "")


def _diff(theirs: Any, ours: Any, path: str) -> list[str]:
    if theirs == ours:
        return []
    if isinstance(theirs, list) and isinstance(ours, list):
        theirs, ours = _keyed(theirs), _keyed(ours)
    if not (isinstance(theirs, dict) and isinstance(ours, dict)):
        return [f"{path or 'the description'}: {_brief(theirs)} -> {_brief(ours)}"]
    out: list[str] = []
    for key in list(theirs) + [k for k in ours if k not in theirs]:
        sub = f"{path}.{key}" if path else str(key)
        if key not in ours:
            out.append(f"{sub}: removed")
        elif key not in theirs:
            out.append(f"{sub}: added")
        else:
            out.extend(_diff(theirs[key], ours[key], sub))
    return out


def _keyed(items: list[Any]) -> dict[str, Any]:
    """A list of named tables (links, nodes, ...) by name, else by index, so
    that a difference reads links.server.delay_ps."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    if all(isinstance(n, str) for n in names) and len(set(names)) == len(names):
        return dict(zip(names, items, strict=True))
    return {str(i): item for i, item in enumerate(items)}


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def check_version(store: Campaign, allow_version_mix: bool) -> None:
    """A campaign is swept by the build that created it: another build's
    runs are never reused (their keys differ), so they would sit beside
    this build's in the tables."""
    from . import _core
    from .build import build_id

    theirs, ours = store.version, _core.version()
    if allow_version_mix:
        return
    if theirs != ours:
        raise CampaignError(
            f"{store.path}: campaign written by satcc {theirs}, this is satcc {ours}; "
            "its runs would be recomputed and the tables would mix two versions: "
            "use another --campaign, or --allow-version-mix to do it deliberately"
        )
    if store.build != build_id():
        made_by = f"build {store.build}" if store.build else "a build of unknown identity"
        raise CampaignError(
            f"{store.path}: campaign written by {made_by} of satcc {theirs}, this is build "
            f"{build_id()} (the code changed since): its runs were computed by other code and "
            "would not be reused, and the tables would mix two builds: use another "
            "--campaign, or --allow-version-mix to keep both"
        )
