"""The TLA+ tools and the readers of TLA+ text: the sandbox that runs SANY and TLC, tree-sitter's
parse, TLC's messages and values, and our library modules."""
