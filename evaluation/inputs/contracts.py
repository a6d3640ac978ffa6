"""Task contracts (`tasks_data/<task>/task.yaml`) and submitter adapters, loaded and validated.

A contract is the published, LLM-free replacement for everything SysMoBench asks an LLM to decide
at scoring time: names, pinned constants, the observable vocabulary, the target actions and the
invariants. Every validation error names the file and the field so a contract author can fix it
without reading this module.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import yaml

from evaluation.details import InvariantKind
from evaluation.inputs.adapter_check import syntax_problems
from evaluation.inputs.budgets import BudgetError, Budgets, parse_budgets
from evaluation.inputs.tlc_cfg import TlcConfig
from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.snippets import definition_name, expression_parses

TASKS_DATA_DIR = Path(__file__).resolve().parents[2] / "tasks_data"

KINDS = ("concurrent", "distributed")
INVARIANT_KINDS: tuple[InvariantKind, ...] = ("safety", "liveness")
DEADLOCK_POLICIES = ("allowed", "error")
DEFAULT_EXTENDS = (
    "TLC",
    "Sequences",
    "SequencesExt",
    "Naturals",
    "Integers",
    "FiniteSets",
    "FiniteSetsExt",
    "Bags",
    "Functions",
    "Folds",
)
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

TOP_KEYS_REQUIRED = (
    "slug",
    "name",
    "system",
    "kind",
    "language",
    "position",
    "source",
    "module",
    "constants",
    "schema",
    "actions",
    "invariants",
    "deadlock",
    "traces",
)
TOP_KEYS_OPTIONAL = (
    "extends_allowed",
    "unmapped_events",
    "excluded_invariants",
    "budgets",
    "no_traces_reason",
    "notes",
    "conformance_constants",
    "folded_steps",
)


class ContractError(ValueError):
    """A contract or adapter is invalid; the message reads `<file>: <field>: <what>`."""


@dataclass(frozen=True)
class Source:
    repository: str
    commit: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class SchemaVar:
    values: str
    doc: str = field(default="", repr=False)
    # False: model state the traces never record but the invariants need; the spec must expose
    # it under this name (or through the adapter) and no window constrains it.
    observed: bool = True
    # P3 compares this variable through this TLA+ expression over the schema variables and the
    # pinned constants (a refinement mapping the contract fixes): the part of the observed state
    # it folds or hides is the implementation's, not the protocol's. "" compares it as it is.
    view: str = ""
    # Unobserved only: its value in a window's pre-state is the event's own (ringbuffer's
    # `pushing`, the count a push publishes), so P3 checks a window from a reachable state with
    # any value of it rather than from every one (docs/decisions/0006-p3-follows-traces.md).
    event_decides: bool = False


@dataclass(frozen=True)
class TargetAction:
    params: tuple[str, ...]
    actor: str | None
    input: bool = False
    events: tuple[str, ...] = ()
    doc: str = field(default="", repr=False)
    # TLA+ set expressions for parameters that are neither the actor nor the input message, so
    # the identity adapter can quantify over them.
    domains: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Invariant:
    name: str
    kind: InvariantKind
    definition: str
    template: str
    # Why the definition reads as it does against the template, where that is not obvious.
    note: str = field(default="", repr=False)


@dataclass(frozen=True)
class ExcludedInvariant:
    name: str
    kind: InvariantKind
    reason: str


@dataclass(frozen=True)
class ConformanceConstant:
    """A pinned constant's value for P3 only: a model-checking bound of ours (P2/P4 keep the
    small one) raised so that it covers every trace window, and why."""

    value: str
    reason: str


@dataclass(frozen=True)
class TraceLayout:
    """Trace files of one format under a folder (globs, relative to the folder)."""

    format: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class Traces:
    format: str
    paths: tuple[str, ...]
    # "data": paths relative to the benchmark data folder; "project": relative to the project
    # root (traces made by our own harnesses and committed, e.g. harnesses/asterinas/traces).
    source: str = "data"
    # Actor ids the system treats alike (threads of a lock): P3 also checks each trace with its
    # ids permuted (`windows/symmetry.py`). Empty: the actors are not declared symmetric.
    symmetric_actors: tuple[str, ...] = ()
    # Further layouts a held-out folder may hold besides the public one: what our harnesses
    # write where the public traces come from elsewhere (spin's public windows are SysMoBench's,
    # its held-out traces are made by harnesses/asterinas; docs/decisions/0012).
    heldout_layouts: tuple[TraceLayout, ...] = ()

    def layouts(self) -> tuple[TraceLayout, ...]:
        """The public layout first, then the held-out folder's other ones."""
        return (TraceLayout(self.format, self.paths), *self.heldout_layouts)


