"""The APIs `toolsurvey eval` can ask, by the name `--api` takes, and the client for each."""

from __future__ import annotations

from ..errors import InputError
from .anthropic_eval import MessagesClient
from .asking import AskingClient
from .openai_eval import ChatClient, ResponsesClient

CLIENTS: dict[str, type[AskingClient]] = {"anthropic-messages": MessagesClient,
                                          "openai-chat": ChatClient, "openai-responses": ResponsesClient}
DEFAULT_BASE_URL_API = "openai-chat"  # what an OpenAI-compatible server speaks


def api_names() -> tuple[str, ...]:
    return tuple(CLIENTS)


def infer_api(model: str, base_url: str | None) -> str:
    """The API for `model`: Chat Completions for a --base-url server, else by the model's provider
    (claude-* Anthropic Messages, anything else OpenAI Chat Completions)."""
    if base_url:
        return DEFAULT_BASE_URL_API
    return "anthropic-messages" if model.lower().startswith("claude") else "openai-chat"


def client(api: str, model: str, **kwargs) -> AskingClient:
    """A client of `api` for `model`; raises InputError for an unknown API, ProviderError for no key."""
    if api not in CLIENTS:
        raise InputError(f"unknown API {api!r}; expected one of: {', '.join(CLIENTS)}")
    if not model or any(c.isspace() for c in model):
        raise InputError(f"expected a model id such as gpt-4o or claude-sonnet-4-5, found {model!r}")
    return CLIENTS[api](model, **kwargs)
