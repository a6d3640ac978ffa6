"""Work, not wall time, decides what a spec may cost (docs/decisions/0004-work-bounds-not-time.md).
The two D1 specs, rebuilt from the issue's description, each held the only worker for 15 minutes:
their runtime phase reached its 300 s safety net, which is the machine's failure, so the job retried
three times. Each now ends on its first attempt with a verdict naming the work bound it exceeds:

- a cfg whose INIT enumerates 2×10⁹ states: TLC counts the states it generates (initial ones
  included) against `runtime.MAX_GENERATED`;
- `ASSUME PrintT(Big)` over a 12,000-element sequence of 3,900-character strings: one
  expression TLC cannot count, bounded by the JVM's own CPU seconds (`runtime.WORK_CPU_SECONDS`,
  made small here so the test does not spend the real 150 CPU seconds).

A net reached while the spec stays within its bounds is still no verdict
(tests/test_a_time_limit_is_never_a_verdict.py). Real SANY and TLC.
"""

from dataclasses import replace

import pytest

from evaluation.inputs.contracts import load_contract
from evaluation.phases import runtime
from evaluation.phases.runtime import check_runtime
from leaderboard.models import Run
from leaderboard.scoring.jobs import evaluate_run
from tests.base import make_model, make_run
from tests.test_job_lifecycle import spin_task
from tests.work_bound_support import PRINTER, WIDE_CFG, WIDE_INIT, with_definitions

pytestmark = pytest.mark.tla


@pytest.mark.django_db
def test_an_init_of_two_billion_states_is_a_verdict_on_the_first_attempt():
    task = spin_task()
    run = make_run(make_model(), task, spec_text=with_definitions(WIDE_INIT), cfg_text=WIDE_CFG,
                   review="private")  # fmt: skip

    assert evaluate_run(run.pk) == Run.Status.FINISHED

    run.refresh_from_db()
    assert run.attempts == 1 and run.failure_reason == ""
    p2 = run.phase_results.get(phase="runtime")
    assert (p2.status, p2.score) == ("error", 0.0)
    bound = p2.details["work_bound"]
    assert bound == {"kind": "states_generated", "bound": runtime.MAX_GENERATED}
    assert "exceeds the work bound of 2,000,000 states generated" in p2.details["error"]["message"]
    # The later phases were not reached, and the run is a result like any other.
    later = run.phase_results.exclude(phase__in=("syntax", "runtime"))
    assert set(later.values_list("status", flat=True)) == {"skipped"}
    assert run.overall is not None


def test_a_print_of_a_huge_value_is_a_verdict_bounded_by_cpu_work(monkeypatch):
    monkeypatch.setattr(runtime, "WORK_CPU_SECONDS", 8.0)
    contract = load_contract("spin")
    # A wide net, as on a machine under load: the work bound, not the net, ends the phase.
    roomy = replace(contract, budgets=contract.budgets.with_("runtime", wall_seconds=1200))
    outcome = check_runtime(with_definitions(PRINTER), roomy)
    assert (outcome.status, outcome.score) == ("error", 0.0)
    assert outcome.details["work_bound"] == {"kind": "cpu_seconds", "bound": 8.0}
    assert "exceeds the work bound of 8 CPU seconds" in outcome.details["error"]["message"]


def test_a_spec_cannot_pass_its_own_failure_off_as_a_work_bound():
    # The work module's Assert carries a fresh nonce per check; the spec's own Assert, whatever
    # its words, is the spec's own error.
    spec = with_definitions('ASSUME Assert(FALSE, "_work_")\n\n')
    outcome = check_runtime(spec, load_contract("spin"))
    assert outcome.status == "error"
    assert "work_bound" not in outcome.details
