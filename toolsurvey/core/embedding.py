"""Text embeddings by a local model2vec model: the one loader of the similarity audit
(advice.similarity) and the tool search (measuring.retrieval). Nothing is ever downloaded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..errors import InputError
from .extras import require


def model2vec_encoder(model: str | None, *, purpose: str, setting: str) -> Callable[[list[str]], np.ndarray]:
    """A function from texts to their L2-normalised embeddings (float64 rows; a dot product of two is
    their cosine) by the model2vec model in the local directory `model`.

    `purpose` and `setting` name, in messages, what needs the model and where the user gives it.
    Raises InputError when `model` is no directory (a model name is not downloaded), MissingExtra when
    model2vec is not installed, InputError when the directory holds no model2vec model.
    """
    if not model or not Path(model).is_dir():
        raise InputError(f"{purpose} needs the directory of a model2vec model on this machine ({setting}); "
                         f"found {model!r}. Nothing is downloaded")
    require("model2vec", purpose=purpose)
    from model2vec import StaticModel  # optional: pip install 'toolsurvey[embeddings]'

    try:
        loaded = StaticModel.from_pretrained(model)
    except Exception as e:  # a directory that is not a model2vec model: say so, do not guess
        raise InputError(f"could not load a model2vec model from {model}: {e}") from None

    def encode(texts: list[str]) -> np.ndarray:
        x = np.asarray(loaded.encode(texts), dtype=np.float64)
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)

    return encode
