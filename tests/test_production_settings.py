"""Production settings: HSTS, SSL redirect and the proxy's X-Forwarded-Proto come from the
environment (and API links follow the request's scheme); the admin sign-in is throttled like the
site's; gunicorn (pinned) starts with its timeouts and serves a page with the security headers."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests
from django.test import override_settings
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from tests.base import WorldTestCase, make_run

ROOT = Path(__file__).resolve().parent.parent
PROXY = ("HTTP_X_FORWARDED_PROTO", "https")


def settings_of(**env) -> dict:
    """Import the settings in a fresh interpreter under `env`; return a few of them."""
    script = (
        "import json, config.settings as s;"
        "print(json.dumps({k: getattr(s, k, None) for k in ('SECURE_HSTS_SECONDS',"
        "'SECURE_SSL_REDIRECT', 'SECURE_PROXY_SSL_HEADER', 'SECURE_HSTS_INCLUDE_SUBDOMAINS',"
        "'CONTENT_SECURITY_POLICY', 'DATA_UPLOAD_MAX_MEMORY_SIZE', 'REQUEST_BODY_MAX_BYTES',"
        "'DATABASES')}))"
    )
    base = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, text=True,
                         capture_output=True, env={**base, "SECRET_KEY": "x", **env})  # fmt: skip
    return json.loads(out.stdout)


def test_the_security_settings_come_from_the_environment():
    off = settings_of(DEBUG="0")
    assert (off["SECURE_HSTS_SECONDS"], off["SECURE_SSL_REDIRECT"]) == (0, False)
    assert off["SECURE_PROXY_SSL_HEADER"] is None
    on = settings_of(DEBUG="0", SECURE_HSTS_SECONDS="31536000", SECURE_SSL_REDIRECT="1",
                     TRUST_X_FORWARDED_PROTO="1", SECURE_HSTS_INCLUDE_SUBDOMAINS="1")  # fmt: skip
    assert on["SECURE_HSTS_SECONDS"] == 31536000 and on["SECURE_SSL_REDIRECT"] is True
    assert on["SECURE_PROXY_SSL_HEADER"] == list(PROXY)
    assert on["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    capped = settings_of(DEBUG="0", UPLOAD_MAX_BYTES="1000", REQUEST_BODY_MAX_BYTES="5000")
    assert capped["DATA_UPLOAD_MAX_MEMORY_SIZE"] == capped["REQUEST_BODY_MAX_BYTES"] == 5000


def test_a_managed_postgresql_url_keeps_its_tls_requirement():
    # A hosted database refuses plain connections: dropping ?sslmode=require would make the site
    # fail to connect (or, with sslmode=prefer, silently fall back to an unverified one).
    url = "postgres://board:s%3Acret@db.example:5432/board?sslmode=require&connect_timeout=5"
    database = settings_of(DEBUG="0", DATABASE_URL=url)["DATABASES"]["default"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["NAME"], database["PASSWORD"]) == (
        "db.example",
        "board",
        "s:cret",
    )
    assert database["OPTIONS"] == {"sslmode": "require", "connect_timeout": 5}


class BehindAProxyTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.public_run = make_run(cls.model_a, cls.spin, {"syntax": 1.0}, submitter=cls.alice)
        cls.raw_token, _ = create_token(cls.alice, "ci")

    @override_settings(SECURE_PROXY_SSL_HEADER=PROXY, SECURE_SSL_REDIRECT=True,
                       SECURE_HSTS_SECONDS=3600)  # fmt: skip
    def test_https_from_the_proxy_gets_hsts_and_https_links_and_http_is_redirected(self):
        url = reverse("api_run", args=[self.public_run.pk])
        auth = {"HTTP_AUTHORIZATION": f"Bearer {self.raw_token}"}
        plain = self.client.get(url, **auth)
        self.assertEqual(plain.status_code, 301)
        self.assertEqual(plain["Location"], f"https://testserver{url}")
        # A proxy sends the Host header; without it Django would add the test server's port 80.
        secure = self.client.get(
            url, HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="testserver", **auth
        )
        self.assertEqual(secure.status_code, 200)
        self.assertEqual(secure["Strict-Transport-Security"], "max-age=3600")
        self.assertEqual(
            secure.json()["urls"]["page"], f"https://testserver/runs/{self.public_run.pk}/"
        )

    def test_without_the_proxy_setting_the_header_is_not_trusted(self):
        url = reverse("api_run", args=[self.public_run.pk])
        response = self.client.get(url, HTTP_X_FORWARDED_PROTO="https",
                                   HTTP_AUTHORIZATION=f"Bearer {self.raw_token}")  # fmt: skip
        self.assertTrue(response.json()["urls"]["page"].startswith("http://testserver/"))
        self.assertNotIn("Strict-Transport-Security", response)

    @override_settings(RATE_LIMIT_LOGINS_PER_IP=(2, 600))
    def test_the_admin_sign_in_is_throttled_with_the_site_sign_in(self):
        wrong = {"username": "maintainer", "password": "not it"}
        self.assertEqual(self.client.post(reverse("login"), wrong).status_code, 200)
        self.assertEqual(self.client.post(reverse("admin:login"), wrong).status_code, 200)
        third = self.client.post(reverse("admin:login"), wrong)
        self.assertEqual(third.status_code, 429)
        self.assertIn("Retry-After", third)
        # Even the right password waits: the limit counts attempts, not failures.
        right = {"username": "maintainer", "password": "pw-maintainer"}
        self.assertEqual(self.client.post(reverse("admin:login"), right).status_code, 429)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gunicorn_serves_the_site_with_timeouts_and_security_headers(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(DEBUG="0", SECRET_KEY="x", DATABASE_URL=f"sqlite:///{tmp_path}/db.sqlite3",
               PORT=str(port), WEB_CONCURRENCY="1", SECURE_HSTS_SECONDS="60",
               TRUST_X_FORWARDED_PROTO="1")  # fmt: skip
    printed = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--print-config", "config.wsgi:application"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    config = {
        k.strip(): v.strip()
        for k, v in (x.split(" = ", 1) for x in printed.splitlines() if " = " in x)
    }
    assert config["timeout"].strip() == "90" and config["worker_class"].strip() == "gthread"
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                   check=True, capture_output=True)  # fmt: skip
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi:application"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(100):
            try:
                page = requests.get(f"http://127.0.0.1:{port}/methodology/", timeout=60,
                                    headers={"X-Forwarded-Proto": "https"})  # fmt: skip
                break
            except requests.ConnectionError:
                time.sleep(0.2)
        else:
            raise AssertionError("gunicorn did not answer")
        assert page.status_code == 200
        assert page.headers["Strict-Transport-Security"] == "max-age=60"
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
        assert page.headers["X-Frame-Options"] == "DENY"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_gunicorn_worker_moves_the_loaded_project_out_of_the_collectors_reach():
    # Without it every full collection during a request walks the ~120,000 objects of Django,
    # pandas and plotly (bench/board_incremental.py serves its requests the same way).
    import gc
    import runpy

    hooks = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    before = gc.get_freeze_count()
    try:
        hooks["post_worker_init"](worker=None)
        assert gc.get_freeze_count() > max(before, 10_000)
    finally:
        gc.unfreeze()
