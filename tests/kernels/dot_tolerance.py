"""How close a compiled fp32 kernel must come to the fp64 reference on a GPU, by the precision its dots run at
there (kernels/utils.py: CHUNK_/DELTA_/MATRIX_DOT_PRECISION): max |err| ≤ TOLERANCE · max(|ref|, 1), over the
output and every gradient.

- "ieee" (no dots: the elementwise fused and fused delta kernels) and "tf32x3" (about fp32 accuracy): 1e-4.
- "tf32" (operands rounded to 10 mantissa bits, unit round-off 2⁻¹¹ ≈ 4.9e-4): 3e-3. The chunked delta form
  with its dots emulated at tf32 in the interpreter lands at ≤ 8.1e-4 (test_delta_tf32.py: T 130, k 64, d 40,
  with m0; the CUDA check's B 2, T 300, k 64, d 96: 6.1e-4; B 1, T 1000, k 128, d 64: 6.6e-4): the margin
  covers a GPU's rounding of the operands (truncation instead of nearest-even doubles the worst case).
"""
TOLERANCE = {"ieee": 1e-4, "tf32x3": 1e-4, "tf32": 3e-3}
BF16_TOLERANCE = 3e-2   # bf16 operands (8 mantissa bits), fp32 accumulation
