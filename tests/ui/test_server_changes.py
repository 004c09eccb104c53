"""dashboards/static/server_changes.js in the served page: a change from the server whose view
handler throws (a widget not drawn yet) does not lose the changes sent after it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ui

# Two of the page's models; the first one's handler throws on a change, as bokeh 3.9.2's slider
# view does when its value changes before it is drawn. Both changes come in one message.
ONE_MESSAGE = """() => {
  const doc = Bokeh.documents[0]
  const [a, b] = [...doc._all_models.values()].filter((m) => "tags" in m.properties)
  a.property("tags").change.connect(() => { throw new TypeError("not drawn yet") })
  const change = (m, value) => ({kind: "ModelChanged", model: {id: m.id}, attr: "tags", new: value})
  let thrown = null
  try {
    doc.apply_json_patch({events: [change(a, ["first"]), change(b, ["second"])]})
  } catch (error) {
    thrown = String(error)
  }
  return {a: a.tags, b: b.tags, thrown}
}"""


def test_a_change_that_throws_does_not_lose_the_next(open_lecture_section, page, watch):
    open_lecture_section("capital")
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    result = page.evaluate(ONE_MESSAGE)
    assert result == {"a": ["first"], "b": ["second"], "thrown": None}
    assert any("could not be drawn yet" in w for w in warnings), warnings
