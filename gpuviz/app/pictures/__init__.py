"""Pictures of views without a window: slides, exports, clips and `gpuviz render`."""
