"""HTML reports: one self-contained page for study results and campaigns.

A report is a single .html file a researcher can mail or attach to a paper
review: CSS inline, figures embedded as base64 PNG, no script and no
reference to anything outside the file. Sources are detected by what the
folder holds: a study result folder (results/<study>/<study>.json, written
by satcc.studies.present) or a campaign folder (campaign.json plus the
Parquet parts described in docs/campaigns.md). A study's section embeds
every figure the study wrote (the "files" of its JSON), captioned with the
Title and Description in the PNG. The page is made from Jinja2 templates
(templates/, autoescaped). Which summary figures a
campaign's tables and plots show is declared in satcc.summary_tables, which
`satcc run` reads as well.

The modules follow what they render: sources (which kind a folder is),
markup (shared HTML and figure pieces), study (a study's section),
campaign_data, campaign and campaign_figures (a campaign's section), page
(the page and the commands that write it).
"""

from __future__ import annotations

from .campaign import campaign_section
from .campaign_data import UNSET, CampaignData, load_campaign
from .page import CSS, DEFAULT_TITLE, render_page, reproduce_all, write_report
from .sources import ReportError, is_campaign, source_kind, study_json
from .study import StudyOutcome, load_study, study_outcome, study_section

__all__ = [
    "CSS",
    "DEFAULT_TITLE",
    "UNSET",
    "CampaignData",
    "ReportError",
    "StudyOutcome",
    "campaign_section",
    "is_campaign",
    "load_campaign",
    "load_study",
    "render_page",
    "reproduce_all",
    "source_kind",
    "study_json",
    "study_outcome",
    "study_section",
    "write_report",
]
