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
        self._lock = threading.Lock()

    def replied(self, answered: bool = True) -> None:
        """The server replied to a call: with a completion (`answered`) or with an error."""
        with self._lock:
            self.in_a_row = 0
            self.answered += answered

    def gave_up(self, error: str) -> None:
        """A call was given up because the server did not answer."""
        with self._lock:
            self.in_a_row += 1
            self.last_error = error

    @property
    def failing(self) -> bool:
        """The last call was given up because the server did not answer."""
        with self._lock:
            return self.in_a_row > 0

    @property
    def down(self) -> bool:
        """`limit` calls in a row were given up because the server did not answer."""
        with self._lock:
            return self.in_a_row >= self.limit