@dataclass(frozen=True)
class Contract:
    slug: str
    name: str
    system: str
    kind: str
    language: str
    position: int
    source: Source
    module: str
    extends_allowed: tuple[str, ...]
    constants: dict[str, str]
    schema: dict[str, SchemaVar]
    actions: dict[str, TargetAction]
    unmapped_events: dict[str, str]
    invariants: tuple[Invariant, ...]
    excluded_invariants: tuple[ExcludedInvariant, ...]
    budgets: Budgets
    deadlock: str
    traces: Traces | None
    no_traces_reason: str
    description: str = field(repr=False)
    version: str
    directory: Path
    conformance_constants: dict[str, ConformanceConstant] = field(default_factory=dict)
    # Target action -> why its windows' pre-state may show an unlogged step of the system that
    # the action itself includes (P3 may then take the event from a state before that step).
    folded_steps: dict[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:
        # The dict fields are unhashable; slug + version identify a contract's content.
        return hash((self.slug, self.version))

    @property
    def has_traces(self) -> bool:
        return self.traces is not None

    def action_for_event(self, event: str) -> str | None:
        """The target action a trace event maps to, or None when the event is unmapped."""
        for name, action in self.actions.items():
            if event in action.events:
                return name
        return None

    def observed_variables(self) -> list[str]:
        return [name for name, var in self.schema.items() if var.observed]

    def budget(self, phase: str, key: str) -> float:
        """A budget value (`evaluation/inputs/budgets.py` holds the one default of each key)."""
        return self.budgets.get(phase, key)

    def for_conformance(self) -> Contract:
        """The contract as P3 reads it: `conformance_constants` in place of the pinned values."""
        if not self.conformance_constants:
            return self
        values = {k: c.value for k, c in self.conformance_constants.items()}
        return replace(self, constants={**self.constants, **values})


def make_contract(**overrides: Any) -> Contract:
    """A contract with every field at its default and `overrides` set: what a test or a bench
    scores against when no task's contract applies. `budgets` may be given as YAML would give it
    (a mapping of phases), and goes through the same strict parser as a task's."""
    if "budgets" in overrides and not isinstance(overrides["budgets"], Budgets):
        overrides["budgets"] = parse_budgets(overrides["budgets"])
    defaults: dict[str, Any] = {
        "slug": "adhoc",
        "name": "ad hoc",
        "system": "",
        "kind": "concurrent",
        "language": "",
        "position": 0,
        "source": Source(repository="", commit="", files=()),
        "module": "Spec",
        "extends_allowed": (),
        "constants": {},
        "schema": {},
        "actions": {},
        "unmapped_events": {},
        "invariants": (),
        "excluded_invariants": (),
        "budgets": Budgets(),
        "deadlock": "allowed",
        "traces": None,
        "no_traces_reason": "",
        "description": "",
        "version": "",
        "directory": Path("."),
    }
    return Contract(**{**defaults, **overrides})


# ---------------------------------------------------------------------------------------------
# Loading


class _Reader:
    """Field access on a YAML mapping with errors that name the file and the field path."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, where: str, what: str) -> NoReturn:
        raise ContractError(f"{self.file}: {where}: {what}")

    def mapping(
        self,
        value: object,
        where: str,
        required: Collection[str] = (),
        optional: Collection[str] = (),
    ) -> dict[Any, Any]:
        if not isinstance(value, dict):
            self.fail(where, f"expected a mapping, got {type(value).__name__}")
        if required or optional:
            unknown = sorted(set(map(str, value)) - set(required) - set(optional))
            if unknown:
                self.fail(where, f"unknown key(s) {', '.join(unknown)}")
            missing = [k for k in required if k not in value]
            if missing:
                self.fail(where, f"missing field(s) {', '.join(missing)}")
        return value

    def string(self, value: object, where: str, allow_empty: bool = False) -> str:
        if not isinstance(value, str) or (not allow_empty and not value.strip()):
            self.fail(where, "expected a non-empty string")
        return value

    def strings(self, value: object, where: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.fail(where, "expected a list of strings")
        return tuple(self.string(v, f"{where}[{i}]") for i, v in enumerate(value))

    def identifier(self, value: object, where: str) -> str:
        text = self.string(value, where)
        if not IDENTIFIER.match(text):
            self.fail(where, f"{text!r} is not a TLA+ identifier")
        return text

    def tla(self, value: object, where: str) -> str:
        text = self.string(value, where)
        if not expression_parses(text):
            self.fail(where, f"TLA+ expression does not parse: {text}")
        return text


def load_contract(slug: str, root: Path | str | None = None) -> Contract:
    directory = Path(root or TASKS_DATA_DIR) / slug
    path = directory / "task.yaml"
    if not path.is_file():
        raise ContractError(f"{path}: (file): no such contract")
    return _load_path(path)


def load_all_contracts(root: Path | str | None = None) -> list[Contract]:
    """Every contract under `root`, in leaderboard column order."""
    base = Path(root or TASKS_DATA_DIR)
    contracts = [_load_path(p) for p in sorted(base.glob("*/task.yaml"))]
    _check_unique(contracts)
    return sorted(contracts, key=lambda c: (c.position, c.slug))


def _check_unique(contracts: list[Contract]) -> None:
    seen: dict[int, str] = {}
    for contract in contracts:
        other = seen.setdefault(contract.position, contract.slug)
        if other != contract.slug:
            raise ContractError(
                f"{contract.directory / 'task.yaml'}: position: {contract.position} is also "
                f"used by {other} (column order: docs/BENCHMARK_RULES.md §2)"
            )


def _load_path(path: Path) -> Contract:
    raw_bytes = path.read_bytes()
    description_path = path.parent / "description.md"
    description = description_path.read_text() if description_path.is_file() else ""
    r = _Reader(str(path))
    try:
        data = yaml.safe_load(raw_bytes)
    except yaml.YAMLError as exc:
        r.fail("(file)", f"invalid YAML: {exc}")
    data = r.mapping(data, "(top level)", TOP_KEYS_REQUIRED, TOP_KEYS_OPTIONAL)
    slug = r.string(data["slug"], "slug")
    if slug != path.parent.name:
        r.fail("slug", f"{slug!r} differs from the folder name {path.parent.name!r}")
    if not description.strip():
        r.fail("description.md", "missing or empty")
    constants = _constants(r, data["constants"])
    schema = _schema(r, data["schema"])
    actions = _actions(r, data["actions"])
    unmapped = _unmapped(r, data.get("unmapped_events") or {}, actions)
    invariants = _invariants(r, data["invariants"])
    excluded = _excluded(r, data.get("excluded_invariants") or [], invariants)
    traces, no_traces_reason = _traces(r, data)
    conformance_constants = _conformance_constants(r, data.get("conformance_constants"), constants)
    folded = _folded(r, data.get("folded_steps") or {}, actions)
    digest = hashlib.sha256(raw_bytes + b"\0" + description.encode()).hexdigest()
    return Contract(
        slug=slug,
        name=r.string(data["name"], "name"),
        system=r.string(data["system"], "system"),
        kind=_choice(r, data["kind"], "kind", KINDS),
        language=r.string(data["language"], "language"),
        position=_position(r, data["position"]),
        source=_source(r, data["source"]),
        module=r.identifier(data["module"], "module"),
        extends_allowed=_extends(r, data.get("extends_allowed")),
        constants=constants,
        schema=schema,
        actions=actions,
        unmapped_events=unmapped,
        invariants=invariants,
        excluded_invariants=excluded,
        budgets=_budgets(r, data.get("budgets")),
        deadlock=_choice(r, data["deadlock"], "deadlock", DEADLOCK_POLICIES),
        traces=traces,
        no_traces_reason=no_traces_reason,
        description=description,
        version=digest,
        directory=path.parent,
        conformance_constants=conformance_constants,
        folded_steps=folded,
    )


_Choice = TypeVar("_Choice", bound=str)


def _choice(r: _Reader, value: object, where: str, allowed: tuple[_Choice, ...]) -> _Choice:
    if not isinstance(value, str) or value not in allowed:
        r.fail(where, f"{value!r} is not one of {', '.join(allowed)}")
    # The allowed member equal to `value`: typed as one of the choices (a Literal's member).
    return allowed[allowed.index(value)]


def _position(r: _Reader, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        r.fail("position", "expected a non-negative integer")
    return value


def _source(r: _Reader, value: object) -> Source:
    data = r.mapping(value, "source", ("repository", "commit", "files"))
    return Source(
        repository=r.string(data["repository"], "source.repository"),
        commit=r.string(str(data["commit"]), "source.commit"),
        files=r.strings(data["files"], "source.files"),
    )


def _extends(r: _Reader, value: list[object] | None) -> tuple[str, ...]:
    if value is None:
        return DEFAULT_EXTENDS
    return tuple(r.identifier(v, f"extends_allowed[{i}]") for i, v in enumerate(value or []))


def _constants(r: _Reader, value: object) -> dict[str, str]:
    data = r.mapping(value or {}, "constants")
    return {
        r.identifier(name, f"constants.{name}"): r.tla(text, f"constants.{name}")
        for name, text in data.items()
    }


def _conformance_constants(
    r: _Reader, value: object, pinned: dict[str, str]
) -> dict[str, ConformanceConstant]:
    data = r.mapping(value or {}, "conformance_constants")
    out: dict[str, ConformanceConstant] = {}
    for name, spec in data.items():
        where = f"conformance_constants.{name}"
        if name not in pinned:
            r.fail(where, "not a pinned constant (only a pinned bound can be raised for P3)")
        spec = r.mapping(spec, where, ("value", "reason"))
        out[name] = ConformanceConstant(
            value=r.tla(_text(spec["value"]), f"{where}.value"),
            reason=r.string(spec["reason"], f"{where}.reason"),
        )
    return out


def _schema(r: _Reader, value: object) -> dict[str, SchemaVar]:
    data = r.mapping(value, "schema")
    if not data:
        r.fail("schema", "no schema variables")
    schema = {}
    for name, spec in data.items():
        where = f"schema.{name}"
        r.identifier(name, where)
        spec = r.mapping(spec, where, ("values",), ("doc", "observed", "view", "event_decides"))
        observed = spec.get("observed", True)
        if not isinstance(observed, bool):
            r.fail(f"{where}.observed", "expected true or false")
        decides = spec.get("event_decides", False)
        if not isinstance(decides, bool):
            r.fail(f"{where}.event_decides", "expected true or false")
        if decides and observed:
            r.fail(f"{where}.event_decides", "only an unobserved variable (observed: false)")
        schema[name] = SchemaVar(
            values=r.tla(spec["values"], f"{where}.values"),
            doc=r.string(spec.get("doc", ""), f"{where}.doc", allow_empty=True),
            observed=observed,
            view=r.tla(spec["view"], f"{where}.view") if "view" in spec else "",
            event_decides=decides,
        )
    return schema


def _actions(r: _Reader, value: object) -> dict[str, TargetAction]:
    data = r.mapping(value, "actions")
    if not data:
        r.fail("actions", "no target actions")
    actions: dict[str, TargetAction] = {}
    owner: dict[str, str] = {}
    for name, spec in data.items():
        where = f"actions.{name}"
        r.identifier(name, where)
        spec = r.mapping(spec, where, ("params", "actor"), ("input", "events", "doc", "domains"))
        params = tuple(r.identifier(p, f"{where}.params") for p in spec["params"] or [])
        if len(set(params)) != len(params):
            r.fail(f"{where}.params", "duplicate parameter")
        actor = spec["actor"]
        if actor is not None and actor not in params:
            r.fail(f"{where}.actor", f"{actor!r} is not among params {list(params)}")
        is_input = spec.get("input", False)
        if not isinstance(is_input, bool):
            r.fail(f"{where}.input", "expected true or false")
        events = r.strings(spec.get("events") or [], f"{where}.events")
        for event in events:
            if event in owner:
                r.fail(f"{where}.events", f"event {event!r} is already mapped to {owner[event]}")
            owner[event] = name
        domains = {
            p: r.tla(d, f"{where}.domains.{p}")
            for p, d in r.mapping(spec.get("domains") or {}, f"{where}.domains").items()
        }
        _check_free_params(r, where, params, actor, is_input, domains)
        actions[name] = TargetAction(
            params=params,
            actor=actor,
            input=is_input,
            events=events,
            doc=r.string(spec.get("doc", ""), f"{where}.doc", allow_empty=True),
            domains=domains,
        )
    return actions


def _check_free_params(
    r: _Reader,
    where: str,
    params: tuple[str, ...],
    actor: str | None,
    is_input: bool,
    domains: dict[str, str],
) -> None:
    bound = {actor} | ({params[-1]} if is_input and params else set())
    for p in domains:
        if p not in params or p in bound:
            r.fail(f"{where}.domains", f"{p!r} is not a free parameter")
    if is_input and (not params or params[-1] == actor):
        r.fail(f"{where}.input", "the message must be the last parameter, after the actor")
    free = [p for p in params if p not in bound and p not in domains]
    if free:
        r.fail(f"{where}.domains", f"parameter(s) {', '.join(free)} need a domain")


def _unmapped(r: _Reader, value: object, actions: dict[str, TargetAction]) -> dict[str, str]:
    data = r.mapping(value, "unmapped_events")
    out = {}
    for event, reason in data.items():
        for name, action in actions.items():
            if event in action.events:
                r.fail(f"unmapped_events.{event}", f"also mapped to {name}")
        out[str(event)] = r.string(reason, f"unmapped_events.{event}")
    return out


def _folded(r: _Reader, value: object, actions: dict[str, TargetAction]) -> dict[str, str]:
    data = r.mapping(value, "folded_steps")
    out = {}
    for action, reason in data.items():
        if action not in actions:
            r.fail(f"folded_steps.{action}", "not a target action")
        out[str(action)] = r.string(reason, f"folded_steps.{action}")
    return out


def _invariants(r: _Reader, value: object) -> tuple[Invariant, ...]:
    if not isinstance(value, list):
        r.fail("invariants", "expected a list")
    seen = set()
    out = []
    for i, item in enumerate(value):
        where = f"invariants[{i}]"
        item = r.mapping(item, where, ("name", "kind", "definition", "template"), ("note",))
        name = r.identifier(item["name"], f"{where}.name")
        where = f"invariants.{name}"
        if name in seen:
            r.fail(where, "duplicate invariant name")
        seen.add(name)
        definition = r.string(item["definition"], f"{where}.definition").strip()
        defined = definition_name(definition)
        if defined is None:
            r.fail(f"{where}.definition", "does not parse as one `Name == expr` definition")
        if defined != name:
            r.fail(f"{where}.definition", f"defines {defined!r}, expected {name!r}")
        out.append(
            Invariant(
                name=name,
                kind=_choice(r, item["kind"], f"{where}.kind", INVARIANT_KINDS),
                definition=definition,
                template=r.string(item["template"], f"{where}.template"),
                note=r.string(item.get("note", ""), f"{where}.note", allow_empty=True),
            )
        )
    return tuple(out)


def _excluded(
    r: _Reader, value: object, invariants: tuple[Invariant, ...]
) -> tuple[ExcludedInvariant, ...]:
    if not isinstance(value, list):
        r.fail("excluded_invariants", "expected a list")
    names = {inv.name for inv in invariants}
    out = []
    for i, item in enumerate(value):
        where = f"excluded_invariants[{i}]"
        item = r.mapping(item, where, ("name", "kind", "reason"))
        name = r.identifier(item["name"], f"{where}.name")
        if name in names:
            r.fail(f"{where}.name", f"{name!r} is both defined and excluded")
        names.add(name)
        out.append(
            ExcludedInvariant(
                name=name,
                kind=_choice(r, item["kind"], f"{where}.kind", INVARIANT_KINDS),
                reason=r.string(item["reason"], f"{where}.reason"),
            )
        )
    return tuple(out)


def _budgets(r: _Reader, value: object) -> Budgets:
    try:
        return parse_budgets(value)
    except BudgetError as exc:
        r.fail("budgets", str(exc))


TRACE_SOURCES = ("data", "project")


def _traces(r: _Reader, data: dict[str, Any]) -> tuple[Traces | None, str]:
    value = data["traces"]
    reason = data.get("no_traces_reason", "")
    if value is None:
        return None, r.string(reason, "no_traces_reason")
    if reason:
        r.fail("no_traces_reason", "given although traces are set")
    spec = r.mapping(
        value, "traces", ("format", "paths"), ("source", "symmetric_actors", "heldout")
    )
    layout = _layout(r, spec, "traces")
    source = spec.get("source", "data")
    if source not in TRACE_SOURCES:
        r.fail("traces.source", f"{source!r} is not one of {', '.join(TRACE_SOURCES)}")
    symmetric = r.strings(spec.get("symmetric_actors") or [], "traces.symmetric_actors")
    if len(set(symmetric)) != len(symmetric) or len(symmetric) == 1:
        r.fail("traces.symmetric_actors", "needs two or more distinct actor ids")
    extra = spec.get("heldout") or []
    if not isinstance(extra, list):
        r.fail("traces.heldout", "must be a list of {format, paths}")
    heldout = tuple(
        _heldout_layout(r, item, f"traces.heldout[{i}]") for i, item in enumerate(extra)
    )
    traces = Traces(
        format=layout.format,
        paths=layout.paths,
        source=source,
        symmetric_actors=tuple(symmetric),
        heldout_layouts=heldout,
    )
    return traces, ""


def _heldout_layout(r: _Reader, item: object, where: str) -> TraceLayout:
    return _layout(r, r.mapping(item, where, ("format", "paths")), where)


def _layout(r: _Reader, spec: dict[str, Any], where: str) -> TraceLayout:
    paths = r.strings(spec["paths"], f"{where}.paths")
    if not paths:
        r.fail(f"{where}.paths", "no paths")
    for i, path in enumerate(paths):
        if Path(path).is_absolute() or ".." in Path(path).parts:
            r.fail(f"{where}.paths[{i}]", f"{path!r} must stay inside its base folder")
    return TraceLayout(r.string(spec["format"], f"{where}.format"), paths)


# ---------------------------------------------------------------------------------------------
# Adapters

ADAPTER_KEYS: tuple[str, ...] = (
    "variables",
    "actions",
    "actors",
    "constants",
    "model_values",
    "behaviour",
)
ADAPTER_KEYS += ("values", "state")
BEHAVIOUR_KEYS = ("specification", "init", "next")


@dataclass(frozen=True)
class Adapter:
    variables: dict[str, str]
    actions: dict[str, str]
    actors: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    identity: bool = False
    # Model values the constants use (declared by each generated module, `m = m` in its cfg).
    model_values: tuple[str, ...] = ()
    # The spec's own constants that are model values of their own name (TLC's `C = C` idiom,
    # e.g. `None = None`): declared by the spec, so only `C = C` in each cfg, never a
    # definition (`C <- C` would make TLC recurse forever).
    own_model_values: tuple[str, ...] = ()
    # The spec's own operator names for its behaviour (`specification`, `init`, `next`).
    behaviour: dict[str, str] = field(default_factory=dict)
    # Contract value (TLA+ literal text, e.g. `"1"`) -> the spec's value (`s1`, `1`).
    values: dict[str, str] = field(default_factory=dict)
    # Spec variable -> expression building its pre-state from the window's observed state
    # (`obs.<schema var>`), for state the spec keeps and the traces do not show.
    state: dict[str, str] = field(default_factory=dict)
    # Entries of a submitter's cfg the scorer did not use, with the reason
    # (`{"line": int | None, "entry": str, "reason": str}`).
    ignored: tuple[dict[str, Any], ...] = ()

    @classmethod
    def identity_for(cls, contract: Contract) -> Adapter:
        return cls(
            variables={name: name for name in contract.schema},
            actions={name: identity_action(name, a) for name, a in contract.actions.items()},
            identity=True,
        )

    def actor_expr(self, actor: str) -> str:
        """The TLA+ value `actor` is bound to: the `actors` entry, else the trace's own string
        (a contract value; an action mapping translates it with `ToSpec(actor)`)."""
        literal = '"' + actor.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return self.actors.get(actor, literal)

    def init_name(self) -> str:
        return self.behaviour.get("init") or "Init"

    def next_name(self) -> str:
        return self.behaviour.get("next") or "Next"


def identity_action(name: str, action: TargetAction) -> str:
    """`A(actor)`, `A(actor, msg)`, with free parameters quantified over their domains."""
    if not action.params:
        return name
    args = []
    for i, p in enumerate(action.params):
        if p == action.actor:
            args.append("actor")
        elif action.input and i == len(action.params) - 1:
            args.append("msg")
        else:
            args.append(p)
    call = f"{name}({', '.join(args)})"
    for p in reversed([p for p in action.params if p in action.domains]):
        call = f"\\E {p} \\in {action.domains[p]} : {call}"
    return call


def parse_adapter(text: str | None, contract: Contract, file: str = "adapter") -> Adapter:
    """Validate a submitter's adapter YAML; empty text means the identity adapter.

    Variables left out map to themselves; an `actions` section, when given, must name every
    target action (a partial list is almost always a typo, and guessing would hide it).
    """
    identity = Adapter.identity_for(contract)
    if text is None or not text.strip():
        return identity
    r = _Reader(file)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        r.fail("(file)", f"invalid YAML: {exc}")
    data = r.mapping(data if data is not None else {}, "(top level)", (), ADAPTER_KEYS)
    variables = _adapter_variables(r, data, contract, identity)
    actions = _adapter_actions(r, data, contract, identity)
    actors = {
        str(k): r.tla(_text(v), f"actors.{k}")
        for k, v in r.mapping(data.get("actors") or {}, "actors").items()
    }
    constants, own_model_values = _adapter_constants(r, data, contract)
    model_values = tuple(
        r.identifier(_text(m), f"model_values[{i}]")
        for i, m in enumerate(_list(r, data.get("model_values"), "model_values"))
    )
    behaviour = {
        k: r.identifier(_text(v), f"behaviour.{k}")
        for k, v in r.mapping(data.get("behaviour") or {}, "behaviour", (), BEHAVIOUR_KEYS).items()
    }
    values = {
        _literal(r, k): r.tla(_text(v), f"values.{k}")
        for k, v in r.mapping(data.get("values") or {}, "values").items()
    }
    state = {
        r.identifier(k, f"state.{k}"): r.tla(_text(v), f"state.{k}")
        for k, v in r.mapping(data.get("state") or {}, "state").items()
    }
    adapter = Adapter(
        variables=variables,
        actions=actions,
        actors=actors,
        constants=constants,
        model_values=model_values,
        own_model_values=tuple(own_model_values),
        behaviour=behaviour,
        values=values,
        state=state,
    )
    problems = syntax_problems(adapter, _key_lines(text))
    if problems:
        raise ContractError(f"{file}: " + "; ".join(problems))
    return replace(adapter, identity=_is_identity(adapter, identity))


def _adapter_variables(
    r: _Reader, data: dict[str, Any], contract: Contract, identity: Adapter
) -> dict[str, str]:
    """`variables:`: schema variable -> its expression; the ones left out map to themselves."""
    variables = dict(identity.variables)
    for name, expr in r.mapping(data.get("variables") or {}, "variables").items():
        if name not in contract.schema:
            r.fail(
                f"variables.{name}",
                f"unknown schema variable (known: {', '.join(contract.schema)})",
            )
        variables[name] = r.tla(_text(expr), f"variables.{name}")
    return variables


def _adapter_actions(
    r: _Reader, data: dict[str, Any], contract: Contract, identity: Adapter
) -> dict[str, str]:
    """`actions:`, when given, names every target action and no other."""
    actions = dict(identity.actions)
    if "actions" not in data:
        return actions
    given = r.mapping(data["actions"] or {}, "actions")
    for name in given:
        if name not in contract.actions:
            r.fail(
                f"actions.{name}",
                f"unknown target action (known: {', '.join(contract.actions)})",
            )
    for name in contract.actions:
        if name not in given:
            r.fail(f"actions.{name}", "missing target action")
        actions[name] = r.tla(_text(given[name]), f"actions.{name}")
    return actions


def _adapter_constants(
    r: _Reader, data: dict[str, Any], contract: Contract
) -> tuple[dict[str, str], list[str]]:
    """`constants:` the contract does not pin; `C: C` declares `C` a model value of its own."""
    constants: dict[str, str] = {}
    own_model_values: list[str] = []
    for name, value in r.mapping(data.get("constants") or {}, "constants").items():
        if name in contract.constants:
            r.fail(f"constants.{name}", "is pinned by the contract and cannot be overridden")
        r.identifier(name, f"constants.{name}")
        if _text(value).strip() == name:
            own_model_values.append(name)
            continue
        constants[name] = r.tla(_text(value), f"constants.{name}")
    return constants, own_model_values


def _is_identity(adapter: Adapter, identity: Adapter) -> bool:
    same = adapter.variables == identity.variables and adapter.actions == identity.actions
    extras = (adapter.actors, adapter.constants, adapter.behaviour)
    names = (adapter.model_values, adapter.own_model_values)
    return same and not any(extras) and not any(names) and not adapter.values and not adapter.state


def _list(r: _Reader, value: object, where: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        r.fail(where, "must be a list")
    return value


def _literal(r: _Reader, key: object) -> str:
    """A `values` key: a contract value as TLA+ text. YAML numbers and booleans are TLA+ ones;
    any YAML string (`"1"` as well as `n1`) is the TLA+ string with that spelling."""
    if isinstance(key, bool) or isinstance(key, int):
        return _text(key)
    text = str(key)
    if text.startswith('"'):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """(section, key) -> 1-based line in the adapter YAML, for error messages."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    out: dict[tuple[str, str], int] = {}
    if not isinstance(root, yaml.MappingNode):
        return out
    for section, body in root.value:
        if isinstance(body, yaml.MappingNode):
            for key, value in body.value:
                out[(str(section.value), str(key.value))] = value.start_mark.line + 1
    return out


def adapter_with_cfg(
    adapter: Adapter, cfg: TlcConfig, contract: Contract, spec: str | ParsedSpec
) -> Adapter:
    """The adapter completed from a submitter's parsed TLC cfg (`evaluation.inputs.tlc_cfg`).

    Constant assignments the contract does not pin become the adapter's (the adapter's own win);
    `C <- Op` becomes the constant `Op` (the spec's own definition); SPECIFICATION/INIT/NEXT name
    the behaviour. Everything else is recorded in `ignored` with the reason.
    """
    declared = set(spec_of(spec).listing.constants)
    pinned: Mapping[str, str] = contract.constants
    ignored = list(adapter.ignored) + list(cfg.ignored)
    constants = dict(adapter.constants)
    own = list(adapter.own_model_values)
    used_values: set[str] = set()
    assigned = {**cfg.constants, **cfg.substitutions}
    for name, value in assigned.items():
        entry = {
            "line": cfg.lines.get(name),
            "entry": f"{name} {'<-' if name in cfg.substitutions else '='} {value}",
        }
        if name in pinned:
            ignored.append({**entry, "reason": f"the task contract pins {name}"})
        elif name not in declared:
            ignored.append({**entry, "reason": f"the spec declares no constant {name}"})
        elif name in constants or name in own:
            ignored.append({**entry, "reason": "the adapter assigns it"})
        elif cfg.constants.get(name) == name:
            own.append(name)  # `C = C`: C is a model value (TLC's idiom)
        else:
            constants[name] = value
            if name in cfg.constants:
                used_values.update(_names_in(value))
    # A model value spelled like a constant of the spec is that constant (declared by it).
    from_cfg = [m for m in cfg.model_values if m in used_values and m not in declared]
    model_values = tuple(dict.fromkeys(list(adapter.model_values) + from_cfg))
    behaviour = dict(adapter.behaviour)
    for key in BEHAVIOUR_KEYS:
        given = getattr(cfg, key)
        if given and key not in behaviour:
            behaviour[key] = given
    return replace(
        adapter,
        constants=constants,
        model_values=model_values,
        own_model_values=tuple(own),
        behaviour=behaviour,
        ignored=tuple(ignored),
        identity=False,
    )


def _names_in(value: str) -> set[str]:
    return set(re.findall(r"(?<![\w\"])([A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*)", value))


def _text(value: object) -> str:
    # YAML turns `2` or `true` into numbers and booleans; adapters are TLA+ text.
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return value if isinstance(value, str) else str(value)
