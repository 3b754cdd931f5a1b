"""EndpointHealth: whether a model's server is answering, judged from the calls made to it."""

import threading


class EndpointHealth:
    """Counts calls given up because the server did not answer, in a row; `down` once `limit` of them came in a row.

    A call that got any reply from the server (an answer or an error) starts the count again.
    """

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit
        self.in_a_row = 0
        """Calls given up in a row because the server did not answer."""
        self.answered = 0
        """Calls the server answered with a completion."""
        self.last_error = ""
        self._suspect = False
        self._lock = threading.Lock()

    def replied(self, answered: bool = True) -> None:
        """The server replied to a call: with a completion (`answered`) or with an error."""
        with self._lock:
            self.in_a_row = 0
            self.answered += answered
            self._suspect = False

    def suspect(self, error: str) -> None:
        """The server did not answer a question about itself (its model list): check it answers before a call."""
        with self._lock:
            self._suspect = True
            self.last_error = error

    def gave_up(self, error: str | None) -> None:
        """A call was given up because the server did not answer (`error`: how it failed; None: as before)."""
        with self._lock:
            self.in_a_row += 1
            if error is not None:
                self.last_error = error

    @property
    def failing(self) -> bool:
        """The last call was given up because the server did not answer (or it did not answer about itself)."""
        with self._lock:
            return self.in_a_row > 0 or self._suspect

    @property
    def down(self) -> bool:
        """`limit` calls in a row were given up because the server did not answer."""
        with self._lock:
            return self.in_a_row >= self.limit
