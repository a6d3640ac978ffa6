"""Query-string forms of the board pages: sort, filters and phase weights live in the URL."""

from typing import Any

from django import forms
from django.http import QueryDict

from leaderboard.board.aggregate import PHASES, Weights, parse_weights
from leaderboard.board.policy import DEFAULT_POLICY, DEFAULT_TABLE, POLICIES, PUBLISHED_TABLES
from leaderboard.models import ModelUnderTest
from leaderboard.shared.paging import parse_page

# Columns whose natural first click is "highest first"; text columns sort A→Z first.
TEXT_SORTS = ("name", "organisation", "kind")
FIXED_SORTS = ("rank", "delta", "overall", "strict", *TEXT_SORTS, *PHASES)


class BoardQueryForm(forms.Form):
    sort = forms.CharField(required=False)
    kind = forms.ChoiceField(
        required=False, choices=[("", "All kinds"), *ModelUnderTest.Kind.choices]
    )
    org = forms.ChoiceField(required=False, label="Organisation")
    w = forms.CharField(required=False, label="Weights P1,P2,P3,P4")
    policy = forms.ChoiceField(
        required=False, label="Runs per cell", choices=[(k, k) for k in POLICIES]
    )
    published = forms.ChoiceField(
        required=False,
        label="Published table",
        choices=[(k, f"{k}: {t.title}") for k, t in PUBLISHED_TABLES.items()],
    )
    page = forms.CharField(required=False)

    def __init__(self, data: QueryDict, *, organisations: list[str], task_slugs: list[str]):
        super().__init__(data)
        org = self.fields["org"]
        assert isinstance(org, forms.ChoiceField)  # declared above
        org.choices = [("", "All organisations")] + [(o, o) for o in organisations]
        self.sort_keys = set(FIXED_SORTS) | set(task_slugs)

    def clean_sort(self) -> str:
        sort = self.cleaned_data["sort"] or "rank"
        if sort.lstrip("-") not in self.sort_keys:
            raise forms.ValidationError(f"Unknown sort column “{sort}”.")
        return sort

    def clean_policy(self) -> str:
        return self.cleaned_data["policy"] or DEFAULT_POLICY

    def clean_published(self) -> str:
        return self.cleaned_data["published"] or DEFAULT_TABLE

    def clean_page(self) -> int | None:
        try:
            return parse_page(self.cleaned_data["page"], allow_all=True)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from error

    def clean_w(self) -> Weights | None:
        text = self.cleaned_data["w"].strip()
        if not text:
            return None  # the published table's own weights
        try:
            return parse_weights(text)
        except ValueError as error:
            raise forms.ValidationError(f"{error}, e.g. 0.15,0.15,0.35,0.35.") from error

    def value(self, name: str) -> Any:
        """The cleaned value, or the default when the field was invalid (the error is shown):
        the weights for "w" (None: the published table's), the page number for "page" (None:
        every row), a string for the others."""
        defaults = {
            "sort": "rank",
            "kind": "",
            "org": "",
            "w": None,
            "policy": DEFAULT_POLICY,
            "published": DEFAULT_TABLE,
            "page": 1,
        }
        if not self.is_valid() and name in self.errors:
            return defaults[name]
        return self.cleaned_data.get(name, defaults[name])
