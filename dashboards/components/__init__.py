"""The building blocks of a page: style (colours, CSS), mathml (the $$…$$ formulas as MathML),
markup (the specs markup.js draws and the Markup component), views (DemoView, cheap panes),
matrix (the editable matrices), render (shared renders), page (template, skip
link, landmarks), stepper.
Imports only runtime/.
"""
