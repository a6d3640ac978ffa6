"""The upload page: the form for signed-in users, the how-to for everyone else."""

from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from leaderboard.models import ModelUnderTest, Run
from leaderboard.shared.params import parse_id
from leaderboard.shared.ratelimit import Limited, limit_posts, too_many_requests
from leaderboard.submit import submissions
from leaderboard.submit.forms import SubmitForm


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
        # A user who has a model most likely submits for it again: "+ a new model" is the
        # default only for a first submission.
        initial["model"] = initial.get("model") or _last_model(request.user)
        form = SubmitForm(initial=initial, user=request.user)
    return render(request, "leaderboard/submit.html", {"form": form})


def _last_model(user: User) -> str | None:
    """The slug of the user's model they last submitted for, else of their newest model."""
    mine = ModelUnderTest.objects.submittable_by(user)
    last = Run.objects.owned_by(user).filter(model__in=mine).order_by("-created_at", "-pk")
    slug = last.values_list("model__slug", flat=True).first()
    return slug or mine.order_by("-pk").values_list("slug", flat=True).first()
