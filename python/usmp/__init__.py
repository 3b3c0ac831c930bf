# usmp/__init__.py — the Python binding of libusmp (ctypes only): problems,
# the plugin registry, per-target selection, plans, and errors as exceptions.
"""Static memory planning for ML compilers, from Python.

    import usmp
    p = usmp.Problem()
    sram = p.add_pool("sram", size_limit=256 * 1024, alignment=16,
                      targets=["ethos-u55"])
    p.add_buffer("conv1.out", 65536, live=(0, 2))
    p.add_buffer("conv2.out", 32768, live=(1, 3))
    plan = usmp.plan(p, algorithm="best_fit")
    plan.placements["conv1.out"]   # Placement(pool='sram', offset=0)

The library is found through USMP_LIBRARY (a path), else next to an installed
package (or in a source checkout's build/src), else ``libusmp.so.1`` on
the loader's path; plugins through USMP_PLUGIN_PATH and the installed plugin
directory, as in C. Every failure raises a UsmpError subclass carrying the
library's message (``e.message``) and status (``e.status``).
"""

import collections
import contextlib
import decimal
import errno
import math
import numbers
import operator
import os
import ctypes
import re
import threading

from . import _lib

__all__ = [
    "UsmpError", "InvalidError", "InfeasibleError", "PluginError",
    "NotFoundError", "NoMemoryError", "UsmpIOError", "StoppedError",
    "UnsupportedError", "InvalidPlanError", "InternalError",
    "Problem", "Registry", "Plan", "Placement", "Part", "Algorithm", "Param",
    "PluginInfo", "Member", "Selection", "Cancel", "plan",
    "default_registry",
    "Infeasibility", "PoolInfo", "BufferInfo",
    "version",
    "abi_version", "UNBOUNDED", "CAPABILITIES",
]

UNBOUNDED = (1 << 64) - 1
_NONE = (1 << 32) - 1  # no pool / built-in (no plugin)

# enum usmp_format
_FORMATS = {"auto": 0, "json": 1, "csv": 2}
# enum usmp_capability, by bit
CAPABILITIES = {
    "multi_pool": 1 << 0, "overlap_rules": 1 << 1, "fixed_offsets": 1 << 2,
    "exact": 1 << 3, "deterministic": 1 << 4, "anytime": 1 << 5,
    "explicit_conflicts": 1 << 6, "portfolio": 1 << 7,
}
_PARAM_TYPES = {1: "bool", 2: "i32", 3: "u32", 4: "i64", 5: "u64", 6: "f64",
                7: "str"}
_SOURCES = {1: "api", 2: "options", 3: "env", 4: "default"}
# Part.source of a plan read from a file: no rule chose its algorithm
_PART_SOURCES = dict(_SOURCES)
_PART_SOURCES[0] = "file"
_OVERRUN_CAUSES = {0: "", 1: "first_plan", 2: "stopped", 3: "late",
                   4: "unknown"}
_PLAN_ISOLATE, _PLAN_NO_ISOLATE = 1, 2
_REGISTRY_NO_ENV, _REGISTRY_NO_DEFAULT_DIRS = 1, 2


# ---- errors ---------------------------------------------------------------

class UsmpError(Exception):
    """A failed libusmp call: `status` (enum usmp_status), `message` (the
    library's text naming the place: file, record, buffer, knob)."""
    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class InvalidError(UsmpError, ValueError):
    """An argument or a file the library refuses (USMP_ERR_INVALID); also a
    ValueError."""
    status = 1


class InfeasibleError(UsmpError):
    """No plan fits the pools. `infeasibility`: why (an Infeasibility), or
    None when the library gave no details (a plan read from a file)."""
    status = 2
    infeasibility = None


# enum usmp_infeasibility_kind
_INFEASIBLE_KINDS = {1: "unproven", 2: "step", 3: "buffer", 4: "fixed",
                     5: "bound", 6: "search"}

Infeasibility = collections.namedtuple(
    "Infeasibility", "kind algorithm pool limit bound group step total "
                     "buffers pools moves")
Infeasibility.__doc__ = """Why a plan is infeasible (usmp_plan_infeasibility):
kind "step", "buffer", "fixed", "bound" (a proof computed by the library),
"search" (exact's search proved it) or "unproven" (the algorithm found no
plan, the lower bound fits: a plan may exist); pool (name, or None for
several), limit (bytes, UNBOUNDED for none), bound (the group's lower
bound), group, step and total (kind "step": the bytes live at `step`;
`total - limit` is by how many the model misses), buffers (names, by kind;
for "step" those live at `step`, largest first),
pools (the names whose limits make `limit`), moves (spill advice: a list of
(buffer, pool) names whose moves bring every step under the limit)."""


def _infeasibility(lib, handle, names):
    info = _lib.new(_lib.Infeasibility)
    if lib.usmp_plan_infeasibility(handle, ctypes.byref(info)):
        return None
    pools, buffers = names
    return Infeasibility(
        _INFEASIBLE_KINDS.get(info.kind, str(info.kind)),
        _str(info.algorithm) or "",
        None if info.pool == _NONE else pools[info.pool], info.limit,
        info.bound, info.group, info.step, info.total,
        [buffers[info.buffers[k]] for k in range(info.buffer_count)],
        [pools[info.pools[k]] for k in range(info.pool_count)],
        [(buffers[info.move_buffers[k]], pools[info.move_pools[k]])
         for k in range(info.move_count)])


class PluginError(UsmpError):
    """A plugin failed to load or broke its contract (USMP_ERR_PLUGIN)."""
    status = 3


class NotFoundError(UsmpError, LookupError):
    """No pool, buffer, algorithm, knob or plugin of that name or index
    (USMP_ERR_NOT_FOUND); also a LookupError."""
    status = 4


class NoMemoryError(UsmpError, MemoryError):
    """The library ran out of memory (USMP_ERR_NOMEM); also a MemoryError."""
    status = 5


class UsmpIOError(UsmpError, OSError):
    """A file could not be read or written (USMP_ERR_IO); also an OSError,
    with `errno`, `strerror` and `filename` when the library's message
    names the system's reason, and then also the OSError subclass Python
    raises for it (FileNotFoundError, PermissionError, IsADirectoryError,
    NotADirectoryError)."""
    status = 6

    def __str__(self):
        return self.message

    def __reduce__(self):
        # pickled as the call that makes it (its class may be one of the
        # joined ones below, which pickle cannot find by name)
        return _io_error, (self.message, self.status)


# The OSError subclasses of the errno values a file's open or read gives,
# each joined with UsmpIOError once, on first use.
_OS_ERROR_CLASSES = {
    errno.ENOENT: FileNotFoundError, errno.EACCES: PermissionError,
    errno.EPERM: PermissionError, errno.EISDIR: IsADirectoryError,
    errno.ENOTDIR: NotADirectoryError,
}
_io_classes = {}


