"""Found by ibmmq's fallback ``import ibmmqc`` in the tests' child processes: the stand-in
(tests/backends/mqi/fake_ibmmqc.py), configured from MQCONSOLE_STANDIN_QMGRS."""

import sys

import standin

standin.configure_from_env()
sys.modules[__name__] = standin.IBMMQC
