"""The glossary defines the words lessons use; the lesson panel lists the ones its text uses."""

import re

import pytest

from gpuviz.catalog import find
from gpuviz.catalog.glossary import glossary, glossary_markdown, linked_markdown, term_for_link, terms_used
from gpuviz.run.demo import run_demo

NEEDED = ["WAR", "resident", "bank", "coalesce", "warp", "SM", "wave", "occupancy", "lane", "barrier", "race"]


def test_the_glossary_defines_every_term_the_lessons_lean_on():
    terms = {term.term: term for term in glossary()}
    assert set(NEEDED) <= set(terms)
    assert all(term.meaning and len(term.meaning) > 20 for term in terms.values())


def test_a_text_uses_a_term_by_any_of_its_forms_and_acronyms_only_in_capitals():
    used = [term.term for term in terms_used("Two warps were resident on the SMs; the access coalesced.")]
    assert used == ["coalesce", "resident", "SM", "warp"]
    assert [term.term for term in terms_used("war and peace, sm")] == []
    assert glossary_markdown("nothing technical here") == ""
    assert [term.term for term in terms_used("barrier divergence")] == ["barrier divergence"]
    assert [term.term for term in terms_used("barrier divergence, then a barrier")] == ["barrier", "barrier divergence"]


def test_the_race_lesson_finds_its_terms():
    entry = find("the-race")
    used = {term.term for term in terms_used(" ".join(entry.sections.values()))}
    assert {"wave", "race", "SM", "atomic"} <= used


def test_the_lesson_panel_lists_the_words_and_the_fix(qtbot, tmp_path):
    pytest.importorskip("PySide6", reason="the lesson panel needs PySide6")
    from gpuviz.app.views.lesson_view import LessonView
    from gpuviz.scene.state import AppState

    state = AppState()
    view = LessonView(state)
    qtbot.addWidget(view)
    entry = find("missing-syncthreads")
    state.set_entry(entry)
    assert "Words used here" in view.words.toPlainText() and "shared memory:" in view.words.toPlainText()
    view.predict.choice_buttons[2].click()  # "the sums are wrong, and the race list reports races"
    view.predict.commit()
    assert not view.answer_button.isEnabled()  # committed, not run yet
    result = run_demo(entry, tmp_path, backend="sim")
    state.set_trace(result.session.traces[0], result.session.traces, run=state.begin_run())
    assert view.answer_button.isEnabled()
    view.show_answer()
    shown = view.text.toPlainText()
    assert "Fix it" in shown and "Check my fix" in shown and "warp:" in view.words.toPlainText()


# Words of the craft the lessons use beyond the tutorials' kernel, thread, block and grid: each needs an entry.
CRAFT = ["WAR", "RAW", "WAW", "resident", "wave", "waves", "warp", "lane", "bank", "coalesced", "uncoalesced", "sector",
         "occupancy", "barrier", "atomic", "SM", "SMs", "shuffles", "latency", "registers", "tile", "tiled", "padding",
         "divergence", "contention", "privatising", "reduction", "prefix sum", "scan", "lockstep", "in step", "mask",
         "row-major", "global", "shared memory", "host", "device", "asynchronous", "grid-stride", "bounds check",
         "cycles", "cost model", "load imbalance", "Volta", "request", "transactions", "lost update",
         "race", "stream", "pinned", "pageable", "event", "bandwidth", "copy engine", "JIT compile",
         "overhead"]  # fmt: skip


def _forms() -> set[str]:
    return {form.lower() for term in glossary() for form in term.forms}


def test_every_word_of_the_craft_a_lesson_uses_has_an_entry():
    from gpuviz.catalog import lessons
    from gpuviz.catalog.glossary import _take

    texts = {entry.name: " ".join(entry.sections.values()) + entry.title + entry.description for entry in lessons()}
    used = {word for word in CRAFT for text in texts.values() if _take(text, word)[1]}
    assert len(used) > 30  # the lessons do use them
    missing = sorted(word for word in used if not any(_take(word, form)[1] for form in _forms()))
    assert not missing, f"used by a lesson, not in the glossary: {missing}"


def test_every_term_a_lesson_links_resolves_to_its_entry():
    from gpuviz.catalog import lessons

    linked = 0
    for entry in lessons():
        text = linked_markdown("\n\n".join(entry.sections.values()))
        links = re.findall(r"\[([^\]]+)\]\((gloss:\d+)\)", text)
        linked += len(links)
        for word, href in links:
            term = term_for_link(href)
            assert term is not None and word.lower() in {f.lower() for f in term.forms}, (entry.name, word, href)
    assert linked > 200


def test_links_leave_code_and_other_words_alone():
    text = linked_markdown("A warp of `warp_sum(v)` and ```\nbarrier\n``` is not a war; shared memory, shared-memory.")
    assert text.count("(gloss:") == 3 and "`warp_sum(v)`" in text and "```\nbarrier\n```" in text
    assert "war;" in text and term_for_link("gloss:999") is None and term_for_link("https://x") is None


def test_hovering_a_term_shows_its_meaning(qtbot):
    pytest.importorskip("PySide6", reason="the lesson panel needs PySide6")
    from PySide6.QtCore import QPoint, QUrl
    from PySide6.QtWidgets import QToolTip

    from gpuviz.app.views.lesson_view import LessonView
    from gpuviz.scene.state import AppState

    state = AppState()
    view = LessonView(state)
    qtbot.addWidget(view)
    view.resize(500, 700)
    view.show()
    state.set_entry(find("missing-syncthreads"))
    browser = view.text
    anchors = _anchors(browser)
    assert anchors, "no term is a link in the lesson's text"
    href, position = next((h, p) for h, p in anchors if term_for_link(h).term == "race")
    rect = browser.cursorRect(_cursor_at(browser, position + 1))
    point = rect.center()
    assert browser.anchorAt(point) == href  # the word on screen is the link
    meaning = term_for_link(href).meaning
    QToolTip.hideText()  # a tooltip of an earlier test may still be up
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=60_000)
    _move_mouse(browser, QPoint(1, 1))  # from off the term...
    _move_mouse(browser, point)  # ...onto it: Qt says `highlighted` with the link under the mouse
    qtbot.waitUntil(QToolTip.isVisible, timeout=60_000)
    assert meaning[:40] in QToolTip.text() and "<b>race</b>" in QToolTip.text()
    browser.anchorClicked.emit(QUrl(href))  # a click shows it too (and never navigates away)
    assert meaning[:40] in QToolTip.text() and "Predict" in browser.toPlainText()


def _move_mouse(browser, point):
    """The mouse moving over the text, sent to it (other tests' windows may lie over it offscreen)."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    viewport = browser.viewport()
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(point), QPointF(viewport.mapToGlobal(point)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(viewport, event)


def _anchors(browser):
    found = []
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            href = it.fragment().charFormat().anchorHref()
            if href.startswith("gloss:"):
                found.append((href, it.fragment().position()))
            it += 1
        block = block.next()
    return found


def _cursor_at(browser, position):
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(browser.document())
    cursor.setPosition(position)
    return cursor
