"""The scorer: a Django-free library (it imports nothing from Django, rq or `leaderboard`).

The site reaches it only through `surface.py` (see docs/ARCHITECTURE.md, "Layers").
"""
