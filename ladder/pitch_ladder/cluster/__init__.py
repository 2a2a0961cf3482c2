"""Ladders and matches on a Dask cluster: deal pairs as tasks, bots fetched by hash.

``owner`` is the side that holds the match folders and the database; ``tasks`` is what
runs on the workers; ``bots`` carries bot versions from the one to the other. Nothing
outside this package imports Dask, and only ``--cluster`` imports this package.
"""

from .owner import ClusterError, ClusterExecutor, ClusterWorkers, connect, worker_count

__all__ = ["ClusterError", "ClusterExecutor", "ClusterWorkers", "connect", "worker_count"]
