"""Accounts: sign-up, sign-in and out, password change (Django's auth), and "my runs"."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from leaderboard.accounts.forms import SignUpForm
from leaderboard.accounts.tokens import create_token
from leaderboard.models import ApiToken, ModelUnderTest, Run
from leaderboard.shared.ratelimit import limit_posts
from leaderboard.shared.requests import AuthenticatedRequest
from leaderboard.submit.submissions import quota_status

MAX_TOKENS_PER_USER = 10


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe else ""


@limit_posts("signup", "RATE_LIMIT_SIGNUPS_PER_IP")
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my_runs")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request) or "my_runs")
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request)})


login_view = limit_posts("login", "RATE_LIMIT_LOGINS_PER_IP")(
    auth_views.LoginView.as_view(redirect_authenticated_user=True)
)
logout_view = auth_views.LogoutView.as_view()
password_change = auth_views.PasswordChangeView.as_view()
password_change_done = auth_views.PasswordChangeDoneView.as_view()


# The session key a new token waits under between the POST and the page that shows it.
NEW_TOKEN_KEY = "new_api_token"


@login_required
def my_runs(request: AuthenticatedRequest) -> HttpResponse:
    # Shown once: taken out of the session by the first page that reads it.
    new_token = request.session.pop(NEW_TOKEN_KEY, "")
    context = {
        "runs": Run.objects.owned_by(request.user).for_board_page(),
        "models": ModelUnderTest.objects.filter(owner=request.user),
        "quota": quota_status(request.user),
        "tokens": ApiToken.objects.filter(user=request.user).order_by("created_at"),
        "new_token": new_token,
    }
    return render(request, "registration/my_runs.html", context)


@require_POST
@login_required
def token_create(request: AuthenticatedRequest) -> HttpResponse:
    if ApiToken.objects.filter(user=request.user).count() >= MAX_TOKENS_PER_USER:
        messages.error(request, f"You have {MAX_TOKENS_PER_USER} tokens; revoke one first.")
        return redirect("my_runs")
    name = (request.POST.get("name") or "").strip()[:100] or "web"
    raw, _ = create_token(request.user, name)
    # POST, redirect, GET: a reload of the page that shows the token makes no second one. The
    # raw token waits in the session for that one page and is removed as it is shown.
    request.session[NEW_TOKEN_KEY] = raw
    return redirect(reverse("my_runs") + "#api-tokens")


@require_POST
@login_required
def token_revoke(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    ApiToken.objects.filter(user=request.user, pk=pk).delete()
    messages.success(request, "Token revoked: scripts using it get 401 from now on.")
    return redirect("my_runs")
