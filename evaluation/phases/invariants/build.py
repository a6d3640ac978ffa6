"""The modules and cfgs TLC checks the contract's invariants with, generated beside the spec.

`<prefix>Contract` holds the invariant definitions over the contract vocabulary; `<prefix>CheckBody`
instantiates it with the adapter's expressions over the spec's state; the root `<prefix>Check`
EXTENDS the spec and the body, so TLC reads the spec first (`evaluation/tla/layout.py`). The
prefix is derived from the spec text and checked not to occur in it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import identifiers
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases.fairness import Fairness, spec_fairness
from evaluation.phases.runtime import bound_definition
from evaluation.tla.layout import spec_first
from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.sandbox.calls import deterministic_args

# The modules a contract invariant may use; kept to standard modules so a contract module never
# depends on what the spec EXTENDS.
CONTRACT_EXTENDS = ("Integers", "Sequences", "FiniteSets", "TLC")
INIT, NEXT = "Init", "Next"


def tlc_flags(contract: Contract) -> list[str]:
    """TLC flags for a P4 run (the sandbox always adds `-workers 1`, so BFS order and therefore
    counterexamples are reproducible; `-fp`/`-seed` fix the fingerprint polynomial, on which
    the liveness checker's counterexample depends, and `RandomElement`)."""
    flags: list[str] = []
    if contract.deadlock == "allowed":
        flags.append("-deadlock")  # in TLC this flag *disables* deadlock checking
    return deterministic_args(flags, int(contract.budget("invariant", "seed")))


def name_prefix(spec_text: str) -> str:
    """A prefix for generated names that occurs nowhere in the spec (so it cannot collide)."""
    salt = 0
    while True:
        digest = hashlib.sha256(f"{salt}:{spec_text}".encode()).hexdigest()[:8]
        prefix = f"SMB{digest}"
        if prefix not in spec_text:
            return prefix
        salt += 1


@dataclass(frozen=True)
class CheckModules:
    prefix: str
    modules: dict[str, str]
    root: str
    constants_cfg: str
    fairness: Fairness
    has_spec: bool
    flags: list[str]
    # The spec as parsed once: the text in `modules`, the TLCSet scan of every run and what a
    # false ASSUME is explained with (with the contract's pinned constants and the adapter's).
    spec: ParsedSpec
    init: str = INIT
    next: str = NEXT
    variables: tuple[str, ...] = ()
    spec_module: str = ""
    pinned: dict[str, str] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict)

    def check_name(self, invariant: str) -> str:
        return f"{self.prefix}_{invariant}"

    def cfg(
        self, invariants: Sequence[str] = (), properties: Sequence[str] = (), live: bool = False
    ) -> str:
        r"""Safety runs explore P2's region: INIT/NEXT under P2's bound. Liveness runs take
        Init /\ [][Next]_vars /\ the spec's fairness over the same bounded graph, so that they
        end by work, not by time (docs/decisions/0004-work-bounds-not-time.md). A behaviour that
        reaches the bound stutters there; the spec's fairness rules that out wherever a fair
        action is still enabled, and where none is, the stutter is one the spec allows."""
        if live:
            behaviour = f"SPECIFICATION {self.prefix}Live\nCONSTRAINT {self.prefix}Bound"
        else:
            behaviour = f"INIT {self.init}\nNEXT {self.next}\nCONSTRAINT {self.prefix}Bound"
        lines = [self.constants_cfg, behaviour]
        lines += [f"INVARIANT {self.check_name(n)}" for n in invariants]
        lines += [f"PROPERTY {self.check_name(n)}" for n in properties]
        return "\n".join(line for line in lines if line) + "\n"


def absent_variables(spec: ParsedSpec, contract: Contract, adapter: Adapter) -> list[str]:
    """Schema variables the spec does not have under the contract's name, which no adapter
    maps to anything else: there is nothing to substitute for them."""
    known = set(spec.variables) | set(spec.defined) | set(spec.constants)
    return [
        v for v in contract.schema if adapter.variables.get(v, v).strip() == v and v not in known
    ]


def reading_absent(contract: Contract, absent: list[str]) -> dict[str, list[str]]:
    """Invariant -> the absent variables it reads, directly or through another invariant."""
    if not absent:
        return {}
    reads = {
        inv.name: set(identifiers(inv.definition.split("==", 1)[1])) for inv in contract.invariants
    }
    for _ in contract.invariants:  # close over invariants that use one another
        for name in reads:
            for other in reads[name] & set(reads):
                reads[name] |= reads[other]
    found = {name: sorted(names & set(absent)) for name, names in reads.items()}
    return {name: missing for name, missing in found.items() if missing}


def without_absent(contract: Contract, absent: list[str]) -> Contract:
    """The contract without the absent variables and the invariants that read them: every other
    invariant is checked whenever the variables it reads are there."""
    if not absent:
        return contract
    unreadable = reading_absent(contract, absent)
    return dataclasses.replace(
        contract,
        schema={v: s for v, s in contract.schema.items() if v not in absent},
        invariants=tuple(i for i in contract.invariants if i.name not in unreadable),
    )


