"""Trimming strategies for tool results, composable, each measured before and after: the steps on
JSON values (`steps`), the serializations (`serialize`), and the pipeline that applies and measures
them (`pipeline`)."""
