"""What peers offer and the site now does too (docs/decisions/0030-first-hour-and-peers.md): an
embeddable SVG badge per model and task (escaped, cached, public only where the model is), an Atom
feed of releases and newly verified results, and the board as a Hugging Face dataset (a card with
YAML front matter beside the JSONL, one file at a time or zipped)."""

import io
import json
import xml.etree.ElementTree as ET
import zipfile
from unittest import mock

import yaml
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from leaderboard.models import Release, Run
from leaderboard.outreach import badges
from tests.base import WorldTestCase, make_model, make_run

PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 1.0}  # cell 0.825
SVG = "{http://www.w3.org/2000/svg}"
ATOM = "{http://www.w3.org/2005/Atom}"


def badge_url(model, task):
    return reverse("badge", args=[model, task])


def texts(svg_bytes):
    root = ET.fromstring(svg_bytes)  # well-formed XML, or this raises
    return [t.text for t in root.iter(f"{SVG}text")], root.find(f"{SVG}title").text


class BadgeTest(WorldTestCase):
    def setUp(self):
        cache.clear()
        self.run = make_run(self.model_a, self.spin, PHASES)

    def test_a_task_badge_gives_the_cell_s_figure(self):
        response = self.client.get(badge_url("model-a", "spin"))
        self.assertEqual(response["Content-Type"], "image/svg+xml; charset=utf-8")
        shown, title = texts(response.content)
        self.assertEqual(shown, ["SysMoBench spin", "82.5 (verified)"])
        self.assertEqual(title, "Model A on spin: 82.5 (verified)")
        self.assertEqual(response["Cache-Control"], "public, max-age=300")
        self.assertIn("default-src 'none'", response["Content-Security-Policy"])

    def test_the_overall_badge_gives_rank_and_mean(self):
        shown, _ = texts(self.client.get(badge_url("model-a", "overall")).content)
        # 0.825 / 2 tasks = 0.4125, a mean rounded as the site rounds (4, then 3 decimals)
        self.assertEqual(shown, ["SysMoBench", "#1 · 41.2"])

    def test_a_task_without_a_run_says_so(self):
        shown, _ = texts(self.client.get(badge_url("model-a", "etcd")).content)
        self.assertEqual(shown[1], "not submitted")
        make_run(self.model_a, self.etcd, PHASES, submitter=self.alice, review=Run.Review.PENDING)
        shown, _ = texts(self.client.get(badge_url("model-a", "etcd")).content)
        self.assertEqual(shown[1], "awaiting review")

    def test_a_hostile_name_is_text_not_markup(self):
        name = '</title><script>alert(1)</script><text x="0">"&'
        hostile = make_model("hostile", name=name)
        make_run(hostile, self.spin, PHASES)
        response = self.client.get(badge_url("hostile", "spin"))
        self.assertNotIn(b"<script", response.content)
        root = ET.fromstring(response.content)
        self.assertEqual(root.find(f"{SVG}title").text, f"{name} on spin: 82.5 (verified)")
        self.assertEqual(len(list(root.iter(f"{SVG}text"))), 2)
        self.assertEqual([e.tag for e in root.iter()].count(f"{SVG}script"), 0)

    def test_it_is_drawn_once_per_board_and_follows_it(self):
        with mock.patch("leaderboard.outreach.views.svg", wraps=badges.svg) as draw:
            first = self.client.get(badge_url("model-a", "spin")).content
            again = self.client.get(badge_url("model-a", "spin")).content
        self.assertEqual((draw.call_count, first), (1, again))
        make_run(self.model_a, self.spin, {**PHASES, "conformance": 1.0})  # mean 0.9125
        shown, _ = texts(self.client.get(badge_url("model-a", "spin")).content)
        self.assertEqual(shown[1], "91.2 (verified)")  # 0.9125 in binary is just below

    def test_unknown_names_and_another_account_s_private_model_are_404(self):
        self.assertEqual(self.client.get(badge_url("nosuch", "spin")).status_code, 404)
        self.assertEqual(self.client.get(badge_url("model-a", "nosuch")).status_code, 404)
        private = make_model("secret-model", owner=self.bob)
        make_run(private, self.spin, PHASES, submitter=self.bob, review=Run.Review.PRIVATE)
        self.assertEqual(self.client.get(badge_url("secret-model", "spin")).status_code, 404)
        self.client.force_login(self.bob)
        mine = self.client.get(badge_url("secret-model", "spin"))
        self.assertEqual(mine.status_code, 200)
        self.assertTrue(mine["Cache-Control"].startswith("private"))


class FeedTest(WorldTestCase):
    def setUp(self):
        now = timezone.now()
        self.approved = make_run(self.model_a, self.spin, PHASES, reviewed_at=now)
        self.pending = make_run(self.model_b, self.spin, PHASES, submitter=self.bob,
                                review=Run.Review.PENDING)  # fmt: skip
        make_run(self.model_b, self.etcd, PHASES, provenance="reported", source="paper")
        Release.objects.create(name="2026.12", identity="abc", components={},
                               changelog="First release.", approved_at=now)  # fmt: skip
        Release.objects.create(name="2027.01", identity="def", components={})  # not approved

    def test_it_is_atom_with_releases_and_newly_verified_results_only(self):
        response = self.client.get(reverse("feed"))
        self.assertTrue(response["Content-Type"].startswith("application/atom+xml"))
        root = ET.fromstring(response.content)
        entries = {
            e.find(f"{ATOM}title").text: e.find(f"{ATOM}link").get("href")
            for e in root.iter(f"{ATOM}entry")
        }
        self.assertEqual(
            entries,
            {
                "Release 2026.12 approved": "http://testserver/releases/2026.12/",
                "Model A on spin: 82.5 (verified)": f"http://testserver/runs/{self.approved.pk}/",
            },
        )

    def test_the_board_links_it(self):
        self.assertContains(self.client.get(reverse("leaderboard")), 'type="application/atom+xml"')


class DatasetTest(WorldTestCase):
    def setUp(self):
        make_run(self.model_a, self.spin, PHASES)
        make_run(self.model_b, self.etcd, PHASES, provenance="reported", source="paper")

    def test_the_card_has_front_matter_the_hub_reads(self):
        text = self.client.get(reverse("dataset_card")).content.decode()
        self.assertTrue(text.startswith("---\n"))
        front = yaml.safe_load(text.split("---\n")[1])
        self.assertEqual(front["configs"][0]["data_files"][0]["path"], "leaderboard.jsonl")
        self.assertEqual(front["license"], "apache-2.0")
        self.assertIn("# SysMoBench Leaderboard", text)

    def test_the_jsonl_is_the_board_as_leaderboard_json_gives_it(self):
        response = self.client.get(reverse("dataset_jsonl"))
        lines = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
        board = self.client.get(reverse("leaderboard_export", args=["json"]) + "?page=1").json()
        expected = [{k: v for k, v in m.items() if k != "runs"} for m in board["models"]]
        self.assertEqual(lines, expected)

    def test_the_zip_holds_both_in_one_folder(self):
        response = self.client.get(reverse("dataset_zip"))
        self.assertEqual(response["Content-Type"], "application/zip")
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            names = sorted(archive.namelist())
            card = archive.read("sysmobench-leaderboard/README.md").decode()
            lines = archive.read("sysmobench-leaderboard/leaderboard.jsonl").decode().splitlines()
        self.assertEqual(
            names, ["sysmobench-leaderboard/README.md", "sysmobench-leaderboard/leaderboard.jsonl"]
        )
        self.assertIn("data_files", card)
        self.assertEqual([json.loads(line)["slug"] for line in lines], ["model-a", "model-b"])
