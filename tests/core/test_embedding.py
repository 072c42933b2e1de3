"""The one model2vec loader: rows as model2vec encodes them, L2-normalised (scikit-learn's normalize as
the oracle); never a download; a missing model2vec is MissingExtra naming the extra."""

import sys

import numpy as np
import pytest

from toolsurvey.core.embedding import model2vec_encoder
from toolsurvey.core.extras import MissingExtra
from toolsurvey.errors import InputError


def tiny_model(path):
    """A model2vec model of a 6-word vocabulary (nothing is downloaded)."""
    model2vec = pytest.importorskip("model2vec")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = ["[UNK]", "[PAD]", "post", "send", "message", "issue"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.normalizer, tok.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(0).normal(size=(len(words), 4)).astype(np.float32)
    model2vec.StaticModel(vectors, tok, normalize=False).save_pretrained(str(path))
    return model2vec.StaticModel.from_pretrained(str(path))


def test_rows_are_model2vecs_embeddings_normalised(tmp_path):
    from sklearn.preprocessing import normalize

    model = tiny_model(tmp_path / "m")
    texts = ["post a message", "send the issue", "issue issue message"]
    encode = model2vec_encoder(str(tmp_path / "m"), purpose="test", setting="--model DIR")
    want = normalize(np.asarray(model.encode(texts), dtype=np.float64))
    np.testing.assert_allclose(encode(texts), want, rtol=0, atol=1e-12)


def test_a_model_name_is_never_downloaded(tmp_path):
    for model in (None, "", str(tmp_path / "missing"), "minishlab/potion-base-8M"):
        with pytest.raises(InputError, match=r"needs the directory of a model2vec model on this machine \(--model DIR\)"):
            model2vec_encoder(model, purpose="retrieval method 'embedding'", setting="--model DIR")
    with pytest.raises(InputError, match="could not load a model2vec model"):
        model2vec_encoder(str(tmp_path), purpose="test", setting="--model DIR")  # a folder with no model


def test_missing_model2vec_is_missing_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "model2vec", None)  # as if not installed
    with pytest.raises(MissingExtra, match=r"pip install 'toolsurvey\[embeddings\]'"):
        model2vec_encoder(str(tmp_path), purpose="similarity method 'embedding'", setting="[similarity] model")
