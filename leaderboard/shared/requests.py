"""The request a signed-in view receives.

`login_required` and the admin site let only a signed-in visitor through, so the `request.user`
of their views is a `User`, never an `AnonymousUser`. Annotating such a view's request with this
type says so to the type checker (the django-stubs way: the class is never instantiated; Django
passes its own request).
"""

from django.contrib.auth.models import User
from django.http import HttpRequest


class AuthenticatedRequest(HttpRequest):
    user: User
