"""Stubs of what Debian's python3 lacks (torch, ray, pydantic v2, hydra, ...) for the adapter tests.

The frameworks themselves are never imitated here: each adapter test imports the framework's real source,
vendored verbatim at a cited commit under ``tests/vendor/<framework>/`` (checked by
``tests/vendor/check_vendor.py``), and stubs only the heavy third-party modules that source imports, inside
the test and only for its duration. ``verl.py`` holds verl's stubs; the other adapter tests keep theirs in
the test file.
"""
