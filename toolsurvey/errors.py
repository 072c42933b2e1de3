"""The errors toolsurvey raises on purpose; the CLI turns them into one-line messages."""


class ToolsurveyError(Exception):
    """Base class: something the user can fix, described in the message."""


class InputError(ToolsurveyError, ValueError):
    """Input that is not what was expected: the message says what was expected and what was found."""


class ProviderError(ToolsurveyError):
    """A provider or another remote endpoint failed, not the input: no connection, no answer in time,
    a key that is missing or refused, a rate limit, or an error answer. The same call may work later
    or with another key. Messages never hold a key or an Authorization header."""
