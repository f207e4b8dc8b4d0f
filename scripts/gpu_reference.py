#!/usr/bin/env python3
"""Reference timings for checking choreo-calibrate-gpu on a GPU machine that has PyTorch.

Not part of Choreo's build or tests: docs/calibration.md says how it was used.

  gpu_reference.py MEASUREMENTS.json OUT.json [--layers] [--attention-sweep] [--no-gemm]

- Every GEMM of MEASUREMENTS.json (choreo-gpu-measurements/1) again through PyTorch (cuBLAS/cuBLASLt
  with PyTorch's own algorithm choice; fp8 through torch._scaled_mm), same shapes and precisions: the
  issue's "within 5 % of the best cuBLAS achieves" is checked against it.
- Causal attention at the document's attention sizes through scaled_dot_product_attention with each
  fused backend PyTorch offers (flash, cuDNN, memory-efficient), forward and forward+backward.
- With --attention-sweep: the same over a grid of batch, heads, sequence and head dimension (flash and cuDNN).
- With --layers: forward and forward+backward of single transformer layers (and the logits layer with
  cross-entropy) at the per-GPU shapes of published runs, in bf16 eager PyTorch with fused attention.

Each figure is the median of timed repeats after warm-up (CUDA events), on random data.
"""

import json
import math
import sys
import time
import traceback

import torch
import torch.nn.functional as F


def timed(fn, warmup=3, repeats=10, inner=1):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3 / inner)
    times.sort()
    n = len(times)
    return times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])


def gemm_reference(doc):
    out = []
    for g in doc.get("gemm", []):
        p, m, n, k = g["precision"], g["m"], g["n"], g["k"]
        try:
            torch.backends.cuda.matmul.allow_tf32 = p == "tf32"
            # choreo-calibrate-gpu's D(m x n) = A^T B, A stored k x m, is a linear layer: X(n x k) W(m x k)^T.
            if p == "fp8":
                x = (torch.rand(n, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
                w = (torch.rand(m, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
                one = torch.ones((), device="cuda")
                wt = w.t()
                fn = lambda: torch._scaled_mm(x, wt, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            else:
                dt = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16,
                      "fp16": torch.float16}[p]
                x = (torch.rand(n, k, device="cuda") * 2 - 1).to(dt)
                w = (torch.rand(m, k, device="cuda") * 2 - 1).to(dt)
                fn = lambda: torch.matmul(x, w.t())
            flops = 2.0 * m * n * k
            t = timed(fn, 3, 9, 10 if flops < 2e10 else 1)
            out.append({"precision": p, "m": m, "n": n, "k": k, "shape": g.get("shape"), "torch_time_s": t,
                        "torch_tflops": flops / t / 1e12, "choreo_tflops": g["tflops"],
                        "choreo_over_torch": g["tflops"] / (flops / t / 1e12)})
            del x, w
        except Exception as e:  # noqa: BLE001 - recorded, the rest goes on
            out.append({"precision": p, "m": m, "n": n, "k": k, "error": repr(e)})
    torch.backends.cuda.matmul.allow_tf32 = False
    return out


def backends():
    from torch.nn.attention import SDPBackend
    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


# Causal attention sizes for --attention-sweep: (batch, heads, seq, head dim), the per-GPU heads of real
# runs after tensor-parallel splits among them (7: GPT-32B tp 8, 12: GPT-175B tp 8).
SWEEP = ([(1, h, s, 128) for h in (8, 16, 32, 64) for s in (1024, 2048, 4096, 8192)] +
         [(1, 8, 16384, 128), (1, 32, 16384, 128), (1, 7, 4096, 128), (1, 12, 2048, 128), (1, 12, 4096, 128),
          (2, 16, 2048, 128), (2, 16, 4096, 128), (4, 8, 2048, 128), (1, 32, 2048, 64), (1, 32, 4096, 64),
          (1, 16, 4096, 256)])


def attention_reference(doc, sweep=False):
    from torch.nn.attention import sdpa_kernel
    out = []
    dims = [(1, a["heads"], a["seq_len"], a["head_dim"]) for a in doc.get("attention", [])]
    if sweep:
        dims = SWEEP
    for batch, heads, seq, d in dims:
        causal_flops = 2.0 * batch * heads * seq * seq * d  # the causal half of 4 s^2 d per head
        for name, backend in backends().items():
            if sweep and name == "efficient":
                continue
            row = {"batch": batch, "heads": heads, "seq_len": seq, "head_dim": d, "backend": name}
            try:
                q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=torch.bfloat16,
                                       requires_grad=True) for _ in range(3))
                with sdpa_kernel([backend]):
                    fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), 3, 10)
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    g = torch.randn_like(o)

                    def step():
                        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                        y.backward(g)
                    both = timed(step, 3, 10)
                row.update({"forward_s": fwd, "forward_tflops": causal_flops / fwd / 1e12,
                            "forward_backward_s": both,
                            # backward = 2.5 forward in FLOPs (FlashAttention's count)
                            "forward_backward_tflops": 3.5 * causal_flops / both / 1e12})
                del q, k, v, o, g
            except Exception as e:  # noqa: BLE001
                row["error"] = repr(e).splitlines()[0][:300]
            out.append(row)
    return out


