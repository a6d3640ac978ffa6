class WindowFormatError(ValueError):
    """Trace input that cannot be cut; the message reads `<file>:<line>: <what>`."""
