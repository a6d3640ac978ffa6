"""50 accounts submitting at the same moment, over real HTTP against the live test server, are all
accepted within their quotas, and every upload is stored and queued exactly once.

Half sign in through the real sign-in page and use the form, half use the JSON API with their
own token. Each comes from its own address (the site is told it sits behind one proxy), so the
per-address upload limit of 1 is exactly full afterwards: one more upload is a 429. Jobs go to a
Redis database of this test's own, where nothing consumes them, so the queue can be counted.

The one stand-in is the upload check's child process (tree-sitter + SANY; tests/test_upload_lint.py
and tests/test_upload_check_is_bounded.py run the real one): 50 checks at once measure the
machine and the check slots, not the quotas; `bench/concurrent_submissions.py` does the same with
the real check and prints the times.
"""

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from django.conf import settings as django_settings

from evaluation import surface
from evaluation.inputs.contracts import load_contract
from evaluation.surface import CheckOutcome
from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from leaderboard.scoring.queueing import QUEUE_NAME, job_id
from leaderboard.tasks.importing import sync_task
from tests.base import make_user

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]

USERS = 50
REFERENCE = Path(django_settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def spec_of(n: int) -> str:
    header, rest = REFERENCE.read_text().split("\n", 1)
    return f"{header}\n\\* submitted by user {n}\n{rest}"


def checked_ok(spec, adapter, task, tasks_dir, seconds, cfg=""):
    return CheckOutcome(spec="", adapter="", seconds=0.0)


def form_user(base: str, n: int, start: threading.Barrier) -> requests.Response:
    session = requests.Session()
    session.headers["X-Forwarded-For"] = f"10.1.0.{n}"
    page = session.get(f"{base}/accounts/login/")
    token = CSRF.search(page.text).group(1)
    credentials = {"username": f"user{n}", "password": "pw", "csrfmiddlewaretoken": token}
    session.post(f"{base}/accounts/login/", credentials)
    token = CSRF.search(session.get(f"{base}/submit/").text).group(1)
    data = {"task": "spin", "model": "", "new_model_name": f"Model {n}",
            "new_model_organisation": "Load Test", "spec_text": spec_of(n),
            "csrfmiddlewaretoken": token}  # fmt: skip
    start.wait()
    return session.post(f"{base}/submit/", data, allow_redirects=False)


def api_user(base: str, n: int, token: str, start: threading.Barrier) -> requests.Response:
    body = {"task": "spin", "new_model_name": f"Model {n}",
            "new_model_organisation": "Load Test", "spec_text": spec_of(n)}  # fmt: skip
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": f"10.1.0.{n}"}
    start.wait()
    return requests.post(f"{base}/api/v1/runs", json=body, headers=headers)


def test_fifty_users_submitting_at_once_are_all_accepted(rq_redis, live_server, settings,
                                                         monkeypatch):  # fmt: skip
    import django_rq

    settings.RATE_LIMIT_PROXY_COUNT = 1
    settings.RATE_LIMIT_UPLOADS_PER_IP = (1, 3600)
    monkeypatch.setattr(surface, "check_isolated", checked_ok)
    sync_task(load_contract("spin"))
    tokens = {}
    for n in range(USERS):
        user = make_user(f"user{n}", password="pw")
        if n % 2:
            tokens[n] = create_token(user, "load test")[0]

    start = threading.Barrier(USERS)
    with ThreadPoolExecutor(max_workers=USERS) as pool:
        futures = {
            n: pool.submit(api_user, live_server.url, n, tokens[n], start)
            if n in tokens
            else pool.submit(form_user, live_server.url, n, start)
            for n in range(USERS)
        }
        responses = {n: f.result(timeout=300) for n, f in futures.items()}

    run_ids = {}
    for n, response in responses.items():
        expected = 201 if n in tokens else 302
        assert response.status_code == expected, (n, response.status_code, response.text[:500])
        if n in tokens:
            run_ids[n] = response.json()["id"]
        else:
            run_ids[n] = int(re.fullmatch(r"/runs/(\d+)/", response.headers["Location"]).group(1))
    runs = Run.objects.select_related("submitter", "model__owner").in_bulk(run_ids.values())
    assert len(runs) == USERS
    for n, pk in run_ids.items():
        run = runs[pk]
        assert (run.submitter.username, run.model.owner.username) == (f"user{n}", f"user{n}")
        assert (run.spec_text, run.status, run.review) == (spec_of(n), "queued", "private")
    queue = django_rq.get_queue(QUEUE_NAME)
    assert sorted(queue.job_ids) == sorted(job_id(pk, 1) for pk in run_ids.values())

    # Every address used its one upload: the next one from any of them waits.
    again = api_user(live_server.url, 1, tokens[1], threading.Barrier(1))
    assert again.status_code == 429 and int(again.headers["Retry-After"]) > 0
    assert Run.objects.count() == USERS


def test_one_account_firing_at_once_gets_exactly_its_quota(rq_redis, live_server, settings,
                                                           monkeypatch):  # fmt: skip
    """The quota is checked and the run written under a lock on the account: ten simultaneous
    uploads of one account against a quota of three queued runs give three runs, seven 429s."""
    settings.QUOTA_QUEUED_RUNS_PER_USER = 3
    monkeypatch.setattr(surface, "check_isolated", checked_ok)
    sync_task(load_contract("spin"))
    token = create_token(make_user("eager", password="pw"), "load test")[0]
    start = threading.Barrier(10)
    body = {"task": "spin", "new_model_name": "Eager", "new_model_organisation": "Load Test",
            "spec_text": spec_of(0)}  # fmt: skip

    def upload(n):
        payload = body if n == 0 else {**body, "new_model_name": f"Eager {n}"}
        start.wait()
        return requests.post(f"{live_server.url}/api/v1/runs", json=payload,
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip

    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = sorted(r.status_code for r in pool.map(upload, range(10)))
    assert codes == [201] * 3 + [429] * 7
    assert Run.objects.filter(submitter__username="eager").count() == 3
