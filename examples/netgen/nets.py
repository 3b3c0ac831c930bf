# Owns the network descriptions: layer shapes of MobileNetV2, ResNet-50 and
# BERT-base, recorded as ops on a Graph (inference; activations only).
"""Networks described by their layer shapes.

Sources of the shapes (also listed in examples/README.md):

* MobileNetV2 -- Sandler, Howard, Zhu, Zhmoginov, Chen, "MobileNetV2:
  Inverted Residuals and Linear Bottlenecks", CVPR 2018, Table 2: a 3x3
  stride-2 conv to 32 channels, then 17 bottlenecks given as rows
  (t, c, n, s) = expansion, output channels, repeats, first stride; then a
  1x1 conv to 1280, 7x7 average pool and a 1000-way classifier.  Width
  multiplier 1.0, 224x224 input.  Block numbering follows the Keras
  application (block0 = the t=1 bottleneck, block1..block16 the others).
  As in TFLite int8 models, ReLU6 is fused into the convolutions, padding is
  SAME, and a residual Add joins every stride-1 block whose input and output
  channels agree.
* ResNet-50 -- He, Zhang, Ren, Sun, "Deep Residual Learning for Image
  Recognition", 2015, Table 1 (50-layer column): 7x7/2 conv 64, 3x3/2 max
  pool, bottleneck stages conv2_x..conv5_x = [1x1 64, 3x3 64, 1x1 256] x 3,
  [128, 128, 512] x 4, [256, 256, 1024] x 6, [512, 512, 2048] x 3, average
  pool, 1000-way fc.  The stride-2 of a stage sits on its 3x3 conv (the
  "v1.5" variant of torchvision); the first block of each stage has a 1x1
  projection shortcut.  ReLU is fused into the conv / add before it.
* BERT-base -- Devlin, Chang, Lee, Toutanova, "BERT: Pre-training of Deep
  Bidirectional Transformers for Language Understanding", 2018, section 3:
  L=12 layers, H=768 hidden, A=12 heads (head size 64), feed-forward 4H =
  3072; WordPiece vocabulary 30522 (of the released model), 512 positions.
  Per layer: Q, K, V projections, per head scores = Q K^T, softmax,
  context = P V, concat, output projection, residual add, LayerNorm, FF1,
  GELU, FF2, residual add, LayerNorm.

Sizes are bytes = elements x element size (the Graph's elem_bytes: 1 for
int8 inference, 4 for fp32).
"""

__all__ = ["MBV2_BOTTLENECKS", "conv_out", "mobilenet_v2", "resnet50",
           "RESNET50_STAGES", "BERT_BASE", "bert_layer", "bert_encoder",
           "cmsis_nn_scratch_mve"]

# Sandler et al. 2018, Table 2: (t, c, n, s) per bottleneck sequence.
MBV2_BOTTLENECKS = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]

# He et al. 2015, Table 1, 50-layer: (bottleneck width, output, blocks, stride)
RESNET50_STAGES = [
    (64, 256, 3, 1),
    (128, 512, 4, 2),
    (256, 1024, 6, 2),
    (512, 2048, 3, 2),
]

# Devlin et al. 2018: BERT-base.
BERT_BASE = {"layers": 12, "hidden": 768, "heads": 12, "ff": 3072,
             "vocab": 30522, "positions": 512}


def conv_out(size, stride):
    """Output extent of a SAME-padded conv / pool: ceil(size / stride)."""
    return (size + stride - 1) // stride


