"""P4 credits only behaviour that is there: which invariants that hold earn their point.

An invariant that holds says something about the spec only if the spec has the behaviour it
constrains, and that behaviour is the system's. After P4 (`apply`, called by the pipeline), an
invariant with verdict `holds` keeps its credit only if:

(a) it is not vacuous. Targets are measured on the spec's own behaviour within P2's bound (the
    region P4's safety checks explore), over the schema variables the invariant reads (its
    definition's identifiers):
    - a2, from the corpus: every variable it reads that the windows show changing changes in
      some reachable step too; and every string its definition names that the windows show as
      a value of a variable it reads is reached (some state where that variable, at some key,
      field or position, takes it): MutualExclusion names "locked", so a spec where no thread
      ever holds the lock gets "vacuous: the spec never reaches a state where pc takes
      \"locked\"". An invariant that reads only state the windows never show changing
      (raftkvs's nodeEnabled, which no window shows; zookeeper's lastZxid, which no window
      changes) has no such target: a spec may well keep it as Init sets it. It still needs the
      spec to change some variable the windows show changing.
    - a1, needs no windows (the only rule for a task without traces, such as curp): some
      variable it reads changes in some reachable step. An invariant over state that never
      leaves Init's projection holds of every spec.
(b) the actions that change, in the corpus, the variables it reads accept no fair negative
    window in P3 (`conformance/specificity.py`): an invariant kept by an action that allows any
    change that keeps it (every step filtered through the invariant) is not a fact about the
    system. An invariant reading a variable no window shows (spin's callType) depends on every
    target action.
(c) since scorer 3.0.0 (docs/decisions/0013-p4-credit.md), credit follows conformance: an
    invariant that passes (a) and (b) earns the mean official P3 pass rate (the held-out one
    when there is a held-out set; undecided windows count as not passed) of the target actions
    that change, in the traces, what it reads (every target action when it reads state no window
    shows or changes). No invariant earns anything (`details.credit.withheld`) when the task has no
    traces, when P3 did not run to the end (any error, a scorer bug included: fail closed, a
    spec must not keep its invariants by making P3 fail), when the run fits the public windows
    but not the held-out ones (`phases/heldout.py`), or when P4's bounded region does not show
    every actor the traces show acting, acting (`idle_actors`: a script where one thread acts).

The targets are measured by `reach.measure` (TLC, P2's bounded region, see there). An invariant
that loses its credit becomes `error` with `credit` vacuous or unspecific (marked on the run
page) and a reason for the reader, and P4's score is recomputed; `details.credit` records what
was reached, what was not, the TLC runs and each reason.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from evaluation.details import ConformanceDetails, InvariantCredit, InvariantDetails
from evaluation.inputs.adapter_check import identifiers
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases.conformance.vocab import schema_vocab
from evaluation.phases.invariants.reach import Path, Reach, Target, measure, string_atoms
from evaluation.results import Credit, PhaseOutcome
from evaluation.tla.parsed import ParsedSpec
from evaluation.windows.window import Window

# How the reason of an invariant that holds but earns no credit begins: prose for the reader;
# the result's `credit` (vacuous, unspecific) is what pages and exports read.
VACUOUS = "vacuous"
UNSPECIFIC = "not credited"
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


# ----------------------------------------------------------------------------- what to ask for


@dataclass
class Corpus:
    """What the windows show, per schema variable."""

    atoms: dict[str, set[tuple[Path, str]]] = field(default_factory=dict)
    changing: set[str] = field(default_factory=set)
    shown: set[str] = field(default_factory=set)
    changed_by: dict[str, set[str]] = field(default_factory=dict)  # var -> actions
    # actor -> the variables whose slot keyed by that actor its own steps change
    actor_slots: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, windows: list[Window], contract: Contract) -> Corpus:
        vocab = schema_vocab(contract)
        corpus = cls()
        for window in windows:
            pre, post = window.get("pre_state") or {}, window.get("post_state") or {}
            for var in (set(pre) | set(post)) & set(contract.schema):
                corpus.shown.add(var)
                for state in (pre, post):
                    if var in state:
                        found = string_atoms(state[var], vocab.get(var))
                        corpus.atoms.setdefault(var, set()).update(found)
                if var in pre and var in post and _changed(pre[var], post[var]):
                    corpus.changing.add(var)
                    corpus.changed_by.setdefault(var, set()).add(str(window.get("action")))
                    actor = str(window.get("actor"))
                    if _slot_changed(pre[var], post[var], actor):
                        corpus.actor_slots.setdefault(actor, set()).add(var)
        return corpus

    def actor_targets(self) -> dict[str, list[Target]]:
        """Per actor the windows show acting through its own slot of a variable: the targets of
        which the spec's behaviour must reach one (that actor acting)."""
        return {
            actor: [Target(var, key=actor) for var in sorted(slots)]
            for actor, slots in sorted(self.actor_slots.items())
        }


