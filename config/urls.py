from django.contrib import admin
from django.urls import include, path

from leaderboard.shared.ratelimit import limit_posts

# The admin's sign-in counts against the same per-address budget as the site's (one "login"
# scope), so guessing a maintainer's password is as slow there as anywhere.
admin_login = limit_posts("login", "RATE_LIMIT_LOGINS_PER_IP")(admin.site.login)

urlpatterns = [
    path("admin/login/", admin_login, name="admin_login_throttled"),
    path("admin/", admin.site.urls),
    path("django-rq/", include("django_rq.urls")),
    path("", include("leaderboard.urls")),
]

# A database outage raised outside a view (in a middleware) is a 503 too (web/outage.py).
handler500 = "leaderboard.web.outage.server_error"
