"""dmlemu.kernels: the operator microkernels, one kernel skeleton for the element-wise family.

Every element-wise and activation operator is element_wise_head.inc (prologue.inc, address.inc, the
descriptors and constants, the loads, widening and scale_bias.inc), a body of a few instructions, and
element_wise_tail.inc (FusedActivation, narrowing, store). `clip.s`, `identity.s`, `threshold.s` and `if.s`
spell their bodies out (clip.s is the README's listing); every other operator is `element_wise.s`, whose
body comes from `element_wise_bodies.inc`. The table of operators is `dmlemu.kernels.element_wise_ops`;
`initialize.s` is the copy an IDMLOperatorInitializer dispatch runs to fill a persistent resource
(docs/PERSISTENT_RESOURCES.md). The driver side, which picks a variant, merges dimensions and packs the
constant buffer, is `dmlemu.kernels.driver`; the constant buffer's layout, one table read by the packer and
(as `${CB_...}` symbols) by the sources, is `dmlemu.kernels.constant_buffer`. The numeric rules are
docs/NUMERICS.md.
"""
