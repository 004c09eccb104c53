"""The page's look: its colours (accent, categories, with their contrast) and its CSS.

No state, no Panel component: constants the components, the demos and the app share.
"""

from __future__ import annotations

ACCENT = "#1f5fa8"

# The colours that tell categories apart (heads, curves, words): Okabe & Ito's blue, vermillion
# and bluish green, and Tol's wine. Under protanopia, deuteranopia and tritanopia every pair
# stays at least 12 CIEDE2000 units apart (tests/dashboards/test_colours.py simulates each),
# and each has 3:1 or more against white, as WCAG asks of a line or a mark.
CATEGORY_COLORS = ("#0072b2", "#d55e00", "#009e73", "#882255")


def luminance(color: str) -> float:
    """WCAG's relative luminance of a ``#rrggbb`` colour."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# A drawing of C04.markup.head_plot (a head of "Varias cabezas", the heat map of A): the arcs
# and the matrix side by side, the matrix under the arcs when the page is narrower than both;
# each scales down to the page's width. Its tooltip sits beside the pointer.
HEAD_PLOT_CSS = """
.c04-head { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 4px 12px;
  position: relative; }
.c04-head-arcs, .c04-head-matrix { max-width: 100%; height: auto; }
.c04-head-matrix rect.c04-head-cell:hover { stroke: #111; stroke-width: 1.5; }
.c04-head text { font-family: inherit; }
.c04-head-title { flex: 0 0 100%; font-weight: 600; margin: 0 0 2px; }
"""
# C04.markup.heatmap (the explorer's map, «La siguiente palabra»'s head): whole percentages
# shaded by weight, masked cells hatched, the focus row marked; scrolls sideways on a phone.
HEATMAP_CSS = """
.c04-map-wrap { overflow-x: auto; max-width: 100%; }
.c04-map { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 90%; }
.c04-map th { font-weight: 500; color: #444; padding: 2px 6px; white-space: nowrap; }
.c04-map thead th { text-align: center; border-bottom: 1px solid #c9d0da; }
.c04-map tbody th { text-align: right; }
.c04-map td { padding: 3px 7px; text-align: right; border: 1px solid #dde2ea; white-space: nowrap;
  min-width: 2.8em; color: #000; }
.c04-map td.d { color: #fff; }
.c04-map td.m { color: #555; background: repeating-linear-gradient(135deg, #f1f1f1 0 4px,
  #e2e2e2 4px 8px); }
.c04-map tr.f th { color: #b53d00; font-weight: 700; }
"""
# A tooltip of markup.js (head_plot, lines, raster): beside the pointer, over the drawing.
TIP_CSS = """
.c04-tip { position: absolute; z-index: 2; pointer-events: none; white-space: nowrap;
  padding: 3px 7px; border: 1px solid #c9d0da; border-radius: 3px; background: #fff;
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.15); font-size: 85%; line-height: 1.35; }
.c04-tip-rule { border: none; border-top: 1px solid #e3e7ee; margin: 3px 0; }
"""
HEAD_PLOT_CSS += TIP_CSS

# The charts markup.js draws instead of Bokeh figures: C04.markup.lines (SVG curves) and
# C04.markup.raster (a matrix as a canvas, one pixel per cell, stretched to the width with
# crisp cells, its colour bar beside it).
CHART_CSS = (
    TIP_CSS
    + """
.c04-chart { position: relative; }
.c04-chart svg { display: block; font-family: inherit; }
.c04-raster { position: relative; }
.c04-raster-title { font-weight: 600; margin: 0 0 4px; }
.c04-raster-grid { display: grid; grid-template-columns: 1.6em 2.8em minmax(0, 1fr) 4.4em;
  grid-template-rows: var(--c04-raster-height, 340px) 1.6em; }
.c04-raster-ylabel { display: flex; align-items: center; justify-content: center; }
.c04-raster-ylabel span, .c04-raster-xlabel { white-space: nowrap; font-style: italic;
  color: #444; font-size: 90%; }
.c04-raster-ylabel span { transform: rotate(-90deg); }
.c04-raster-ticks { position: relative; font-size: 80%; color: #444;
  font-variant-numeric: tabular-nums; }
.c04-raster-ticks span { position: absolute; white-space: nowrap; }
.c04-raster-yticks span { right: 5px; transform: translateY(-50%); }
.c04-raster-xticks span { top: 2px; transform: translateX(-50%); }
.c04-raster-plot { min-width: 0; }
.c04-raster-canvas { display: block; width: 100%; height: 100%; image-rendering: pixelated;
  outline: 1px solid #c9d0da; cursor: crosshair; }
.c04-raster-bar { display: flex; gap: 5px; padding-left: 10px; }
.c04-raster-scale { width: 12px; height: 100%; image-rendering: pixelated; }
.c04-raster-barticks { flex: 1; }
.c04-raster-barticks span { left: 0; transform: translateY(-50%); }
.c04-raster-xlabel { text-align: center; padding: 0 4.4em 0 4.4em; }
"""
)


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


CSS = """
:host { --accent: #1f5fa8; --code-text-color: #174a87 !important; }
.c04-matrix { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 2px 0; }
.c04-matrix caption { caption-side: top; text-align: left; font-weight: 600; padding: 2px 0 4px; }
.c04-matrix th { font-weight: 500; color: var(--c04-muted, #555); padding: 2px 8px;
  text-align: center; font-size: var(--c04-label-size, inherit); }
.c04-matrix td { padding: 3px 10px; text-align: right; border: 1px solid #d6dbe3;
  min-width: 3.5em; font-size: var(--c04-cell-size, inherit); }
.c04-matrix td.c04-masked { color: #555; background: #f3f3f3; }
.c04-matrix td.c04-sum { border: none; color: #2a7a2a; font-size: 90%; text-align: left; }
.c04-numbers > summary { cursor: pointer; color: #174a87; font-size: 90%; padding: 12px 0; }
.c04-readout { display: inline-block; min-width: 11em; padding: 8px 14px; margin: 4px 8px 4px 0;
  border-left: 4px solid #1f5fa8; background: #f5f8fc; }
.c04-readout .c04-label { font-size: var(--c04-label-size, 85%); color: var(--c04-muted, #444); }
.c04-readout .c04-value { font-size: var(--c04-value-size, 170%); font-weight: 600;
  font-variant-numeric: tabular-nums; }
.c04-readout .c04-unit { font-size: 85%; color: var(--c04-muted, #666); }
.c04-error { color: #a40000; font-size: 90%; min-height: 1.2em; }
.c04-note { color: var(--c04-note-color, #555); font-size: 92%; }
/* A figure's caption and footnote (a Markup's): as wide as its drawing, at least 18em (less
   on a screen narrower than that); they do not widen the figure by themselves (width 0). */
.c04-caption, .c04-footnote { width: 0; min-width: max(100%, min(18em, 100vw - 72px));
  box-sizing: border-box; padding: 0 4px; }
.c04-caption { margin: 0 0 4px; }
.c04-footnote { margin: 4px 0; }
.c04-caption p, .c04-footnote p { margin: 0.4em 0; }
/* A Board's rows and columns of fragments (components/board.py): a row wraps on a narrow
   screen, as Panel's Rows of Markups did in projector mode. */
.c04-row { display: flex; flex-wrap: wrap; align-items: flex-start; }
.c04-col { display: flex; flex-direction: column; }
.c04-slot { margin: 4px 16px 8px 0; max-width: 100%; }
.c04-slot:empty { display: none; }
.c04-box { border: 1px solid #d6dbe3; border-radius: 4px; background: #fff;
  margin: 5px 10px 5px 0; max-width: 100%; box-sizing: border-box; }
.c04-box-title { background: #eef4fb; padding: 6px 10px; font-weight: 600; }
.c04-box-title p { margin: 0; }
.c04-box-body { padding: 4px 10px; }
/* Projector mode: a Board's box is as wide as its widest row of tables, not its fixed width
   (its 28 px numbers overflowed into the next box), and its own rows keep their tables side
   by side. */
@container style(--c04-projector: 1) {
  .c04-box { width: min-content !important; min-width: min(100%, 24em); flex: 0 0 auto; }
  .c04-box .c04-row { flex-wrap: nowrap; }
}
/* A Board's native controls (board.js): the label above, the value beside a range's label;
   on a phone every one a 44 px target. */
.c04-controls { align-items: flex-end; }
.c04-control label { display: block; margin-bottom: 4px; }
.c04-control-checkbox label { display: flex; align-items: center; gap: 6px; cursor: pointer; }
.c04-control-range { width: 240px; }
.c04-control-range.c04-wide { width: 320px; }
.c04-control-range input { width: 100%; margin: 0; accent-color: #174a87; }
.c04-control output { font-weight: 600; }
.c04-control select, .c04-control input[type=text], .c04-control input[type=number] {
  font: inherit; padding: 4px 6px;
  min-height: 32px; border: 1px solid #767f8c; border-radius: 4px; background: #fff;
  max-width: 100%; box-sizing: border-box; }
.c04-control button, .c04-choice button { font: inherit; padding: 6px 14px; cursor: pointer;
  color: #fff; background: #174a87; border: 1px solid #174a87; border-radius: 4px; }
.c04-choice button { color: #174a87; background: #fff; margin: 0 4px 4px 0; }
.c04-choice button[aria-pressed=true] { color: #fff; background: #174a87; }
.c04-control button:disabled { opacity: 0.55; cursor: default; }
.c04-control :focus-visible { outline: 3px solid #174a87; outline-offset: 2px; }
.c04-help { font-size: 85%; color: #555; margin-top: 2px; }
@media (max-width: 700px) {
  .c04-control button, .c04-control select, .c04-control input[type=text],
  .c04-control input[type=number],
  .c04-control-range input, .c04-control-checkbox label { min-height: 44px; min-width: 44px; }
  .c04-control-range, .c04-control-range.c04-wide { width: min(320px, 100%); }
}
/* A demo's «Copiar enlace» on top of its Board (as the CopyLink component's own sheet). */
.c04-copy-link { margin: 4px 0 0 0; }
.c04-copy-link button { font: inherit; font-size: 90%; padding: 4px 10px; cursor: pointer;
  color: #174a87; background: #fff; border: 1px solid #174a87; border-radius: 4px; }
.c04-copy-link button:focus-visible { outline: 3px solid #174a87; outline-offset: 2px; }
.c04-copy-link .c04-link-status { font-size: 90%; color: #2a5a2a; margin-left: 8px; }
.c04-copy-link input { width: min(36em, 90%); font-size: 85%; margin-top: 4px; }
@media (max-width: 700px) {
  .c04-copy-link button, .c04-copy-link input { min-height: 44px; min-width: 44px; }
}
/* A matrix's cells (a Board's "matrix" control). */
.c04-grid { display: grid; gap: 4px 6px; margin: 2px 3px; }
.c04-cell input { box-sizing: border-box; width: 100%; padding: 5px 8px; font: inherit;
  text-align: right; color: inherit; background: var(--panel-background-color, #fff);
  border: 1px solid #b8bec6; border-radius: 4px; }
.c04-cell input:focus { outline: 2px solid #1f5fa8; outline-offset: 1px; }
.c04-grid-title { margin: 0 4px; }
.c04-grid-title p { margin: 0.4em 0; }
.c04-grid-error { margin: 0 4px; }
/* A Board's prose is a section's (folded in projector mode, as a prose pane's). */
.c04-prose-html.c04-prose p:not(:has(math)) { display: var(--c04-prose-p, block); }
/* The number before a toggle or a choice, beside the new one (markup.js, compare). */
.c04-before::before { content: attr(data-before) " → "; opacity: 0.55; font-size: 85%;
  font-weight: 400; }
/* Formulas: MathML the server writes (components/mathml.py), drawn by the browser at the
   text's size in a math font (the generic "math" finds none on Debian's Chromium, whose
   brackets then do not stretch): Windows', macOS', TeX's, Debian's. One alone on its line is
   a block in display style, at the left like the prose and as wide as it is, up to its box:
   wider (a phone), it scrolls inside its own box, not the page. */
math { font-family: "Cambria Math", "STIX Two Math", "Latin Modern Math",
  "DejaVu Math TeX Gyre", math; }
math[display="block"] { width: fit-content; max-width: 100%; overflow-x: auto;
  overflow-y: hidden; padding: 2px 0; }
/* Projector mode (dashboards/static/present.js sets the custom properties): the paragraphs of
   prose panes fold away, their headings and formulas stay. */
:host(.c04-prose) p:not(:has(math)) { display: var(--c04-prose-p, block); }
/* Projector mode (present.js sets --c04-projector and lifts the page's 1400 px): a row of
   fixed-size items wraps instead of running off the screen (stretched items have a flex basis
   of 0 and never wrap). A Board's boxes have their own rule above. */
@container style(--c04-projector: 1) {
  :host(.bk-Row) { flex-wrap: wrap !important; }
}
@media (prefers-reduced-motion: reduce) {
  /* Nothing moves by itself for a student who asked the system for less motion. */
  *, *::before, *::after, :host { animation: none !important; transition: none !important;
    scroll-behavior: auto !important; }
}
@media (max-width: 700px) {
  /* A phone: nothing wider than the screen. Every Panel/Bokeh element gets this sheet in its
     own shadow root, so :host is each one: a row becomes a column (the lecture's navigation
     goes above the section) whose items keep their own height (a row's stretch is a flex basis
     of 0, which a column would read as no height); an element that holds no others (a widget,
     a pane, a plot) is at most as wide as its box less its margins, and what cannot shrink (a
     table, a plot, a long formula) scrolls inside its own box. */
  :host { max-width: 100% !important; min-width: 0 !important; flex: 0 0 auto !important; }
  :host(.bk-Row) { flex-direction: column !important; }
  /* That column (and a card's title row) takes its container's width: shrink-wrapped, its
     width came from its items, whose "100% - 20px" then cut 20 px off them (a table's last
     column, a title wrapped word by word). */
  :host(.bk-Row) { width: auto !important; align-self: stretch !important; }
  :host(.card-header-row) { flex: 1 1 0 !important; }
  /* An HTML pane's text wraps at the pane's width, not at the fixed width of a desktop. */
  :host(.bk-panel-models-markup-HTML) > div { width: auto !important; min-width: 0 !important; }
  :host(:not(.bk-Row):not(.bk-Column):not(.bk-GridBox):not([class*="-layout-"])) {
    max-width: calc(100% - 20px) !important; }
  :host(.bk-panel-models-esm-ReactiveESM), :host(.bk-panel-models-markup-HTML) {
    overflow-x: auto !important; }
  /* A Board's boxes as cards were (and narrower paddings): a fragment wider than the screen
     scrolls inside its own box, as a Markup pane did; the gap only between side-by-side ones. */
  .c04-row { column-gap: 8px; }
  .c04-slot { margin-right: 0; overflow-x: auto; }
  .c04-box { margin-right: 0; }
  .c04-box-body { padding: 4px 6px; }
  /* Every control a finger can hit: 44 px at least (a slider's handle through its touch
     area, a checkbox through its whole line: a11y.js makes its text toggle it too). */
  .bk-btn, input.bk-input, select.bk-input, .c04-cell input { min-height: 44px; }
  .bk-btn-group > .bk-btn { min-width: 44px; }
  .noUi-touch-area { position: absolute !important; width: auto !important; height: auto !important;
    left: -16px !important; right: -16px !important; top: -14px !important;
    bottom: -14px !important; }
  /* A number input's arrows (22 px high): a phone types the number on its own keypad. */
  [class*="bk-spin-btn"] { display: none !important; }
  /* That touch area reaches past a handle at the end of its track (the training's step
     starts at its last stop): the track keeps 12 px inside the slider's box. */
  :host(.bk-Slider) { box-sizing: border-box !important; padding: 0 12px !important; }
  :host(.bk-Checkbox) { min-height: 44px; display: flex !important; align-items: center; }
  :host(.bk-Checkbox) input, :host(.bk-Checkbox) .bk-label { cursor: pointer; }
  /* A Bokeh plot does not get this sheet: its container's copy styles it. */
  .bk-Figure, .bk-GridPlot { max-width: calc(100% - 20px) !important; overflow-x: auto !important; }
}
"""


# The skip link: hidden until focused (the first Tab of the page), then a visible button-like
# link; a11y.js moves the focus to the element marked data-c04-content (fragments cannot reach
# into Panel's shadow roots).
SKIP_CSS = """
.c04-skip { position: absolute; left: -10000px; top: 0; }
.c04-skip:focus { position: static; display: inline-block; padding: 8px 14px; background: #fff;
  color: #174a87; border: 2px solid #174a87; border-radius: 4px; font-weight: 600; }
"""

# A widget's <label> there for a screen reader and hidden from the eye (the usual
# visually-hidden recipe): a matrix cell's "X, fila 1, columna 2", which the grid's rows and
# columns already show; a select whose visible label is drawn outside it.
HIDDEN_LABEL_CSS = """
:host label { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
"""


# The buttons of projector mode's bar and of the walkthrough's stepper (app/present.py,
# components/stepper.py).
BUTTON_CSS = """
:host button { font: inherit; font-size: 90%; padding: 4px 10px; margin: 2px 6px 2px 0;
  cursor: pointer; color: #174a87; background: #fff; border: 1px solid #174a87;
  border-radius: 4px; }
:host button[aria-pressed=true] { color: #fff; background: #174a87; }
:host button:focus-visible { outline: 3px solid #174a87; outline-offset: 2px; }
:host .c04-step-now { display: inline-block; min-width: 9em; font-weight: 600; }
@media (max-width: 700px) { :host button { min-height: 44px; min-width: 44px; } }
"""
