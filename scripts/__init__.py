"""Repository scripts; ``scripts.stackrun`` is the process harness ``make stack``, the tests and bench share."""
