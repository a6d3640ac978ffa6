"""The scorer: a Django-free library (it imports nothing from Django or `leaderboard`).

The site reaches it through `pipeline.py` and `contracts.py` (see docs/ARCHITECTURE.md).
"""
