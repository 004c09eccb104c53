"""The server process under everything: the framework patches (framework_patches.py), the
guard on what a browser may change (clients.py), memory given back after a class (memory.py).
Imports nothing else of dashboards.
"""
