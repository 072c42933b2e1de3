"""Trimming strategies for tool results, composable, each measured before and after: the steps on
JSON values (`steps`), string truncation that never costs more than it saves (`truncation`), the
serializations (`serialize`), and the pipeline that applies and measures them (`pipeline`)."""
