"""What the views show: the Scene (one frozen value) and the evented app state. Qt-free."""
