"""Upload input: one form serves the web page and the JSON API, so both lint alike."""

from __future__ import annotations

import unicodedata
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import User
from django.core.validators import ProhibitNullCharactersValidator
from django.db.models import Model, QuerySet
from django.http import QueryDict
from django.utils import timezone
from django.utils.text import slugify

from evaluation.surface import unstorable
from leaderboard.models import ModelUnderTest, Run, Task
from leaderboard.submit.lint import lint_upload, too_big
from leaderboard.submit.lookalikes import LOOKALIKES


def folded(name: str) -> str:
    """A display name as a reader tells names apart: compatibility forms (NFKD), letters of
    other scripts that look like Latin ones (lookalikes.py), accents on such letters, invisible
    characters, case, and letters and digits only ("Gemini 3.1 Pro", "gemini-3-1 PRO",
    "Gemini 31 Pro" and "Gеmíni 3.1 Pro" with a Cyrillic "е" are one)."""
    kept: list[str] = []
    for c in unicodedata.normalize("NFKD", name):
        category = unicodedata.category(c)
        if category == "Cf":  # zero-width joiners and spaces, direction marks: nothing to see
            continue
        if category.startswith("M"):
            # An accent on a letter read as Latin hides an impersonation ("í" for "i"); on any
            # other letter it is part of an honest name (Japanese "ガ" is not "カ").
            if kept and not kept[-1].isascii():
                kept.append(c)
            continue
        kept.append(LOOKALIKES.get(c, c))
    # NFC puts the kept marks back on their letters; the marks no letter takes (Devanagari's
    # vowel signs) stay too, so "नमस्ते" and "नमसत" remain two names.
    text = unicodedata.normalize("NFC", "".join(kept).casefold())
    return "".join(c for c in text if c.isalnum() or unicodedata.category(c).startswith("M"))


def name_taken(name: str, models: QuerySet[ModelUnderTest] | None = None) -> bool:
    """Whether a model's slug is `name`'s or its display name folds to `name`'s: a new model
    may not take it, so no page or picker shows two models a reader cannot tell apart
    (docs/decisions/0029-abuse-bounds.md). Slugs differ where readers do not look (a hyphen),
    so the names are compared too."""
    models = ModelUnderTest.objects.all() if models is None else models
    if models.filter(slug=slugify(name)).exists():
        return True
    wanted = folded(name)
    return any(folded(n) == wanted for n in models.values_list("name", flat=True))


class SafeModelChoiceField(forms.ModelChoiceField):
    """A choice by slug that refuses text no database query can carry (NUL, lone surrogates)
    before it reaches the query, as an ordinary invalid choice."""

    def to_python(self, value: Any) -> Model | None:
        if isinstance(value, str) and unstorable(value):
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice"
            )
        return super().to_python(value)


def _plain_text(max_length: int, label: str) -> forms.CharField:
    return forms.CharField(
        max_length=max_length, required=False, label=label, validators=[_storable]
    )


def _storable(value: str) -> None:
    problem = unstorable(value, "This field")
    if problem:
        raise forms.ValidationError(problem)


def _pasted_text(label: str, rows: int) -> forms.CharField:
    """A code textarea; `strip=False` because a spec's leading and trailing text is part of it."""
    field = forms.CharField(
        required=False,
        strip=False,
        label=label,
        widget=forms.Textarea(attrs={"rows": rows, "spellcheck": "false", "class": "code"}),
    )
    # The pre-scan names the line of a NUL byte; Django's own check would only say "Null
    # characters are not allowed" (and the spec would never reach the pre-scan).
    field.validators = [
        v for v in field.validators if not isinstance(v, ProhibitNullCharactersValidator)
    ]
    return field


# Bounds no honest disclosure reaches: they catch typos (an extra digit, a pasted phone
# number) and keep every value inside its column on every database.
MOST_SPECS = 100_000
MOST_REPAIR_ROUNDS = 1_000
MOST_TOKENS = 10**12
MOST_COST_USD = Decimal("1000000")
EARLIEST_GENERATION = date(2015, 1, 1)
# The date is the submitter's own, and their calendar may be up to 14 hours ahead of UTC.
AHEAD_OF_UTC = timedelta(hours=14)


def _count(label: str, least: int, most: int, help_text: str) -> forms.IntegerField:
    return forms.IntegerField(
        required=False,
        label=label,
        min_value=least,
        max_value=most,
        help_text=help_text,
        error_messages={
            "invalid": "Give a whole number (digits only), or leave it empty.",
            "min_value": f"Give a whole number of at least {least}, or leave it empty.",
            "max_value": f"At most {most:,}: is a digit too many?",
        },
    )


