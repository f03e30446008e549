"""The Spark tests' fixtures are the whole suite's (tests/conftest.py): ``spark``, one
SparkSession per test process (per xdist worker, on whichever worker runs Spark: the tests
are in the ``spark`` tier, tests/support/tiers.py, which ``make quick`` leaves out), shared
with the console's and the CLI's audit tests; ``spark_cluster`` and ``spark_connect``, one
standalone cluster and one Spark Connect server on it per test process."""
