"""Presentation for other sites: badges, the feed, the dataset export."""
