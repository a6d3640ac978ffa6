"""One line with the total coverage, printed above pytest's closing summary line.

`bin/test` (under CI=true, or with COVERAGE=1) measures with pytest-cov (`--cov=...
--cov-report=`: it measures, combines the xdist workers' data and saves it, but prints no
per-file table). This plugin reads the saved data and
prints the total, so the run still ends with pytest's own summary line, which CI reads.
Subprocesses (manage.py, the lint child, rq workers) are not measured.
"""

from __future__ import annotations

import io

import pytest


def total_line(config: pytest.Config) -> str:
    """ "coverage of evaluation, leaderboard, config: 71.3% of statements", or "" when the run
    measured nothing (no `--cov`, `--no-cov`, or an xdist worker, whose data the controller
    combines)."""
    sources = getattr(config.option, "cov_source", None)
    if not sources or getattr(config.option, "no_cov", False) or hasattr(config, "workerinput"):
        return ""
    import coverage

    # The same configuration (pyproject.toml) and data file as the measurement.
    measured = coverage.Coverage(source=sources)
    measured.load()
    try:
        total = measured.report(file=io.StringIO(), output_format="total")
    except coverage.exceptions.NoDataError:
        return ""
    return f"coverage of {', '.join(sources)}: {total:.1f}% of statements"


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config):
    line = total_line(config)
    if line:
        terminalreporter.write_sep("-", line)
