from django.urls import path

from leaderboard.outreach import views
from leaderboard.outreach.feed import feed

urlpatterns = [
    path("badge/<slug:model>/<slug:task>.svg", views.badge, name="badge"),
    path("feed.atom", feed, name="feed"),
    path("datasets/huggingface/README.md", views.dataset_card, name="dataset_card"),
    path("datasets/huggingface/leaderboard.jsonl", views.dataset_jsonl, name="dataset_jsonl"),
    path("datasets/sysmobench-leaderboard.zip", views.dataset_zip, name="dataset_zip"),
]