def _io_error(message, status):
    """UsmpIOError for `message` ("PATH: cannot open: REASON"), with errno,
    strerror and filename read from it, of the matching OSError subclass."""
    for code in sorted(_OS_ERROR_CLASSES):
        reason = os.strerror(code)
        if message.endswith(": " + reason):
            break
    else:
        return UsmpIOError(message, status)
    base = _OS_ERROR_CLASSES[code]
    cls = _io_classes.get(base)
    if cls is None:
        cls = type("UsmpIOError", (UsmpIOError, base), {
            "__module__": __name__, "__doc__": UsmpIOError.__doc__})
        _io_classes[base] = cls
    err = cls(message, status)
    err.errno, err.strerror = code, reason
    cut = message.find(": cannot ")
    if cut > 0:
        err.filename = message[:cut]
    return err


class StoppedError(UsmpError):
    """The time limit or a Cancel stopped the algorithm before it found a
    plan (USMP_ERR_STOPPED)."""
    status = 7


class UnsupportedError(UsmpError):
    """The algorithm, format or library version cannot do what was asked
    (USMP_ERR_UNSUPPORTED)."""
    status = 8


class InvalidPlanError(UsmpError):
    """A plan that breaks its problem's rules: verify() of a plan read from
    a file (USMP_ERR_INVALID_PLAN)."""
    status = 9


class InternalError(UsmpError):
    """A bug in usmp (USMP_ERR_INTERNAL): please report it."""
    status = 10


_ERRORS = {c.status: c for c in (
    InvalidError, InfeasibleError, PluginError, NotFoundError, NoMemoryError,
    UsmpIOError, StoppedError, UnsupportedError, InvalidPlanError,
    InternalError)}


# The library's messages name what a C host writes; a Python user wrote
# these instead.
_PYTHON_WORDS = (
    ("(USMP_UNBOUNDED for a pool without a limit)",
     "(size_limit=None for a pool without a limit)"),
    ("usmp_registry_options.plugin_path", "Registry(plugin_path=...)"),
    ("of the plan options (-a)", "of plan(algorithm=...)"),
    ("usmp_problem_set_fixed", "add_buffer(fixed=...)"),
    ("usmp_problem_set_live", "add_buffer(live=...)"),
)


def _pythonic(message):
    """The library's message in the words of the binding's arguments."""
    if message:
        for c, py in _PYTHON_WORDS:
            message = message.replace(c, py)
    return message


def _raise(status, message):
    cls = _ERRORS.get(status, UsmpError)
    name = _str(_lib.lib().usmp_status_name(status))
    if cls is UsmpIOError and message:
        raise _io_error(_pythonic(message), status)
    raise cls(_pythonic(message) or name, status)


def _bytes(s, sized=False, what=None, text=False):
    """s as UTF-8 bytes for a C string; `sized`: for a buffer passed with
    its length (the library then names a NUL byte by its line); `what`: the
    argument's name, for the TypeError of a value that is no string;
    `text`: a name the problem keeps (a pool, buffer or target), which must
    be UTF-8, as Python reads it back and the files hold it."""
    if isinstance(s, str):
        try:
            b = s.encode("utf-8")
        except UnicodeEncodeError as e:
            raise InvalidError("%s%r: not valid UTF-8 (%s at index %d)"
                               % (what + ": " if what else "", s,
                                  "a lone surrogate" if 0xd800 <= ord(
                                      s[e.start]) <= 0xdfff else
                                  "a character UTF-8 cannot encode",
                                  e.start), 1) from None
    elif isinstance(s, bytes):
        b = s
        if text:
            try:
                b.decode("utf-8")
            except UnicodeDecodeError as e:
                # Read back with errors="replace", two such names would
                # come back as one, and neither could be found by name.
                raise InvalidError("%s%r: not valid UTF-8 (byte 0x%02x at "
                                   "index %d): names are text, read back "
                                   "as str and written to UTF-8 files"
                                   % (what + ": " if what else "", s,
                                      b[e.start], e.start), 1) from None
    else:
        raise TypeError("%sexpected a string, got %r"
                        % (what + ": " if what else "", s))
    # A C string ends at its first NUL: the library would see a prefix.
    if not sized and b"\0" in b:
        raise InvalidError("%r: a NUL byte cannot be passed to libusmp (C "
                           "strings end at it)" % (s,), 1)
    return b


