"""P4: the task's invariants checked on a spec with TLC, one verdict per invariant.

The contract's invariants are TLA+ definitions over the contract vocabulary (schema variables and
pinned constants). They never go into the spec itself: a spec may define an operator with the
same name (SysMoBench appends the definition and SANY then rejects the module:
docs/BENCHMARK_RULES.md §4). Instead two generated modules sit beside the spec:

- `<prefix>Contract`: the invariant definitions, with the schema variables and the contract
  constants declared as its own VARIABLES and CONSTANTS;
- `<prefix>CheckBody`: EXTENDS the spec, instantiates the contract module with every schema
  variable replaced by the adapter's expression over the spec's state and every constant by its
  pinned value, and names each invariant `<prefix>_<Name> == <prefix>I!<Name>` for the cfg. The
  root TLC is given, `<prefix>Check`, only EXTENDS the spec and the body, so TLC reads the spec
  first (`evaluation/tla/layout.py`).

`<prefix>` is derived from the spec text and checked not to occur in it, so no generated name can
collide with the spec's. Verdicts come from TLC's exit code and the final statistics line (0
states left on queue), never from text the spec could print.

How each invariant is checked follows from its formula's level as SANY computes it, never from
its name or `kind` (a safety property may well be `[][A]_v`):

- constant or state level (0/1): an `INVARIANT`;
- temporal level (3: `[]`, `<>`, `~>`, `WF_`/`SF_`, `[][A]_v`): a `PROPERTY`, whose violation
  (exit `VIOLATION_LIVENESS`) is read like a liveness one and which never joins the joint
  `INVARIANT` run;
- action level (2: primes without `[]`): TLC can check it neither way, so it is an `error`
  asking the contract author to wrap it in `[][...]_vars`.

The level comes from one SANY run per contract (cached) on the contract module plus a probe
module with, per invariant, `(Name)'` (SANY rejects it iff the level is above 1) and
`ENABLED (Name)` (rejected iff above 2), each on its own line so that SANY's level errors, which
it reports all at once with their line, say which probe failed. Instantiating the contract with
the adapter's state expressions keeps these levels. Should SANY reject the contract module itself,
the mode falls back to the kind (safety: INVARIANT, liveness: PROPERTY) and TLC reports the error.

One concern per module:

- `build`: the generated modules and cfgs (`build_modules`, `CheckModules`, `tlc_flags`);
- `levels`: each invariant's check mode from its level (`check_modes`);
- `trace`: TLC's counterexample read into states (`parse_trace`);
- `verdicts`: one run's verdict on an invariant, and vacuity (`verdict_from_run`, `vacuity`);
- `budget`: the phase's safety nets (time limits, never verdicts) and its record of runs;
- `checking`: the budgeted joint and lone runs (`check_all`);
- `lasso`: a joint liveness counterexample replayed per property (`lasso_module`);
- `phase`: `check_invariants`, the phase's entry point.
"""

from evaluation.phases.invariants.build import build_modules, tlc_flags
from evaluation.phases.invariants.lasso import lasso_module
from evaluation.phases.invariants.levels import check_modes
from evaluation.phases.invariants.phase import NOT_MODELLED, check_invariants
from evaluation.phases.invariants.trace import parse_trace

__all__ = [
    "NOT_MODELLED",
    "build_modules",
    "check_invariants",
    "check_modes",
    "lasso_module",
    "parse_trace",
    "tlc_flags",
]
