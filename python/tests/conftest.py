import os
import tempfile

import pytest

# Each test session gets its own compile cache: hits and misses are counted.
os.environ.setdefault("TESSEL_CACHE_DIR", tempfile.mkdtemp(prefix="tessel-test-cache-"))


@pytest.fixture
def stats():
    import tessel
    return tessel.stats
