# Owns the network-to-problem model: tensors, ops in execution order, live
# ranges, overlap rules, usmp problem dicts, lower bounds and file writers.
"""Turn an operator graph, recorded in execution order, into a usmp problem.

A Graph records ops in a topological execution order: the op recorded i-th
runs at step i.  A tensor is live from the step of the op that produces it to
one past the last op that reads it (half-open ``[begin, end)``).  Graph inputs
are live from step 0, graph outputs until the end (``end = number of ops``).
A tensor nobody reads lives one step.  Scratch buffers of an op live during
that op's step only.

Overlap rules ``(src, dst, max_lead=0)`` are proposed by ops that stream an
input to an output of the same size in the same order (element-wise ops,
residual adds, row-wise softmax / layer norm).  A proposal is kept only when
it is genuinely safe: the op must be the last reader of ``src`` (``src`` dies
at that op), ``src`` must not be a graph output, and ``src`` and ``dst`` must
have the same size and share a candidate pool.

Python 3 standard library only.
"""

import json

__all__ = ["Tensor", "Graph", "problem_lower_bounds", "write_json",
           "dumps_problem", "prod"]


def prod(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


class Tensor:
    """One planned buffer.  ``begin``/``last`` are op steps."""
    __slots__ = ("name", "size", "begin", "last", "is_input", "is_output",
                 "pools", "alignment", "fixed", "shape", "uses", "rg")

    def __init__(self, name, size, begin, shape=None):
        if size <= 0:
            raise ValueError("%s: size must be positive, got %r" % (name, size))
        self.name = name
        self.size = int(size)
        self.begin = begin     # step of the producing op (0 for inputs)
        self.last = -1         # last step that reads it (-1: nobody)
        self.is_input = False
        self.is_output = False
        self.pools = None      # candidate pool names, None = graph default
        self.alignment = None  # None = graph default
        self.fixed = None      # (pool, offset) or None
        self.shape = shape
        self.uses = 0          # number of reads
        self.rg = False        # requires grad (training graphs)

    def __repr__(self):
        return "Tensor(%s, %d)" % (self.name, self.size)


class Graph:
    """Ops recorded in execution order; see the module docstring."""

    def __init__(self, elem_bytes=1, alignment=1, pools=None):
        self.elem_bytes = elem_bytes
        self.alignment = alignment
        self.pools = pools          # default candidate pools (None = all)
        self.tensors = []
        self.op_names = []
        self._names = set()
        self._rules = []            # (src, dst, step, max_lead)

    # -- building ---------------------------------------------------------

    @property
    def step(self):
        """The step the next recorded op will run at."""
        return len(self.op_names)

    def _new(self, name, shape, elem_bytes, begin, size=None):
        if name in self._names:
            raise ValueError("duplicate tensor name %r" % name)
        self._names.add(name)
        if size is None:
            eb = self.elem_bytes if elem_bytes is None else elem_bytes
            size = prod(shape) * eb
        t = Tensor(name, size, begin, tuple(shape) if shape else None)
        self.tensors.append(t)
        return t

    def input(self, name, shape, elem_bytes=None, size=None):
        """A graph input: live from step 0."""
        t = self._new(name, shape, elem_bytes, 0, size)
        t.is_input = True
        return t

    def output(self, t):
        """Mark t as a graph output: live until the end."""
        t.is_output = True
        return t

    def op(self, name, inputs, outputs=(), scratch=(), stream=()):
        """Record one op at the next step.

        inputs:  tensors read (each must already exist).
        outputs: specs ``(name, shape[, elem_bytes])`` or ``(name, None,
                 None, size)``; returns the new tensors in order.
        scratch: specs like outputs, live during this step only.
        stream:  pairs ``(src, dst_index)``: input tensor ``src`` is
                 streamed in order into ``outputs[dst_index]`` (element-wise
                 or row-wise); becomes an overlap rule if safe.
        """
        s = len(self.op_names)
        self.op_names.append(name)
        for t in inputs:
            if t.begin > s:
                raise ValueError("%s reads %s before it exists" % (name, t.name))
            if t.last < s:
                t.last = s
            t.uses += 1
        outs = []
        for spec in outputs:
            outs.append(self._spec(spec, s))
        for spec in scratch:
            t = self._spec(spec, s)
            t.last = s
        for src, di in stream:
            self._rules.append((src, outs[di], s, 0))
        return outs

    def _spec(self, spec, s):
        name, shape = spec[0], spec[1]
        eb = spec[2] if len(spec) > 2 else None
        size = spec[3] if len(spec) > 3 else None
        return self._new(name, shape or (), eb, s, size)

    # -- results ----------------------------------------------------------

    def live(self, t):
        """Half-open live range [begin, end) of tensor t."""
        n = len(self.op_names)
        b = 0 if t.is_input else t.begin
        if t.is_output:
            e = n
        elif t.last >= 0:
            e = t.last + 1
        else:
            e = b + 1
        if e <= b:
            e = b + 1
        return b, e

    def _cands(self, t):
        return t.pools if t.pools is not None else self.pools

    def rules(self):
        """The safe overlap rules, as (src, dst, max_lead)."""
        out = []
        for src, dst, s, lead in self._rules:
            if src.last != s or src.is_output or src.fixed or dst.fixed:
                continue
            if src.size != dst.size:
                continue
            a, b = self._cands(src), self._cands(dst)
            if a is not None and b is not None and not set(a) & set(b):
                continue
            out.append((src, dst, lead))
        return out

    def problem(self, pools=None, conflicts=None):
        """The usmp problem as a dict in the JSON format (docs/formats.md)."""
        p = {"usmp": 1}
        if pools:
            p["pools"] = pools
        bufs = []
        for t in self.tensors:
            b = {"name": t.name, "size": t.size}
            al = t.alignment if t.alignment is not None else self.alignment
            if al and al > 1:
                b["alignment"] = al
            b["live"] = list(self.live(t))
            c = self._cands(t)
            if t.fixed:
                # name the pool as the only candidate too, so no reader
                # takes "no candidates" for "every pool"
                b["pools"] = [t.fixed[0]]
                b["fixed"] = {"pool": t.fixed[0], "offset": t.fixed[1]}
            elif c:
                b["pools"] = list(c)
            bufs.append(b)
        p["buffers"] = bufs
        if conflicts:
            p["conflicts"] = conflicts
        rl = [{"src": s.name, "dst": d.name, "max_lead": lead}
              for s, d, lead in self.rules()]
        if rl:
            p["overlaps"] = rl
        return p


# -- bounds -----------------------------------------------------------------

def _groups(problem):
    """Union-find of buffers over shared candidate pools: buffer -> group."""
    pools = [q["name"] for q in problem.get("pools", [])] or ["default"]
    parent = {q: q for q in pools}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    cand = []
    for b in problem["buffers"]:
        if "fixed" in b:
            c = [b["fixed"]["pool"]]
        else:
            c = b.get("pools") or pools
        cand.append(c)
        r = find(c[0])
        for q in c[1:]:
            parent[find(q)] = r
    roots = {}
    gid = []
    for c in cand:
        r = find(c[0])
        gid.append(roots.setdefault(r, len(roots)))
    group_pools = {}
    for q in pools:
        r = find(q)
        if r in roots:
            group_pools.setdefault(roots[r], []).append(q)
    return gid, group_pools


def _rule_share(ssrc, sdst, lead):
    """Most bytes a rule pair can share (dst at or below src + lead)."""
    if lead >= 0:
        return min(ssrc, sdst)
    return max(0, min(sdst + lead, ssrc))


def problem_lower_bounds(problem):
    """Per group: the largest total size alive at once (plain), the same
    less what overlap rules alive then could share (docs/design.md, "Lower bound"), the
    pools of the group and the buffer count.  Returns a list of dicts."""
    bufs = problem["buffers"]
    gid, gpools = _groups(problem)
    ng = len(gpools)
    ev = [[] for _ in range(ng)]
    for i, b in enumerate(bufs):
        lo, hi = b["live"]
        ev[gid[i]].append((lo, b["size"]))
        ev[gid[i]].append((hi, -b["size"]))
    index = {b["name"]: i for i, b in enumerate(bufs)}
    share = [{} for _ in range(ng)]  # time -> bytes shareable at that time
    for r in problem.get("overlaps", []):
        i, j = index[r["src"]], index[r["dst"]]
        if gid[i] != gid[j]:
            continue
        lo = max(bufs[i]["live"][0], bufs[j]["live"][0])
        hi = min(bufs[i]["live"][1], bufs[j]["live"][1])
        sh = _rule_share(bufs[i]["size"], bufs[j]["size"], r["max_lead"])
        for t in range(lo, hi):
            d = share[gid[i]]
            d[t] = d.get(t, 0) + sh
    out = []
    for g in range(ng):
        e = sorted(ev[g])   # at one time, ends (negative) sort before starts
        cur = best = 0
        for _, d in e:
            cur += d
            if cur > best:
                best = cur
        big = max((b["size"] for i, b in enumerate(bufs) if gid[i] == g),
                  default=0)
        ov = best
        if share[g]:
            ov = max(_bound_with_shares(e, share[g]), big)
        out.append({"group": g, "pools": gpools[g],
                    "buffers": sum(1 for x in gid if x == g),
                    "lower_bound": best, "lower_bound_overlap": ov})
    return out


def _bound_with_shares(events, share):
    """max over t of (live sum at t - share[t]), events sorted."""
    times = sorted(set(t for t, _ in events) | set(share))
    best = 0
    cur = 0
    k = 0
    n = len(events)
    for t in times:
        while k < n and events[k][0] <= t:
            cur += events[k][1]
            k += 1
        v = cur - share.get(t, 0)
        if v > best:
            best = v
    return best


# -- writers ----------------------------------------------------------------

def _line(obj):
    return json.dumps(obj, separators=(", ", ": "), sort_keys=False)


def dumps_problem(p):
    """Deterministic JSON text, one pool/buffer/rule per line."""
    parts = ['{"usmp": %d' % p.get("usmp", 1)]
    for key in ("pools", "buffers", "conflicts", "overlaps"):
        if key not in p:
            continue
        items = p[key]
        body = ",\n  ".join(_line(x) for x in items)
        parts.append(',\n "%s": [\n  %s]' % (key, body))
    parts.append("}\n")
    return "".join(parts)


def write_json(path, p):
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps_problem(p))
