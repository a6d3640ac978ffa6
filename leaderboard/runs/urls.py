from django.urls import path

from leaderboard.runs import views

urlpatterns = [
    path("runs/<int:pk>/", views.run_detail, name="run_detail"),
    path("runs/<int:pk>/windows/<int:window_pk>/", views.window_detail, name="window_detail"),
    path("runs/<int:pk>/publish/", views.run_publish, name="run_publish"),
    path("runs/<int:pk>/status.json", views.run_status, name="run_status"),
    path("runs/<int:pk>.json", views.run_export_json, name="run_export_json"),
    path("runs/<int:pk>.csv", views.run_export_csv, name="run_export_csv"),
]