class DisclosureFields(forms.Form):
    """How the spec was made (docs/decisions/0025-cell-policy-and-disclosure.md). All optional; what
    is given must be plausible."""

    specs_generated = _count(
        "Specs generated", 1, MOST_SPECS, "How many specs you generated for this task and model"
    )
    specs_submitted = _count(
        "Specs submitted", 1, MOST_SPECS, "How many of them you submit here (this one included)"
    )
    repair_rounds = _count(
        "Repair rounds", 0, MOST_REPAIR_ROUNDS, "Rounds of fixing the spec after feedback"
    )
    generated_by = forms.ChoiceField(
        choices=[("", "not disclosed"), *ModelUnderTest.Kind.choices],
        required=False,
        label="Made by an LLM or an agent",
    )
    generated_on = forms.DateField(
        required=False,
        label="Generation date (YYYY-MM-DD)",
        error_messages={"invalid": "Give the date as YYYY-MM-DD, or leave it empty."},
    )
    tokens_in = _count("Input tokens", 0, MOST_TOKENS, "Prompt tokens of the generation")
    tokens_out = _count("Output tokens", 0, MOST_TOKENS, "Completion tokens of the generation")
    cost_usd = forms.DecimalField(
        required=False,
        label="Cost (USD)",
        min_value=Decimal(0),
        max_value=MOST_COST_USD,
        max_digits=10,
        decimal_places=2,
        error_messages={
            "invalid": "Give an amount in dollars such as 12.50, or leave it empty.",
            "min_value": "A cost cannot be negative.",
            "max_value": f"At most {MOST_COST_USD:,} dollars: is a digit too many?",
            "max_decimal_places": "Give at most 2 decimals (cents).",
        },
    )

    def clean_generated_on(self) -> date | None:
        day: date | None = self.cleaned_data.get("generated_on")
        if day is None:
            return None
        if day > (timezone.now() + AHEAD_OF_UTC).date():
            raise forms.ValidationError(
                f"{day.isoformat()} is in the future: give the day the spec was generated."
            )
        if day < EARLIEST_GENERATION:
            raise forms.ValidationError(
                f"{day.isoformat()} is before {EARLIEST_GENERATION.year}: check the year."
            )
        return day

    def clean_disclosure(self, data: dict[str, Any]) -> None:
        generated, submitted = data.get("specs_generated"), data.get("specs_submitted")
        if generated is not None and submitted is not None and submitted > generated:
            self.add_error(
                "specs_submitted",
                f"You submit {submitted} specs but generated only {generated}: the submitted "
                "ones are among the generated ones.",
            )

    def disclosure(self) -> dict[str, Any]:
        """The cleaned disclosure as Run field values (empty choice -> "")."""
        return {name: self.cleaned_data.get(name) for name in Run.DISCLOSURE_FIELDS} | {
            "generated_by": self.cleaned_data.get("generated_by") or ""
        }


