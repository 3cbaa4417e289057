"""dmlemu.kernels: the operator microkernels, one assembly source per operator.

The sources (`identity.s`, `threshold.s`, `clip.s`, `if.s`) and their shared includes
(`prologue.inc`, `address.inc`, `scale_bias.inc`) live in this folder, with `initialize.s`, the copy an
IDMLOperatorInitializer dispatch runs to fill a persistent resource (docs/PERSISTENT_RESOURCES.md). The driver side, which picks a
variant, merges dimensions and packs the constant buffer, is `dmlemu.kernels.driver`; the constant
buffer's layout, one table read by the packer and (as `${CB_...}` symbols) by the sources, is
`dmlemu.kernels.constant_buffer`.
"""
