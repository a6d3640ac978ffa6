from django.urls import path

from leaderboard.api import views

urlpatterns = [
    path("api/v1/runs", views.runs, name="api_runs"),
    path("api/v1/runs/<int:pk>", views.run_detail, name="api_run"),
    path("api/v1/runs/<int:pk>/publish", views.publish_run, name="api_run_publish"),
    path("api/v1/leaderboard", views.leaderboard, name="api_leaderboard"),
]
