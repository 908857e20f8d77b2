"""The views: each one file, each subscribing to the app state; `table.py` lists them."""
