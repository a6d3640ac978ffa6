from django.urls import path

from leaderboard.submit import views

urlpatterns = [path("submit/", views.submit, name="submit")]
