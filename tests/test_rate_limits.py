"""Per-address rate limits on sign-ups, sign-ins and uploads: over the limit, a 429 with a
Retry-After and words that say when; other addresses are not affected; a forged X-Forwarded-For
only counts when the site is configured to sit behind that many proxies."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse
from redis import Redis

from config.env import cache_from_url
from leaderboard.shared.ratelimit import Limited, hit
from tests.base import WorldTestCase

HOUR = 3600


class RateLimitTest(WorldTestCase):
    def setUp(self):
        cache.clear()

    def signup(self, name, ip="10.0.0.1", **headers):
        return self.client.post(
            reverse("signup"),
            {
                "username": name,
                "password1": "a long pass phrase",
                "password2": "a long pass phrase",
            },
            REMOTE_ADDR=ip,
            **headers,
        )

    def assert_429(self, response, words):
        self.assertEqual(response.status_code, 429)
        retry = int(response["Retry-After"])
        self.assertTrue(0 < retry <= HOUR, retry)
        self.assertIn(words, response.content.decode())
        self.assertIn("Try again in", response.content.decode())

    @override_settings(RATE_LIMIT_SIGNUPS_PER_IP=(2, HOUR))
    def test_sign_ups_from_one_address_are_limited(self):
        self.assertEqual(self.signup("u1").status_code, 302)
        self.client.logout()
        self.assertEqual(self.signup("u2").status_code, 302)
        self.client.logout()
        self.assert_429(self.signup("u3"), "Too many new accounts from your address (2 per")
        self.assertFalse(get_user_model().objects.filter(username="u3").exists())
        self.assertEqual(self.signup("u4", ip="10.0.0.2").status_code, 302)

    @override_settings(RATE_LIMIT_LOGINS_PER_IP=(3, 600))
    def test_sign_in_attempts_from_one_address_are_limited_even_with_the_right_password(self):
        for _ in range(3):
            self.client.post(reverse("login"), {"username": "alice", "password": "wrong"})
        response = self.client.post(reverse("login"), {"username": "alice", "password": "pw-alice"})
        self.assert_429(response, "Too many sign-in attempts")
        self.assertNotIn("_auth_user_id", self.client.session)
        self.assertEqual(self.client.get(reverse("login")).status_code, 200)  # reading is free

    @override_settings(RATE_LIMIT_UPLOADS_PER_IP=(2, HOUR))
    def test_uploads_from_one_address_are_limited_by_form_and_api_together(self):
        self.client.force_login(self.alice)
        for _ in range(2):  # empty uploads: refused by the lint, but they still count
            self.assertEqual(self.client.post(reverse("submit"), {"task": "spin"}).status_code, 200)
        self.assert_429(self.client.post(reverse("submit"), {}), "Too many uploads")
        api = self.client.post(reverse("api_runs"), json.dumps({}), content_type="application/json")
        self.assertEqual(api.status_code, 429)
        self.assertIn("Too many uploads", api.json()["error"]["message"])
        self.assertEqual(int(api["Retry-After"]), api.json()["error"]["retry_after"])

    @override_settings(RATE_LIMIT_SIGNUPS_PER_IP=(1, HOUR), RATE_LIMIT_PROXY_COUNT=0)
    def test_a_forged_forwarded_for_header_does_not_escape_the_limit(self):
        self.signup("u1", HTTP_X_FORWARDED_FOR="1.1.1.1")
        self.client.logout()
        self.assertEqual(self.signup("u2", HTTP_X_FORWARDED_FOR="2.2.2.2").status_code, 429)

    @override_settings(RATE_LIMIT_SIGNUPS_PER_IP=(1, HOUR), RATE_LIMIT_PROXY_COUNT=1)
    def test_behind_one_proxy_the_address_it_saw_is_the_client(self):
        # The client may prepend anything; the proxy's own entry is the last one.
        self.signup("u1", ip="10.9.9.9", HTTP_X_FORWARDED_FOR="6.6.6.6, 1.1.1.1")
        self.client.logout()
        response = self.signup("u2", ip="10.9.9.9", HTTP_X_FORWARDED_FOR="7.7.7.7, 1.1.1.1")
        self.assertEqual(response.status_code, 429)
        self.client.logout()
        response = self.signup("u3", ip="10.9.9.9", HTTP_X_FORWARDED_FOR="1.1.1.1, 2.2.2.2")
        self.assertEqual(response.status_code, 302)

    def test_a_disabled_limit_never_refuses(self):
        for _ in range(100):
            self.assertIsNone(hit("upload", "10.0.0.1", None))

    def test_the_retry_after_is_the_end_of_the_window(self):
        hit("login", "10.0.0.1", (1, 2))
        with self.assertRaises(Limited) as raised:
            hit("login", "10.0.0.1", (1, 2))
        self.assertIn(raised.exception.retry_after, (1, 2))


@pytest.mark.redis
def test_the_limits_hold_on_a_redis_cache_shared_by_web_processes(rq_redis, settings):
    """With CACHE_URL on Redis, the counters are Redis keys: every process counts against them."""
    settings.CACHES = {"default": cache_from_url(rq_redis)}
    for _ in range(3):
        hit("upload", "10.0.0.1", (3, HOUR))
    with pytest.raises(Limited) as raised:
        hit("upload", "10.0.0.1", (3, HOUR))
    assert 0 < raised.value.retry_after <= HOUR
    hit("upload", "10.0.0.2", (3, HOUR))  # another address has its own count
    keys = Redis.from_url(rq_redis).keys("*ratelimit:upload:*")
    assert len(keys) == 2
