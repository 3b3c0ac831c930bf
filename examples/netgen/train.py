# Owns training-step graphs: forward ops that save tensors for backward, a
# generic reverse pass (activation and parameter gradients), micro-batches.
"""One training step of a BERT-base-shaped encoder, fp32, as a usmp problem.

Forward ops are recorded with the tensors their backward needs ("saved"),
so a forward activation stays live until the backward op that reads it.
The reverse pass walks the forward ops backwards and records one backward
op each:

* it reads the gradient of the op's output, the saved tensors, and any
  gradient buffer it accumulates into;
* it writes a new gradient buffer for each input that needs one and has
  none yet; later contributions (a tensor read by several ops: a layer
  input feeds Q, K, V and the residual add) accumulate in place into it;
* an add passes its output gradient on unchanged: an input read only by
  the add takes the same buffer (an alias, as autograd engines do); an
  input read elsewhere too gets a copy, or has it accumulated;
* a concat's input gradients are views (aliases) of the output gradient;
* weight gradients are parameter-sized buffers made by the first
  micro-batch's backward op and accumulated by the later ones (gradient
  accumulation); one optimizer step at the end reads them all.  Optimizer
  state (e.g. Adam moments) and the parameters themselves persist across
  steps and are not planned.

Element-wise ops propose overlap rules as in inference; the Graph keeps
only those whose input dies at the op, which in training leaves the
softmax (its input scores are not saved) and the adds' inputs that no
backward op reads.  Dropout is left out (no masks).  The step runs ``micro_batches`` micro-
batches of ``batch`` sequences of ``seq`` tokens, each loaded by its own op.
"""

from .graph import Graph
from .nets import BERT_BASE

__all__ = ["Trainer", "bert_training_step"]


class _Rec:
    __slots__ = ("name", "kind", "inputs", "outputs", "saved", "params")

    def __init__(self, name, kind, inputs, outputs, saved, params):
        self.name = name
        self.kind = kind
        self.inputs = inputs
        self.outputs = outputs
        self.saved = saved
        self.params = params


class Trainer:
    """Records forward ops on a Graph and derives their backward ops."""

    def __init__(self, g):
        self.g = g
        self.recs = []
        self.pgrad = {}      # parameter key -> gradient tensor

    def fwd(self, name, kind, inputs, outputs, saved=(), params=(),
            stream=()):
        """saved: tensors among the inputs, or ints (indices of outputs).
        params: (key, bytes) of the weights the op uses."""
        outs = self.g.op(name, inputs, outputs, stream=stream)
        rg = bool(params) or any(t.rg for t in inputs)
        for o in outs:
            o.rg = rg
        sv = [outs[s] if isinstance(s, int) else s for s in saved]
        self.recs.append(_Rec(name, kind, list(inputs), outs, sv,
                              list(params)))
        return outs

    def backward(self, seed):
        """Record the backward ops of the recorded forward ops, in reverse.
        seed: {tensor: gradient tensor} for the outputs the loss starts
        from.  Clears the forward record (ready for the next micro-batch)."""
        g = self.g
        fwd_uses = {}
        for r in self.recs:
            for t in r.inputs:
                fwd_uses[t] = fwd_uses.get(t, 0) + 1
        grad = dict(seed)
        for r in reversed(self.recs):
            dys = []
            for o in r.outputs:
                d = grad.get(o)
                if d is not None and d not in dys:
                    dys.append(d)
            if not dys:
                continue
            reads = dys + [t for t in r.saved]
            specs, targets = [], []
            for inp in r.inputs:
                if not inp.rg or inp in targets:
                    continue
                have = grad.get(inp)
                if have is not None:
                    reads.append(have)          # accumulate in place
                elif r.kind in ("add", "concat") and fwd_uses.get(inp, 0) == 1:
                    grad[inp] = dys[0]          # alias / view
                else:
                    specs.append((inp.name + ".grad", None, None, inp.size))
                    targets.append(inp)
            for key, size in r.params:
                have = self.pgrad.get(key)
                if have is not None:
                    reads.append(have)
                else:
                    specs.append(("grad." + key, None, None, size))
                    targets.append(key)
            outs = g.op(r.name + ".bwd", reads, specs)
            for tgt, t in zip(targets, outs):
                if isinstance(tgt, str):
                    self.pgrad[tgt] = t
                else:
                    grad[tgt] = t
        self.recs = []

    def optimizer_step(self, name="optimizer.step"):
        grads = [self.pgrad[k] for k in sorted(self.pgrad)]
        self.g.op(name, grads, [])


