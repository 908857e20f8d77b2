"""The app says which system packages to install when Qt's xcb platform would not load."""

from gpuviz.app.window.system_libraries import APT, missing_xcb_line


def test_missing_libxcb_cursor_names_the_packages():
    line = missing_xcb_line({"DISPLAY": ":0"}, "linux", lambda name: None)
    assert line is not None and "libxcb-cursor" in line and APT in line and "\n" not in line


def test_no_line_when_the_library_is_there_or_qt_is_told_otherwise():
    assert missing_xcb_line({"DISPLAY": ":0"}, "linux", lambda name: "libxcb-cursor.so.0") is None
    assert missing_xcb_line({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland"}, "linux", lambda name: None) is None
    assert missing_xcb_line({}, "linux", lambda name: None) is None  # no X display: another message says so
    assert missing_xcb_line({"DISPLAY": ":0"}, "darwin", lambda name: None) is None
