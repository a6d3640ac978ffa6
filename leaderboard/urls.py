from django.urls import include, path

# Board pages (leaderboard, model, task, exports) and run pages (run, upload, compare, API)
# live in separate url modules so the two halves of the site evolve independently.
urlpatterns = [
    path("", include("leaderboard.urls_board")),
    path("", include("leaderboard.urls_runs")),
]
