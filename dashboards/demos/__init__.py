"""One module per demo (its view, also its own app at /<module>) with its browser twin
<module>.js beside it, and registry.py, the list of demos and sections everything reads.
Imports only components/ and runtime/.
"""
