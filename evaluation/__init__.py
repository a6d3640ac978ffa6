"""The scorer: a Django-free library. Only evaluation/jobs.py touches the ORM and rq."""
