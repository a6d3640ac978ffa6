"""The write side's uploads: the form, the upload check and its slots, quotas, and the one
place a run is created and queued."""
