"""glia.futures: torch.futures.Future for glia's asynchronous work (collectives, DDP communication hooks).

glia's collectives run on the process group's worker thread; a Future made by ``Work.get_future()``
completes when its collective does. ``then`` chains a callback as torch's does (here it runs when the
result is first asked for, on the asking thread, or at once when the future is already complete).
"""

import threading

__all__ = ["Future", "collect_all", "wait_all"]

_UNSET = object()


class Future:
    """torch.futures.Future: a value (or an error) that becomes available later."""

    def __init__(self, *, devices=None):
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._value = _UNSET
        self._error = None
        self._waiter = None  # a callable that completes the future (e.g. waits for a collective)
        self._callbacks = []

    def __class_getitem__(cls, item):  # Future[Tensor] in annotations
        return cls

    @classmethod
    def _from_waiter(cls, waiter):
        f = cls()
        f._waiter = waiter
        return f

    def _run_waiter(self):
        with self._lock:
            waiter, self._waiter = self._waiter, None
        if waiter is None:
            return
        try:
            value = waiter()
        except BaseException as e:  # noqa: B902 - carried to whoever waits
            self.set_exception(e)
        else:
            self.set_result(value)

    def done(self):
        if self._waiter is not None and getattr(self._waiter, "is_completed", lambda: False)():
            self._run_waiter()
        return self._done.is_set()

    def wait(self):
        """Blocks until the value is there and returns it; raises the future's error."""
        self._run_waiter()
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        """The value of a completed future (raises its error); torch requires done()."""
        if not self._done.is_set():
            self._run_waiter()
        if self._error is not None:
            raise self._error
        return self._value

    def set_result(self, result):
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Future can only be marked completed once.")
            self._value = result
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_exception(self, result):
        if not isinstance(result, BaseException):
            raise TypeError("{} is of type {}, not an Exception.".format(result, type(result)))
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Future can only be marked completed once.")
            self._error = result
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def add_done_callback(self, callback):
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new future whose value is callback(self), run once this one completes."""
        parent = self

        def waiter():
            try:
                parent.wait()
            except BaseException:  # noqa: B902 - the callback sees it through parent.value()
                pass
            return callback(parent)

        return Future._from_waiter(waiter)


def collect_all(futures):
    """A future completed when all of `futures` are, whose value is that list."""
    futures = list(futures)

    def waiter():
        for f in futures:
            try:
                f.wait()
            except BaseException:  # noqa: B902 - each keeps its own error
                pass
        return futures

    return Future._from_waiter(waiter)


def wait_all(futures):
    return [f.wait() for f in futures]
