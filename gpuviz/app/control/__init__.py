"""The app's controllers: running scripts in a worker, loading traces, the course and fix checks."""
