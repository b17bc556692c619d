"""The operating system and programs: ``OSError`` by errno, local files and sockets, a program's exit status and
output, Windows NTSTATUS codes.
"""

from __future__ import annotations

import errno
import re
import socket
from typing import Final

from errscope._classify._builders import _NETWORK_ERRNOS, _UNAVAILABLE, _UNAVAILABLE_NOT_SENT
from errscope._classify._core import Classification, Rule, Upstream
from errscope._classify._facts import _attribute, _raised_connecting, http_address, raised_in
from errscope._classify._http_errors import _proxy_refusal
from errscope._foreign_text import (
    classify_text,
    failure_lines,
    is_crash_report,
    never_reached,
    retry_after_from_text,
    says_maybe_acted,
)
from errscope._http import side_effect_for_http_status
from errscope._scrubbing import without_stack_traces
from errscope._vocabulary import FailureClass


def _file_or_program(failure_class: FailureClass) -> Rule:
    # The same errno means "no such file" to a tool reading one, and "the program is not there" when
    # it starts a process (an stdio MCP server, a CLI), or "the socket is not there" when it connects to a
    # Unix socket (connect(2): the service does not run): then a service it needs cannot be reached.
    # One with an errno is the refusal of the call itself (open(2), unlink(2), an SFTP status paramiko maps to
    # ENOENT/EACCES): nothing was done. One an author raised with a text only does not say.
    program = Classification(FailureClass.UPSTREAM_UNAVAILABLE, side_effect_possible=False)
    refused = Classification(failure_class, side_effect_possible=False)
    file = Classification(failure_class)
    missing_socket = failure_class is FailureClass.NOT_FOUND

    def rule(exc: BaseException) -> Classification | None:
        if raised_in(exc, "subprocess") or (missing_socket and (_raised_connecting(exc, anywhere=True) or _unix_socket_missing(exc))):
            return program
        if getattr(exc, "errno", None) is None and not exc.args and exc.__cause__ is not None:
            # raised bare over another failure (gspread's ``raise PermissionError from`` the 403's APIError): it names
            # the class only; the failure it was raised from says whether anything was done
            return None
        return refused if getattr(exc, "errno", None) is not None else file

    return rule


def _unix_socket_missing(exc: BaseException) -> bool:
    """ENOENT with no path, raised where the tool holds a Unix socket: ``socket.connect`` (or ``bind``/``sendto``) on a
    socket file that is not there, called by the tool itself, so no library's connect frame shows it. Every call that
    opens, stats or runs a path names it (``filename``), and a library that maps a peer's status onto ENOENT
    (paramiko's SFTP) raises it holding no Unix socket."""
    if getattr(exc, "errno", None) != errno.ENOENT or getattr(exc, "filename", None) is not None:
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    local_values = tb.tb_frame.f_locals.values() if tb is not None else ()
    return any(isinstance(value, socket.socket) and value.family == socket.AF_UNIX for value in local_values)


