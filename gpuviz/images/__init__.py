"""Pictures without Qt: the grid, the data, the SM timeline and an element's story drawn as NumPy arrays (and
PNG) from the app state's Scene, colour codes and layout, for notebooks and headless servers. The app
draws the same codes with pyqtgraph."""
