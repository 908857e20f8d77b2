"""Widgets the views and the window are built from (editors, panels, boxes); not views of the table."""