def _slot_changed(pre: object, post: object, key: str) -> bool:
    return isinstance(pre, dict) and isinstance(post, dict) and pre.get(key) != post.get(key)


def _changed(pre: object, post: object) -> bool:
    if isinstance(pre, dict) and isinstance(post, dict):
        return any(k in post and pre[k] != post[k] for k in pre)
    return pre != post


def _body(definition: str) -> str:
    return definition.split("==", 1)[1] if "==" in definition else definition


def reads(definition: str, contract: Contract) -> list[str]:
    """The schema variables an invariant's definition names."""
    return sorted(identifiers(_body(definition)) & set(contract.schema))


def literals(definition: str) -> list[str]:
    """The strings an invariant's definition names (the values it constrains)."""
    return sorted(set(_STRING.findall(_body(definition))))


@dataclass
class Plan:
    """Per invariant: the targets that must all be reached (a2) and the ones of which at least
    one must be (a1)."""

    all_of: dict[str, list[Target]] = field(default_factory=dict)
    any_of: dict[str, list[Target]] = field(default_factory=dict)

    def still_needed(self, names: Iterable[str], reached: set[Target]) -> set[Target]:
        """The targets that can still change a verdict of the invariants `names`: every one
        they all need, and the options of a group none of whose members is reached yet."""
        out = {t for name in names for t in self.all_of.get(name, [])}
        for name in names:
            options = self.any_of.get(name, [])
            if not any(t in reached for t in options):
                out.update(options)
        return out


def plan(contract: Contract, corpus: Corpus | None) -> Plan:
    out = Plan()
    for inv in contract.invariants:
        variables = reads(inv.definition, contract)
        if corpus is None:
            out.any_of[inv.name] = [Target(v) for v in variables]
            continue
        needed = [Target(v) for v in variables if v in corpus.changing]
        for text in literals(inv.definition):
            for var in variables:
                paths = tuple(sorted({p for p, s in corpus.atoms.get(var, ()) if s == text}))
                if paths:
                    needed.append(Target(var, text, paths))
        out.all_of[inv.name] = needed
        if not needed:
            # Over state the traces never show changing (raftkvs's nodeEnabled, zookeeper's
            # lastZxid): nothing of it to ask for, but a spec whose behaviour changes nothing
            # the traces show changing models nothing the invariant could be about.
            out.any_of[inv.name] = [Target(v) for v in sorted(corpus.changing)]
    return out


# ----------------------------------------------------------------------------- credit


class Withdrawal(NamedTuple):
    """Why an invariant that holds loses its credit: the kind, and the reason in words."""

    credit: Credit
    reason: str


def apply(
    outcome: PhaseOutcome,
    conformance: PhaseOutcome | None,
    spec: ParsedSpec,
    contract: Contract,
    adapter: Adapter,
    windows: list[Window],
) -> PhaseOutcome:
    """P4's outcome with credit withdrawn from the invariants that hold without earning it."""
    holding = [i for i in outcome.invariants if i.verdict == "holds"]
    if outcome.status != "ran" or not holding:
        return outcome
    started = time.monotonic()
    corpus = Corpus.read(windows, contract) if contract.has_traces else None
    targets = plan(contract, corpus)
    actors = corpus.actor_targets() if corpus is not None else {}
    reach = _reach(spec, contract, adapter, {i.name for i in holding}, targets, actors)
    idle = sorted(a for a, group in actors.items() if not any(t in reach.reached for t in group))
    evidence = _Evidence(
        contract,
        corpus,
        conformance,
        targets,
        reach,
        withheld=_withheld(conformance, contract) or _idle(idle, actors, reach),
        rates=_pass_rates(conformance),
        unspecific=_unspecific(conformance) if corpus is not None else {},
    )
    reasons: dict[str, str] = {}
    earned: dict[str, float] = {}
    for inv in holding:
        earned[inv.name], unearned = evidence.judge(inv.name)
        if unearned:
            inv.verdict, inv.credit, inv.reason = "error", unearned.credit, unearned.reason
            reasons[inv.name] = unearned.reason
    holds = sum(1 for i in outcome.invariants if i.verdict == "holds")
    if outcome.score is not None and outcome.invariants:
        outcome.score = round(sum(earned.values()) / len(outcome.invariants), 6)
    details = _invariant_details(outcome)
    details["holds"] = holds
    details["credit"] = _credit_details(evidence, reasons, earned, idle, started)
    outcome.duration_seconds = round(outcome.duration_seconds + time.monotonic() - started, 3)
    return outcome


