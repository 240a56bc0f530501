"""Compile every EOS kernel for a CUDA target without a GPU (Triton's ahead-of-time path:
source → TTIR → TTGIR → LLVM → PTX → cubin with the bundled ptxas). Catches what the
interpreter cannot: type errors in loop-carried values, unsupported ops, register spills.

    python tests/kernels/compile_check.py [--arch 90] [--all]

Must run WITHOUT TRITON_INTERPRET (the kernels have to be compiled functions).
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

INTS = {"T", "K", "D", "B", "stride_ob", "NC"}
INPUTS = {"i", "e", "o", "s", "a", "w", "beta", "i_re", "i_im", "e_re", "e_im", "o_re", "o_im", "s_re", "s_im"}


def compile_kernel(kernel, constexprs: dict, in_dtype: str = "bf16", arch: int = 90):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    num_warps = constexprs.pop("_num_warps", 4)
    num_stages = constexprs.pop("_num_stages", 3)   # Triton's default
    sig = {}
    for name in kernel.arg_names:
        if name in constexprs:
            sig[name] = "constexpr"
        elif name in INTS:
            sig[name] = "i32"
        else:
            sig[name] = f"*{in_dtype}" if name in INPUTS else "*fp32"
    src = ASTSource(kernel, signature=sig, constexprs=constexprs)
    options = {"num_warps": num_warps, "num_stages": num_stages}
    return triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)


def resource_usage(compiled) -> str:
    """Registers and spills from the cubin, read with the cuobjdump bundled with Triton."""
    import subprocess
    import tempfile

    import triton
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(compiled.asm["cubin"])
        f.flush()
        out = subprocess.run([str(tool), "-res-usage", f.name], capture_output=True, text=True).stdout
    line = next((ln.strip() for ln in out.splitlines() if "REG:" in ln), out.strip()[-200:])
    return line


def tensor_core_ops(compiled) -> str:
    """Which matrix instructions the dots lowered to, read from the PTX: wgmma (Hopper warpgroup MMA), mma
    (warp MMA, HMMA in the SASS), or none (the dots became FMA loops)."""
    ptx = compiled.asm["ptx"]
    found = [name for name in ("wgmma", "mma.sync") if name in ptx]
    return "+".join(found) if found else "no-mma"


def variants(full: bool, K: int = 128, D: int = 128, in_dtype: str = "bf16"):
    """(name, kernel, constexprs) with the block sizes, warps and matmul precision the launchers
    pick for k = K, d = D on a GPU."""
    from lcsm_explorer.kernels import fused_recurrent, fused_recurrent_matrix
    from lcsm_explorer.kernels.utils import MATRIX_DOT_PRECISION, num_warps

    flags = [True, False]
    out = []
    BK, BV, _ = fused_recurrent._blocks(K, D)
    for o_t, o_k, o_d, cplx in itertools.product(flags, flags, flags, flags):
        if not full and (o_k != o_d or (cplx and o_t)):
            continue
        common = dict(BK=BK, BV=BV, CK=32, O_T=o_t, O_K=o_k, O_D=o_d, COMPLEX=cplx, HAS_M0=True,
                      _num_warps=num_warps(BK * BV))
        tag = f"O_T={o_t} O_K={o_k} O_D={o_d} complex={cplx}"
        out.append((f"fused_recurrent fwd {tag}", fused_recurrent.eos_fused_recurrent_fwd_kernel,
                    dict(common, SAVE=True)))
        out.append((f"fused_recurrent bwd {tag}", fused_recurrent.eos_fused_recurrent_bwd_kernel, dict(common)))
    BK, BV, _ = fused_recurrent_matrix._blocks(K, D)
    for o_t in flags:
        common = dict(BK=BK, BV=BV, PREC=MATRIX_DOT_PRECISION, CK=32, O_T=o_t, HAS_M0=True,
                      _num_warps=num_warps(BK * BK))
        out.append((f"matrix fwd O_T={o_t}", fused_recurrent_matrix.eos_fused_recurrent_matrix_fwd_kernel,
                    dict(common, SAVE=True)))
        out.append((f"matrix bwd O_T={o_t}", fused_recurrent_matrix.eos_fused_recurrent_matrix_bwd_kernel, common))
    out += chunk_variants(K, D, in_dtype)
    out += delta_variants(K, D, in_dtype)
    return out


def operand_type(in_dtype: str):
    import triton.language as tl
    return {"bf16": tl.bfloat16, "fp16": tl.float16}.get(in_dtype, tl.float32)


def chunk_variants(K: int, D: int, in_dtype: str = "bf16"):
    """The GLA-family chunk kernels as the launcher sets them up on a GPU for in_dtype inputs."""
    import torch

    from lcsm_explorer.kernels import chunk
    from lcsm_explorer.kernels.utils import CHUNK_DOT_PRECISION
    TORCH_DTYPE = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    BK, BV, _ = chunk._blocks(K, D)
    DT = operand_type(in_dtype)
    dots = dict(C=chunk.CHUNK, BK=BK, DT=DT, OP=DT, PREC=CHUNK_DOT_PRECISION)
    walk = dict(dots, BV=BV, HAS_M0=True, _num_warps=chunk.WARPS, _num_stages=chunk.STATE_STAGES)
    return [
        ("chunk fwd intra", chunk.eos_chunk_fwd_kernel_intra,
         dict(dots, S=chunk.SUB, _num_warps=chunk.intra_warps(torch.empty(0, dtype=TORCH_DTYPE[in_dtype])))),
        ("chunk fwd state", chunk.eos_chunk_fwd_kernel_state, walk),
        ("chunk fwd out", chunk.eos_chunk_fwd_kernel_out, dict(dots, BV=BV, _num_warps=chunk.WARPS)),
        ("chunk bwd dstate", chunk.eos_chunk_bwd_kernel_dstate, walk),
        ("chunk bwd dv", chunk.eos_chunk_bwd_kernel_dv, dict(dots, BV=BV, _num_warps=chunk.WARPS)),
        ("chunk bwd dqk", chunk.eos_chunk_bwd_kernel_dqk, dict(dots, BV=BV, _num_warps=chunk.WARPS)),
        ("chunk bwd dscores", chunk.eos_chunk_bwd_kernel_dscores,
         dict(C=chunk.CHUNK, BV=BV, DT=DT, OP=DT, PREC=CHUNK_DOT_PRECISION, _num_warps=4)),
        ("chunk bwd dintra", chunk.eos_chunk_bwd_kernel_dintra, dict(dots, S=chunk.SUB, _num_warps=4)),
    ]


def delta_variants(K: int, D: int, in_dtype: str = "bf16"):
    """The structured delta-rule kernels as the launcher sets them up on a GPU for in_dtype inputs."""
    from lcsm_explorer.kernels import delta, delta_wy
    from lcsm_explorer.kernels.utils import DELTA_DOT_PRECISION, num_warps
    BK, BV, _ = delta._blocks(K, D)
    DT = operand_type(in_dtype)
    dots = dict(C=delta.CHUNK, BK=BK, DT=DT, OP=DT, PREC=DELTA_DOT_PRECISION)
    return [
        ("delta fused fwd", delta.delta_fused_fwd_kernel,
         dict(BK=BK, BV=BV, CK=32, HAS_M0=True, SAVE=True, _num_warps=num_warps(BK * BV))),
        ("delta bwd", delta.delta_bwd_kernel, dict(BK=BK, BV=BV, CK=delta.CHUNK, HAS_M0=True,
                                                   _num_warps=num_warps(BK * BV))),
        ("delta chunk prep", delta.delta_chunk_prep_kernel, dict(dots, _num_warps=delta.CHUNK_WARPS)),
        ("delta chunk state", delta.delta_chunk_state_kernel,
         dict(dots, BV=BV, HAS_M0=True, _num_warps=delta.CHUNK_WARPS, _num_stages=delta.STATE_STAGES)),
        ("delta chunk out", delta.delta_chunk_out_kernel, dict(dots, BV=BV, _num_warps=delta.CHUNK_WARPS)),
        ("delta chunk bwd walk", delta_wy.delta_chunk_bwd_walk_kernel,
         dict(dots, BV=BV, HAS_M0=True, _num_warps=delta.CHUNK_WARPS, _num_stages=delta.STATE_STAGES)),
    ]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--all", action="store_true", help="every constexpr combination of the fused kernel")
    ap.add_argument("--only", default="", help="comma-separated substrings of the variant names to compile")
    ap.add_argument("--max-spill", type=int, default=None, help="fail a variant whose stack frame exceeds this")
    ap.add_argument("--in-dtype", default="bf16", choices=("bf16", "fp16", "fp32"),
                    help="the inputs' dtype (the chunk and delta kernels' matmul operands follow it)")
    args = ap.parse_args()
    if os.environ.get("TRITON_INTERPRET") == "1":
        print("unset TRITON_INTERPRET: compiling needs jitted kernels")
        return 2
    failed = 0
    for name, kernel, constexprs in variants(args.all, in_dtype=args.in_dtype):
        if args.only and not any(part in name for part in args.only.split(",")):
            continue
        try:
            c = compile_kernel(kernel, dict(constexprs), in_dtype=args.in_dtype, arch=args.arch)
            usage = resource_usage(c)
            stack = int(usage.split("STACK:")[1].split()[0]) if "STACK:" in usage else 0
            if args.max_spill is not None and stack > args.max_spill:
                failed += 1
                print(f"SPILL {name}: {usage}")
                continue
            print(f"ok   {name}: {usage} {tensor_core_ops(c)}")
        except Exception as err:   # noqa: BLE001 - report every variant, then fail
            failed += 1
            print(f"FAIL {name}: {type(err).__name__}: {str(err)[:2000]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
