from django.urls import path

from leaderboard.releases import views

urlpatterns = [
    path("releases/", views.release_list, name="release_list"),
    path("releases.json", views.release_list_json, name="release_list_json"),
    path("releases/<str:name>/", views.release_detail, name="release_detail"),
    path("releases/<str:name>/diff/", views.release_diff, name="release_diff"),
    path("releases/<str:name>/diff.json", views.release_diff_json, name="release_diff_json"),
    path("releases/<str:name>/dataset.jsonl", views.release_dataset, name="release_dataset"),
    path("runs/<int:pk>/bundle.zip", views.run_bundle, name="run_bundle"),
]
