"""``--log FILE``: the file the command records (docs/show-day.md) are appended to.

Only a regular file of the user's own is a log: the path is opened without following a
symbolic link and without blocking (a named pipe planted at the path would otherwise hold
``open()`` until a reader comes, then hand it every record), and what was opened is checked
(``fstat``) before anything is sent: a regular file, owned by this user, with no other name.

A record is written whole or not at all: a write the disk cuts short (full, quota) is taken
back, and a record never starts on a line another one left unfinished (a crash), so each line
of the file stays one JSON object. A record that cannot be written never changes what the
command did, what it prints or its exit code: the loss is reported once, on stderr, when the
command ends.
"""

from __future__ import annotations

import logging
import os
import stat

from showctl.cli.errors import UsageError
from showctl.cli.output import safe

#: What a file that is not a regular one is, in words.
_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_log(path: str) -> int:
    """``path`` opened for appending (created with mode 0600, less the umask), checked to be a
    regular file of this user's own; its descriptor. A refusal is a `UsageError`."""
    flags = (
        os.O_RDWR  # read: to see whether the file ends a line
        | os.O_APPEND
        | os.O_CREAT
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as e:
        if os.path.islink(path):
            raise UsageError(f"--log: {path} is a symbolic link; give the file itself") from None
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise UsageError(f"--log: {path} is {_kind(mode)}, not a file; give a file") from None
        raise UsageError(f"--log: cannot open {path}: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"--log: {path} is {_kind(st.st_mode)}, not a file; give a file")
        euid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
        if st.st_uid != euid:
            raise UsageError(
                f"--log: {path} belongs to another user (uid {st.st_uid}); give a file of your "
                "own (records are appended only to a log this user owns)"
            )
        if st.st_nlink > 1:
            raise UsageError(
                f"--log: {path} has {st.st_nlink} names (hard links); give a file of its own"
            )
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class CommandLog(logging.Handler):
    """A handler appending each record's message as one line to a log file (its descriptor
    from `open_log`), whole or not at all, and counting what it could not write."""

    def __init__(self, path: str, fd: int) -> None:
        super().__init__()
        self.path: str = path
        self._fd = fd
        #: Records that could not be written, and why the first one could not.
        self.lost: int = 0
        self.why: str = ""
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = (self.format(record) + "\n").encode("utf-8", "backslashreplace")
            self._append(line)
        except Exception as e:
            self.lost += 1
            self.why = self.why or (
                e.strerror if isinstance(e, OSError) and e.strerror else repr(e)
            )

    def _append(self, line: bytes) -> None:
        size = os.fstat(self._fd).st_size
        if size and hasattr(os, "pread") and os.pread(self._fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # a line left unfinished: this record starts its own
        written = 0
        try:
            while written < len(line):
                written += os.write(self._fd, line[written:])
        except OSError:
            # Take back a record cut short, unless another writer appended since.
            if written and os.fstat(self._fd).st_size == size + written:
                os.ftruncate(self._fd, size)
            raise

    def close(self) -> None:
        try:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
        finally:
            super().close()

    def report(self) -> str | None:
        """The warning to give when records were lost (``None`` when none was)."""
        if not self.lost:
            return None
        records = "1 record" if self.lost == 1 else f"{self.lost} records"
        return (
            f"--log: {records} of this command could not be written to "
            f"{safe(self.path)} ({safe(self.why)}); the command itself is unaffected (its "
            "result and exit code are as if the record had been written)"
        )
