"""The server process under everything: the checks on what a browser may change and its pace
(clients.py), memory given back after a class (memory.py).
Imports nothing else of dashboards.
"""
