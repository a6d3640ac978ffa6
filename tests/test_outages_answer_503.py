"""A database that does not answer gives 503 with Retry-After, on the site and the API (as JSON),
never a bare 500. The outage is made by a connection that refuses to connect, the edge a test
cannot reach for real."""

import json
from unittest import mock

from django.db import OperationalError, connection
from django.test import RequestFactory
from django.urls import reverse

from leaderboard.web.outage import RETRY_AFTER_SECONDS, server_error
from tests.base import WorldTestCase


def refused(*args, **kwargs):
    raise OperationalError('connection to server at "127.0.0.1", port 1 failed: refused')


class DatabaseOutageTest(WorldTestCase):
    def get_while_down(self, url, **headers):
        with mock.patch.object(connection, "ensure_connection", side_effect=refused):
            return self.client.get(url, **headers)

    def test_a_page_answers_503_with_retry_after(self):
        response = self.get_while_down(reverse("task_detail", args=["spin"]))
        assert response.status_code == 503
        assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
        assert "database is unreachable" in response.content.decode()

    def test_an_api_endpoint_answers_503_as_json_with_retry_after(self):
        response = self.get_while_down(reverse("api_leaderboard"))
        assert response.status_code == 503
        assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
        assert response["Content-Type"].startswith("application/json")
        assert json.loads(response.content)["error"]["code"] == "database_unavailable"

    def test_the_same_page_answers_200_when_the_database_answers(self):
        assert self.client.get(reverse("task_detail", args=["spin"])).status_code == 200

    def test_an_outage_raised_outside_a_view_is_a_503_too(self):
        request = RequestFactory().get("/api/v1/leaderboard")
        try:
            refused()
        except OperationalError:
            response = server_error(request)
        assert (response.status_code, response["Retry-After"]) == (503, str(RETRY_AFTER_SECONDS))

    def test_any_other_error_outside_a_view_stays_a_500(self):
        request = RequestFactory().get("/")
        try:
            raise ValueError("a bug")
        except ValueError:
            response = server_error(request)
        assert response.status_code == 500 and "Retry-After" not in response
