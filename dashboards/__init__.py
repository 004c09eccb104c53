"""dashboards: the Panel views of the lecture, the servable lecture page and the export.

One folder per layer, lowest first; a module imports only from its own layer or lower ones
(tests/test_project.py checks it, and that there is no import cycle):

- ``runtime/``: what a browser may send and at what rate, memory;
- ``components/``: the page's building blocks (style, markup, views, matrices, renders, page);
- ``demos/``: one module per demo (its model, controls and ``numbers``; its drawing is
  ``static/demos/<demo>.js``), and ``registry.py``;
- ``sharing/``: every state in a link, the exercises and their cards;
- ``classroom/``: class mode;
- ``app/``: the lecture, each session's set-up, each demo served alone, projector mode;
- ``cli.py``, ``serving.py``, ``export.py``: the commands. ``static/``: the pages' scripts (/c04/).

What exists (demos, sections, served apps) is listed once, in ``dashboards.demos.registry``.
"""
