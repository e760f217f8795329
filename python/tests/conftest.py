import importlib
import os
import tempfile

import pytest

# Each test session gets its own compile cache: hits and misses are counted.
os.environ.setdefault("TESSEL_CACHE_DIR", tempfile.mkdtemp(prefix="tessel-test-cache-"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# TensorFlow and Triton (imported by torch._dynamo) each carry an LLVM;
# importing TensorFlow first makes Triton abort on duplicate LLVM options,
# the other order works: torch._dynamo first, before any test module.
try:
    importlib.import_module("torch._dynamo")
except ImportError:
    pass


@pytest.fixture
def stats():
    import tessel
    return tessel.stats
