"""The app shell: lecture.py (the whole lecture, served at /lecture), session.py (configure(),
the session's key, language and page), standalone.py (each demo served alone), present.py
(projector mode and the keyboard shortcuts).
"""
