"""The report's tests check every number of every part: they get a time budget that cuts nothing short
(the budget itself is tested in test_report_budget.py, which sets its own)."""
import pytest


@pytest.fixture(autouse=True)
def _ample_time(monkeypatch):
    import subsel.reporting._content as content

    monkeypatch.setattr(content, "MIN_BUDGET_S", 3600.0)
