"""The lesson's text, with every glossary term it uses a link: the mouse over a term shows its
meaning as a tooltip (a click does too, for a projector's pointer or a touch screen)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QCursor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

from gpuviz.catalog.glossary import LINK, linked_markdown, term_for_link

TERM_COLOUR = QColor(120, 190, 230)  # a term reads as text with a dotted underline, not as a loud link


class FittingText(QTextBrowser):
    """Text at its full height: the lesson panel scrolls as one, so the question, the prediction and
    the verdict read in one column however small the dock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)

    def _fit(self, size) -> None:
        margins = self.contentsMargins()
        self.setFixedHeight(int(size.height()) + margins.top() + margins.bottom() + 2)


class LessonText(FittingText):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)  # a term's link shows its meaning; it never navigates away from the lesson
        self.setMouseTracking(True)
        self.highlighted.connect(self.show_meaning)
        self.anchorClicked.connect(self.show_meaning)

    def show_markdown(self, text: str) -> None:
        """The text with its terms linked (the panel lists the words' meanings below what the student does)."""
        self.setMarkdown(linked_markdown(text))
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
