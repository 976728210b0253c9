"""prscope's engine: change sets, code intelligence, model clients, the agent loop, checks and reports."""

__version__ = "0.1.0"
