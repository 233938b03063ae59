"""fem's errors as Python exceptions.

Each carries the message the ``fem`` program prints (bad input as ``file:line:col: error: ...``
with a hint) and, as ``exit_code``, the exit code ``fem run`` ends with for it (README: 0 done,
2 bad input, 3 the solve failed, 5 interrupted, 1 internal error).
"""

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_SOLVE_FAILED = 3
EXIT_INTERRUPTED = 5


class Error(Exception):
    """Any error fem reports (bad input unless a subclass says otherwise)."""

    exit_code = EXIT_BAD_INPUT


class InputError(Error):
    """A bad case, mesh file, parameter or override.

    ``file``, ``line`` and ``column`` say where (line and column 0 where unknown), ``message``
    is the text without the place and the hint.
    """

    file = ""
    line = 0
    column = 0
    message = ""


class PluginError(Error):
    """A plugin that cannot be used (missing, wrong ABI, a backend not built here)."""


class CheckpointError(Error):
    """A checkpoint that cannot be read or continued."""


class SolveError(Error):
    """The solve failed: an inverted element, NaN, no convergence (the message says where)."""

    exit_code = EXIT_SOLVE_FAILED


class Interrupted(Error, KeyboardInterrupt):
    """The run stopped on Ctrl-C (or an exception in the progress callback, raised from this
    one) at the end of a step, as ``fem run`` stops on SIGINT."""

    exit_code = EXIT_INTERRUPTED
