"""Which code a scorer image was built from, so that a stale image is named, not run
(docs/decisions/0034-scorer-container.md).

An image built from older code than the worker's fails every container run with an obscure
error (an unknown command-line option, a report the worker cannot read), or worse scores by old
rules. `bin/build-images` stamps the image with a digest of the `evaluation/` package (every
file, so any change is caught, not only a bumped SCORER_VERSION) in the label CODE_LABEL; the
container backend compares that label with the digest of the code it runs before it starts a
container (`image_mismatch`).

    python -m evaluation.backends.stamp     prints the digest of this checkout's evaluation/
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CODE_LABEL = "org.sysmobench.scorer.code"
VERSION_LABEL = "org.sysmobench.scorer.version"
PACKAGE = Path(__file__).resolve().parent.parent
BUILD_COMMAND = "bin/build-images scorer"


def code_digest(root: Path) -> str:
    """A sha256 over the relative path and bytes of every file of the package at `root`, in path
    order. Compiled files are left out: the image compiles its own, the worker may have none."""
    digest = hashlib.sha256()
    files = sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    for path in files:
        relative = path.relative_to(root).as_posix().encode()
        content = path.read_bytes()
        # Lengths first, so no two different trees hash the same sequence of bytes.
        digest.update(f"{len(relative)}:{len(content)}:".encode())
        digest.update(relative)
        digest.update(content)
    return digest.hexdigest()


@cache
def running_code() -> str:
    """The digest of the code this process runs (read once: a checkout changed under a running
    worker does not change the code the worker has loaded)."""
    return code_digest(PACKAGE)


@dataclass(frozen=True)
class ImageMismatch:
    """The image was built from other code than the one running (or carries no stamp)."""

    image: str
    built_from: str | None  # the image's CODE_LABEL; None when it has none
    running: str

    def advice(self) -> str:
        label = self.built_from or "missing"
        return (
            f"the scorer image {self.image!r} was built from other code (label {label}, code "
            f"{self.running}): run {BUILD_COMMAND}"
        )


def image_mismatch(image: str, labels: dict[str, str] | None, running: str) -> ImageMismatch | None:
    """None when the image's code label is `running`; the mismatch otherwise."""
    built_from = (labels or {}).get(CODE_LABEL) or None
    if built_from == running:
        return None
    return ImageMismatch(image=image, built_from=built_from, running=running)


if __name__ == "__main__":
    print(running_code())