class SubmitForm(DisclosureFields):
    task = SafeModelChoiceField(Task.objects.all(), to_field_name="slug", empty_label=None)
    model = SafeModelChoiceField(
        ModelUnderTest.objects.none(),
        to_field_name="slug",
        required=False,
        empty_label="+ a new model (fill in below)",
        error_messages={
            "invalid_choice": "You can submit only for your own models: pick one of yours, or "
            "describe a new one below. A maintainer can hand an existing model over to you."
        },
    )
    new_model_name = _plain_text(100, "New model name")
    new_model_organisation = _plain_text(100, "Organisation")
    new_model_kind = forms.ChoiceField(
        choices=ModelUnderTest.Kind.choices, required=False, label="Kind"
    )
    spec_file = forms.FileField(required=False, label="Spec file (.tla)")
    spec_text = _pasted_text("…or paste the spec", rows=14)
    adapter_file = forms.FileField(required=False, label="Adapter file (.yaml, optional)")
    adapter_text = _pasted_text("…or paste the adapter", rows=6)
    cfg_file = forms.FileField(required=False, label="Config file (.cfg, optional)")
    cfg_text = _pasted_text("…or paste the .cfg", rows=4)
    score_anyway = forms.BooleanField(
        required=False,
        label="Score it anyway",
        help_text="A spec SANY rejects is still an attempt: it is scored (partial syntax credit, "
        "the later phases not reached) and counts in its model's cell like any run.",
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.offer_score_anyway = False
        # Only the submitter's own models are choices, so another account's slug is refused.
        model = self.fields["model"]
        assert isinstance(model, forms.ModelChoiceField)  # declared above
        model.queryset = ModelUnderTest.objects.submittable_by(user)
        slugs = ", ".join(Task.objects.order_by("position", "slug").values_list("slug", flat=True))
        self.fields["task"].error_messages["invalid_choice"] = (
            f"Unknown task: choose one of {slugs}."
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        self._clean_model(data)
        self.clean_disclosure(data)
        spec, spec_field = self._spec_input(data)
        adapter = self._adapter_input(data)
        if spec is None or not data.get("task"):
            return data
        cfg = self._cfg_input(data)
        result = lint_upload(spec, data["task"], adapter, cfg)
        if result.spec_text and spec_field == "spec_file":
            # Keep the upload on screen so a failed lint never costs the submitter their text.
            shown = self.data.copy() if isinstance(self.data, QueryDict) else dict(self.data)
            shown["spec_text"] = result.spec_text
            self.data = shown
        # The check still warns first; asked again, a spec only SANY rejects is scored as it is.
        self.offer_score_anyway = result.sany_rejected and set(result.errors) == {"spec"}
        if self.offer_score_anyway and data.get("score_anyway"):
            result.errors.pop("spec")
        for key, messages in result.errors.items():
            cfg_field = "cfg_file" if data.get("cfg_file") else "cfg_text"
            target = {"spec": spec_field, "adapter": "adapter_text", "cfg": cfg_field}.get(key, key)
            for message in messages:
                self.add_error(target, message)
        data["spec"], data["adapter"], data["cfg"] = result.spec_text, adapter, cfg
        return data

    def _clean_model(self, data: dict[str, Any]) -> None:
        if data.get("model"):
            return
        name = (data.get("new_model_name") or "").strip()
        if not name:
            self.add_error("model", "Pick a model, or give a name for a new one.")
            return
        if not (data.get("new_model_organisation") or "").strip():
            self.add_error("new_model_organisation", "Say which organisation made the model.")
        if not slugify(name):
            self.add_error("new_model_name", "Use at least one letter or digit in the name.")
        elif name_taken(name, ModelUnderTest.objects.submittable_by(self.user)):
            self.add_error("new_model_name", f"You have a model {name!r} already: pick it above.")
        elif name_taken(name):
            # The same words whoever holds the name: saying "another account's" would confirm
            # that a model no run of which is public exists.
            self.add_error(
                "new_model_name",
                f"The name {name!r} is not available: choose another one. If the model is "
                "yours, a maintainer can hand it over to you.",
            )

    def _spec_input(self, data: dict[str, Any]) -> tuple[bytes | str | None, str]:
        upload = data.get("spec_file")
        if upload:
            if upload.size > settings.UPLOAD_MAX_BYTES:
                # The size is known from the upload itself: nothing needs reading to refuse it.
                self.add_error("spec_file", too_big("The spec", upload.size))
                return None, "spec_file"
            return upload.read(), "spec_file"
        if data.get("spec_text", "").strip():
            return data["spec_text"].replace("\r\n", "\n"), "spec_text"
        self.add_error("spec_text", "Upload a .tla file or paste the spec.")
        return None, "spec_text"

    def _adapter_input(self, data: dict[str, Any]) -> str:
        upload = data.get("adapter_file")
        if not upload:
            return (data.get("adapter_text") or "").replace("\r\n", "\n")
        if upload.size > settings.UPLOAD_MAX_BYTES:
            self.add_error("adapter_file", too_big("The adapter", upload.size))
            return ""
        try:
            text: str = upload.read().decode("utf-8")
            return text
        except UnicodeDecodeError:
            self.add_error("adapter_file", "The adapter is not UTF-8 text.")
            return ""

    def _cfg_input(self, data: dict[str, Any]) -> str:
        """The uploaded .cfg, else the pasted one (the same rules as the adapter's file)."""
        upload = data.get("cfg_file")
        if not upload:
            return (data.get("cfg_text") or "").replace("\r\n", "\n")
        if upload.size > settings.UPLOAD_MAX_BYTES:
            self.add_error("cfg_file", too_big("The cfg", upload.size))
            return ""
        try:
            text: str = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            self.add_error("cfg_file", "The cfg is not UTF-8 text.")
            return ""
        return text.replace("\r\n", "\n")

    def save(self, submitter: User) -> Run:
        """The queued private run (and the new model of `submitter`, if one was described);
        call only when valid, through leaderboard.submit.submissions.submit (quotas)."""
        data = self.cleaned_data
        model = data["model"] or ModelUnderTest.objects.create(
            slug=slugify(data["new_model_name"]),
            name=data["new_model_name"].strip(),
            organisation=data["new_model_organisation"].strip(),
            kind=data["new_model_kind"] or ModelUnderTest.Kind.LLM,
            owner=submitter,
        )
        return Run.objects.create(
            model=model,
            task=data["task"],
            spec_text=data["spec"],
            adapter_text=data["adapter"],
            cfg_text=data["cfg"],
            status=Run.Status.QUEUED,
            provenance=Run.Provenance.VERIFIED,
            review=Run.Review.PRIVATE,
            submitter=submitter,
            **self.disclosure(),
        )

    @classmethod
    def initial_from(cls, run: Run | None, user: User) -> dict[str, Any]:
        """Prefill for resubmitting `run` (same task, spec and adapter; same model if it is
        one of `user`'s). The caller must have checked that `user` may read `run`."""
        if run is None:
            return {}
        mine = run.model.accepts_runs_from(user)
        return {
            "task": run.task.slug,
            "model": run.model.slug if mine else None,
            "spec_text": run.spec_text,
            "adapter_text": run.adapter_text,
            "cfg_text": run.cfg_text,
        }
