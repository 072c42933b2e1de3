"""The errors toolsurvey raises on purpose; the CLI turns them into one-line messages."""


class ToolsurveyError(Exception):
    """Base class: something the user can fix, described in the message."""


class InputError(ToolsurveyError, ValueError):
    """Input that is not what was expected: the message says what was expected and what was found."""
