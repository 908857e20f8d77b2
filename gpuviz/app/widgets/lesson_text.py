"""The lesson's text, with every glossary term it uses a link: the mouse over a term shows its
meaning as a tooltip (a click does too, for a projector's pointer or a touch screen). Headings, body,
inline code and links keep one font scale, in normal and presentation mode alike."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, QUrl
from PySide6.QtGui import QColor, QCursor, QFont, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextBrowser, QToolTip, QWidget

from gpuviz.app.window import appearance
from gpuviz.catalog.glossary import LINK, linked_markdown, term_for_link

# Headings as Qt's markdown sizes them (a step of QTextCharFormat's size adjustment: +3 is twice the body,
# +2 one and a half, +1 a fifth more), applied to the whole heading: Qt's reader drops it after a link.
HEADING_STEPS = {1: 3, 2: 2, 3: 1}


def even_out(document: QTextDocument) -> None:
    """One font scale for the whole text: every run of a heading at its heading's size and weight (a glossary
    link in a title included), and inline code at the body's size, following the widget's font as the text
    scale changes (Qt's reader fixes code at the size of the moment it reads the text)."""
    for start, length, level, chars in _runs(document):
        fixed = chars.hasProperty(QTextFormat.Property.FontPixelSize) or chars.fontPointSize() > 0
        if not level and not fixed:
            continue
        chars.clearProperty(QTextFormat.Property.FontPixelSize)
        chars.clearProperty(QTextFormat.Property.FontPointSize)
        if level:
            chars.setProperty(QTextFormat.Property.FontSizeAdjustment, HEADING_STEPS.get(level, 0))
            chars.setFontWeight(QFont.Weight.Bold)
        _set_format(document, start, length, chars)


def _runs(document: QTextDocument) -> list[tuple[int, int, int, QTextCharFormat]]:
    """(start, length, heading level or 0, format) of every run of one format, read before any is changed."""
    runs = []
    block = document.begin()
    while block.isValid():
        level = block.blockFormat().headingLevel()
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            runs.append((fragment.position(), fragment.length(), level, fragment.charFormat()))
            it += 1
        block = block.next()
    return runs


def _set_format(document: QTextDocument, start: int, length: int, chars: QTextCharFormat) -> None:
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
    cursor.setCharFormat(chars)


class FittingText(QTextBrowser):
    """Text at its full height: the lesson panel scrolls as one, so the question, the prediction and
    the verdict read in one column however small the dock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)

    def show_markdown(self, text: str) -> None:
        self.setMarkdown(text)
        even_out(self.document())

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

    def show_markdown(self, text: str, terms: bool = True) -> None:
        """The text, with its terms linked unless `terms` is False (the panel lists the words' meanings below
        what the student does)."""
        super().show_markdown(linked_markdown(text) if terms else text)
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

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """A new theme (the window's style sheet changed): the links take its colour."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.StyleChange:
            self._soften_links()

    def _soften_links(self) -> None:
        """Dotted underlines in the theme's link colour (at AA contrast on the text's field): a paragraph full
        of terms stays readable."""
        colour = QColor(appearance.colours().link)
        for start, length, _level, chars in _runs(self.document()):
            if chars.anchorHref().startswith(LINK) and chars.foreground().color() != colour:
                chars.setForeground(colour)
                chars.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
                _set_format(self.document(), start, length, chars)
