"""The upload page: the form for signed-in users, the how-to for everyone else."""

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from leaderboard.models import Run
from leaderboard.submit import submissions
from leaderboard.submit.forms import SubmitForm
from leaderboard.web.params import parse_id
from leaderboard.web.ratelimit import Limited, limit_posts, too_many_requests


@limit_posts("upload", "RATE_LIMIT_UPLOADS_PER_IP")
def submit(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        # Anyone may read how to submit; the form itself needs an account.
        return render(request, "leaderboard/submit.html", {"form": None})
    if request.method == "POST":
        form = SubmitForm(request.POST, request.FILES, user=request.user)
        try:
            submissions.check_quota(request.user)  # before the lint, which is the costly part
            run = form.is_valid() and submissions.submit(form, request.user)
            if run:
                return redirect(run)
        except Limited as limited:
            return too_many_requests(request, limited)
    else:
        source_id = parse_id(request.GET.get("from"))
        visible = Run.objects.visible_to(request.user)
        source = visible.filter(pk=source_id).first() if source_id is not None else None
        # ?task= and ?model= come from "submit a spec" links on task and model pages.
        initial = SubmitForm.initial_from(source, request.user) or {
            "task": request.GET.get("task"),
            "model": request.GET.get("model"),
        }
        form = SubmitForm(initial=initial, user=request.user)
    return render(request, "leaderboard/submit.html", {"form": form})
