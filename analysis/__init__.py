"""prscope's engine: change sets, code intelligence, model clients, the agent loop, checks and reports."""

from prscope import __version__

__all__ = ["__version__"]
