# _lib.py — finding libusmp and declaring its C functions and structs for ctypes.
# Nothing here is public; usmp/__init__.py builds the Python API on top.
"""Low-level ctypes declarations of <usmp/usmp.h>.

The library is found, in order, at the path in the environment variable
USMP_LIBRARY; for a package installed by ``meson install``, in the libdir
recorded (relative to the package) in the generated ``_paths.py``; for the
package in a source checkout, in the checkout's ``build/src``; as
``libusmp.so.1`` through the dynamic loader's search path (LD_LIBRARY_PATH,
ld.so.cache); or through ctypes.util.find_library("usmp").
"""

import ctypes
import ctypes.util
import os
import threading

ABI_MAJOR = 1  # the major of <usmp/common.h> this binding was written for
ABI_MINOR = 2  # the oldest minor it needs: it calls 1.2 functions
# Functions of a later minor are declared only when the library has it
# (_PROTOTYPES_BY_MINOR); the calls using them check has_minor() first.

c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_int = ctypes.c_int
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
c_size_t = ctypes.c_size_t
c_double = ctypes.c_double
P = ctypes.POINTER


class RegistryOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("flags", c_uint32),
                ("plugin_path", c_char_p)]


class PluginInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("abi_major", c_uint32),
                ("abi_minor", c_uint32), ("algorithm_count", c_uint32),
                ("name", c_char_p), ("version", c_char_p),
                ("license", c_char_p), ("path", c_char_p)]


class MemberInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("role", c_uint32),
                ("algorithm", c_uint32), ("shapes", c_uint32),
                ("name", c_char_p), ("knobs", c_char_p), ("cost", c_double)]


class AlgorithmInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("caps", c_uint32),
                ("plugin", c_uint32), ("param_count", c_uint32),
                ("name", c_char_p), ("summary", c_char_p),
                ("params", c_char_p)]


class ParamInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("type", c_uint32),
                ("name", c_char_p), ("default_value", c_char_p),
                ("help", c_char_p)]


class Selection(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("source", c_uint32),
                ("algorithm", c_char_p), ("params", c_char_p),
                ("rule", c_char_p)]


class PlanOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("flags", c_uint32),
                ("algorithm", c_char_p), ("params", P(c_char_p)),
                ("param_count", c_uint32), ("reserved", c_uint32),
                ("target", c_char_p), ("time_limit", c_double),
                ("cancel", P(c_int)), ("log_ctx", ctypes.c_void_p)]


class PartInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("buffer_count", c_uint32),
                ("optimal", c_uint32), ("group", c_uint32),
                ("target", c_char_p), ("algorithm", c_char_p),
                ("params", c_char_p), ("size", c_uint64),
                ("lower_bound", c_uint64), ("proven_bound", c_uint64),
                ("time_ms", c_double), ("rule", c_char_p),
                ("source", c_uint32), ("reserved", c_uint32),
                ("spill", c_uint64), ("spill_count", c_uint32),
                ("spill_largest", c_uint32), ("spill_forced", c_uint64),
                ("rules_as_conflicts", c_uint64), ("overrun_by", c_char_p),
                ("overrun_cause", c_uint32), ("reserved2", c_uint32),
                ("spill_floor", c_uint64)]


class Infeasibility(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("kind", c_uint32),
                ("pool", c_uint32), ("group", c_uint32),
                ("limit", c_uint64), ("bound", c_uint64),
                ("step", c_int64), ("total", c_uint64),
                ("buffer_count", c_uint32), ("pool_count", c_uint32),
                ("buffers", P(c_uint32)), ("pools", P(c_uint32)),
                ("move_count", c_uint32), ("reserved", c_uint32),
                ("move_buffers", P(c_uint32)), ("move_pools", P(c_uint32)),
                ("algorithm", c_char_p)]


class PoolInfo(ctypes.Structure):  # ABI 1.3
    _fields_ = [("struct_size", c_uint32), ("target_count", c_uint32),
                ("name", c_char_p), ("size_limit", c_uint64),
                ("alignment", c_uint64)]


class BufferInfo(ctypes.Structure):  # ABI 1.3
    _fields_ = [("struct_size", c_uint32), ("live", c_uint32),
                ("name", c_char_p), ("size", c_uint64),
                ("alignment", c_uint64), ("begin", c_int64),
                ("end", c_int64), ("candidate_count", c_uint32),
                ("fixed_pool", c_uint32), ("fixed_offset", c_uint64)]


