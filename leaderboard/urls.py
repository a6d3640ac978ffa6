from django.urls import include, path

# Board pages (leaderboard, model, task, exports), run pages (run, upload, compare, API) and
# accounts live in separate url modules so the parts of the site evolve independently.
urlpatterns = [
    path("", include("leaderboard.urls_board")),
    path("", include("leaderboard.urls_runs")),
    path("", include("leaderboard.urls_accounts")),
]
