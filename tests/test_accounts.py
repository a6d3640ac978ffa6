"""Accounts with Django's auth: sign up, sign in and out, change the password, and the navigation
that follows who is signed in."""

import re

from django.contrib.auth import get_user_model
from django.urls import reverse

from leaderboard.accounts.tokens import verify_token
from leaderboard.models import ApiToken
from tests.base import WorldTestCase, make_run

PASSWORD = "a long pass phrase"


class AccountTest(WorldTestCase):
    def nav(self) -> str:
        html = self.client.get(reverse("methodology")).content.decode()
        return html.split('<nav aria-label="Main">')[1].split("</nav>")[0]

    def test_signing_up_creates_the_account_signs_in_and_returns_to_the_submit_form(self):
        response = self.client.post(
            reverse("signup") + "?next=/submit/",
            {"username": "carol", "email": "", "password1": PASSWORD, "password2": PASSWORD,
             "next": "/submit/"},
        )  # fmt: skip
        self.assertRedirects(response, "/submit/")
        user = get_user_model().objects.get(username="carol")
        self.assertFalse(user.is_staff)
        self.assertEqual(int(self.client.session["_auth_user_id"]), user.pk)
        self.assertContains(self.client.get("/submit/"), 'class="submit-form"')

    def test_sign_up_refuses_a_taken_name_and_a_weak_password(self):
        weak = {"username": "alice", "password1": "x", "password2": "x"}
        response = self.client.post(reverse("signup"), weak)
        errors = response.context["form"].errors
        self.assertIn("username", errors)
        self.assertIn("password2", errors)
        self.assertEqual(get_user_model().objects.filter(username="alice").count(), 1)

    def test_sign_up_never_redirects_off_site(self):
        response = self.client.post(
            reverse("signup"),
            {"username": "dave", "password1": PASSWORD, "password2": PASSWORD,
             "next": "https://evil.example/"},
        )  # fmt: skip
        self.assertRedirects(response, reverse("my_runs"))

    def test_signing_in_and_out_changes_the_navigation(self):
        self.assertIn('id="nav-sign-in"', self.nav())
        response = self.client.post(reverse("login"), {"username": "alice", "password": "pw-alice"})
        self.assertRedirects(response, reverse("my_runs"))
        nav = self.nav()
        self.assertIn('id="nav-my-runs"', nav)
        self.assertIn('id="nav-sign-out"', nav)
        self.assertNotIn('id="nav-sign-in"', nav)
        self.client.post(reverse("logout"))
        self.assertIn('id="nav-sign-in"', self.nav())
        self.assertEqual(self.client.get(reverse("my_runs")).status_code, 302)

    def test_a_wrong_password_does_not_sign_in(self):
        response = self.client.post(reverse("login"), {"username": "alice", "password": "nope"})
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, 'id="errors-form"')
        self.assertNotIn("_auth_user_id", self.client.session)

    def test_changing_the_password_needs_the_old_one(self):
        self.client.force_login(self.alice)
        url = reverse("password_change")
        new = {"new_password1": PASSWORD, "new_password2": PASSWORD}
        response = self.client.post(url, {"old_password": "wrong", **new})
        self.assertIn("old_password", response.context["form"].errors)
        response = self.client.post(url, {"old_password": "pw-alice", **new})
        self.assertRedirects(response, reverse("password_change_done"))
        self.alice.refresh_from_db()
        self.assertTrue(self.alice.check_password(PASSWORD))

    def test_my_runs_lists_only_my_runs_and_models(self):
        mine = make_run(self.model_a, self.spin, {"syntax": 1.0}, submitter=self.alice,
                        review="private")  # fmt: skip
        theirs = make_run(self.model_b, self.spin, {"syntax": 1.0}, submitter=self.bob)
        self.client.force_login(self.alice)
        page = self.client.get(reverse("my_runs"))
        self.assertContains(page, f'href="/runs/{mine.pk}/"')
        self.assertNotContains(page, f'href="/runs/{theirs.pk}/"')
        self.assertEqual(list(page.context["models"]), [self.model_a])

    def test_a_user_makes_an_api_token_sees_it_once_and_revokes_it(self):
        self.client.force_login(self.alice)
        page = self.client.post(reverse("token_create"), {"name": "laptop"}, follow=True)
        raw = re.search(r"<code>(smb_[^<]+)</code>", page.content.decode()).group(1)
        self.assertEqual(verify_token(raw), self.alice)
        again = self.client.get(reverse("my_runs"))
        self.assertContains(again, "laptop")
        self.assertNotContains(again, raw)
        token = ApiToken.objects.get(user=self.alice)
        self.client.post(reverse("token_revoke", args=[token.pk]))
        self.assertIsNone(verify_token(raw))
