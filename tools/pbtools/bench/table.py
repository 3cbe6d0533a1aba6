"""The report's figures and tables as markdown, one way for every section
(report.py, linux.py, io_report.py and the others beside it): a
figure's format, and a table whose columns with no figure can be left
out."""

NONE = "—"  # a cell with no figure


def fmt(v):
    """A figure as the report prints it: whole where it is, else one
    decimal below 100 and none above; NONE for no figure."""
    if v is None:
        return NONE
    if abs(v - round(v)) < 0.005:
        return "%d" % round(v)
    return "%.1f" % v if v < 100 else "%.0f" % v


def label(name, tags):
    """A benchmark's name as a cell, with the tags of its configuration."""
    return "`%s`" % name + (" (%s)" % tags if tags else "")


def markdown(headings, rows, drop_empty=True):
    """A markdown table's lines; with drop_empty, a column (but the first)
    with no figure in any row is left out."""
    if not rows:
        return []
    keep = range(len(headings))
    if drop_empty:
        keep = [0] + [i for i in range(1, len(headings)) if any(r[i] != NONE for r in rows)]
    out = ["| " + " | ".join(headings[i] for i in keep) + " |",
           "|" + "|".join(" --- " for _ in keep) + "|"]
    return out + ["| " + " | ".join(r[i] for i in keep) + " |" for r in rows]
