"""Median server time of a run page with many windows and of the compare page.

    .venv/bin/python bench/page_latency.py [--requests 20] [--windows 400]

Uses a throwaway test database (SQLite unless DATABASE_URL is set) and Django's test client,
so the figures are server time only (URL resolution, queries, template rendering). The data:
the published fixture (11 models, reported runs) plus one verified spin run with `--windows`
conformance windows (half of them failing, each with a closest-successor diff), 4 actions,
per-definition syntax rows and a 6-state counterexample; and a second verified run so the
compare page has per-action grids (and per-window McNemar tests) on both sides, and two reported
models for the per-task × per-phase table. The first, cold request is reported apart.
"""

import argparse

from _timing import report, test_database

ACTIONS = ("AcquireLock", "ReleaseLock", "StartLock", "TryLock")


def build_world(n_windows: int):
    from leaderboard.management.commands.load_published import load_published
    from leaderboard.models import ModelUnderTest, Task
    from tests.base import (
        make_action_result,
        make_invariant_result,
        make_model,
        make_phase_result,
        make_run,
        make_window_result,
    )

    load_published()
    spin = Task.objects.get(slug="spin")
    spec = "\n".join(["---- MODULE spin ----", *[f"Op{i} == {i}" for i in range(120)], "===="])
    runs = []
    for slug, fail_every in (("bench-a", 2), ("bench-b", 3)):
        run = make_run(make_model(slug), spin, spec_text=spec, fingerprint={"jar": "58c6df"})
        definitions = [{"name": f"Op{i}", "line": i + 2, "verdict": "ok"} for i in range(120)]
        make_phase_result(run, "syntax", 1.0, details={"definitions": definitions})
        make_phase_result(run, "runtime", 1.0)
        conformance = make_phase_result(run, "conformance", 0.25)
        for a, action in enumerate(ACTIONS):
            passed = 0 if a % fail_every else n_windows // len(ACTIONS)
            make_action_result(conformance, action, passed, n_windows // len(ACTIONS))
        for i in range(n_windows):
            failing = i % fail_every == 0
            make_window_result(
                conformance,
                ACTIONS[i % len(ACTIONS)],
                verdict="fail" if failing else "pass",
                window_id=str(i),
                detail={"closest": [{"successor": {"lockState": "unlocked"}, "differences": [
                    {"variable": "lockState", "trace": "locked", "spec": "unlocked"}]}]}
                if failing else {},
            )  # fmt: skip
        invariants = make_phase_result(run, "invariant", 0.5)
        states = [
            {"step": s, "action": "Next", "vars": {"lockState": '"locked"'}} for s in range(6)
        ]
        make_invariant_result(invariants, "MutualExclusion", "violated", counterexample=states)
        run.claim()
        run.finish(0.6, run.fingerprint)
        runs.append(run)
    other = ModelUnderTest.objects.exclude(slug__startswith="bench").first()
    return runs, other


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--windows", type=int, default=400)
    args = parser.parse_args()

    with test_database():
        from django.test import Client

        (run_a, run_b), other = build_world(args.windows)
        client = Client()
        paths = {
            f"run page ({args.windows} windows)": f"/runs/{run_a.pk}/",
            "compare two models": f"/compare/?a={run_a.model.slug}&b={other.slug}",
            "compare two runs": f"/compare/?run_a={run_a.pk}&run_b={run_b.pk}",
            "compare two runs as JSON": f"/compare.json?run_a={run_a.pk}&run_b={run_b.pk}",
            "compare two reported models": "/compare/?a=gemini-3-1-pro&b=gpt-5-4",
        }
        for label, path in paths.items():
            print(f"{label}: {report(client, path, args.requests)}")


if __name__ == "__main__":
    main()
