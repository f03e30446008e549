"""A Hadoop URI that is not the client's path: ``viewfs://NAME/audit`` mounted on a local
folder in a Spark session's Hadoop (it stands for ``hdfs://`` in the tests)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any


def mount(spark: Any, root: Path) -> str:
    """``viewfs://NAME/audit`` mounted on ``root`` in ``spark``'s Hadoop, NAME a mount table
    of the caller's own (Hadoop caches a file system by scheme and authority: a second
    test's mount of the same name would reach the first test's folder)."""
    name = f"mq{uuid.uuid4().hex[:12]}"
    spark.sparkContext._jsc.hadoopConfiguration().set(
        f"fs.viewfs.mounttable.{name}.link./audit", f"file://{root}")
    return f"viewfs://{name}/audit"
