"""What prscope remembers per repository: run history with agent threads and findings, and dismissals."""

from prscope.analysis.store.db import Store, StoreUnavailable, open_store, store_path

__all__ = ["Store", "StoreUnavailable", "open_store", "store_path"]
