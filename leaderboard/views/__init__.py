"""Function views, one module per half of the site (board, runs)."""