# name: (restype, argtypes)
_PROTOTYPES = {
    "usmp_version": (c_char_p, []),
    "usmp_abi_version": (None, [P(c_uint32), P(c_uint32)]),
    "usmp_status_name": (c_char_p, [c_int]),

    "usmp_problem_create": (c_void_p, []),
    "usmp_problem_destroy": (None, [c_void_p]),
    "usmp_problem_error": (c_char_p, [c_void_p]),
    "usmp_problem_add_pool": (c_int, [c_void_p, c_char_p, c_uint64, c_uint64,
                                      P(c_uint32)]),
    "usmp_problem_add_pool_target": (c_int, [c_void_p, c_uint32, c_char_p]),
    "usmp_problem_add_buffer": (c_int, [c_void_p, c_char_p, c_uint64,
                                        c_uint64, P(c_uint32)]),
    "usmp_problem_set_live": (c_int, [c_void_p, c_uint32, c_int64, c_int64]),
    "usmp_problem_add_candidate": (c_int, [c_void_p, c_uint32, c_uint32]),
    "usmp_problem_set_fixed": (c_int, [c_void_p, c_uint32, c_uint32,
                                       c_uint64]),
    "usmp_problem_add_conflict": (c_int, [c_void_p, c_uint32, c_uint32]),
    "usmp_problem_add_overlap": (c_int, [c_void_p, c_uint32, c_uint32,
                                         c_int64]),
    "usmp_problem_pool_count": (c_uint32, [c_void_p]),
    "usmp_problem_buffer_count": (c_uint32, [c_void_p]),
    "usmp_problem_pool_name": (c_char_p, [c_void_p, c_uint32]),
    "usmp_problem_buffer_name": (c_char_p, [c_void_p, c_uint32]),
    "usmp_problem_find_pool": (c_int, [c_void_p, c_char_p, P(c_uint32)]),
    "usmp_problem_find_buffer": (c_int, [c_void_p, c_char_p, P(c_uint32)]),
    "usmp_problem_read": (c_int, [c_void_p, c_char_p, c_int, c_uint64]),
    "usmp_problem_parse": (c_int, [c_void_p, c_char_p, c_size_t, c_char_p,
                                   c_int, c_uint64]),
    "usmp_problem_write": (c_int, [c_void_p, c_char_p, c_int]),
    "usmp_problem_prepare_group_count": (c_uint32, [c_void_p]),
    "usmp_problem_prepare_group_bound": (c_uint64, [c_void_p, c_uint32]),
    "usmp_problem_prepare_pool_group": (c_uint32, [c_void_p, c_uint32]),

    "usmp_registry_create": (c_int, [P(RegistryOptions), P(c_void_p)]),
    "usmp_registry_destroy": (None, [c_void_p]),
    "usmp_registry_error": (c_char_p, [c_void_p]),
    "usmp_registry_diagnostic_count": (c_uint32, [c_void_p]),
    "usmp_registry_diagnostic": (c_char_p, [c_void_p, c_uint32]),
    "usmp_registry_plugin_count": (c_uint32, [c_void_p]),
    "usmp_registry_plugin": (c_int, [c_void_p, c_uint32, P(PluginInfo)]),
    "usmp_registry_algorithm_count": (c_uint32, [c_void_p]),
    "usmp_registry_algorithm": (c_int, [c_void_p, c_uint32,
                                        P(AlgorithmInfo)]),
    "usmp_registry_member_count": (c_uint32, [c_void_p]),
    "usmp_registry_member": (c_int, [c_void_p, c_uint32, P(MemberInfo)]),
    "usmp_registry_find_algorithm": (c_int, [c_void_p, c_char_p,
                                             P(c_uint32)]),
    "usmp_registry_param": (c_int, [c_void_p, c_uint32, c_uint32,
                                    P(ParamInfo)]),
    "usmp_registry_bind": (c_int, [c_void_p, c_char_p, c_char_p,
                                   P(c_char_p), c_uint32]),
    "usmp_registry_bind_rules": (c_int, [c_void_p, c_char_p]),
    "usmp_registry_clear_bindings": (None, [c_void_p]),
    "usmp_registry_select": (c_int, [c_void_p, c_char_p, c_char_p,
                                     P(Selection)]),

    "usmp_plan_compute": (c_int, [c_void_p, c_void_p, P(PlanOptions),
                                  P(c_void_p)]),
    "usmp_plan_read": (c_int, [c_void_p, c_char_p, c_int, P(c_void_p)]),
    "usmp_plan_destroy": (None, [c_void_p]),
    "usmp_plan_status": (c_int, [c_void_p]),
    "usmp_plan_error": (c_char_p, [c_void_p]),
    "usmp_plan_infeasibility": (c_int, [c_void_p, P(Infeasibility)]),
    "usmp_plan_verify": (c_int, [c_void_p, c_void_p]),
    "usmp_plan_placement": (c_int, [c_void_p, c_uint32, P(c_uint32),
                                    P(c_uint64)]),
    "usmp_plan_pool_size": (c_uint64, [c_void_p, c_uint32]),
    "usmp_plan_part_count": (c_uint32, [c_void_p]),
    "usmp_plan_part": (c_int, [c_void_p, c_uint32, P(PartInfo)]),
    "usmp_plan_part_limit": (c_int, [c_void_p, c_uint32, P(c_double),
                                     P(c_int)]),
    "usmp_plan_write": (c_int, [c_void_p, c_void_p, c_char_p, c_int]),
    "usmp_plan_write_svg": (c_int, [c_void_p, c_void_p, c_char_p]),
}

