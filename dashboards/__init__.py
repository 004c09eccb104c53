"""dashboards: the Panel views of the lecture, the servable lecture page and the export.

What exists (demos, sections, served apps) is listed once, in ``dashboards.demos.registry``.
"""
