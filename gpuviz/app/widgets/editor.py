"""The source editor: Python highlighting, line numbers, auto-indent, and the offending line marked on errors."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextDocumentLayout, QPlainTextEdit, QTextEdit, QWidget

from gpuviz.core.theme_colours import BADGES, EDITOR

KEYWORDS = (
    "and as assert break class continue def del elif else except False for from global if import in is "
    "lambda None nonlocal not or pass raise return True try while with yield"
).split()


def _format(color: str, bold: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    return fmt


RULES = [
    (re.compile(r"\b(" + "|".join(KEYWORDS) + r")\b"), _format(EDITOR["keyword"], bold=True)),
    (re.compile(r"\bcuda\.[A-Za-z_.]+"), _format(EDITOR["cuda"])),
    (re.compile(r"@[\w.]+"), _format(EDITOR["decorator"])),
    (re.compile(r"\b\d+(\.\d*)?\b"), _format(EDITOR["number"])),
    (re.compile(r"(\"[^\"]*\"|'[^']*')"), _format(EDITOR["string"])),
    (re.compile(r"#.*$"), _format(EDITOR["comment"])),
]


def next_indent(line: str) -> str:
    """The indent of the line after `line` (what is left of the cursor): the same, deeper after a colon."""
    indent = line[: len(line) - len(line.lstrip())]
    code = line.split("#", 1)[0].rstrip()  # a '#' inside a string is rare in a kernel; a comment is not
    return indent + INDENT if code.endswith(":") else indent


INDENT = "    "


class PythonHighlighter(QSyntaxHighlighter):
    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        for pattern, fmt in RULES:
            for match in pattern.finditer(text):
                self.setFormat(match.start(), match.end() - match.start(), fmt)


class _LineNumbers(QWidget):
    def __init__(self, editor: SourceEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event) -> None:  # noqa: N802
        self.editor.paint_line_numbers(event)


class SourceEditor(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        font = QFont("DejaVu Sans Mono")
        font.setStyleHint(QFont.StyleHint.Monospace)
        font.setPointSize(11)
        self.setFont(font)
        # a narrow Source panel wraps long lines instead of hiding their ends
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setStyleSheet(f"QPlainTextEdit {{ background: {EDITOR['background']}; color: {EDITOR['text']}; }}")
        self.highlighter = PythonHighlighter(self.document())
        self.gutter = _LineNumbers(self)
        self.error_line = 0
        self.error_counts: dict[int, int] = {}  # line -> the launch's errors on it (a red count in the gutter)
        self._line_selection: list[QTextEdit.ExtraSelection] = []
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._update_gutter)
        self._update_margin()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Enter keeps the line's indent, one level more after a colon (`if i < n:`)."""
        plain = event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)
        if event.key() not in (Qt.Key.Key_Return, Qt.Key.Key_Enter) or not plain:
            super().keyPressEvent(event)
            return
        cursor = self.textCursor()
        self.textCursor().insertText("\n" + next_indent(cursor.block().text()[: cursor.positionInBlock()]))
        self.ensureCursorVisible()

    def new_document(self, text: str) -> QTextDocument:
        """A document of its own (its own undo history), highlighted, shown in this editor."""
        document = QTextDocument(self)
        document.setDocumentLayout(QPlainTextDocumentLayout(document))
        document.setDefaultFont(self.document().defaultFont())
        document.setPlainText(text)
        document.setModified(False)
        document.highlighter = PythonHighlighter(document)
        self.use_document(document)
        return document

    def use_document(self, document: QTextDocument) -> None:
        self.setDocument(document)
        self._update_margin()
        self.mark_errors({})
        self.mark_line(0)

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        counts = max((len(f"{n:,}") for n in self.error_counts.values()), default=-1) + 2  # "24 " before the number
        return 12 + self.fontMetrics().horizontalAdvance("9") * (max(3, digits) + counts)

    def _update_margin(self, *_) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect, dy) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_gutter()

    def _place_gutter(self) -> None:
        area = self.contentsRect()
        self.gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    def paint_line_numbers(self, event) -> None:
        painter = QPainter(self.gutter)
        painter.fillRect(event.rect(), QColor(EDITOR["gutter"]))
        block = self.firstVisibleBlock()
        number = block.blockNumber() + 1
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            marked = number == self.error_line or number in self.error_counts
            painter.setPen(QColor(EDITOR["marked line number"] if marked else EDITOR["line number"]))
            painter.drawText(0, top, self.gutter.width() - 6, height, Qt.AlignmentFlag.AlignRight, str(number))
            if number in self.error_counts:  # the count of errors, in a red badge at the gutter's left
                badge = QRect(2, top + 1, self.gutter.width() - 8 - self._digits_width(), height - 2)
                painter.fillRect(badge, QColor(BADGES["bad"].background))
                painter.setPen(QColor(BADGES["bad"].text))
                painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, f"{self.error_counts[number]:,}")
            block, number, top = block.next(), number + 1, top + height

    def _digits_width(self) -> int:
        return self.fontMetrics().horizontalAdvance("9") * max(3, len(str(max(1, self.blockCount()))))

    def mark_line(self, line: int) -> None:
        """Highlight a line (an error's) and scroll to it; 0 clears."""
        self.error_line = line
        self._line_selection = []
        if line > 0:
            block = self.document().findBlockByNumber(line - 1)
            self._line_selection.append(_line_selection(block))
            self.setTextCursor(QTextCursor(block))
            self.centerCursor()
        self._show_selections()

    def mark_errors(self, counts: dict[int, int]) -> None:
        """The launch's errors by line: each line tinted, with its count in the gutter; {} clears."""
        self.error_counts = {line: n for line, n in counts.items() if 0 < line <= self.blockCount()}
        self._update_margin()
        self._place_gutter()
        self._show_selections()

    def _show_selections(self) -> None:
        errors = [_line_selection(self.document().findBlockByNumber(line - 1)) for line in self.error_counts]
        self.setExtraSelections(errors + self._line_selection)
        self.gutter.update()


def _line_selection(block) -> QTextEdit.ExtraSelection:
    selection = QTextEdit.ExtraSelection()
    selection.format.setBackground(QColor(EDITOR["error line"]))
    selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
    selection.cursor = QTextCursor(block)
    return selection
