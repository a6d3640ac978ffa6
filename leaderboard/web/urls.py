from django.urls import path, re_path

from leaderboard.web import pages
from leaderboard.web import views as board

urlpatterns = [
    path("", board.leaderboard, name="leaderboard"),
    re_path(
        r"^leaderboard\.(?P<fmt>csv|json)$", board.leaderboard_export, name="leaderboard_export"
    ),
    path("models/<slug:slug>/", board.model_detail, name="model_detail"),
    path("tasks/", board.task_list, name="task_list"),
    path("tasks/<slug:slug>/", board.task_detail, name="task_detail"),
    path("methodology/", pages.methodology, name="methodology"),
    path("docs/api/", pages.api_docs, name="api_docs"),
]
