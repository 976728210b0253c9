"""User-facing errors: each carries one clear line for the terminal, never a traceback."""


class PrscopeError(Exception):
    """An error the user can act on; `str(err)` is the one line shown to them."""

    exit_code = 2


class RepositoryError(PrscopeError):
    """The repository cannot be reviewed as asked (not a repo, unknown ref, shallow clone...)."""


class ConfigError(PrscopeError):
    """The configuration or the command line is invalid."""


class ModelUnavailableError(PrscopeError):
    """A model review was required or configured but could not run or finish."""

    exit_code = 3