def _layer(tr, x, B, S, cfg, P, K):
    """One encoder layer, forward.  P prefixes activations, K parameters."""
    H, A, F = cfg["hidden"], cfg["heads"], cfg["ff"]
    d = H // A
    T = B * S
    fl = 4

    def lin(name, inp, cin, cout, shape):
        return tr.fwd(P + name, "linear", [inp], [(P + name + ".out", shape)],
                      saved=[inp],
                      params=[(K + name + ".weight", cin * cout * fl),
                              (K + name + ".bias", cout * fl)])[0]

    q = lin("q", x, H, H, (T, H))
    k = lin("k", x, H, H, (T, H))
    v = lin("v", x, H, H, (T, H))
    ctx = []
    for a in range(A):
        Hh = "%sh%d." % (P, a)
        (s,) = tr.fwd(Hh + "scores", "matmul", [q, k],
                      [(Hh + "scores", (B, S, S))], saved=[q, k])
        (p,) = tr.fwd(Hh + "softmax", "softmax", [s],
                      [(Hh + "probs", (B, S, S))], saved=[0],
                      stream=[(s, 0)])
        (c,) = tr.fwd(Hh + "context", "matmul", [p, v],
                      [(Hh + "context", (T, d))], saved=[p, v])
        ctx.append(c)
    (c,) = tr.fwd(P + "concat", "concat", ctx, [(P + "concat.out", (T, H))])
    o = lin("attn_out", c, H, H, (T, H))
    (h1,) = tr.fwd(P + "add1", "add", [x, o], [(P + "add1.out", (T, H))],
                   stream=[(x, 0), (o, 0)])

    def ln(name, inp):
        return tr.fwd(P + name, "layernorm", [inp],
                      [(P + name + ".out", (T, H)),
                       (P + name + ".stats", (T, 2))],
                      saved=[inp, 1],
                      params=[(K + name + ".gamma", H * fl),
                              (K + name + ".beta", H * fl)])[0]

    n1 = ln("ln1", h1)
    f1 = lin("ff1", n1, H, F, (T, F))
    (ge,) = tr.fwd(P + "gelu", "gelu", [f1], [(P + "gelu.out", (T, F))],
                   saved=[f1], stream=[(f1, 0)])
    f2 = lin("ff2", ge, F, H, (T, H))
    (h2,) = tr.fwd(P + "add2", "add", [n1, f2], [(P + "add2.out", (T, H))],
                   stream=[(n1, 0), (f2, 0)])
    return ln("ln2", h2)


def bert_training_step(micro_batches=1, batch=4, seq=128, layers=None,
                       cfg=BERT_BASE, labels=2):
    """Graph of one fine-tuning step (sequence classification) with
    gradient accumulation over micro_batches.  fp32, 64-byte alignment."""
    g = Graph(elem_bytes=4, alignment=64)
    tr = Trainer(g)
    L = cfg["layers"] if layers is None else layers
    H = cfg["hidden"]
    B, S = batch, seq
    T = B * S
    fl = 4
    loss_sum = None
    for m in range(micro_batches):
        P = "mb%d." % m
        (ids, lab) = g.op(P + "load", [], [(P + "token_ids", (T,), 4),
                                           (P + "labels", (B,), 4)])
        (e,) = tr.fwd(P + "embed", "embedding", [ids],
                      [(P + "embed.out", (T, H))], saved=[ids],
                      params=[("embed.word", cfg["vocab"] * H * fl),
                              ("embed.position", cfg["positions"] * H * fl),
                              ("embed.type", 2 * H * fl)])
        (x,) = tr.fwd(P + "embed_ln", "layernorm", [e],
                      [(P + "embed_ln.out", (T, H)),
                       (P + "embed_ln.stats", (T, 2))],
                      saved=[e, 1],
                      params=[("embed_ln.gamma", H * fl),
                              ("embed_ln.beta", H * fl)])[:1]
        for l in range(L):
            x = _layer(tr, x, B, S, cfg, "%sL%d." % (P, l), "L%d." % l)
        (cls,) = tr.fwd(P + "pooler", "linear", [x],
                        [(P + "pooler.out", (B, H))], saved=[x],
                        params=[("pooler.weight", H * H * fl),
                                ("pooler.bias", H * fl)])
        (lg,) = tr.fwd(P + "classifier", "linear", [cls],
                       [(P + "logits", (B, labels))], saved=[cls],
                       params=[("classifier.weight", H * labels * fl),
                               ("classifier.bias", labels * fl)])
        # cross-entropy: the loss is summed into one scalar over the step;
        # its backward reads logits and labels and writes d(logits).
        ins = [lg, lab] + ([loss_sum] if loss_sum is not None else [])
        outs = [] if loss_sum is not None else [("loss", (1,))]
        r = g.op(P + "loss", ins, outs)
        if loss_sum is None:
            loss_sum = r[0]
        (dlg,) = g.op(P + "loss.bwd", [lg, lab],
                      [(P + "logits.grad", None, None, lg.size)])
        tr.backward({lg: dlg})
    tr.optimizer_step()
    g.output(loss_sum)
    return g
