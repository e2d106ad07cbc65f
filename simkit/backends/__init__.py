"""Where chunks run: in this process (local) or on a Dask cluster."""