# The kernel refusing a call on a local path or resource, by errno (POSIX <errno.h>, Linux errno(3)): the syscall was
# refused whole, nothing done. A path that resolves to no file (a component that is a file, symbolic links that lead to
# each other) is not there, as ENOENT; a path of the wrong kind for the call (a directory where a file is needed, a
# name already taken, a directory not empty: HTTP 409's conflicts; a name over NAME_MAX) is the call's to change; a
# read-only filesystem refuses every write, as a read-only share; a file or device another process holds (a running
# program's text, a mounted device, a lock taken: EAGAIN out of flock's LOCK_NB) is busy for now, as SQLite's
# SQLITE_BUSY; the process's own limits and a rename across filesystems are the tool's (its descriptors, shutil.move
# copies where os.rename cannot). A full disk (ENOSPC, EDQUOT) and a file over RLIMIT_FSIZE (EFBIG) keep no rule:
# the machine's, neither the caller's nor an upstream's (tests/heldout_cases.md J189), and a write may have put part
# of its data down first.
_LOCAL_ERRNOS: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((errno.ENOTDIR, errno.ELOOP), (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys((errno.EISDIR, errno.EEXIST, errno.ENOTEMPTY, errno.ENAMETOOLONG),
                    (FailureClass.INVALID_INPUT, False)),
    errno.EROFS: (FailureClass.PERMISSION_DENIED, False),
    **dict.fromkeys((errno.ETXTBSY, errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK),
                    (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    **dict.fromkeys((errno.EMFILE, errno.ENFILE, errno.EXDEV), (FailureClass.UNKNOWN, False)),
}


def _os_error(exc: BaseException) -> Classification | None:
    # A plain OSError is a network failure only when its errno says so (ENETUNREACH has no subclass), or when, with
    # none, a connecting function raised it: http.client's proxy tunnel refused ("Tunnel connection failed"),
    # socket.create_connection with no address to try. The connection never opened: nothing was sent.
    if getattr(exc, "errno", None) in _NETWORK_ERRNOS:
        return _UNAVAILABLE(exc)
    local = _LOCAL_ERRNOS.get(getattr(exc, "errno", None))  # type: ignore[arg-type]
    if local is not None:
        if raised_in(exc, "subprocess"):  # starting a program (a path component that is a file, its text busy)
            return _UNAVAILABLE_NOT_SENT(exc)
        return Classification(local[0], side_effect_possible=local[1])
    if getattr(exc, "errno", None) is None and _raised_connecting(exc, anywhere=True):
        return _proxy_refusal(exc) or _UNAVAILABLE_NOT_SENT(exc)
    return None


# libcurl's CURLE_HTTP_RETURNED_ERROR ("The requested URL returned error: 403"), in git's and curl's stderr; the URL a
# program names in quotes ("unable to access 'https://host/repo.git/'", "repository 'https://...' not found").
_CURL_STATUS: Final = re.compile(r"\breturned error: ([1-5]\d\d)\b")
_QUOTED_URL: Final = re.compile(r"""['"](https?://[^'"\s]+)['"]""")


def _program_output(exc: BaseException) -> list[str]:
    """What the failed program wrote, stderr first: on the exception, or on the result it carries (invoke). Of its
    standard output only the last line: the rest is the program's data (a diff's lines, a test run's names and numbers,
    POSIX keeps diagnostics for stderr), its last line the verdict some programs print there (git's "nothing to
    commit, working tree clean")."""
    texts = []
    for owner in (exc, _attribute(exc, "result")):
        for name in ("stderr", "stdout", "output"):
            value = _attribute(owner, name) if owner is not None else None
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            if isinstance(value, str) and name != "stderr":
                value = next((line for line in reversed(value.splitlines()) if line.strip()), "")
            if isinstance(value, str) and value.strip() and value not in texts:
                texts.append(value)
    return texts


def _exit_status(exc: BaseException) -> int | None:
    for owner, name in ((exc, "returncode"), (exc, "exit_code"), (exc, "retcode"), (exc, "status"),
                        (_attribute(exc, "result"), "exited")):
        value = _attribute(owner, name) if owner is not None else None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


# A shell's own statuses for a command it could not run (POSIX "Shell Command Language" §2.8.2: 127 not found,
# 126 found but not executable): the program never started, as a FileNotFoundError out of subprocess.
_SHELL_COULD_NOT_RUN: Final = frozenset({126, 127})


# A line a program wrote beside its failure that is no failure: a warning, a hint or a note (git's "warning:" and
# "hint:", npm's "npm WARN", Python's "DeprecationWarning: ..."): the program went on after it, so it names nothing
# that failed ("warning: could not connect to the cache" before an exit for another reason). Kept when it says the
# program retried: that failure, repeated until the retries ran out, is what ended it (pip's "WARNING: Retrying (...)
# after connection broken by ...: Connection refused" before "ERROR: Could not find a version", curl's "Warning:
# Problem : timeout. Will retry in 1 seconds", npm's "npm WARN retry").
_ADVICE_LINE: Final = re.compile(
    r"(?im)^[ \t]*(?:(?:warning|hint|note|[\w.]*warning):|npm warn\b)(?![^\n]*\bretr(?:y|ying|ies|ied)\b)[^\n]*\n?")


# A runtime's excerpt of the source line an uncaught error was thrown at, above the error's own line: its position
# ("node:fs:573", "/srv/app.js:12"), the line, a caret under it (V8's and Deno's uncaught-exception print). Its
# numbers are line numbers, no status.
_SOURCE_EXCERPT: Final = re.compile(r"(?m)^[^\s:]+(?::[^\s:]+)*:\d+[ \t]*\n[^\n]*\n[ \t]*\^+[ \t]*$")


def _program_words(output: str) -> str:
    """What a failed program said of its failure: its output without advice lines (:data:`_ADVICE_LINE`), the source
    excerpt of an uncaught error (:data:`_SOURCE_EXCERPT`) and the stack frames under it (Node's, Java's:
    ``without_stack_traces``), whose positions are line numbers and whose names are the program's code. A crash
    report is kept whole."""
    text = _ADVICE_LINE.sub("", output)
    if is_crash_report(text):
        return text  # a crash is read whole: the program's own bug, whatever its frames' words (classify_text)
    return without_stack_traces(_SOURCE_EXCERPT.sub("", text))


# POSIX utilities whose exit status 1 is an answer, not a failure (POSIX.1-2017, each one's "EXIT STATUS"): diff and cmp
# found the files differ, grep selected no lines. Their output is the data they compared or searched, no verdict.
_ANSWERS_WITH_ONE: Final = frozenset({"diff", "cmp", "grep", "egrep", "fgrep"})


def _program_name(exc: BaseException) -> str | None:
    """The name of the program a failed run started: the first word of ``cmd`` (subprocess), ``argv`` (plumbum),
    ``full_cmd`` (sh) or its result's ``command`` (invoke), without its directory."""
    for owner, name in ((exc, "cmd"), (exc, "argv"), (exc, "full_cmd"), (_attribute(exc, "result"), "command")):
        value = _attribute(owner, name) if owner is not None else None
        if isinstance(value, (list, tuple)) and value:
            value = value[0]
        elif isinstance(value, str):
            value = value.split()[0] if value.split() else None
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str) or hasattr(value, "__fspath__"):
            return str(value).replace("\\", "/").rpartition("/")[2]
    return None


# Where a program's words name the service it could not use: a URL (``http_address``: host[:port], never userinfo,
# path or query), urllib3's pool as requests prints it ("HTTPConnectionPool(host='pay.internal', port=8080): Max
# retries exceeded …"), libcurl's "Failed to connect to pay.internal port 8080 …".
_URL_IN_WORDS: Final = re.compile(r"""\b(https?)://[^\s'"<>()\[\]]+""", re.I)
_URLLIB3_POOL: Final = re.compile(r"\bHTTPS?ConnectionPool\(host='([^'\s]+)', port=(\d{1,5})\)")
_CURL_CONNECT: Final = re.compile(
    r"\b(?:connect to|resolve host:?) ([A-Za-z0-9_.:\[\]-]+?)(?: port (\d{1,5}))?(?=[\s:,]|$)")


def _upstream_in_words(text: str) -> Upstream | None:
    """The upstream a failed program's words name (:data:`_URL_IN_WORDS`, :data:`_URLLIB3_POOL`, :data:`_CURL_CONNECT`),
    from the line that says what failed first (``failure_lines``: a Python traceback's exception lines, innermost
    first, never its frames); ``None`` when none is named. The on-call engineer needs which host failed (DESIGN:
    upstream address on the tool span), as on the same failure raised in process."""
    for line in failure_lines(text):
        pool = _URLLIB3_POOL.search(line)
        if pool:
            return Upstream("http", None, f"{pool.group(1)}:{pool.group(2)}")
        url = _URL_IN_WORDS.search(line)
        address = http_address(url.group(0)) if url else None
        if address:
            return Upstream("http", None, address)
        curl = _CURL_CONNECT.search(line)
        if curl:
            return Upstream(None, None, f"{curl.group(1)}:{curl.group(2)}" if curl.group(2) else curl.group(1))
    return None


def _program_failure(exc: BaseException) -> Classification | None:
    """A program the tool ran that exited with an error status: ``subprocess.CalledProcessError`` (``check=True``
    with the output captured), GitPython's ``GitCommandError`` (the git the official MCP git server drives), sh's
    ``ErrorReturnCode``, plumbum's ``ProcessExecutionError``, invoke's (and so Fabric's) ``UnexpectedExit``.

    A shell's 127 or 126 (the command not found, not executable) is a program that never started:
    upstream_unavailable, nothing done, as a ``FileNotFoundError`` out of ``subprocess``. The 1 of ``diff``, ``cmp``
    and ``grep`` is their answer (:data:`_ANSWERS_WITH_ONE`): unknown, whatever their output holds.

    The exit status says only that it failed; what failed is in the program's own words, on stderr (else stdout:
    git's "nothing to commit"). Those are read with the foreign-text rules (``classify_text``: the same words a
    foreign MCP server's text is read by), so one failure gets one class whether a tool raised it or relayed it.
    An HTTP status the program reports in libcurl's words ("The requested URL returned error: 503": git, curl) is
    the upstream's, with the URL's ``host[:port]``. Whether it acted: what the text says of an upstream it did not
    reach or that dropped mid-answer, the status's fact; otherwise not known (a program may fail after doing part of
    its work). ``None`` (its cause decides, else ``unknown``) when no output was captured or nothing in it is known.
    """
    if _exit_status(exc) in _SHELL_COULD_NOT_RUN:
        return Classification(FailureClass.UPSTREAM_UNAVAILABLE, side_effect_possible=False)
    if _exit_status(exc) == 1 and _program_name(exc) in _ANSWERS_WITH_ONE:
        return Classification(FailureClass.UNKNOWN)  # its answer ("they differ", "none matched"), taken for a failure
    for output in _program_output(exc):
        text = _program_words(output)
        if not text.strip():
            continue
        failure_class = classify_text(text)
        if failure_class is FailureClass.UNKNOWN:
            continue
        status_match = _CURL_STATUS.search(text)
        status = int(status_match.group(1)) if status_match else None
        url = _QUOTED_URL.search(text)
        upstream = (Upstream("http", str(status), http_address(url.group(1)) if url else None)
                    if status is not None else None)
        if upstream is None and failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            upstream = _upstream_in_words(text)
        if status is not None:
            sent = side_effect_for_http_status(status)
        elif failure_class is FailureClass.UPSTREAM_UNAVAILABLE:
            sent = True if says_maybe_acted(text) else False if never_reached(text) else None
        else:
            sent = None
        wait = retry_after_from_text(text) if failure_class is FailureClass.RATE_LIMITED else None
        return Classification(failure_class, retry_after=wait, upstream=upstream, side_effect_possible=sent)
    return None


# NTSTATUS error values (MS-ERREF §2.3.1; severity 3, the top two bits set) an SMB server answers a request with
# (MS-SMB2 §2.2.2): a refused logon or access, a name that is not there, a name or state the request does not fit,
# the server short of a resource. Each answers the request whole, nothing done; a connection or session dropped under
# it may come after it acted.
_NTSTATUS_CODES: Final[dict[int, tuple[FailureClass, bool | None]]] = {
    **dict.fromkeys((0xC000006D, 0xC000006A, 0xC0000064, 0xC000006E, 0xC000006F, 0xC0000070, 0xC0000071, 0xC0000072,
                     0xC0000193, 0xC0000224, 0xC0000234, 0xC000015B, 0xC0000022, 0xC00000CA, 0xC0000061, 0xC0000121,
                     0xC00000A2), (FailureClass.PERMISSION_DENIED, False)),
    **dict.fromkeys((0xC0000034, 0xC000003A, 0xC000000F, 0xC00000CC, 0xC00000BE, 0xC0000225),
                    (FailureClass.NOT_FOUND, False)),
    **dict.fromkeys((0xC0000035, 0xC0000101, 0xC00000BA, 0xC0000103, 0xC0000033, 0xC000000D, 0xC0000011),
                    (FailureClass.INVALID_INPUT, False)),
    # in use by another (a sharing violation, a lock), being deleted, the disk or quota full, the server short
    **dict.fromkeys((0xC0000043, 0xC0000054, 0xC0000056, 0xC000007F, 0xC0000044, 0xC0000205, 0xC00000D0, 0xC000011F,
                     0xC0000466, 0xC000035C), (FailureClass.UPSTREAM_UNAVAILABLE, False)),
    **dict.fromkeys((0xC00000B5, 0xC000020C, 0xC000020D, 0xC00000C9, 0xC0000203, 0xC0000120),
                    (FailureClass.UPSTREAM_UNAVAILABLE, True)),
}


def _ntstatus_of(exc: BaseException) -> int | None:
    """The NTSTATUS error value an exception keeps: ``ntstatus`` (smbclient's ``SMBOSError``) or ``status``
    (smbprotocol's ``SMBResponseException`` and its per-status classes), an int with the error severity bits set:
    no HTTP status, errno or other code is that large."""
    for name in ("ntstatus", "status"):
        value = _attribute(exc, name)
        if isinstance(value, int) and not isinstance(value, bool) and 0xC0000000 <= value <= 0xFFFFFFFF:
            return value
    return None


def _ntstatus_error(exc: BaseException) -> Classification:
    code = _ntstatus_of(exc) or 0
    failure_class, side_effect = _NTSTATUS_CODES.get(code, (FailureClass.UNKNOWN, None))
    return Classification(failure_class, upstream=Upstream("smb", f"0x{code:08X}"), side_effect_possible=side_effect)


# A system error as Node.js (libuv) words it, ``${syscall} ${code} ${address}[:${port}]`` (Node's
# ``errnoException``/``exceptionWithHostPort``, lib/internal/errors.js): "connect ECONNREFUSED 127.0.0.1:9222",
# "getaddrinfo ENOTFOUND api.example.com", "read ECONNRESET". A Python library that drives a Node process (Playwright's
# driver, which raises its ``Error`` with the driver's text) keeps only this line. The syscall says when it failed:
# resolving a name or opening the connection sent nothing; a read or write broke a connection that carried the
# request. Only errno names of the network (``E...`` and getaddrinfo's ``EAI_...``), never a file's ENOENT.
_NODE_SYSTEM_ERROR: Final = re.compile(
    r"\b(?P<syscall>connect|getaddrinfo|getnameinfo|query[A-Za-z]*|read|write|writev|recv|send|shutdown|socket)"
    r" (?P<code>ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EPIPE|"
    r"EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME|ESERVFAIL|ENODATA|ECONNREFUSED)"
    r"(?: (?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.:-]+?)(?::(?P<port>\d{1,5}))?)?(?=$|[\s,;)'\"])",
    re.M,
)
_NODE_NOT_SENT_SYSCALLS: Final = re.compile(r"connect|getaddrinfo|getnameinfo|query[A-Za-z]*|socket")


def _node_system_error_of(exc: BaseException) -> re.Match[str] | None:
    try:
        text = str(exc)
    except Exception:
        return None
    return _NODE_SYSTEM_ERROR.search(text[:2000])


def _node_system_error(exc: BaseException) -> Classification | None:
    """upstream_unavailable for a Node system error line (:data:`_NODE_SYSTEM_ERROR`): not sent when the syscall
    opened the connection or resolved its name, else as the errno says (a reset read: maybe acted); the errno name as
    the status, the host and port it names as the address."""
    match = _node_system_error_of(exc)
    if match is None:
        return None
    syscall, code, host, port = match.group("syscall", "code", "host", "port")
    if _NODE_NOT_SENT_SYSCALLS.fullmatch(syscall):
        sent: bool | None = False
    else:
        sent = _NETWORK_ERRNOS.get(getattr(errno, code, -1), True)
    address = None
    if host:
        address = f"{host}:{port}" if port else host
    return Classification(FailureClass.UPSTREAM_UNAVAILABLE, upstream=Upstream(None, code, address),
                          side_effect_possible=sent)