def build_modules(spec: str | ParsedSpec, contract: Contract, adapter: Adapter) -> CheckModules:
    parsed = spec_of(spec)
    contract = without_absent(contract, absent_variables(parsed, contract, adapter))
    spec_text = parsed.text
    prefix = name_prefix(spec_text)
    contract_module = f"{prefix}Contract"
    root = f"{prefix}Check"
    spec_module = parsed.module or contract.module
    init, nxt = adapter_text.behaviour(adapter, spec_text)
    # Fairness is read from the formula the submitter names (cfg SPECIFICATION), else `Spec`.
    spec_name = adapter_text.specification(adapter, set(parsed.defined)) or "Spec"
    fairness = spec_fairness(parsed, init, nxt, spec_name)
    behaviour = _behaviour_text(prefix, parsed.variables, contract, fairness, init, nxt)
    check_text = _check_module_text(
        root, prefix, contract_module, contract, adapter, spec_module, behaviour
    )
    modules = {
        spec_module: spec_text,
        contract_module: contract_module_text(contract_module, contract),
        **spec_first(root, spec_module, check_text),
    }
    return CheckModules(
        prefix=prefix,
        modules=modules,
        root=root,
        constants_cfg=_constants_cfg(prefix, parsed.constants, contract, adapter),
        fairness=fairness,
        has_spec=spec_name in parsed.defined,
        flags=tlc_flags(contract),
        spec=parsed,
        init=init,
        next=nxt,
        variables=tuple(parsed.variables),
        spec_module=spec_module,
        pinned=dict(contract.constants),
        given=dict(adapter.constants),
    )


def _behaviour_text(
    prefix: str,
    variables: Sequence[str],
    contract: Contract,
    fairness: Fairness,
    init: str,
    nxt: str,
) -> list[str]:
    """The bound P2 explores within, the spec's variables, and the liveness behaviour."""
    lines = [
        bound_definition(
            f"{prefix}Bound",
            int(contract.budget("runtime", "depth")),
            int(contract.budget("runtime", "max_states")),
        ),
        f"{prefix}Vars == <<{', '.join(variables)}>>",
    ]
    fair = []
    for i, body in enumerate(fairness.conjuncts):
        lines.append(f"{prefix}Fair{i} ==\n{body}")
        fair.append(f"{prefix}Fair{i}")
    live = [init, f"[][{nxt}]_{prefix}Vars", *fair]
    lines.append(f"{prefix}Live == " + " /\\ ".join(live))
    return lines


def contract_module_text(name: str, contract: Contract) -> str:
    parts = [f"---- MODULE {name} ----", f"EXTENDS {', '.join(CONTRACT_EXTENDS)}"]
    if contract.constants:
        parts.append(f"CONSTANTS {', '.join(contract.constants)}")
    parts.append(f"VARIABLES {', '.join(contract.schema)}")
    parts += [inv.definition for inv in contract.invariants]
    parts.append("====")
    return "\n".join(parts) + "\n"


def _check_module_text(
    name: str,
    prefix: str,
    contract_module: str,
    contract: Contract,
    adapter: Adapter,
    spec_module: str,
    behaviour: list[str],
) -> str:
    # TLC and Naturals for the bound (TLCGet, <), as in P2's wrapper.
    parts = [f"---- MODULE {name} ----", f"EXTENDS {spec_module}, TLC, Naturals"]
    parts += adapter_text.prelude(adapter, prefix)
    parts += behaviour
    for const, value in {**contract.constants, **adapter.constants}.items():
        parts.append(f"{prefix}K_{const} == {adapter_text.rewrite(value, prefix)}")
    for const, value in contract.constants.items():
        # What the spec gets: the pinned value in the spec's own values (the adapter's mapping).
        spec_side = adapter_text.spec_value(value, adapter, f"{prefix}ToSpec")
        parts.append(f"{prefix}S_{const} == {spec_side}")
    substitutions = [
        f"{v} <- ({adapter_text.rewrite(adapter.variables.get(v, v), prefix)})"
        for v in contract.schema
    ]
    substitutions += [f"{c} <- {prefix}K_{c}" for c in contract.constants]
    parts.append(
        f"{prefix}I == INSTANCE {contract_module} WITH\n    " + ",\n    ".join(substitutions)
    )
    parts += [f"{prefix}_{inv.name} == {prefix}I!{inv.name}" for inv in contract.invariants]
    parts.append("====")
    return "\n".join(parts) + "\n"


def _constants_cfg(
    prefix: str, declared: Collection[str], contract: Contract, adapter: Adapter
) -> str:
    # Only constants the spec declares can be assigned; an undeclared one stays out of the cfg
    # (TLC would reject it), and a declared one with no value is reported by TLC as an error.
    values = {**contract.constants, **adapter.constants}
    lines = [
        f"CONSTANT {c} <- {prefix}{'S' if c in contract.constants else 'K'}_{c}"
        for c in values
        if c in declared
    ]
    lines += adapter_text.model_value_cfg(adapter)
    return "\n".join(lines)
