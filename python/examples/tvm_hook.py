# tvm_hook.py — the shape of a TVM USMP custom-algorithm hook backed by usmp:
# TVM-style BufferInfo/PoolInfo in, {BufferInfo: PoolAllocation} out.
"""A TVM USMP custom algorithm that delegates to usmp.

TVM's unified static memory planner (tir.usmp) calls an algorithm with the
buffers of a whole program as BufferInfo objects (name_hint, size_bytes,
pool_candidates, alignment, conflicts) and the memory pressure, and expects a
map from each BufferInfo to a PoolAllocation(pool_info, byte_offset). TVM has
no live ranges at that point: liveness arrives as the conflict graph, so the
hook hands usmp explicit conflict edges.

TVM is not needed to run this file; the stand-in classes below carry the same
attribute names. With TVM installed, register the hook as

    import tvm
    tvm.register_func("tir.usmp.algo.usmp", usmp_algorithm)

and compile with the pass config {"tir.usmp.enable": True,
"tir.usmp.custom_algorithm": "usmp"}: TVM looks the name up as the global
function "tir.usmp.algo." + name and calls it with the BufferInfo array and
the memory pressure. ("tir.usmp.algorithm" only picks TVM's own built-ins.)

Run it directly for a small demonstration:  python3 tvm_hook.py
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import usmp  # noqa: E402


# ---- stand-ins for tvm.ir.memory_pools / tvm.tir.usmp ----------------------

class PoolInfo:
    """tvm.ir.memory_pools.PoolInfo: size_hint_bytes -1 means unbounded."""

    def __init__(self, pool_name, size_hint_bytes=-1, targets=()):
        self.pool_name = pool_name
        self.size_hint_bytes = size_hint_bytes
        self.targets = list(targets)

    def __repr__(self):
        return "PoolInfo(%r)" % self.pool_name


class BufferInfo:
    """tvm.tir.usmp.BufferInfo. `conflicts` is filled after construction,
    as TVM does, because the graph is cyclic."""

    def __init__(self, name_hint, size_bytes, pool_candidates, alignment=1):
        self.name_hint = name_hint
        self.size_bytes = size_bytes
        self.pool_candidates = list(pool_candidates)
        self.alignment = alignment
        self.conflicts = []

    def set_conflicts(self, conflicts):
        self.conflicts = list(conflicts)

    def __repr__(self):
        return "BufferInfo(%r)" % self.name_hint


class PoolAllocation:
    """tvm.tir.usmp.PoolAllocation."""

    def __init__(self, pool_info, byte_offset):
        self.pool_info = pool_info
        self.byte_offset = byte_offset

    def __repr__(self):
        return "PoolAllocation(%s, %d)" % (self.pool_info.pool_name,
                                           self.byte_offset)


# ---- the hook -------------------------------------------------------------

def usmp_algorithm(buffer_info_arr, memory_pressure=0, algorithm=None,
                   time_limit=0.0, registry=None):
    """Plan TVM BufferInfos with usmp. `algorithm` is a usmp spec
    ("best_fit", "exact:time_limit=2"); None leaves the choice to the
    registry's rules (USMP_ALGORITHM, else the auto portfolio).
    `memory_pressure` is TVM's lower bound; usmp computes its own (they
    agree when TVM's conflicts come from liveness) and it is only checked.
    Raises usmp.InfeasibleError when the pools' size hints cannot hold the
    buffers."""
    problem = usmp.Problem()
    pools = {}  # id(PoolInfo) -> (pool index, PoolInfo)
    index = {}  # id(BufferInfo) -> buffer index
    for info in buffer_info_arr:
        for pool in info.pool_candidates:
            if id(pool) in pools:
                continue
            limit = None if pool.size_hint_bytes in (None, -1) \
                else int(pool.size_hint_bytes)
            j = problem.add_pool(pool.pool_name, size_limit=limit,
                                 targets=getattr(pool, "targets", ()))
            pools[id(pool)] = (j, pool)
    by_index = [pool for _, (_, pool) in sorted(
        pools.items(), key=lambda kv: kv[1][0])]
    for info in buffer_info_arr:
        if id(info) in index:
            raise usmp.InvalidError('buffer "%s" is listed twice'
                                    % info.name_hint, 1)
        b = problem.add_buffer(info.name_hint, int(info.size_bytes),
                               alignment=int(info.alignment or 1),
                               pools=[pools[id(p)][0]
                                      for p in info.pool_candidates])
        index[id(info)] = b
    for info in buffer_info_arr:
        a = index[id(info)]
        for other in info.conflicts:
            b = index.get(id(other))
            if b is None:
                raise usmp.InvalidError(
                    'buffer "%s" conflicts with "%s", which is not among '
                    'the buffers to plan' % (info.name_hint,
                                             other.name_hint), 1)
            if a < b:  # TVM lists each edge on both ends
                problem.add_conflict(a, b)

    plan = usmp.plan(problem, algorithm=algorithm, time_limit=time_limit,
                     registry=registry)
    result = {}
    for info in buffer_info_arr:
        pool, offset = plan.offsets[index[id(info)]]
        result[info] = PoolAllocation(by_index[pool], offset)
    return result


def _demo():
    sram = PoolInfo("sram", size_hint_bytes=96 * 1024, targets=["ethos-u55"])
    dram = PoolInfo("dram", targets=["ethos-u55"])
    sizes = [("input", 32768), ("conv1", 65536), ("conv2", 32768),
             ("conv3", 32768), ("add", 32768)]
    bufs = [BufferInfo(n, s, [sram, dram], alignment=16) for n, s in sizes]
    # A chain with a skip connection: each buffer overlaps its neighbours,
    # conv2 also lives until add.
    edges = [(0, 1), (1, 2), (2, 3), (2, 4), (3, 4)]
    for b in bufs:
        b.set_conflicts(bufs[j] for i, j in edges if bufs[i] is b)
        b.conflicts += [bufs[i] for i, j in edges if bufs[j] is b]
    allocations = usmp_algorithm(bufs, algorithm="best_fit")
    for b in bufs:
        print("%-6s -> %r" % (b.name_hint, allocations[b]))


if __name__ == "__main__":
    _demo()
