from django.urls import path

from leaderboard import api
from leaderboard.views import runs

urlpatterns = [
    path("runs/<int:pk>/", runs.run_detail, name="run_detail"),
    path("runs/<int:pk>/windows/<int:window_pk>/", runs.window_detail, name="window_detail"),
    path("runs/<int:pk>/publish/", runs.run_publish, name="run_publish"),
    path("runs/<int:pk>/status.json", runs.run_status, name="run_status"),
    path("runs/<int:pk>.json", runs.run_export_json, name="run_export_json"),
    path("runs/<int:pk>.csv", runs.run_export_csv, name="run_export_csv"),
    path("submit/", runs.submit, name="submit"),
    path("compare/", runs.compare, name="compare"),
    path("api/v1/runs", api.create_run, name="api_runs"),
    path("api/v1/runs/<int:pk>", api.run_detail, name="api_run"),
    path("api/v1/runs/<int:pk>/publish", api.publish_run, name="api_run_publish"),
    path("api/v1/leaderboard", api.leaderboard, name="api_leaderboard"),
]
