"""Hypothesis profiles, and the one way a test asks for a number of examples.

Two profiles, chosen by the environment variable ``HYPOTHESIS_PROFILE``:

* ``ci`` (the default, what ``make test`` and CI run): every test its own number of
  examples, as written;
* ``dev`` (``make quick`` sets it): a tenth of them, at least 5, for a quick round while
  working.

In both, nothing depends on the machine's speed: no per-example deadline (Hypothesis's
default of 200 ms fails tests on a busy machine) and the ``too_slow`` health check
(generation timed) is off. A test that wants more or fewer examples than Hypothesis's 100
says so through :func:`examples`, never ``settings(max_examples=...)`` itself, so that the
profile scales it::

    @examples(300)
    @given(...)
    def test_...

    SETTINGS = examples(60, suppress_health_check=[HealthCheck.function_scoped_fixture])
"""

from __future__ import annotations

import os
import sys
from typing import Any


def _leave_unrewritten(package: str) -> None:
    """pytest rewrites the asserts of every module of a distribution that has a pytest
    plugin, so each test process parsed, rewrote and compiled Hypothesis's 70-odd modules
    from source instead of loading their installed bytecode: 1.2-1.6 CPU-s per xdist worker
    (and per pytest a test starts), for asserts inside Hypothesis that no test reads. Its
    name is taken out of the rewriting import hook's marks before the first import of it
    (here); a pytest without that hook or mark (a private detail) changes nothing."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if type(finder).__name__ == "AssertionRewritingHook" and isinstance(marked, set):
            marked.discard(package)
            getattr(finder, "_marked_for_rewrite_cache", {}).clear()


_leave_unrewritten("hypothesis")

from hypothesis import HealthCheck, settings  # noqa: E402

SCALES = {"ci": 1.0, "dev": 0.1}
"""Each profile's share of a test's examples."""

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
if PROFILE not in SCALES:
    raise SystemExit(f"HYPOTHESIS_PROFILE={PROFILE!r}: the profiles are "
                     f"{', '.join(sorted(SCALES))}")

_TIMELESS: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ci", **_TIMELESS)
settings.register_profile("dev", max_examples=max(5, round(100 * SCALES["dev"])), **_TIMELESS)


def load_profile() -> None:
    """Load the chosen profile (tests/conftest.py, before any test module is imported)."""
    settings.load_profile(PROFILE)


def scaled(n: int) -> int:
    """``n`` examples under the chosen profile."""
    scale = SCALES[PROFILE]
    return n if scale >= 1 else max(5, round(n * scale))


def examples(n: int, **kw: Any) -> settings:
    """Settings (also a decorator) for ``n`` examples in CI, scaled by the profile, with
    ``kw`` besides (``suppress_health_check`` adds to ``too_slow``)."""
    checks = [HealthCheck.too_slow, *kw.pop("suppress_health_check", ())]
    return settings(max_examples=scaled(n), deadline=None,
                    suppress_health_check=list(dict.fromkeys(checks)), **kw)
