"""prscope: pull-request review for Python codebases.

The distribution installs one import package, `prscope`, holding the repository's top-level folders as
its subpackages (`prscope.analysis`, `prscope.server`, `prscope.prompts`; pyproject.toml maps them), so
no top-level name of ours can collide with another installed package.
"""

__version__ = "0.1.0"