def _str(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _int(name, value):
    """value as an int: an int or an integer type of another library (a
    numpy.int64: anything with __index__), never a bool or a float."""
    if isinstance(value, bool):
        raise TypeError("%s must be an int, got %r" % (name, value))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s must be an int, got %r" % (name, value)) from None


def _is_int(value):
    """Whether value is an integer (a pool or buffer index, not a name)."""
    return not isinstance(value, (bool, str, bytes)) and \
        hasattr(type(value), "__index__")


def _u64(name, value):
    value = _int(name, value)
    if not 0 <= value <= UNBOUNDED:
        raise InvalidError("%s: out of range: %d" % (name, value), 1)
    return value


def _size(name, value):
    """A byte count: an int, or a string as `usmp --capacity` takes it (a
    positive number, optionally K, M or G in either case, each a power of
    1024, optionally followed by B or iB: "256K", "256KiB", "1M")."""
    if isinstance(value, str):
        m = re.fullmatch(r"([0-9]+)(?:([kKmMgG])(B|iB)?)?", value)
        if not m:
            raise InvalidError("%s: %r is not a byte count (a number, "
                               "optionally followed by K, M or G: "
                               "\"256K\", \"1MiB\")" % (name, value), 1)
        shift = {"": 0, "k": 10, "m": 20, "g": 30}[(m.group(2) or "").lower()]
        value = int(m.group(1)) << shift
    return _u64(name, value)


def _csv_capacity(name, format, capacity):
    """The size limit for a problem read as `format` from `name`: UNBOUNDED
    when capacity is None; refused for a JSON problem, whose pools carry
    their own size_limit (as `usmp plan --capacity`)."""
    cap = UNBOUNDED if capacity is None else _size("capacity", capacity)
    csv = format == "csv" or (format == "auto" and
                              str(name).lower().endswith(".csv"))
    if cap != UNBOUNDED and not csv:
        raise InvalidError("%s: capacity applies to CSV problems only (a "
                           "JSON problem gives each pool its "
                           "\"size_limit\")" % (name,), 1)
    return cap


def _i64(name, value):
    value = _int(name, value)
    if not -(1 << 63) <= value < (1 << 63):
        raise InvalidError("%s: out of range (int64): %d" % (name, value), 1)
    return value


def _index(kind, value):
    # ctypes passes an int to a uint32_t parameter modulo 2^32.
    value = _int(kind + " index", value)
    if not 0 <= value < _NONE:
        raise InvalidError("%s index out of range: %d%s"
                           % (kind, value, " (indices count from 0; "
                              "negative ones are not taken)" if value < 0
                              else ""), 1)
    return value


def _pair(what, value, names):
    """value as a 2-tuple: TypeError naming `what` and its `names` for no
    sequence, InvalidError (a ValueError) for a sequence of another length."""
    try:
        n = None if isinstance(value, (str, bytes)) else len(value)
    except TypeError:
        n = None
    if n is None:
        raise TypeError("%s: expected (%s), got %r" % (what, names, value))
    if n != 2:
        raise InvalidError("%s: expected 2 values (%s), got %d: %r"
                           % (what, names, n, value), 1)
    return tuple(value)


def _format(format):
    try:
        return _FORMATS[format]
    except (KeyError, TypeError):
        raise InvalidError("format: expected \"auto\", \"json\" or \"csv\", "
                           "got %r" % (format,), 1) from None


def _names(what, items, kind="names"):
    """A list of names (or indices), refusing a lone string: iterating
    "npu" would give the names "n", "p", "u"."""
    if isinstance(items, (str, bytes)):
        raise TypeError("%s: expected a list of %s, got the string %r "
                        "(write [%r] for one)" % (what, kind, items, items))
    return items


def _knob_strings(params):
    """dict {knob: value} or iterable of "k=v" -> list of bytes "k=v"."""
    if not params:
        return []
    _names("params", params, 'knob settings ("k=v") or a dict')
    if isinstance(params, dict):
        out = []
        for k, v in params.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            out.append("%s=%s" % (k, v))
        params = out
    return [_bytes(p) for p in params]


def _c_strings(items):
    arr = (ctypes.c_char_p * max(1, len(items)))(*items)
    return arr, len(items)


def version():
    """The library's release version, e.g. "0.1.0"."""
    return _str(_lib.lib().usmp_version())


def abi_version():
    """(major, minor) of the plugin ABI the library implements."""
    ma, mi = ctypes.c_uint32(), ctypes.c_uint32()
    _lib.lib().usmp_abi_version(ctypes.byref(ma), ctypes.byref(mi))
    return ma.value, mi.value


# ---- handles ---------------------------------------------------------------

class _Guarded:
    """A libusmp handle (`_h`) that close() frees only once no call is using
    it: Registry.plan() and the other long calls release the GIL, so
    another thread may close the object meanwhile. A close() then refuses
    new calls at once and leaves the freeing to the last call in flight."""
    _kind = "object"
    # The libusmp functions, by name, that free the handle and that give
    # the message of its last error.
    _destroy = None
    _error = None

    def _guard_init(self):
        self._guard = threading.Lock()
        self._busy = 0
        self._closing = False

    def _free(self, h):
        getattr(self._lib, self._destroy)(h)

    def _check(self, status):
        if status:
            _raise(status, _str(getattr(self._lib, self._error)(self._h)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # A copy sharing the handle would free it when either is collected,
    # leaving the other with a freed object: copies are refused (Problem
    # makes a real one).
    def __copy__(self):
        raise TypeError("a usmp.%s cannot be copied (it owns a libusmp "
                        "object)" % type(self).__name__)

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __reduce_ex__(self, protocol):
        raise TypeError("a usmp.%s cannot be pickled (it owns a libusmp "
                        "object); write it to a file instead"
                        % type(self).__name__)

    def _closed(self):
        return not getattr(self, "_h", None) or \
            getattr(self, "_closing", False)

    def close(self):
        """Free the library's object (also at the end of a `with` block);
        later calls raise InvalidError. Closing twice does nothing."""
        guard = getattr(self, "_guard", None)
        if guard is None:  # __init__ failed before the handle existed
            return
        with guard:
            h = getattr(self, "_h", None)
            if not h:
                return
            self._closing = True
            if self._busy:
                return  # the last call in flight frees it
            self._h = None
        self._free(h)

    def __del__(self):
        self.close()

    def _handle(self):
        if not getattr(self, "_h", None) or getattr(self, "_closing", False):
            raise InvalidError("%s is closed" % self._kind, 1)
        return self._h

    @contextlib.contextmanager
    def _use(self):
        """The handle, kept alive until the block ends."""
        with self._guard:
            h = self._handle()
            self._busy += 1
        try:
            yield h
        finally:
            with self._guard:
                self._busy -= 1
                h = None
                if self._closing and not self._busy:
                    h, self._h = self._h, None
            if h:
                self._free(h)


# ---- problems -------------------------------------------------------------

# What Problem.pool_info and buffer_info read back (ABI 1.3): the arguments
# of add_pool and add_buffer, so p.add_buffer(**q.buffer_info(b)._asdict())
# copies a buffer. size_limit None: unbounded; live None: no live range;
# pools None: every pool; fixed None: not fixed, else (pool name, offset).
PoolInfo = collections.namedtuple("PoolInfo",
                                  "name size_limit alignment targets")
BufferInfo = collections.namedtuple("BufferInfo",
                                    "name size alignment live pools fixed")
PoolInfo.__doc__ = """A pool as added (Problem.pool_info): name, size_limit
(None: unbounded), alignment, targets (a list of names)."""
BufferInfo.__doc__ = """A buffer as added (Problem.buffer_info): name, size,
alignment, live (None or (begin, end)), pools (None: every pool, else the
candidate names in priority order), fixed (None or (pool name, offset))."""

class Problem(_Guarded):
    """Pools and buffers to plan. Pools and buffers are referred to by name
    or by index (dense, in insertion order). Not for concurrent use, but
    close() may be called while another thread plans it (Registry.plan):
    the problem is freed when that call returns."""
    _kind = "problem"
    _destroy, _error = "usmp_problem_destroy", "usmp_problem_error"

    def __init__(self):
        self._guard_init()
        self._lib = _lib.lib()
        self._h = self._lib.usmp_problem_create()
        if not self._h:
            raise NoMemoryError("out of memory", 5)

    # look-ups
    def _pool(self, pool):
        return self._named("pool", pool, self.find_pool)

    def _buffer(self, buf):
        return self._named("buffer", buf, self.find_buffer)

    def _named(self, what, x, find):
        """The index of `what` (pool, buffer) x: an index as it is, a name
        through find (find_pool, find_buffer); TypeError for anything else."""
        if _is_int(x):
            return _index(what, x)
        if not isinstance(x, (str, bytes)):
            raise TypeError("%s: expected a %s name or index, got %r"
                            % (what, what, x))
        return find(x)

    def copy(self):
        """A new Problem with the same pools, buffers, conflicts and overlap
        rules (also copy.copy and copy.deepcopy; needs libusmp ABI 1.3)."""
        self._reader("Problem.copy")
        q = Problem()
        try:
            for j in range(self.pool_count):
                q.add_pool(**self.pool_info(j)._asdict())
            for b in range(self.buffer_count):
                q.add_buffer(**self.buffer_info(b)._asdict())
            for a, b in self.conflicts:
                q.add_conflict(a, b)
            for src, dst, lead in self.overlaps:
                q.add_overlap(src, dst, lead)
        except BaseException:
            q.close()
            raise
        return q

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __len__(self):
        """The number of buffers (as buffer_count)."""
        return self.buffer_count

    def __repr__(self):
        if self._closed():
            return "<usmp.Problem closed>"
        n, m = self.pool_count, self.buffer_count
        return "<usmp.Problem %d pool%s, %d buffer%s>" % (
            n, "" if n == 1 else "s", m, "" if m == 1 else "s")

    def find_pool(self, name):
        """The index of the pool named `name` (NotFoundError if none)."""
        return self._find("pool", self._lib.usmp_problem_find_pool, name)

    def find_buffer(self, name):
        """The index of the buffer named `name` (NotFoundError if none)."""
        return self._find("buffer", self._lib.usmp_problem_find_buffer, name)

    def _find(self, what, find, name):
        """The index find (usmp_problem_find_pool or _buffer) gives `name`;
        NotFoundError naming `what` (pool, buffer) if none."""
        i = ctypes.c_uint32()
        st = find(self._handle(), _bytes(name), ctypes.byref(i))
        if st:
            _raise(st, 'no %s named "%s"' % (what, name))
        return i.value

    @property
    def pool_count(self):
        """The number of pools."""
        return self._lib.usmp_problem_pool_count(self._handle())

    @property
    def buffer_count(self):
        """The number of buffers (also len(problem))."""
        return self._lib.usmp_problem_buffer_count(self._handle())

    @property
    def pools(self):
        """Pool names, by index."""
        return self._names(self._handle())[0]

    @property
    def buffers(self):
        """Buffer names, by index."""
        return self._names(self._handle())[1]

    def _names(self, h):
        """Pool and buffer names of the live handle h (a caller holding it
        through _use may read them while another thread closes self)."""
        lib = self._lib
        return ([_str(lib.usmp_problem_pool_name(h, i))
                 for i in range(lib.usmp_problem_pool_count(h))],
                [_str(lib.usmp_problem_buffer_name(h, i))
                 for i in range(lib.usmp_problem_buffer_count(h))])

    # reading back (ABI 1.3)
    def _reader(self, what):
        """The live handle, when the library has the ABI 1.3 read calls;
        else UnsupportedError naming `what` and the library's ABI."""
        why = _lib.too_old(self._lib, 3, what)
        if why:
            raise UnsupportedError(why, 8)
        return self._handle()

    def pool_info(self, pool):
        """Pool `pool` (index or name) as added: a PoolInfo."""
        h = self._reader("Problem.pool_info")
        lib, i = self._lib, self._pool(pool)
        info = _lib.new(_lib.PoolInfo)
        st = lib.usmp_problem_pool_info(h, i, ctypes.byref(info))
        if st:
            _raise(st, "pool index %d out of range (%d pools)"
                   % (i, lib.usmp_problem_pool_count(h)))
        targets = []
        for k in range(info.target_count):
            t = ctypes.c_char_p()
            self._check(lib.usmp_problem_pool_target(h, i, k,
                                                     ctypes.byref(t)))
            targets.append(_str(t.value))
        return PoolInfo(_str(info.name),
                        None if info.size_limit == UNBOUNDED
                        else info.size_limit, info.alignment, targets)

    def buffer_info(self, buf):
        """Buffer `buf` (index or name) as added: a BufferInfo, pools and
        the fixed pool by name."""
        h = self._reader("Problem.buffer_info")
        lib, b = self._lib, self._buffer(buf)
        info = _lib.new(_lib.BufferInfo)
        st = lib.usmp_problem_buffer_info(h, b, ctypes.byref(info))
        if st:
            _raise(st, "buffer index %d out of range (%d buffers)"
                   % (b, lib.usmp_problem_buffer_count(h)))
        pools = None
        if info.candidate_count:
            pools = []
            for k in range(info.candidate_count):
                j = ctypes.c_uint32()
                self._check(lib.usmp_problem_buffer_candidate(
                    h, b, k, ctypes.byref(j)))
                pools.append(_str(lib.usmp_problem_pool_name(h, j.value)))
        fixed = None
        if info.fixed_pool != _NONE:
            fixed = (_str(lib.usmp_problem_pool_name(h, info.fixed_pool)),
                     info.fixed_offset)
        return BufferInfo(_str(info.name), info.size, info.alignment,
                          (info.begin, info.end) if info.live else None,
                          pools, fixed)

    @property
    def conflicts(self):
        """Explicit conflicts as (name, name) pairs, in the order added (the
        lower index first; a pair added twice is listed twice)."""
        h = self._reader("Problem.conflicts")
        lib = self._lib
        out = []
        for i in range(lib.usmp_problem_conflict_count(h)):
            a, b = ctypes.c_uint32(), ctypes.c_uint32()
            self._check(lib.usmp_problem_conflict(h, i, ctypes.byref(a),
                                                  ctypes.byref(b)))
            out.append((_str(lib.usmp_problem_buffer_name(h, a.value)),
                        _str(lib.usmp_problem_buffer_name(h, b.value))))
        return out

    @property
    def overlaps(self):
        """Overlap rules as (src, dst, max_lead), buffers by name, in the
        order added."""
        h = self._reader("Problem.overlaps")
        lib = self._lib
        out = []
        for i in range(lib.usmp_problem_overlap_count(h)):
            s, d, lead = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_int64()
            self._check(lib.usmp_problem_overlap(
                h, i, ctypes.byref(s), ctypes.byref(d), ctypes.byref(lead)))
            out.append((_str(lib.usmp_problem_buffer_name(h, s.value)),
                        _str(lib.usmp_problem_buffer_name(h, d.value)),
                        lead.value))
        return out

    # building
    def add_pool(self, name, size_limit=None, alignment=1, targets=()):
        """Add a pool; size_limit None means unbounded. Returns its index."""
        limit = UNBOUNDED if size_limit is None else _size("size_limit",
                                                           size_limit)
        # checked before the pool is added
        targets = list(_names("targets", targets))
        for t in targets:
            _bytes(t, what="target", text=True)
        i = ctypes.c_uint32()
        self._check(self._lib.usmp_problem_add_pool(
            self._handle(), _bytes(name, what="name", text=True), limit,
            _u64("alignment", alignment), ctypes.byref(i)))
        for t in targets:
            self.add_pool_target(i.value, t)
        return i.value

    def add_pool_target(self, pool, target):
        """Add `target` (a name as plan()'s target and bind()'s patterns
        match it) to the targets of `pool` (name or index)."""
        self._check(self._lib.usmp_problem_add_pool_target(
            self._handle(), self._pool(pool),
            _bytes(target, what="target", text=True)))

    def add_buffer(self, name, size, alignment=1, live=None, pools=None,
                   fixed=None):
        """Add a buffer. size: an int or a byte count such as "16K" (as
        size_limit); live=(begin, end) half-open; pools = candidate pools
        in priority order (None: every pool); fixed=(pool, offset). Returns
        its index."""
        # Checked before the buffer is added, so that a mistake leaves the
        # problem as it was (the library has no call that removes a
        # buffer); a fixed placement the pool refuses (past its size limit,
        # off its alignment) is tried first on a scratch copy of the pools.
        size = _size("size", size)
        alignment = _u64("alignment", alignment)
        if live is not None:
            begin, end = _pair("live", live, "begin, end")
            begin, end = _i64("begin", begin), _i64("end", end)
            if end <= begin:
                raise InvalidError('buffer "%s": live range [%d, %d): end '
                                   'must be after begin' % (name, begin, end),
                                   1)
        cands = []
        if pools is not None and len(_names("pools", pools)) == 0:
            raise InvalidError('buffer "%s": pools=[] names no pool (leave '
                               'pools out, or None, for every pool)' % (name,),
                               1)
        for pool in _names("pools", pools) if pools is not None else ():
            j = self._pool_that_exists(name, "candidate", pool)
            if j in cands:
                raise InvalidError('buffer "%s": pool "%s" is already a '
                                   'candidate' % (name, self.pools[j]), 1)
            cands.append(j)
        if fixed is not None:
            fpool, offset = _pair("fixed", fixed, "pool, offset")
            fpool = self._pool_that_exists(name, "fixed", fpool)
            offset = _u64("offset", offset)
            self._try_fixed(name, size, alignment, cands, fpool, offset)
        i = ctypes.c_uint32()
        self._check(self._lib.usmp_problem_add_buffer(
            self._handle(), _bytes(name, what="name", text=True),
            _u64("size", size),
            _u64("alignment", alignment), ctypes.byref(i)))
        b = i.value
        if live is not None:
            self.set_live(b, begin, end)
        for j in cands:
            self.add_candidate(b, j)
        if fixed is not None:
            self.set_fixed(b, fpool, offset)
        return b

    def _try_fixed(self, name, size, alignment, cands, fpool, offset):
        """Raise what set_fixed would for this buffer, on a scratch problem
        of the same pools (needs the ABI 1.3 read calls; with an older
        library the library finds it after the buffer is added)."""
        if _lib.too_old(self._lib, 3, "Problem.pool_info"):
            return
        with Problem() as q:
            for j in range(self.pool_count):
                info = self.pool_info(j)
                q.add_pool(info.name, info.size_limit, info.alignment)
            q.add_buffer(name, size, alignment, pools=cands or None)
            q.set_fixed(0, fpool, offset)

    def _pool_that_exists(self, name, what, pool):
        j = self._pool(pool)
        n = self.pool_count
        if j >= n:
            raise InvalidError('buffer "%s": %s pool %d does not exist (%d '
                               'pool%s)' % (name, what, j, n,
                                            "" if n == 1 else "s"), 1)
        return j

    def set_live(self, buf, begin, end):
        """Give buffer `buf` the half-open live range [begin, end) (as
        add_buffer's live=(begin, end))."""
        self._check(self._lib.usmp_problem_set_live(
            self._handle(), self._buffer(buf), _i64("begin", begin),
            _i64("end", end)))

    def add_candidate(self, buf, pool):
        """Append `pool` to the candidate pools of `buf`, in priority order
        (as add_buffer's pools=[...])."""
        self._check(self._lib.usmp_problem_add_candidate(
            self._handle(), self._buffer(buf), self._pool(pool)))

    def set_fixed(self, buf, pool, offset):
        """Fix buffer `buf` at byte `offset` of `pool` (as add_buffer's
        fixed=(pool, offset))."""
        self._check(self._lib.usmp_problem_set_fixed(
            self._handle(), self._buffer(buf), self._pool(pool),
            _u64("offset", offset)))

    def add_conflict(self, a, b):
        """Buffers `a` and `b` must not share bytes, whatever their live
        ranges."""
        self._check(self._lib.usmp_problem_add_conflict(
            self._handle(), self._buffer(a), self._buffer(b)))

    def add_overlap(self, src, dst, max_lead=0):
        """dst may share bytes with src when offset(dst) <= offset(src) +
        max_lead (a streaming op writing dst as it reads src)."""
        self._check(self._lib.usmp_problem_add_overlap(
            self._handle(), self._buffer(src), self._buffer(dst),
            _i64("max_lead", max_lead)))

    # files
    @classmethod
    def read(cls, path, format="auto", capacity=None):
        """A problem from a JSON file or a MiniMalloc CSV (capacity: the size
        limit of the CSV's single pool, in bytes: an int or a string such as
        "256K", as `usmp plan --capacity` takes it; refused for JSON, whose
        pools carry their own size_limit)."""
        cap = _csv_capacity(path, format, capacity)
        p = cls()
        p._check(p._lib.usmp_problem_read(p._h, _bytes(str(path)),
                                          _format(format), cap))
        return p

    @classmethod
    def parse(cls, data, name="<string>", format="json", capacity=None):
        """A problem from the text `data` (str or bytes) in `format`, as
        read() reads a file; `name` is the file name its messages give."""
        p = cls()
        raw = _bytes(data, sized=True)
        cap = _csv_capacity(name, format, capacity)
        p._check(p._lib.usmp_problem_parse(p._h, raw, len(raw), _bytes(name),
                                           _format(format), cap))
        return p

    def write(self, path, format="auto"):
        """Write the problem as JSON or, for one pool, MiniMalloc CSV
        ("json", "csv" or "auto", the default: CSV for a path ending in
        .csv, else JSON, as `usmp plan` writes)."""
        self._check(self._lib.usmp_problem_write(
            self._handle(), _bytes(str(path)), _format(format)))

    # lower bounds
    @property
    def group_count(self):
        """The number of pool groups (pools that buffers may share are
        bounded together); 0 when the problem cannot be prepared."""
        return self._lib.usmp_problem_prepare_group_count(self._handle())

    def group_bound(self, group):
        """The lower bound, in bytes, of pool group `group`."""
        return self._lib.usmp_problem_prepare_group_bound(
            self._handle(), _index("group", group))

    def pool_group(self, pool):
        """The group index of `pool` (name or index)."""
        return self._lib.usmp_problem_prepare_pool_group(self._handle(),
                                                        self._pool(pool))

    def lower_bounds(self):
        """The lower bound of every pool group, by group index."""
        n = self.group_count
        if n == 0:
            # Preparing the problem failed (e.g. a fixed pool that is not
            # among the buffer's candidates): say why instead of [].
            msg = _str(self._lib.usmp_problem_error(self._h))
            if msg:
                raise InvalidError(msg, 1)
        return [self.group_bound(g) for g in range(n)]


# ---- the registry ---------------------------------------------------------

PluginInfo = collections.namedtuple(
    "PluginInfo", "name version license abi path algorithm_count")
Param = collections.namedtuple("Param", "name type default help")
# One of auto's members (usmp_member_info): role "first", "heuristic",
# "search" or "volunteer"; knobs "key=value" on top of its defaults; cost
# one run's time as a multiple of first_fit's (0.0: a search member, or a
# volunteer declaring none); shapes, of "few", "many", "wide", those where
# it is expected to gain; plugin the file of a volunteer, else None.
Member = collections.namedtuple("Member", "role name knobs cost shapes plugin")
_ROLES = {1: "first", 2: "heuristic", 3: "search", 4: "volunteer"}
_SHAPES = {"few": 1 << 0, "many": 1 << 1, "wide": 1 << 2}
Algorithm = collections.namedtuple(
    "Algorithm", "name summary caps capabilities plugin params signature")
Selection = collections.namedtuple("Selection",
                                   "algorithm params rule source")
PluginInfo.__doc__ = """A plugin loaded (Registry.plugins): name, version,
license, abi (major, minor), path (its file), algorithm_count."""
Param.__doc__ = """A knob of an algorithm: name, type ("bool", "i32", "u32",
"i64", "u64", "f64" or "str"), default (as text), help."""
Member.__doc__ = """One of auto's members (Registry.members): role ("first",
"heuristic", "search" or "volunteer"), name, knobs ("key=value" on top of
its defaults), cost (one run's time as a multiple of first_fit's; 0.0 for
a search member or a volunteer declaring none), shapes (of "few", "many",
"wide", those where it is expected to gain), plugin (a volunteer's file,
else None)."""
Algorithm.__doc__ = """An algorithm (Registry.algorithms): name, summary,
caps (the bits), capabilities (their names, as in CAPABILITIES), plugin
(its plugin's name, None for a built-in), params (its knobs, each a
Param), signature (the knobs as text)."""
Selection.__doc__ = """What planning for a target would run
(Registry.select): algorithm, params ("k=v,..."), rule (the rule that
matched) and source ("api", "options", "env" or "default")."""


class Registry(_Guarded):
    """The algorithm plugins found and loaded, and the per-target selection
    rules. Planning and queries are thread-safe; bind/bind_rules/
    clear_bindings must not run concurrently with anything else on it.
    close() while another thread plans with it refuses new calls and frees
    the registry when the calls in flight return."""
    _kind = "registry"
    _destroy, _error = "usmp_registry_destroy", "usmp_registry_error"

    def __init__(self, plugin_path=None, use_env=True, default_dirs=True):
        self._guard_init()
        self._lib = _lib.lib()
        opts = _lib.new(_lib.RegistryOptions)
        if not use_env:
            opts.flags |= _REGISTRY_NO_ENV
        if not default_dirs:
            opts.flags |= _REGISTRY_NO_DEFAULT_DIRS
        if plugin_path:
            if isinstance(plugin_path, os.PathLike):
                plugin_path = os.fspath(plugin_path)  # one directory
            if not isinstance(plugin_path, (str, bytes)):
                plugin_path = ":".join(str(d) for d in plugin_path)
            opts.plugin_path = _bytes(plugin_path)
        h = ctypes.c_void_p()
        st = self._lib.usmp_registry_create(ctypes.byref(opts),
                                            ctypes.byref(h))
        if st:
            _raise(st, "cannot create a registry")
        self._h = h.value

    @property
    def diagnostics(self):
        """"FILE: reason" for every plugin that was skipped."""
        with self._use() as h:
            n = self._lib.usmp_registry_diagnostic_count(h)
            return [_pythonic(_str(self._lib.usmp_registry_diagnostic(h, i)))
                    for i in range(n)]

    def __repr__(self):
        if self._closed():
            return "<usmp.Registry closed>"
        with self._use() as h:
            n = self._lib.usmp_registry_algorithm_count(h)
            m = self._lib.usmp_registry_plugin_count(h)
        return "<usmp.Registry %d algorithm%s, %d plugin%s>" % (
            n, "" if n == 1 else "s", m, "" if m == 1 else "s")

    @property
    def plugins(self):
        """The plugins loaded, each a PluginInfo."""
        with self._use() as h:
            return self._plugins(h)

    def _plugins(self, h):
        out = []
        for i in range(self._lib.usmp_registry_plugin_count(h)):
            info = _lib.new(_lib.PluginInfo)
            if self._lib.usmp_registry_plugin(h, i, ctypes.byref(info)):
                continue
            out.append(PluginInfo(_str(info.name), _str(info.version),
                                  _str(info.license),
                                  (info.abi_major, info.abi_minor),
                                  _str(info.path), info.algorithm_count))
        return out

    def _algorithm_at(self, i):
        """Algorithm i; the caller holds the handle (_use)."""
        info = _lib.new(_lib.AlgorithmInfo)
        self._check(self._lib.usmp_registry_algorithm(self._h, i,
                                                      ctypes.byref(info)))
        params = []
        for k in range(info.param_count):
            pi = _lib.new(_lib.ParamInfo)
            self._check(self._lib.usmp_registry_param(self._h, i, k,
                                                      ctypes.byref(pi)))
            params.append(Param(_str(pi.name), _PARAM_TYPES.get(pi.type, "?"),
                                _str(pi.default_value), _str(pi.help) or ""))
        plugin = None
        if info.plugin != _NONE:
            pl = _lib.new(_lib.PluginInfo)
            if not self._lib.usmp_registry_plugin(self._h, info.plugin,
                                                  ctypes.byref(pl)):
                plugin = _str(pl.name)
        caps = frozenset(n for n, bit in CAPABILITIES.items()
                         if info.caps & bit)
        return Algorithm(_str(info.name), _str(info.summary), info.caps, caps,
                         plugin, tuple(params), _str(info.params) or "")

    @property
    def members(self):
        """auto's portfolio as `usmp list -v` prints it: its own members in
        the order of its policy table, then the plugins' volunteers
        (USMP_CAP_PORTFOLIO), each a Member."""
        out = []
        with self._use() as h:
            for i in range(self._lib.usmp_registry_member_count(h)):
                m = _lib.new(_lib.MemberInfo)
                self._check(self._lib.usmp_registry_member(
                    h, i, ctypes.byref(m)))
                plugin = None
                if m.role == 4 and m.algorithm != _NONE:
                    a = _lib.new(_lib.AlgorithmInfo)
                    p = _lib.new(_lib.PluginInfo)
                    if not self._lib.usmp_registry_algorithm(
                            h, m.algorithm, ctypes.byref(a)) and \
                            a.plugin != _NONE and \
                            not self._lib.usmp_registry_plugin(
                                h, a.plugin, ctypes.byref(p)):
                        plugin = _str(p.path)
                out.append(Member(
                    _ROLES.get(m.role, "?"), _str(m.name),
                    _str(m.knobs) or "", m.cost,
                    frozenset(n for n, bit in _SHAPES.items()
                              if m.shapes & bit), plugin))
        return out

    @property
    def algorithms(self):
        """Every algorithm (built-ins first), with capabilities and knobs."""
        with self._use() as h:
            n = self._lib.usmp_registry_algorithm_count(h)
            return [self._algorithm_at(i) for i in range(n)]

    def algorithm(self, name):
        """The Algorithm named `name` (NotFoundError if none)."""
        i = ctypes.c_uint32()
        with self._use() as h:
            st = self._lib.usmp_registry_find_algorithm(h, _bytes(name),
                                                        ctypes.byref(i))
            if st:
                _raise(st, 'no algorithm named "%s"' % name)
            return self._algorithm_at(i.value)

    def bind(self, pattern, algorithm, params=None):
        """Targets matching the glob `pattern` get `algorithm` with knob
        values `params` ({knob: value} or ["k=v"]). Rules apply in the order
        bound; they take precedence over plan(algorithm=...)."""
        arr, n = _c_strings(_knob_strings(params))
        with self._use() as h:
            self._check(self._lib.usmp_registry_bind(
                h, _bytes(pattern, what="pattern"),
                _bytes(algorithm, what="algorithm"), arr, n))

    def bind_rules(self, rules):
        """Rules in USMP_ALGORITHM syntax: "ethos-u*=exact:time_limit=2;*=best_fit"."""
        with self._use() as h:
            self._check(self._lib.usmp_registry_bind_rules(
                h, _bytes(rules, what="rules")))

    def clear_bindings(self):
        """Drop every rule bound by bind() and bind_rules()."""
        with self._use() as h:
            self._lib.usmp_registry_clear_bindings(h)

    def select(self, target, override=None):
        """What planning for `target` would run, and the rule that says so."""
        sel = _lib.new(_lib.Selection)
        with self._use() as h:
            self._check(self._lib.usmp_registry_select(
                h, _bytes(target or "", what="target"),
                _bytes(override) if override else None, ctypes.byref(sel)))
            return Selection(_str(sel.algorithm), _str(sel.params) or "",
                             _str(sel.rule), _SOURCES.get(sel.source, "?"))

    def plan(self, problem, algorithm=None, params=None, target=None,
             time_limit=0.0, isolate=None, cancel=None):
        """Plan `problem`. algorithm: a spec in rule syntax ("first_fit" or
        "first_fit:order=area") for parts no bound rule decides; params:
        extra knob values for it; target: for parts whose pools name none;
        time_limit: seconds for the whole call, 0 for the default budget
        (1 s for auto, 10 s for other algorithms), math.inf for none;
        isolate: True/False forces plugin calls into / out of a child
        process (None: the library's default); cancel: a Cancel flag
        another thread may set. The GIL is released during the call. Raises
        a UsmpError subclass when no valid plan is found; returned plans are
        verified."""
        if not isinstance(problem, Problem):
            raise TypeError("plan: expected a usmp.Problem, got %r"
                            % (problem,))
        opts = _lib.new(_lib.PlanOptions)
        knobs = _knob_strings(params)
        arr, n = _c_strings(knobs)
        if algorithm:
            opts.algorithm = _bytes(algorithm, what="algorithm")
        if knobs:
            opts.params = arr
            opts.param_count = n
        if target:
            opts.target = _bytes(target, what="target")
        if time_limit is not None and (
                isinstance(time_limit, bool) or
                not isinstance(time_limit, (numbers.Real, decimal.Decimal))):
            raise TypeError("time_limit must be a number of seconds, got %r"
                            % (time_limit,))
        if isolate not in (None, True, False) or isinstance(isolate, int) \
                and not isinstance(isolate, bool):
            raise TypeError("isolate must be True, False or None, got %r"
                            % (isolate,))
        if cancel is not None and not isinstance(cancel, Cancel):
            raise TypeError("cancel must be a usmp.Cancel, got %r" % (cancel,))
        opts.time_limit = float(time_limit or 0.0)
        if math.isnan(opts.time_limit) or opts.time_limit < 0:
            raise InvalidError("time_limit=%r: give seconds (more than 0), 0 "
                               "or None for the default budget (1 s for auto, "
                               "10 s for other algorithms), math.inf for none"
                               % (time_limit,), 1)
        if isolate is True:
            opts.flags |= _PLAN_ISOLATE
        elif isolate is False:
            opts.flags |= _PLAN_NO_ISOLATE
        if cancel is not None:
            opts.cancel = ctypes.pointer(cancel._flag)
        out = ctypes.c_void_p()
        with self._use() as rh, problem._use() as ph:
            st = self._lib.usmp_plan_compute(rh, ph, ctypes.byref(opts),
                                              ctypes.byref(out))
            return Plan._take(problem, ph, out.value, st)


class Cancel:
    """A cancellation flag for plan(..., cancel=flag): flag.set() from any
    thread stops the call at the algorithm's next should_stop() check, in
    this process or in a child process (an anytime algorithm then returns
    its best plan, whose Part.stopped is True; others StoppedError)."""

    def __init__(self):
        self._flag = ctypes.c_int(0)

    def set(self):
        """Ask the calls given this flag to stop."""
        self._flag.value = 1

    def clear(self):
        """Lower the flag, to reuse it for another call."""
        self._flag.value = 0

    def is_set(self):
        """Whether the flag is set."""
        return bool(self._flag.value)


_default = None
_default_lock = threading.Lock()


def default_registry():
    """A registry shared by the module-level plan() (created on first use,
    with USMP_PLUGIN_PATH and the installed plugin directory; created again
    after a close(), e.g. at the end of `with usmp.default_registry()`)."""
    global _default
    with _default_lock:
        if _default is None or _default._closed():
            _default = Registry()
        return _default


def plan(problem, algorithm=None, params=None, target=None, time_limit=0.0,
         isolate=None, cancel=None, registry=None):
    """Plan `problem` with `registry` (default: default_registry()); the
    other arguments are those of Registry.plan."""
    r = registry or default_registry()
    return r.plan(problem, algorithm=algorithm, params=params, target=target,
                  time_limit=time_limit, isolate=isolate, cancel=cancel)


# ---- plans ----------------------------------------------------------------

Placement = collections.namedtuple("Placement", "pool offset")
_Part = collections.namedtuple(
    "Part", "target algorithm params buffer_count size lower_bound "
            "proven_bound optimal group time_ms rule source spill "
            "spill_count spill_largest spill_forced rules_as_conflicts "
            "overrun_by overrun_cause time_limit stopped spill_floor")
Placement.__doc__ = """Where a buffer lies: pool (its name) and offset (bytes
from the pool's start)."""


class Part(_Part):
    """How one independent part of a plan was planned (Plan.parts):
    target, algorithm, params, buffer_count, size (bytes), lower_bound,
    proven_bound, optimal, group, time_ms, rule and source (what chose the
    algorithm), spill, spill_count, spill_largest, spill_forced,
    rules_as_conflicts, overrun_by, overrun_cause, time_limit (seconds, 0.0
    for none), stopped, spill_floor; python/README.md says what each
    means. `ratio`: size / lower_bound, as `usmp plan` prints it."""
    __slots__ = ()

    @property
    def ratio(self):
        """size / lower_bound (1.0 when the bound is 0), as the `ratio` of
        `usmp plan`'s summary: 1.0 is a plan at the lower bound."""
        return self.size / self.lower_bound if self.lower_bound else 1.0


class Plan(_Guarded):
    """A verified plan: `placements` {buffer name: Placement(pool, offset)},
    `offsets` by buffer index, `pool_sizes` {pool: high-water mark},
    `parts` (how each independent part was planned), `size` (the sum)."""
    _kind = "plan"
    _destroy, _error = "usmp_plan_destroy", "usmp_plan_error"
    # Plan.read: what the reading dropped of the file's claims ("" none)
    note = ""

    def __init__(self):
        raise TypeError("plans come from Registry.plan(), usmp.plan() or "
                        "Plan.read()")

    @classmethod
    def _take(cls, problem, ph, handle, status):
        """The plan `handle` of `problem`, whose handle `ph` the caller
        holds (Problem._use)."""
        lib = _lib.lib()
        if not handle:
            raise NoMemoryError("out of memory", 5)
        names = problem._names(ph)
        if status:
            msg = _str(lib.usmp_plan_error(handle))
            why = None
            if status == InfeasibleError.status:
                try:
                    why = _infeasibility(lib, handle, names)
                finally:
                    lib.usmp_plan_destroy(handle)
                err = InfeasibleError(_pythonic(msg) or "infeasible", status)
                err.infeasibility = why
                raise err
            lib.usmp_plan_destroy(handle)
            _raise(status, msg)
        self = object.__new__(cls)
        self._guard_init()
        self._lib, self._h, self._problem = lib, handle, problem
        self._load(names)
        return self

    def _load(self, names):
        lib, h = self._lib, self._h
        pools, buffers = names
        self.placements = {}
        self.offsets = []
        for b, name in enumerate(buffers):
            pool, off = ctypes.c_uint32(), ctypes.c_uint64()
            st = lib.usmp_plan_placement(h, b, ctypes.byref(pool),
                                         ctypes.byref(off))
            if st:
                _raise(st, _str(lib.usmp_plan_error(h)))
            pl = Placement(pools[pool.value], off.value)
            self.placements[name] = pl
            self.offsets.append((pool.value, off.value))
        self.pool_sizes = {name: lib.usmp_plan_pool_size(h, j)
                           for j, name in enumerate(pools)}
        self.size = sum(self.pool_sizes.values())
        self.parts = []
        for i in range(lib.usmp_plan_part_count(h)):
            info = _lib.new(_lib.PartInfo)
            if lib.usmp_plan_part(h, i, ctypes.byref(info)):
                continue
            limit, stopped = ctypes.c_double(), ctypes.c_int()
            if lib.usmp_plan_part_limit(h, i, ctypes.byref(limit),
                                        ctypes.byref(stopped)):
                limit.value, stopped.value = 0.0, 0
            self.parts.append(Part(
                _str(info.target) or "", _str(info.algorithm),
                _str(info.params) or "", info.buffer_count, info.size,
                info.lower_bound, info.proven_bound, bool(info.optimal),
                info.group, info.time_ms, _str(info.rule) or "",
                _PART_SOURCES.get(info.source, "?"), info.spill,
                info.spill_count,
                buffers[info.spill_largest] if info.spill_count else None,
                info.spill_forced, info.rules_as_conflicts,
                _str(info.overrun_by) or "",
                _OVERRUN_CAUSES.get(info.overrun_cause, "unknown"),
                limit.value, bool(stopped.value), info.spill_floor))

    @classmethod
    def read(cls, problem, path, format="auto"):
        """A plan file (JSON or CSV) for `problem`, e.g. to verify it: the
        file's placements are not checked until verify() is called. Its
        parts' figures are the library's, not the file's: a claim the
        library cannot check (a bound proven above its own, "optimal" above
        it) is dropped, and `note` says so (the file, the first claim
        dropped and how many more; "" when none); one the placements
        disprove makes verify() raise (docs/formats.md, "What a plan file
        claims")."""
        if not isinstance(problem, Problem):
            raise TypeError("Plan.read: expected a usmp.Problem first, got "
                            "%r (Plan.read(problem, path))" % (problem,))
        lib = _lib.lib()
        out = ctypes.c_void_p()
        with problem._use() as ph:
            st = lib.usmp_plan_read(ph, _bytes(str(path)), _format(format),
                                    ctypes.byref(out))
            plan = cls._take(problem, ph, out.value, st)
            plan.note = _str(lib.usmp_plan_error(out.value)) or ""
            return plan

    def _same_problem(self, ph, cls):
        """Raise `cls` when the plan's problem gained pools or buffers after
        the plan was made (the library would call it another problem)."""
        lib = self._lib
        n, m = (lib.usmp_problem_pool_count(ph),
                lib.usmp_problem_buffer_count(ph))
        if (n, m) != (len(self.pool_sizes), len(self.offsets)):
            raise cls("the problem changed after this plan was made: it has "
                      "%d pool%s and %d buffer%s, the plan %d and %d: plan "
                      "it again" % (n, "" if n == 1 else "s", m,
                                    "" if m == 1 else "s",
                                    len(self.pool_sizes), len(self.offsets)),
                      cls.status)

    def verify(self):
        """Re-check the plan against its problem (raises InvalidPlanError)."""
        with self._use() as h, self._problem._use() as ph:
            self._same_problem(ph, InvalidPlanError)
            self._check(self._lib.usmp_plan_verify(h, ph))

    def write(self, path, format="auto"):
        """Write the plan ("json", "csv" or "auto", the default: CSV for a
        path ending in .csv, else JSON, as `usmp plan -o` writes). A JSON
        plan's time_ms differs from run to run; the CSV plan has no times
        (docs/formats.md, "Plan, JSON"). write_svg draws it."""
        if str(path).lower().endswith(".svg"):
            raise InvalidError("%s: write() writes a plan as JSON or CSV; "
                               "write_svg(path) draws it" % (path,), 1)
        with self._use() as h, self._problem._use() as ph:
            self._same_problem(ph, InvalidError)
            self._check(self._lib.usmp_plan_write(h, ph, _bytes(str(path)),
                                                  _format(format)))

    def write_svg(self, path):
        """Draw the plan as SVG: time across, address up, a panel per pool."""
        with self._use() as h, self._problem._use() as ph:
            self._same_problem(ph, InvalidError)
            self._check(self._lib.usmp_plan_write_svg(h, ph,
                                                      _bytes(str(path))))

    def __repr__(self):
        return "<usmp.Plan %d buffers, %d bytes, %d part(s)>" % (
            len(self.placements), self.size, len(self.parts))
