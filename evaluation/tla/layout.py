"""How generated modules are laid out around a spec, so TLC reads the spec first.

TLC compares two records field by field in the order in which the parser first met the field
names (its `UniqueString` ids, handed out as files are read), and stops at the first field that
differs. Comparing values of different kinds (a record with the integer a spec uses as `Nil`)
is an error only when that field is reached. A generated module that TLC reads before the spec
therefore decides which of the spec's comparisons TLC can evaluate: an adapter expression that
names `cmd` before the spec names `type` turns a comparison that stops at `type` into one that
reaches `cmd` and fails. The same spec would then fail in the scorer and pass on its own.

So the root TLC is given names nothing but the spec and the generated body: the spec's text is
read first, as in the submitter's own run, and the names the scorer adds come after it.
"""

from __future__ import annotations

import re

BODY_SUFFIX = "Body"


def spec_first(root: str, spec_module: str, generated: str) -> dict[str, str]:
    """`{root: ..., root + "Body": ...}`: `generated` (a module named `root` that EXTENDS the
    spec) renamed to the body, and a root that EXTENDS the spec, then the body. TLC locations in
    the generated definitions then name the body module."""
    body = root + BODY_SUFFIX
    header = re.compile(rf"^(-{{4,}}\s*MODULE\s+){re.escape(root)}(\s+-{{4,}})", re.MULTILINE)
    renamed, count = header.subn(rf"\g<1>{body}\g<2>", generated, count=1)
    if count != 1:
        raise ValueError(f"the generated module does not start with MODULE {root}")
    return {
        root: f"---- MODULE {root} ----\nEXTENDS {spec_module}, {body}\n====\n",
        body: renamed,
    }
