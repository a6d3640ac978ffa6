from django.urls import include, path

# Each part of the site owns its url module, so the parts evolve independently.
urlpatterns = [
    path("", include(f"leaderboard.{part}.urls"))
    for part in ("web", "runs", "releases", "submit", "compare", "api", "accounts", "outreach")
]
