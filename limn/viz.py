# Moved: the drawing module is now the top-level package `viz` (nbs/00_viz.ipynb), shared by limn and litmus.
# This file is not exported from a notebook; it keeps `limn.viz` importing only until the front page (nbs/index.ipynb)
# imports `viz` itself. Delete it then.
from viz import quote, attr_list, Graph, dot_binary   # noqa: F401
