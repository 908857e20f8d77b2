"""The window's chrome: the main window, docks, menus, themes, settings and preferences."""
