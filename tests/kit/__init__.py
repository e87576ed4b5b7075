"""What several test files share: fixtures' values and helpers, one module per kind of thing. A test
file imports from here, never from another test file (tests/test_layers.py)."""
