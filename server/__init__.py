"""prscope's language server: thin pygls wiring over `analysis`."""
