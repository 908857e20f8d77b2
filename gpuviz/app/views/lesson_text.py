"""The lesson's text, with every glossary term it uses a link: the mouse over a term shows its
meaning as a tooltip (a click does too, for a projector's pointer or a touch screen)."""

from __future__ import annotations

import html

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QCursor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

from gpuviz.catalog.glossary import LINK, glossary_markdown, linked_markdown, term_for_link

TERM_COLOUR = QColor(120, 190, 230)  # a term reads as text with a dotted underline, not as a loud link


class LessonText(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)  # a term's link shows its meaning; it never navigates away from the lesson
        self.setMouseTracking(True)
        self.highlighted.connect(self.show_meaning)
        self.anchorClicked.connect(self.show_meaning)

    def show_markdown(self, text: str) -> None:
        """The text with its terms linked, then the list of the words it uses."""
        words = glossary_markdown(text)
        self.setMarkdown(f"{linked_markdown(text)}\n\n{words}" if words else linked_markdown(text))
        self._soften_links()

    def meaning(self, href: str) -> str:
        """The tooltip of a term's link ('' for anything else)."""
        term = term_for_link(href)
        return f"<b>{html.escape(term.term)}</b>: {html.escape(term.meaning)}" if term else ""

    def show_meaning(self, url: QUrl) -> None:
        text = self.meaning(url.toString())
        if text:
            QToolTip.showText(QCursor.pos(), text, self)
        else:
            QToolTip.hideText()

    def _soften_links(self) -> None:
        """Dotted underlines in a calm colour: a paragraph full of terms stays readable."""
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().anchorHref().startswith(LINK):
                    cursor = QTextCursor(self.document())
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
                    soft = QTextCharFormat()
                    soft.setForeground(TERM_COLOUR)
                    soft.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
                    cursor.mergeCharFormat(soft)
                it += 1
            block = block.next()
