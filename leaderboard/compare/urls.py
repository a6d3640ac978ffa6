from django.urls import path

from leaderboard.compare import views

urlpatterns = [path("compare/", views.compare, name="compare")]
