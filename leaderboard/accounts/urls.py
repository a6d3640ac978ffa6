from django.urls import path

from leaderboard.accounts import views as accounts

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.login_view, name="login"),
    path("accounts/logout/", accounts.logout_view, name="logout"),
    path("accounts/password/", accounts.password_change, name="password_change"),
    path("accounts/password/done/", accounts.password_change_done, name="password_change_done"),
    path("accounts/runs/", accounts.my_runs, name="my_runs"),
    path("accounts/tokens/", accounts.token_create, name="token_create"),
    path("accounts/tokens/<int:pk>/revoke/", accounts.token_revoke, name="token_revoke"),
]
