"""Every state in a link and the exercises: links.py (the link's format, no Panel),
live_link.py (the live address and «Copiar enlace»), exercises.toml and exercises.py (the
questions as data, checked and computed), practice.py (their cards).
"""
