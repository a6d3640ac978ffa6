"""What every generated module needs from the adapter, written the same way in every phase.

- the model values the adapter's constants use, declared as CONSTANTS of the generated root
  module and assigned `m = m` in its cfg (TLC's Toolbox does the same); the spec's own
  constants given as model values of their own name (`C = C`) only get the cfg line;
- `ToSpec(v)` / `ToContract(v)`: the adapter's value mapping both ways (contract value `"1"` <->
  spec value `s1`), defined under collision-free names and substituted into adapter expressions;
- the spec's behaviour: INIT/NEXT names, from the adapter (or the submitter's cfg), and when only
  a SPECIFICATION is named, read off its `Init /\\ [][Next]_v` definition.
"""

from __future__ import annotations

import re

from evaluation.inputs.adapter_check import VALUE_HELPERS
from evaluation.inputs.contracts import Adapter
from evaluation.tla.spectext import substitute

_SPEC_SHAPE = re.compile(r"==\s*(?:/\\\s*)?(\w+)\s*/\\\s*\[\]\s*\[\s*(\w+)\s*\]_")


def helper_names(prefix: str) -> dict[str, str]:
    return {name: f"{prefix}{name}" for name in VALUE_HELPERS}


def rewrite(expr: str, prefix: str) -> str:
    """An adapter expression with `ToSpec`/`ToContract` bound to the generated helpers."""
    return substitute(expr, helper_names(prefix))


def prelude(adapter: Adapter, prefix: str, declare: bool = True) -> list[str]:
    """Module lines: model value declarations (unless a module it EXTENDS declares them) and
    the two value-mapping helpers."""
    lines = []
    if adapter.model_values and declare:
        lines.append("CONSTANTS " + ", ".join(adapter.model_values))
    names = helper_names(prefix)
    x = f"{prefix}x"
    to_spec = [f"{x} = {c} -> {s}" for c, s in adapter.values.items()]
    to_contract = [f"{x} = {s} -> {c}" for c, s in adapter.values.items()]
    for name, arms in (("ToSpec", to_spec), ("ToContract", to_contract)):
        body = f"CASE {' [] '.join(arms)} [] OTHER -> {x}" if arms else x
        lines.append(f"{names[name]}({x}) == {body}")
    return lines


def spec_value(pinned: str, adapter: Adapter, to_spec: str) -> str:
    """A pinned (contract-typed) constant as the spec sees it: translated by the adapter's value
    mapping, element by element for a set (`{"1", "2"}` -> `{ToSpec("1"), ToSpec("2")}`).
    Without a value mapping the pinned value is used as it is."""
    if not adapter.values:
        return pinned
    text = pinned.strip()
    # Only identifiers are translated: a string literal, or a set literal of string literals
    # (contracts spell ids as strings); numbers and records are the same in both worlds, and
    # `ToSpec` compares with string keys, which TLC refuses for an integer.
    if _STRING.fullmatch(text):
        return f"{to_spec}({text})"
    inner = text[1:-1].strip() if text.startswith("{") and text.endswith("}") else None
    if inner is not None and all(_STRING.fullmatch(e.strip()) for e in _split(inner)):
        # Element by element, with no bound variable: a generated name could collide with
        # one of the spec's (the module this text goes into EXTENDS the spec).
        return "{" + ", ".join(f"{to_spec}({e.strip()})" for e in _split(inner)) + "}"
    return pinned


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _split(inner: str) -> list[str]:
    """Elements of a flat set literal's body (empty for `{}`)."""
    return [e for e in inner.split(",") if e.strip()] if inner else []


def model_value_cfg(adapter: Adapter) -> list[str]:
    """`m = m` for the generated modules' model values and the spec's own (`C = C`)."""
    names = [*adapter.model_values, *adapter.own_model_values]
    return [f"CONSTANT {m} = {m}" for m in dict.fromkeys(names)]


def behaviour(adapter: Adapter, spec_text: str) -> tuple[str, str]:
    """(init, next) operator names of the spec's behaviour."""
    given = adapter.behaviour
    init, nxt = given.get("init"), given.get("next")
    spec = given.get("specification")
    if spec and not (init and nxt):
        match = re.search(rf"(?m)^{re.escape(spec)}\s*==.*?(?=^\S|\Z)", spec_text, flags=re.DOTALL)
        shape = _SPEC_SHAPE.search(match.group(0)) if match else None
        if shape:
            init, nxt = init or shape.group(1), nxt or shape.group(2)
    return init or "Init", nxt or "Next"


def specification(adapter: Adapter, defined: set[str]) -> str | None:
    """The temporal formula naming the spec's behaviour with its fairness, if it has one."""
    spec = adapter.behaviour.get("specification")
    if spec:
        return spec if spec in defined else None
    if adapter.behaviour.get("init") or adapter.behaviour.get("next"):
        return None
    return "Spec" if "Spec" in defined else None
