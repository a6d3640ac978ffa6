"""Sign-up: Django's own user creation form, plus an optional e-mail address.

The address is not used today (no mail is sent); asking for it now lets a password-reset flow be
switched on later without chasing every account for one.
"""

from django import forms
from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        required=False, help_text="Optional; only for password resets, once the site sends mail."
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
