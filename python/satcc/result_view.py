"""How a run's result shows itself: one line for `repr()` and a compact
HTML block for Jupyter (`Result._repr_html_`).

A notebook cell that ends with a result should answer the first questions
at a glance: which run, for how long, did every PDU add up (the
conservation check), how did the flows fare, how fair was their sharing,
and which probe series can be plotted. The flow tables use the columns
`satcc run` prints (satcc.summary_tables), formatted the same way.
"""

from __future__ import annotations

from html import escape
from typing import Any

from satcc import fmt
from satcc.flow_table import FLOW_KINDS
from satcc.summary_tables import FAIRNESS as _FAIRNESS
from satcc.summary_tables import GROUPS

__all__ = ["MAX_ROWS", "conservation", "result_html", "result_text"]

# Rows shown per flow table; the rest are counted (Result.flows() has all).
MAX_ROWS = 12


def conservation(summary: dict[str, Any]) -> tuple[bool | None, str]:
    """(outcome, sentence) of the conservation check the core makes on every
    run: sent = delivered + dropped + errored + in flight. The outcome is
    None for a summary that has no such check (written by an older satcc)."""
    get = lambda key: summary.get(f"run.pdus_{key}")  # noqa: E731
    if get("sent") is None or get("unaccounted") is None:
        return None, "not checked"
    parts = " + ".join(
        f"{fmt.count(get(key))} {key.replace('_', ' ')}"
        for key in ("delivered", "dropped", "errored", "in_flight")
    )
    sentence = f"{fmt.count(get('sent'))} PDUs sent = {parts}"
    if get("unaccounted") == 0:
        return True, f"ok: {sentence}"
    return False, f"{fmt.count(get('unaccounted'))} PDUs UNACCOUNTED ({sentence})"


def _counts(summary: dict[str, Any]) -> list[str]:
    """ "16 TCP connections", ... for the flow kinds present."""
    found: dict[str, set[str]] = {}
    for key in summary:
        parts = key.split(".", 2)
        if len(parts) == 3 and parts[0] in FLOW_KINDS:
            found.setdefault(parts[0], set()).add(parts[1])
    return [
        f"{len(names)} {FLOW_KINDS[kind]}{'' if len(names) == 1 else 's'}"
        for kind, names in found.items()
    ]


def _headline(result: Any) -> str:
    summary, info = result.summary, result.info or {}
    name = (result.description or {}).get("name", "?")
    how = "emulated" if info.get("emulated") else "simulated"
    line = f"{name}, seed {result.seed}: {fmt.seconds(summary.get('run.end_time_s'))} {how}"
    if isinstance(info.get("wall_s"), int | float):
        line += f" in {fmt.seconds(info['wall_s'])} wall"
    return line + f", {fmt.count(summary.get('run.events'))} events"


def result_text(result: Any) -> str:
    """One line: the run, its flows, the conservation check, its series."""
    ok, _ = conservation(result.summary)
    check = {True: "ok", False: "FAILED", None: "not checked"}[ok]
    flows = ", ".join(_counts(result.summary)) or "no flows"
    series = ", ".join(result.series_names) or "none"
    return f"<satcc.Result {_headline(result)}; {flows}; conservation {check}; series: {series}>"


def result_html(result: Any) -> str:
    """The result as a self-contained HTML block; every text from the
    scenario or the summary is escaped."""
    summary = result.summary
    ok, sentence = conservation(summary)
    colour = {True: "green", False: "red", None: "gray"}[ok]
    parts = [
        '<div class="satcc-result">',
        f"<p><strong>satcc.Result</strong> {escape(_headline(result))}</p>",
        f'<p>Conservation: <span style="color:{colour}">{escape(sentence)}</span></p>',
    ]
    for group in GROUPS:
        if group.prefix in FLOW_KINDS:
            entities = group.entities(summary)
            if entities:
                parts.append(_table(group, entities))
    fair = [
        f"{escape(label)}: {escape(fmt.number(summary[key]))}"
        for key, (_, label) in _FAIRNESS.items()
        if key in summary
    ]
    if fair:
        parts.append(f"<p>Jain's fairness index: {'; '.join(fair)}</p>")
    series = ", ".join(f"<code>{escape(n)}</code>" for n in result.series_names) or "none"
    parts.append(f"<p>Series: {series}</p>")
    parts.append("</div>")
    return "\n".join(parts)


def _table(group: Any, entities: dict[str, dict[str, Any]]) -> str:
    head = "".join(f"<th>{escape(c.header)}</th>" for c in group.columns)
    rows = [
        f"<tr><th>{escape(name)}</th>"
        + "".join(f"<td>{escape(c.cell(values.get(c.key)))}</td>" for c in group.columns)
        + "</tr>"
        for name, values in list(entities.items())[:MAX_ROWS]
    ]
    more = len(entities) - MAX_ROWS
    caption = escape(group.title)
    if more > 0:
        caption += f" (first {MAX_ROWS} of {len(entities)}; <code>Result.flows()</code> has all)"
    return (
        f'<table style="font-size:smaller"><caption style="text-align:left">{caption}</caption>'
        f"<thead><tr><th>{escape(group.entity)}</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