# Per-GPU shapes (after tensor-parallel splits) of published runs: (label, hidden, heads, kv heads, ffn,
# gated, seq, micro-batch, tp, vocab).
LAYERS = [
    ("GPT-1.7B tp1 s4096", 2048, 16, 16, 8192, False, 4096, 1, 1, 131072),
    ("GPT-7.1B tp2 s4096", 4096, 32, 32, 16384, False, 4096, 1, 2, 131072),
    ("GPT-32B tp8 s4096", 7168, 56, 56, 28672, False, 4096, 1, 8, 131072),
    ("GPT-175B tp8 s2048", 12288, 96, 96, 49152, False, 2048, 1, 8, 51200),
    ("GPT-175B tp8 s4096", 12288, 96, 96, 49152, False, 4096, 1, 8, 131072),
    ("Llama-2-70B tp4 s4096", 8192, 64, 8, 28672, True, 4096, 1, 4, 32000),
    ("Llama-3-8B tp1 s4096", 4096, 32, 8, 14336, True, 4096, 1, 1, 128256),
]


def layer_reference():
    from torch.nn.attention import sdpa_kernel
    out = []
    for label, h, heads, kv, f, gated, seq, mb, tp, vocab in LAYERS:
        d = h // heads
        hq, hkv, fl = heads // tp, max(1, kv // tp), f // tp
        row = {"label": label, "hidden": h, "heads": heads, "kv_heads": kv, "ffn_hidden": f, "ffn_gated": gated,
               "seq_len": seq, "micro_batch": mb, "tp": tp, "vocab": vocab}
        try:
            bf = dict(device="cuda", dtype=torch.bfloat16)
            tokens = seq * mb
            x = torch.randn(tokens, h, **bf, requires_grad=True)
            wqkv = torch.randn((hq + 2 * hkv) * d, h, **bf) * 0.02
            wo = torch.randn(h, hq * d, **bf) * 0.02
            w1 = torch.randn((2 if gated else 1) * fl, h, **bf) * 0.02
            w2 = torch.randn(h, fl, **bf) * 0.02
            ln1 = torch.ones(h, **bf)
            ln2 = torch.ones(h, **bf)
            for w in (wqkv, wo, w1, w2, ln1, ln2):
                w.requires_grad_(True)

            def norm(t, w):
                return F.rms_norm(t, (h,), w) if gated else F.layer_norm(t, (h,), w)

            def layer():
                a = norm(x, ln1)
                qkv = F.linear(a, wqkv)
                q, k, v = qkv.split([hq * d, hkv * d, hkv * d], dim=-1)
                q = q.view(mb, seq, hq, d).transpose(1, 2)
                k = k.view(mb, seq, hkv, d).transpose(1, 2)
                v = v.view(mb, seq, hkv, d).transpose(1, 2)
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hkv != hq)
                o = o.transpose(1, 2).reshape(tokens, hq * d)
                y = x + F.linear(o, wo)
                b = norm(y, ln2)
                u = F.linear(b, w1)
                if gated:
                    g1, g2 = u.chunk(2, dim=-1)
                    u = F.silu(g1) * g2
                else:
                    u = F.gelu(u, approximate="tanh")
                return y + F.linear(u, w2)

            grad = torch.randn(tokens, h, **bf)
            best = None
            for name, backend in backends().items():
                try:
                    with sdpa_kernel([backend]):
                        fwd = timed(layer, 2, 7)

                        def step():
                            layer().backward(grad)
                        both = timed(step, 2, 7)
                    if best is None or both < best[2]:
                        best = (name, fwd, both)
                    row[name] = {"forward_s": fwd, "forward_backward_s": both}
                except Exception as e:  # noqa: BLE001
                    row[name] = {"error": repr(e).splitlines()[0][:200]}
            if best:
                row.update({"attention_backend": best[0], "forward_s": best[1], "forward_backward_s": best[2]})
            del x, wqkv, wo, w1, w2
            # The logits layer (vocabulary split over tp) with cross-entropy, forward and backward.
            xl = torch.randn(tokens, h, **bf, requires_grad=True)
            wl = (torch.randn(vocab // tp, h, **bf) * 0.02).requires_grad_(True)
            target = torch.randint(0, vocab // tp, (tokens,), device="cuda")
            lf = timed(lambda: F.cross_entropy(F.linear(xl, wl).float(), target), 2, 7)

            def lstep():
                F.cross_entropy(F.linear(xl, wl).float(), target).backward()
            lb = timed(lstep, 2, 7)
            row["logits"] = {"forward_s": lf, "forward_backward_s": lb}
            del xl, wl
        except Exception as e:  # noqa: BLE001
            row["error"] = repr(e).splitlines()[0][:300]
        torch.cuda.empty_cache()
        out.append(row)
        print("layer", json.dumps(row), flush=True)
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 1
    doc = json.load(open(sys.argv[1]))
    result = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
              "cudnn": torch.backends.cudnn.version(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    def save():
        with open(sys.argv[2], "w") as f:
            json.dump(result, f, indent=1)

    sweep = "--attention-sweep" in sys.argv
    for key, fn in (("gemm", None if "--no-gemm" in sys.argv else lambda: gemm_reference(doc)),
                    ("attention", lambda: attention_reference(doc)),
                    ("attention_sweep", (lambda: attention_reference(doc, True)) if sweep else None),
                    ("layers", layer_reference if "--layers" in sys.argv else None)):
        if fn is None:
            continue
        t0 = time.time()
        try:
            result[key] = fn()
        except Exception:  # noqa: BLE001
            result[key + "_error"] = traceback.format_exc()[-2000:]
        print(f"{key}: {time.time() - t0:.1f} s", flush=True)
        save()
    worst = [g for g in result.get("gemm", []) if "choreo_over_torch" in g]
    if worst:
        r = sorted(g["choreo_over_torch"] for g in worst)
        print(f"choreo/torch GEMM rate: min {r[0]:.3f} median {r[len(r) // 2]:.3f} max {r[-1]:.3f}", flush=True)
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
