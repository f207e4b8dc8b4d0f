#!/usr/bin/env python3
"""Choreo's step model against the single-layer PyTorch timings of scripts/gpu_reference.py --layers.

  compare_layers.py REFERENCE.json [DEVICE] [CHOREO_SIM]

For each layer of REFERENCE.json (its "layers"), runs `choreo-sim run --json --fidelity analytical` on one
pool of `tp` DEVICEs (default h200-sxm) with the model at 1 and 2 layers and one micro-batch, takes the
difference of the `compute` breakdown (one layer's forward and backward, the embedding and logits
cancelling), subtracts the optimizer step of that layer's parameters (Choreo's charge: 30 bytes per
parameter at the device's achieved memory bandwidth) and prints it beside PyTorch's forward+backward.
Used for docs/calibration.md, "Whole layers against PyTorch".
"""

import copy
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 1
    ref = json.load(open(sys.argv[1]))
    device = sys.argv[2] if len(sys.argv) > 2 else "h200-sxm"
    sim = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "build", "dev", "app", "choreo-sim")
    base = json.load(open(os.path.join(ROOT, "assets", "scenarios", "default.json")))
    catalog = json.load(open(os.path.join(ROOT, "assets", "catalog", "nvidia.json")))
    spec = next(d for d in catalog["devices"] if d["id"] == device)
    bandwidth = spec["memory_bandwidth_TBps"]["value"] * 1e12 * spec["efficiency"]["memory"]["value"]
    print(f"{'layer (per GPU)':26} {'PyTorch':>9} {'Choreo':>9} {'ratio':>6}")
    for layer in ref.get("layers", []):
        if "forward_backward_s" not in layer:
            continue
        compute = []
        for count in (1, 2):
            s = copy.deepcopy(base)
            s["cluster"]["pools"][0].update(device=device, count=layer["tp"], devices_per_node=layer["tp"])
            s["cluster"]["network"].pop("nic_Gbps", None)
            w = s["workload"]
            w["model"] = dict(name="layer", layers=count, hidden=layer["hidden"], heads=layer["heads"],
                              kv_heads=layer["kv_heads"], ffn_hidden=layer["ffn_hidden"],
                              ffn_gated=layer["ffn_gated"], vocab=layer["vocab"], seq_len=layer["seq_len"])
            w.update(global_batch=1, micro_batch=1, precision="bf16", recompute="none")
            w["parallel"] = dict(tp=layer["tp"], pp=1, dp=1, vp=1, cp=1, sequence_parallel=False, zero=0)
            w.pop("overlap", None)
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(s, f)
            out = subprocess.run([sim, "run", f.name, "--json", "--fidelity", "analytical"], capture_output=True,
                                 text=True, check=True)
            os.unlink(f.name)
            compute.append(json.loads(out.stdout)["breakdown_s"]["compute"])
        h, ffn, tp = layer["hidden"], layer["ffn_hidden"], layer["tp"]
        kv = layer["kv_heads"] * (h // layer["heads"])
        params = (h * (h + 2 * kv) + h * h + (3 if layer["ffn_gated"] else 2) * h * ffn) / tp + 2 * h
        choreo = compute[1] - compute[0] - params * 30.0 / bandwidth
        torch = layer["forward_backward_s"]
        print(f"{layer['label']:26} {torch * 1e3:7.2f} ms {choreo * 1e3:6.2f} ms {choreo / torch:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
