"""The glossary defines the words lessons use; the lesson panel lists the ones its text uses."""

import pytest

from gpuviz.catalog import find
from gpuviz.catalog.glossary import glossary, glossary_markdown, terms_used
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
    from gpuviz.app.state import AppState
    from gpuviz.app.views.lesson_view import LessonView

    state = AppState()
    view = LessonView(state)
    qtbot.addWidget(view)
    entry = find("missing-syncthreads")
    state.set_entry(entry)
    assert "Words used here" in view.words.toPlainText() and "barrier:" in view.words.toPlainText()
    result = run_demo(entry, tmp_path, backend="sim")
    state.set_trace(result.session.traces[0], result.session.traces)
    assert not view.answer_button.isEnabled()
    view.predict.choice_buttons[2].click()  # "the sums are wrong, and the race list reports races"
    view.predict.commit()
    assert view.answer_button.isEnabled()
    view.show_answer()
    shown = view.text.toPlainText()
    assert "Fix it" in shown and "Check my fix" in shown and "warp:" in view.words.toPlainText()
