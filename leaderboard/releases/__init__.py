"""The write side's releases: what a score was computed under, rescoring a release, its
artifacts and citation, and the release pages."""
