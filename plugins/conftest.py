"""The example plugins' tests register their module per test, as a site's would."""

import pytest

from mqconsole.plugins import testing

register_plugins = pytest.fixture(testing.register_plugins)
