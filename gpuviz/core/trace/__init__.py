"""The trace: columns (what it holds), model (the Trace), writer and reader (the file), codec and schema."""
