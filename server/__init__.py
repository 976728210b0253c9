"""prscope's language server: thin pygls wiring over `prscope.analysis`."""
