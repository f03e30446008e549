"""pyspark's daemon for the Python workers of mqconsole's own Spark sessions, importing pyspark
from its installed files (``spark.python.daemon.module``, set by ``session.spark_conf_pairs``).

Spark starts the daemon (``python -m pyspark.daemon``, which forks the workers) with its own
``pyspark.zip`` first on ``PYTHONPATH``. With pip's pyspark, that zip holds the very files of
the ``pyspark`` package installed beside it, but Python compiles a zip's modules on every
import (it keeps no bytecode for them): the daemon's import of pyspark cost about 1.1 CPU-s
against 0.3 from the installed package, and each forked worker compiled ``pyspark.worker``
and re-read the zip's directory for every package in it (``importlib.invalidate_caches``,
about 0.35 CPU-s more; docs/benchmarks.md). Here those zips go to the end of ``sys.path``
(before pyspark is imported, and so for every worker forked from here): what the installed
package holds is imported from it, anything else still from the zips. A zip of another
Spark (a ``SPARK_HOME`` of a site's own, whose pyspark may differ from the installed one)
stays where Spark put it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import PathFinder


def installed_zips(path: Sequence[str]) -> list[str]:
    """The entries of ``path`` that are the zips of the pyspark package another entry holds
    (``<pyspark>/python/lib/*.zip``: pip's layout, where ``SPARK_HOME`` is the package)."""
    zips = [p for p in path if p.endswith(".zip")]
    if not zips:
        return []
    spec = PathFinder.find_spec("pyspark", [p for p in path if p not in zips])
    if spec is None or not spec.origin:
        return []
    lib = os.path.realpath(os.path.join(os.path.dirname(spec.origin), "python", "lib"))
    return [p for p in zips if os.path.realpath(os.path.dirname(p)) == lib]


def main() -> None:
    same = installed_zips(sys.path)
    sys.path[:] = [p for p in sys.path if p not in same] + same
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
