"""One error type for everything a user can get wrong, and a `main` wrapper that reports it.

Library functions raise `KoshogiError` with a message that names the file or value concerned;
the command-line entry points print it as one line (`error: ...`) and exit with status 1, never
with a traceback. Bugs (anything else) still show their traceback.
"""

from __future__ import annotations

import sys
from typing import Callable


class KoshogiError(Exception):
    """A user error: a missing or damaged file, a card that does not match its weights, a bad
    argument. The message is meant to be shown as is."""


def run_main(main: Callable[[], None], prog: str) -> None:
    """Runs `main()`; a `KoshogiError` (or a failure to open a file) becomes one line on stderr
    and exit status 1."""
    try:
        main()
    except KoshogiError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        sys.exit(1)
    except OSError as error:  # a file named on the command line that cannot be read or written
        where = f"{error.filename}: " if getattr(error, "filename", None) else ""
        print(f"{prog}: error: {where}{error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        sys.exit(130)
