"""The write side's worker: the rq job (the bridge from the ORM to the scorer), the queues,
the reaper, the scorer backends, the near-duplicate flag and a run's result as JSON."""