def _credit_details(
    evidence: _Evidence,
    reasons: dict[str, str],
    earned: dict[str, float],
    idle: list[str],
    started: float,
) -> InvariantCredit:
    return {
        "rule": (
            "an invariant that holds is credited only if the spec's behaviour within P2's bound "
            "reaches what it constrains (a1, a2) with every actor the traces show acting, the "
            "actions that change what it reads accept no fair negative window in P3 (b), and P3 "
            "ran to the end; it then earns the mean P3 pass rate of those actions (c)"
        ),
        "windows_rule": evidence.corpus is not None,
        "reached": sorted(t.text() for t in evidence.reach.reached),
        "not_reached": sorted(t.text() for t in evidence.reach.unreached),
        "region": evidence.reach.region,
        "undetermined": evidence.reach.undetermined,
        "runs": evidence.reach.runs,
        "withdrawn": reasons,
        "earned": {name: round(value, 6) for name, value in earned.items()},
        "idle_actors": idle,
        "withheld": evidence.withheld,
        "seconds": round(time.monotonic() - started, 3),
    }


def _reach(
    spec: ParsedSpec,
    contract: Contract,
    adapter: Adapter,
    wanted: set[str],
    targets: Plan,
    actors: dict[str, list[Target]],
) -> Reach:
    """What the spec's behaviour reaches of the targets the holding invariants (`wanted`) and
    the traces' actors need; the measure stops once nothing needed is left."""
    needed = [
        t for name in wanted for t in targets.all_of.get(name, []) + targets.any_of.get(name, [])
    ]
    needed += [t for group in actors.values() for t in group]

    def still_needed(reached: set[Target]) -> set[Target]:
        idle = {t for g in actors.values() if not any(t in reached for t in g) for t in g}
        return targets.still_needed(wanted, reached) | idle

    return measure(spec, contract, adapter, sorted(set(needed), key=Target.text), still_needed)


@dataclass(frozen=True)
class _Evidence:
    """What an invariant's credit is decided from: what the spec's behaviour reached, what P3
    found, and why no invariant can earn (`withheld`, "" when one can)."""

    contract: Contract
    corpus: Corpus | None
    conformance: PhaseOutcome | None
    targets: Plan
    reach: Reach
    withheld: str
    rates: dict[str, float | None]
    unspecific: dict[str, str]

    def judge(self, name: str) -> tuple[float, Withdrawal | None]:
        """The invariant's earned share, and why it earns nothing when it does not."""
        contract = self.contract
        definition = next(i.definition for i in contract.invariants if i.name == name)
        unearned = _vacuity(name, self.targets, self.reach) or _unspecific_reason(
            _specificity(definition, contract, self.corpus, self.conformance, self.unspecific)
            or self.withheld
        )
        if unearned:
            return 0.0, unearned
        share = _share(definition, contract, self.corpus, self.rates)
        if share > 0:
            return share, None
        return share, _unspecific_reason(
            f"{UNSPECIFIC}: the actions that change what it reads passed no window in P3 "
            "(undecided windows count as not passed): its holding is no fact about the system"
        )


def _withheld(conformance: PhaseOutcome | None, contract: Contract) -> str:
    """Why no invariant can earn credit from this P3 ("" when P3 ran to the end): fail closed,
    a P3 that did not run (a scorer bug included) never leaves P4's credit standing."""
    if not contract.has_traces:
        return (
            f"{UNSPECIFIC}: the task has no traces, so no P3 ties what the invariant constrains "
            "to the system's behaviour (P3 counts as not earned, and so does this credit)"
        )
    if conformance is None or conformance.status != "ran":
        status = conformance.status if conformance else "not run"
        return (
            f"{UNSPECIFIC}: P3 ended with status {status}, so whether the actions that keep "
            "it are the system's is not known"
        )
    fit = conformance.details.get("fits_public")
    if fit and fit["flagged"]:
        return (
            f"{UNSPECIFIC}: the spec fits the public windows, not the system (its public P3 "
            f"pass rate exceeds the held-out one by {fit['gap']:.2f}, more than "
            f"{fit['margin']:.2f}): the behaviour its invariants hold of is the public traces', "
            "not the system's"
        )
    return ""


def _idle(idle: list[str], actors: dict[str, list[Target]], reach: Reach) -> str:
    if not idle:
        return ""
    slots = "; ".join(", ".join(t.text() for t in actors[a]) + f" (actor {a})" for a in idle)
    how = "is not known: " + reach.undetermined if reach.undetermined else "never happens"
    return (
        f"{UNSPECIFIC}: the traces show every actor acting, but {reach.region} some never do: "
        f"{slots} {how}. An invariant over a region where some actors never act says nothing "
        "of the system's"
    )


def _pass_rates(conformance: PhaseOutcome | None) -> dict[str, float | None]:
    """Action -> its official P3 pass rate (the held-out one when there is a held-out set)."""
    if conformance is None:
        return {}
    details = cast(ConformanceDetails, conformance.details)
    summary = details.get("heldout") or details.get("public")
    if summary:
        return {a: row["pass_rate"] for a, row in summary["per_action"].items()}
    return {a: row["pass_rate"] for a, row in details.get("per_action", {}).items()}


