"""The board, its exports and the task page's run list come in pages; `?page=all` streams.

The published world has 11 models; the page size is lowered to 4 here so that it spans three
pages (the site's own size, 50, shows a small world whole).
"""

import csv
import io
import json
from unittest import mock

from django.http import StreamingHttpResponse
from django.test import TestCase
from django.urls import reverse

from leaderboard.management.commands.load_published import load_published
from leaderboard.models import ModelUnderTest, Task
from leaderboard.shared import paging
from tests.base import make_model, make_run

PER_PAGE = 4


def streamed(response) -> str:
    assert isinstance(response, StreamingHttpResponse), type(response)
    return b"".join(response.streaming_content).decode()


class BoardIsPagedTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()

    def setUp(self):
        patcher = mock.patch.object(paging, "MODELS_PER_PAGE", PER_PAGE)
        patcher.start()
        self.addCleanup(patcher.stop)

    def json(self, **params):
        response = self.client.get(reverse("leaderboard_export", args=["json"]), params)
        self.assertEqual(response.status_code, 200)
        if params.get("page") == "all":
            return json.loads(streamed(response))
        return response.json()

    def test_the_first_page_shows_the_first_models_and_says_how_many_there_are(self):
        page = self.client.get(reverse("leaderboard")).content.decode()
        total = ModelUnderTest.objects.count()
        self.assertIn(f"models 1–{PER_PAGE} of {total}", page)
        self.assertIn('rel="next" href="?page=2"', page)
        self.assertNotIn('rel="prev"', page)
        everyone = self.json(page="all")["models"]
        for shown in everyone[:PER_PAGE]:
            self.assertIn(shown["model"], page)
        for hidden in everyone[PER_PAGE:]:
            self.assertNotIn(f">{hidden['model']}<", page)

    def test_the_last_page_links_back_and_a_page_past_the_end_shows_the_last(self):
        total = ModelUnderTest.objects.count()
        last = -(-total // PER_PAGE)
        page = self.client.get(reverse("leaderboard"), {"page": last + 5, "sort": "name"})
        text = page.content.decode()
        self.assertIn(f"models {(last - 1) * PER_PAGE + 1}–{total} of {total}", text)
        self.assertIn(f'rel="prev" href="?sort=name&amp;page={last - 1}"', text)
        self.assertNotIn('rel="next"', text)

    def test_pages_put_together_are_the_whole_board_with_its_ranks_and_rank_ranges(self):
        whole = self.json(page="all")
        self.assertEqual(whole["page"]["models_total"], len(whole["models"]))
        pieces, number = [], 1
        while number is not None:
            data = self.json(page=number)
            pieces += data["models"]
            number = number + 1 if data["page"]["next"] else None
        self.assertEqual(pieces, whole["models"])
        self.assertGreater(len(pieces), PER_PAGE)

    def test_the_default_export_is_the_first_page_and_links_the_next_and_the_whole(self):
        data = self.json(sort="name")
        self.assertEqual(len(data["models"]), PER_PAGE)
        self.assertEqual(data["page"]["number"], 1)
        self.assertEqual(data["page"]["next"], "/leaderboard.json?sort=name&page=2")
        self.assertEqual(data["page"]["all"], "/leaderboard.json?sort=name&page=all")

    def test_a_bad_page_is_the_first_page_and_the_reason_is_given(self):
        data = self.json(page="-3")
        self.assertEqual(data["page"]["number"], 1)
        self.assertIn("Unknown page", data["errors"]["page"][0])
        page = self.client.get(reverse("leaderboard"), {"page": "x" * 500})
        self.assertEqual(page.status_code, 200)
        self.assertContains(page, "Unknown page")

    def test_the_full_csv_streams_and_equals_its_pages(self):
        url = reverse("leaderboard_export", args=["csv"])
        whole = list(csv.DictReader(io.StringIO(streamed(self.client.get(url, {"page": "all"})))))
        first = self.client.get(url)
        self.assertEqual(first["X-Total-Count"], str(len(whole)))
        self.assertIn('rel="next"', first["Link"])
        rows = list(csv.DictReader(io.StringIO(first.content.decode())))
        self.assertEqual(rows, whole[:PER_PAGE])

    def test_sorting_starts_again_at_the_first_page(self):
        page = self.client.get(reverse("leaderboard"), {"page": 2}).content.decode()
        self.assertIn('href="?sort=name"', page)
        self.assertNotIn("page=2&amp;sort", page)


class TaskRunsArePagedTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()
        cls.task = Task.objects.get(slug="spin")
        model = make_model("paged-model")
        cls.runs = [
            make_run(model, cls.task, {"syntax": 1.0, "runtime": 0.5}) for _ in range(PER_PAGE + 2)
        ]

    def test_the_run_list_is_paged_and_counts_every_run(self):
        url = reverse("task_detail", args=["spin"])
        with mock.patch.object(paging, "RUNS_PER_PAGE", PER_PAGE):
            first = self.client.get(url).content.decode()
            second = self.client.get(url, {"page": 2}).content.decode()
        total = self.task.runs.count()
        self.assertIn(f"{total} runs", first)
        self.assertIn(f"runs 1–{PER_PAGE} of {total}", first)
        self.assertIn(f"runs {PER_PAGE + 1}–{min(total, 2 * PER_PAGE)} of {total}", second)
        newest, oldest = f"/runs/{self.runs[-1].pk}/", f"/runs/{self.runs[0].pk}/"
        self.assertIn(newest, first)
        self.assertNotIn(newest, second)
        self.assertIn(oldest, second if total <= 2 * PER_PAGE else first + second)

    def test_a_bad_page_is_refused_with_a_sentence(self):
        response = self.client.get(reverse("task_detail", args=["spin"]), {"page": "0"})
        self.assertContains(response, "Unknown page")
