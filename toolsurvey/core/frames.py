"""A DataFrame with a view (see `viewable`): the tables `footprint` and `audit` return."""

from __future__ import annotations

import pandas as pd

from .viewable import Viewable


class ViewableFrame(Viewable, pd.DataFrame):
    """A DataFrame shown with its headline figures above it; anything derived from it (a slice, a
    copy, a groupby) is a plain DataFrame again."""

    @property
    def _constructor(self):
        return pd.DataFrame

    @classmethod
    def of(cls, df: pd.DataFrame):
        out = cls(df)
        out.attrs.update(df.attrs)
        return out
