# Megatron-LM num_floating_point_operations (transformer_flops), as at commit effebd81 (2025-11-02);
# the GQA branch is algebraically identical to the May-2025 (1e057005) and May-2026 (bfad45c8) versions.
def gqa_flops(B, s, L, h, heads, kv_ch, groups, ffn, moe_ffn, topk, shared, n_dense, n_moe, vocab, swiglu=True, mtp=0):
    g = 1.5 if swiglu else 1.0
    q = kv_ch*heads; k = kv_ch*groups; v = k
    attn = 6*(h*(q+k+v) + q*s/2*2 + q*h)
    mlp = 12*h*(ffn*g*n_dense + moe_ffn*topk*g*n_moe + shared*g*n_moe)
    return B*s*(mlp + attn*L + 6*mtp*(3*h+2*h*h) + 6*h*vocab*(mtp+1))
def mla_flops(B, s, L, h, heads, q_lora, kv_lora, qk, rope, vh, ffn, moe_ffn, topk, shared, n_dense, n_moe, vocab, mtp=0):
    g = 1.5
    q_term = q_lora*(h + heads*(qk+rope) + 1)
    attn = 6*(q_term + kv_lora*(h + heads*(qk+vh) + 1) + h*rope + heads*vh*h + s*heads*(qk+rope)/2 + s*heads*vh/2)
    if mtp:
        n_moe += mtp; L += mtp
    mlp = 12*h*(ffn*g*n_dense + moe_ffn*topk*g*n_moe + shared*g*n_moe)
    return B*s*(mlp + attn*L + 6*mtp*(3*h+2*h*h) + 6*h*vocab*(mtp+1))

def qwen3(B, s): return gqa_flops(B, s, 94, 4096, 64, 128, 4, 12288, 1536, 8, 0, 0, 94, 151936)
def mixtral22(B, s): return gqa_flops(B, s, 56, 6144, 48, 128, 8, 16384, 16384, 2, 0, 0, 56, 32000)
def dsv3(B, s, mtp=0): return mla_flops(B, s, 61, 7168, 128, 1536, 512, 128, 64, 128, 18432, 2048, 8, 2048, 3, 58, 129280, mtp)

if __name__ == "__main__":
    F = qwen3(2048, 4096)
    print("Qwen3-235B GBS2048 s4096 FLOPs/step %.6e, per token %.4e" % (F, F/(2048*4096)))
    for st, tf in [(19.7,245),(17.6,276),(17.6,276),(24.2,200),(29.0,167)]:
        print("  H100 check: step %.1f printed TF %d -> implied TF %.1f" % (st, tf, F/(256*st)/1e12))
    rows = {}
    for seq, cp, tf in [(16384,1,295),(32768,2,335),(65536,4,368),(131072,8,389)]:
        F = qwen3(256, seq); t = F/(tf*1e12*256)
        print("H100 long ctx s=%d CP%d TF %d: F %.6e step %.4f" % (seq, cp, tf, F, t))
    for name, B, s, n, tf in [("GB200 BF16",8192,4096,256,750),("GB200 MXFP8",3072,4096,256,919),("GB200 128k MXFP8",1024,131072,128,1150),("GB300 MXFP8",8192,4096,64,1055),("GB300 974 (removed)",8192,4096,256,974)]:
        F = qwen3(B, s); print("%s: F %.6e step %.4f" % (name, F, F/(tf*1e12*n)))
    for name, tf in [("Mixtral bf16 forced",465),("Mixtral fp8 forced",560),("Mixtral dropless",445)]:
        F = mixtral22(256, 4096); print("%s: F %.6e per tok %.4e step %.4f" % (name, F, F/(256*4096), F/(tf*1e12*128)))
    for name, tf in [("DSV3 GB200 final",970.01),("DSV3 GB200 baseline",494.46)]:
        F = dsv3(2048, 4096); print("%s: F %.6e per tok %.4e step %.4f" % (name, F, F/(2048*4096), F/(tf*1e12*256)))
    tok = 15360*4096; gs = 180e3*3600/1e12
    print("DSV3 report: tokens/step %d, GPU-s/token %.4e, step %.4f s; batch 3072: %.4f" % (tok, gs, tok*gs/2048, 3072*4096*gs/2048))
    print("DSV3 report implied TFLOPS/GPU (Megatron formula, MTP1):", dsv3(15360,4096,1)/(tok*gs/2048)/2048/1e12)
