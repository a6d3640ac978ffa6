"""Entry points for the templates: the filters that format figures and verdicts on the pages."""
