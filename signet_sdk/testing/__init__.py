"""Testing aids: the mock/dev daemon, the parity suite and the contract files' drift checks."""
