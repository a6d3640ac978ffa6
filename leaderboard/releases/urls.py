from django.urls import path, register_converter

from leaderboard.releases import views
from leaderboard.releases.identity import RELEASE_NAME_PATTERN


class ReleaseName:
    """A release's name in a URL; anything else is no release (404), never a query."""

    regex = RELEASE_NAME_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ReleaseName, "release")

urlpatterns = [
    path("releases/", views.release_list, name="release_list"),
    path("releases.json", views.release_list_json, name="release_list_json"),
    path("releases/<release:name>/", views.release_detail, name="release_detail"),
    path("releases/<release:name>/diff/", views.release_diff, name="release_diff"),
    path("releases/<release:name>/diff.json", views.release_diff_json, name="release_diff_json"),
    path("releases/<release:name>/dataset.jsonl", views.release_dataset, name="release_dataset"),
    path("releases/<release:name>/heldout.zip", views.release_heldout, name="release_heldout"),
    path("runs/<int:pk>/bundle.zip", views.run_bundle, name="run_bundle"),
]
