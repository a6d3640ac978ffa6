from django.urls import path, re_path

from leaderboard.compare import views

urlpatterns = [
    path("compare/", views.compare, name="compare"),
    re_path(r"^compare\.(?P<fmt>csv|json)$", views.compare_export, name="compare_export"),
]