# minor: {name: (restype, argtypes)}, the functions each later minor added.
_PROTOTYPES_BY_MINOR = {
    3: {
        "usmp_problem_pool_info": (c_int, [c_void_p, c_uint32, P(PoolInfo)]),
        "usmp_problem_buffer_info": (c_int, [c_void_p, c_uint32,
                                             P(BufferInfo)]),
        "usmp_problem_pool_target": (c_int, [c_void_p, c_uint32, c_uint32,
                                             P(c_char_p)]),
        "usmp_problem_buffer_candidate": (c_int, [c_void_p, c_uint32,
                                                  c_uint32, P(c_uint32)]),
        "usmp_problem_conflict_count": (c_uint32, [c_void_p]),
        "usmp_problem_conflict": (c_int, [c_void_p, c_uint32, P(c_uint32),
                                          P(c_uint32)]),
        "usmp_problem_overlap_count": (c_uint32, [c_void_p]),
        "usmp_problem_overlap": (c_int, [c_void_p, c_uint32, P(c_uint32),
                                         P(c_uint32), P(c_int64)]),
    },
}

_lock = threading.Lock()
_lib = None


def _beside_path():
    """Where the installed library (from _paths.py) or, in a source
    checkout, the one in its build/src would be."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _paths
        path = os.path.join(here, _paths.LIBDIR_FROM_PACKAGE, _paths.SONAME)
    except ImportError:  # not installed: python/usmp in a source checkout
        path = os.path.join(here, "..", "..", "build", "src", "libusmp.so.1")
    return os.path.normpath(path)


def _beside():
    """_beside_path() when it exists, else None."""
    path = _beside_path()
    return path if os.path.exists(path) else None


def _candidates():
    env = os.environ.get("USMP_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    beside = _beside()
    found = ctypes.util.find_library("usmp")
    return (([beside] if beside else []) + ["libusmp.so.1"]
            + ([found] if found else []))


def _open():
    errors = []
    for name in _candidates():
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            errors.append("%s: %s" % (name, e))
    if not os.environ.get("USMP_LIBRARY") and not _beside():
        errors.insert(0, "%s: no such file" % _beside_path())
    raise OSError("usmp: cannot load libusmp: set USMP_LIBRARY to its path "
                  "(a build directory's src/libusmp.so.1, or the install "
                  "prefix's lib/.../libusmp.so.1); tried " + "; ".join(errors))


def lib():
    """The loaded library with every prototype declared (loaded once)."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        handle, name = _open()
        # The version first: a library of an older minor lacks functions
        # this binding resolves, and should say so by its version.
        try:
            version = handle.usmp_abi_version
        except AttributeError:
            raise OSError("usmp: %s has no usmp_abi_version: not a usmp "
                          "library" % name) from None
        version.restype, version.argtypes = _PROTOTYPES["usmp_abi_version"]
        major, minor = c_uint32(), c_uint32()
        version(ctypes.byref(major), ctypes.byref(minor))
        if major.value != ABI_MAJOR or minor.value < ABI_MINOR:
            raise OSError("usmp: %s implements ABI %d.%d; this binding needs "
                          "%d.%d or a later %d.x" % (name, major.value,
                                                     minor.value, ABI_MAJOR,
                                                     ABI_MINOR, ABI_MAJOR))
        protos = dict(_PROTOTYPES)
        for m, table in _PROTOTYPES_BY_MINOR.items():
            if minor.value >= m:
                protos.update(table)
        for fn, (restype, argtypes) in protos.items():
            try:
                f = getattr(handle, fn)
            except AttributeError:
                raise OSError("usmp: %s has no %s: not a usmp library this "
                              "binding can use" % (name, fn)) from None
            f.restype = restype
            f.argtypes = argtypes
        handle.usmp_library_path = name
        handle.usmp_abi_minor = minor.value
        _lib = handle
        return _lib


def too_old(handle, minor, what):
    """The message saying `what` needs ABI 1.minor when the loaded library
    (handle) is older, else None; the rest of the binding works from
    ABI_MINOR on."""
    if handle.usmp_abi_minor < minor:
        return ("%s needs libusmp ABI %d.%d or later; %s implements %d.%d"
                % (what, ABI_MAJOR, minor, handle.usmp_library_path,
                   ABI_MAJOR, handle.usmp_abi_minor))
    return None


def new(struct):
    """A zero-filled struct with struct_size set, as the API asks."""
    s = struct()
    s.struct_size = ctypes.sizeof(struct)
    return s
