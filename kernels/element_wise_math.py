"""The transcendental bodies' constants as assembler symbols (kernels/element_wise_math.inc, math_*.inc).

The numbers are dmlemu.math_constants's, the one table the golden model computes with too; the driver
hands each to the kernel source as a `${K_<NAME>}` symbol: the bit pattern of the compute type (f32 or f16).
"""
import numpy as np

from dmlemu.math_constants import constants

_DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16)}
_UINT = {2: np.uint16, 4: np.uint32}


def symbols(compute):
    """The `${K_<NAME>}` assembler symbols (hexadecimal bit patterns) of compute type `compute` (f32, f16), and
    `${K32_<NAME>}`, the FLOAT32 ones (the trigonometric reduction is FLOAT32 in both); none for other compute
    types, whose variants have no transcendental body."""
    if compute not in _DTYPES:
        return {}
    out = {}
    for prefix, dtype in (("K_", _DTYPES[compute]), ("K32_", _DTYPES["f32"])):   # K32_: the f32 reduction's
        for name, value in constants(dtype).items():
            bits = int(np.array(value, dtype=dtype).view(_UINT[dtype.itemsize]))
            out[prefix + name] = f"0x{bits:X}"
    return out


__all__ = ["symbols"]
