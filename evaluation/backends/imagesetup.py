"""Build-time preparation of the scorer image (run once by docker/scorer.Dockerfile).

    python -m evaluation.backends.imagesetup TOOL_VERSIONS_FILE

Checks the jar's sha256 (a wrong jar fails the build), records the TLC and SANY banners in
TOOL_VERSIONS_FILE (read through SYSMOBENCH_TOOL_VERSIONS by `tools.tool_versions`, so a run does
not start two JVMs just to print versions) and makes the AppCDS archives in
SYSMOBENCH_CACHE_DIR, which is read-only when containers run.
"""

import json
import sys
from pathlib import Path

from evaluation.tla import sandbox, tools


def main(argv: list[str]) -> int:
    target = Path(argv[0])
    print("tla2tools.jar OK:", tools.jar_path())
    versions = tools.tool_versions()
    if "unknown" in versions.values():
        print(f"could not read the tool banners: {versions}", file=sys.stderr)
        return 1
    target.write_text(json.dumps({"jar_sha256": tools.JAR_SHA256, **versions}) + "\n")
    for main_class in ("tla2sany.SANY", "tlc2.TLC"):
        archive = sandbox.appcds_archive(main_class)
        print(f"AppCDS archive for {main_class}: {archive or 'none (runs start slower)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
