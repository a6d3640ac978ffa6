"""What every layer above the data may use: request parsing, rate limits, rounding, CSV safety,
JSON error bodies, paging, plain words for TLC values and a run's disclosure."""
