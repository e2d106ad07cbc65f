"""Errors a user can cause. The CLI prints them on one line and exits 2."""


class SimkitError(Exception):
    """Base class: a message meant for the user, never a traceback."""

    exit_code = 2


class ScenarioError(SimkitError):
    """A scenario file, key or value is wrong. Names the file, key and what is allowed."""

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None):
        self.file = file
        self.key = key
        self.detail = message
        parts = []
        if file:
            parts.append(str(file))
        if key:
            parts.append(f"key '{key}'")
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class UnknownGameError(SimkitError):
    pass


class UsageError(SimkitError):
    """Wrong use of a command (bad option combination, bad --vary, ...)."""
