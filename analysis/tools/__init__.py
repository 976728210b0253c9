"""Code-intelligence tools the model and the deterministic checks see the repository through."""
