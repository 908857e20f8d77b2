"""The notebook's replay widget (anywidget): one time cursor over the Qt-free pictures of gpuviz/images."""
