"""The JVMs the suite starts (Spark's driver, a standalone master and worker, their executors,
a Connect server) compile less: every one of them lives for seconds to minutes, where
HotSpot's optimising compiler (C2) costs more CPU than it saves (issue 26 item 1).

``JAVA_TOOL_OPTIONS`` is read by every JVM that starts below the test process, whoever
starts it (pyspark's launcher, ``spark-class``, a worker starting an executor). Measured on
this project's 2-core machine: a ``local[2]`` session with two small jobs, 47-52 CPU-s of JVM
time as shipped, 25-26 with the compiler and collector options; without verification, a
session's whole tree with a few jobs 32-36 -> 29 CPU-s (docs/benchmarks.md). The product sets
none of this: a real audit runs long enough for C2 to pay. A developer's own ``JAVA_TOOL_OPTIONS``
is kept as it is.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

QUICK_JVM = ("-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC "
             "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote")
"""C1 only, one compiler thread, the serial collector (no GC threads to start), and the
class path's classes (Spark's jars; the JDK's boot classes are never verified) loaded without
bytecode verification: each Spark JVM loads 7,000-21,000 classes, and verifying them is a
large part of its start. (``-Xverify:none`` does the same with a deprecation warning in
every JVM's output; this diagnostic switch is silent.) Nothing the tests prove depends on
verification: the product's own JVMs verify as Java does by default."""


def quick_start(environ: MutableMapping[str, str] | None = None) -> None:
    """Give the JVMs the tests start :data:`QUICK_JVM`, unless the environment says otherwise."""
    env = os.environ if environ is None else environ
    env.setdefault("JAVA_TOOL_OPTIONS", QUICK_JVM)
