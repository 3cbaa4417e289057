"""The assembler symbols kernels/address.inc reads besides the constant buffer's (kernels/constant_buffer.py) and
the tensors' own: their values for a kernel that does not pad. Only the padding kernel (copy_region.s, driven by
kernels/data_movement_ops.py) sets PAD to 1 and names a PAD_MODE; every other kernel that includes address.inc
passes these."""

DEFAULTS = {"PAD": 0}

__all__ = ["DEFAULTS"]
