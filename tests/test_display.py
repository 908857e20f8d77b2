"""`code` shows as code: in a code font in rich text, without its backticks in plain text (core/display.py)."""

from gpuviz.core.display import code_as_html, code_as_plain


def test_code_in_backticks_is_code_in_rich_text_and_plain_words_in_plain_text():
    text = "Set repeat (or `gpuviz run --repeat N`) & see <why>"
    assert code_as_html(text) == "Set repeat (or <code>gpuviz run --repeat N</code>) &amp; see &lt;why&gt;"
    assert code_as_plain(text) == "Set repeat (or gpuviz run --repeat N) & see <why>"
    assert "`" not in code_as_html("`a[0]` and `b`") and code_as_plain("no code") == "no code"
