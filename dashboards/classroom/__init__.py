"""Class mode: shared_state.py (the lecturer's token, the broker and hub between sessions and
workers; no Panel) and classmode.py (each session's part and the lecturer's panel).
"""
