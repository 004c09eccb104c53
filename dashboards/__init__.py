"""dashboards: the Panel views of the lecture and the servable lecture page.

``APPS`` lists the files ``make serve`` passes to ``panel serve``: the whole lecture (the index
page) and each demo on its own.
"""

APPS = (
    "lecture",
    "self_attention",
    "scaling",
    "multihead",
    "positional",
    "capital",
    "explorer",
)