def cmsis_nn_scratch_mve(kind, cin, kh=1, kw=1, stride=1):
    """Scratch bytes a CMSIS-NN s8 kernel asks for on an MVE (Helium) core
    such as the Cortex-M55, after the get_buffer_size functions of CMSIS-NN
    (as mirrored in TVM's relay/backend/contrib/cmsisnn/buffer_size.cc):

    * depthwise conv (channel multiplier 1, dilation 1, batch 1), the "opt"
      kernel: 4 * CH_IN_BLOCK_MVE * kw * kh bytes, CH_IN_BLOCK_MVE = 124;
    * conv, not 1x1/stride 1/pad 0: 4 im2col columns of
      ceil(cin * kw * kh / 8) * 8 int8 each;
    * 1x1 stride-1 conv, fully connected, average pool, add, softmax: 0.
    """
    if kind == "dw":
        return 4 * 124 * kw * kh
    if kind == "conv":
        if kh == 1 and kw == 1 and stride == 1:
            return 0
        return 4 * ((cin * kw * kh + 7) // 8) * 8
    return 0


def _scratch(name, size):
    return [(name, None, None, size)] if size > 0 else []


def mobilenet_v2(g, x, hw=224, alpha_channels=None, prefix="", scratch=None,
                 classes=1000, softmax=True):
    """Record MobileNetV2 1.0 on graph g, reading input tensor x (hw x hw x 3).

    scratch: None, or a function like cmsis_nn_scratch_mve giving per-op
    kernel scratch bytes.  Returns the last tensor (softmax or logits).
    """
    P = prefix
    h = conv_out(hw, 2)
    c = 32
    s = scratch("conv", 3, 3, 3, 2) if scratch else 0
    (y,) = g.op(P + "conv1", [x], [(P + "conv1.out", (h, h, c))],
                _scratch(P + "conv1.scratch", s))
    block = 0
    for t, cout, n, stride in MBV2_BOTTLENECKS:
        for i in range(n):
            st = stride if i == 0 else 1
            B = "%sblock%d." % (P, block)
            inp = y
            cexp = c * t
            if t != 1:
                (y,) = g.op(B + "expand", [y], [(B + "expand.out", (h, h, cexp))])
            ho = conv_out(h, st)
            s = scratch("dw", cexp, 3, 3, st) if scratch else 0
            (y,) = g.op(B + "dw", [y], [(B + "dw.out", (ho, ho, cexp))],
                        _scratch(B + "dw.scratch", s))
            (y,) = g.op(B + "project", [y], [(B + "project.out", (ho, ho, cout))])
            if st == 1 and c == cout:
                # element-wise add: both inputs stream into the output in order
                (y,) = g.op(B + "add", [inp, y], [(B + "add.out", (ho, ho, cout))],
                            stream=[(inp, 0), (y, 0)])
            h = ho
            c = cout
            block += 1
    (y,) = g.op(P + "conv_last", [y], [(P + "conv_last.out", (h, h, 1280))])
    (y,) = g.op(P + "pool", [y], [(P + "pool.out", (1, 1, 1280))])
    (y,) = g.op(P + "fc", [y], [(P + "fc.out", (classes,))])
    if softmax:
        (y,) = g.op(P + "softmax", [y], [(P + "softmax.out", (classes,))],
                    stream=[(y, 0)])
    return y


def resnet50(g, x, hw=224, prefix="", im2col=True, classes=1000):
    """Record ResNet-50 on g reading x (hw x hw x 3).  With im2col, every
    conv that is not 1x1/stride 1 gets a scratch buffer holding its whole
    im2col matrix (Hout*Wout x kh*kw*Cin elements), as GEMM-based CPU
    runtimes allocate.  Returns the softmax output."""
    P = prefix
    eb = g.elem_bytes

    def conv(name, t, hin, cin, cout, k, st):
        ho = conv_out(hin, st)
        sc = []
        if im2col and not (k == 1 and st == 1):
            sc = [(name + ".im2col", None, None, ho * ho * k * k * cin * eb)]
        (y,) = g.op(name, [t], [(name + ".out", (ho, ho, cout))], sc)
        return y, ho

    y, h = conv(P + "conv1", x, hw, 3, 64, 7, 2)
    ho = conv_out(h, 2)
    (y,) = g.op(P + "maxpool", [y], [(P + "maxpool.out", (ho, ho, 64))])
    h, c = ho, 64
    for si, (w, cout, n, stride) in enumerate(RESNET50_STAGES):
        for b in range(n):
            st = stride if b == 0 else 1
            B = "%sl%d.%d." % (P, si + 1, b)
            inp = y
            y, _ = conv(B + "conv1", inp, h, c, w, 1, 1)
            y, ho = conv(B + "conv2", y, h, w, w, 3, st)
            y, _ = conv(B + "conv3", y, ho, w, cout, 1, 1)
            sc = inp
            if b == 0:
                sc, _ = conv(B + "downsample", inp, h, c, cout, 1, st)
            (y,) = g.op(B + "add", [sc, y], [(B + "add.out", (ho, ho, cout))],
                        stream=[(sc, 0), (y, 0)])
            h, c = ho, cout
    (y,) = g.op(P + "avgpool", [y], [(P + "avgpool.out", (1, 1, c))])
    (y,) = g.op(P + "fc", [y], [(P + "fc.out", (classes,))])
    (y,) = g.op(P + "softmax", [y], [(P + "softmax.out", (classes,))],
                stream=[(y, 0)])
    return y


def bert_layer(g, x, S, cfg, P):
    """One encoder layer on x (S x H).  Returns the layer output."""
    H, A, F = cfg["hidden"], cfg["heads"], cfg["ff"]
    d = H // A
    (q,) = g.op(P + "q", [x], [(P + "q.out", (S, H))])
    (k,) = g.op(P + "k", [x], [(P + "k.out", (S, H))])
    (v,) = g.op(P + "v", [x], [(P + "v.out", (S, H))])
    ctx = []
    for a in range(A):
        Hh = "%sh%d." % (P, a)
        (s,) = g.op(Hh + "scores", [q, k], [(Hh + "scores", (S, S))])
        (p,) = g.op(Hh + "softmax", [s], [(Hh + "probs", (S, S))],
                    stream=[(s, 0)])
        (c,) = g.op(Hh + "context", [p, v], [(Hh + "context", (S, d))])
        ctx.append(c)
    (c,) = g.op(P + "concat", ctx, [(P + "concat.out", (S, H))])
    (o,) = g.op(P + "attn_out", [c], [(P + "attn_out.out", (S, H))])
    (h1,) = g.op(P + "add1", [x, o], [(P + "add1.out", (S, H))],
                 stream=[(x, 0), (o, 0)])
    (n1,) = g.op(P + "ln1", [h1], [(P + "ln1.out", (S, H))], stream=[(h1, 0)])
    (f1,) = g.op(P + "ff1", [n1], [(P + "ff1.out", (S, F))])
    (ge,) = g.op(P + "gelu", [f1], [(P + "gelu.out", (S, F))], stream=[(f1, 0)])
    (f2,) = g.op(P + "ff2", [ge], [(P + "ff2.out", (S, H))])
    (h2,) = g.op(P + "add2", [n1, f2], [(P + "add2.out", (S, H))],
                 stream=[(n1, 0), (f2, 0)])
    (n2,) = g.op(P + "ln2", [h2], [(P + "ln2.out", (S, H))], stream=[(h2, 0)])
    return n2


def bert_encoder(g, S=128, cfg=BERT_BASE, prefix="", layers=None, labels=2):
    """BERT-base inference for one sequence of S tokens: token ids (int32)
    -> embeddings (word + position + type, fused gather-add) -> LayerNorm
    -> layers -> pooler (first token, dense, tanh) -> classifier."""
    P = prefix
    H = cfg["hidden"]
    L = cfg["layers"] if layers is None else layers
    ids = g.input(P + "token_ids", (S,), 4)
    (e,) = g.op(P + "embed", [ids], [(P + "embed.out", (S, H))])
    (x,) = g.op(P + "embed_ln", [e], [(P + "embed_ln.out", (S, H))],
                stream=[(e, 0)])
    for l in range(L):
        x = bert_layer(g, x, S, cfg, "%sL%d." % (P, l))
    (cls,) = g.op(P + "pooler", [x], [(P + "pooler.out", (H,))])
    (y,) = g.op(P + "classifier", [cls], [(P + "logits", (labels,))])
    return y