def _share(
    definition: str,
    contract: Contract,
    corpus: Corpus | None,
    rates: dict[str, float | None],
) -> float:
    """Rule (c): the mean official P3 pass rate of the actions that change, in the traces, what
    the invariant reads (every target action when it reads state no window shows, or state no
    window changes). A script or an invented mapping passes few windows, so earns little."""
    if corpus is None:
        return 0.0
    variables = reads(definition, contract)
    actions = {a for v in variables for a in corpus.changed_by.get(v, ())}
    if not actions or any(v not in corpus.shown for v in variables):
        actions = set(contract.actions)
    known = [r for a in sorted(actions) if (r := rates.get(a)) is not None]
    return sum(known) / len(known) if known else 0.0


def _unspecific_reason(reason: str) -> Withdrawal | None:
    return Withdrawal("unspecific", reason) if reason else None


def _vacuity(name: str, targets: Plan, reach: Reach) -> Withdrawal | None:
    """Rules a1/a2: vacuous when the spec is known never to reach a target; unspecific when
    whether it does is not known (the measurement ran out)."""
    missing = [t for t in targets.all_of.get(name, []) if t not in reach.reached]
    options = targets.any_of.get(name, [])
    frozen = bool(options) and not any(t in reach.reached for t in options)
    if not missing and not frozen:
        return None
    if not missing:
        if reach.undetermined and not all(t in reach.unreached for t in options):
            return Withdrawal(
                "unspecific",
                f"{UNSPECIFIC}: whether the spec's behaviour changes anything is not known: "
                + reach.undetermined,
            )
        names = _and([t.var for t in options])
        which = names if len(options) == 1 else f"any of {names}"
        return Withdrawal(
            "vacuous",
            f"{VACUOUS}: {reach.region} the spec never changes {which} (it keeps Init's values)",
        )
    if reach.undetermined and not all(t in reach.unreached for t in missing):
        shown = ", ".join(t.text() for t in missing)
        return Withdrawal(
            "unspecific",
            f"{UNSPECIFIC}: whether the spec's behaviour shows {shown} is not known: "
            + reach.undetermined,
        )
    never = "; never ".join(t.never() for t in missing)
    return Withdrawal("vacuous", f"{VACUOUS}: {reach.region} the spec never {never}")


def _invariant_details(outcome: PhaseOutcome) -> InvariantDetails:
    """P4's details as P4 wrote them: `apply` only reads an outcome that ran or timed out with
    invariants, whose details `check_invariants` built as InvariantDetails."""
    return cast(InvariantDetails, outcome.details)


def _unspecific(conformance: PhaseOutcome | None) -> dict[str, str]:
    """Action -> the P3 refusal, for the actions that accept a fair negative window."""
    if conformance is None or "per_action" not in conformance.details:
        return {}
    details = cast(ConformanceDetails, conformance.details)
    out = {
        action: row["specificity_failure"]
        for action, row in details["per_action"].items()
        if row.get("specificity_failure")
    }
    hidden = details.get("heldout")
    for action, summary in (hidden["per_action"] if hidden else {}).items():
        if summary["unspecific"]:
            out.setdefault(action, "it accepts a fair negative window of the held-out set")
    return out


def _specificity(
    definition: str,
    contract: Contract,
    corpus: Corpus | None,
    conformance: PhaseOutcome | None,
    unspecific: dict[str, str],
) -> str:
    if corpus is None:
        return ""  # rule (b) needs windows
    variables = reads(definition, contract)
    unseen = [v for v in variables if v not in corpus.shown]
    if unseen:
        # State no window shows may be changed by any target action.
        actions = set(contract.actions)
        what = f"{', '.join(unseen)}, which no window shows, may be changed by any action"
    else:
        actions = {a for v in variables for a in corpus.changed_by.get(v, ())}
        if not actions:
            return ""  # no window changes what it reads: no action's specificity bears on it
        changed = [v for v in variables if v in corpus.changed_by]
        what = f"the traces change {_and(changed)} through {_and(sorted(actions))}"
    if conformance is None or conformance.status != "ran":
        status = conformance.status if conformance else "not run"
        return (
            f"{UNSPECIFIC}: {what}, and P3 ended with status {status}, so whether they allow "
            "transitions the system never makes is not known"
        )
    bad = sorted(a for a in actions if a in unspecific)
    if not bad:
        return ""
    return (
        f"{UNSPECIFIC}: {what}, and {_and(bad)} {'accepts' if len(bad) == 1 else 'accept'} "
        "transitions the system never makes (P3 specificity): an invariant kept by actions that "
        "allow any change that keeps it is no fact about the system"
    )


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
