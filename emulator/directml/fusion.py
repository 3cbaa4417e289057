"""A fused dispatch of a compiled graph: a group of the partition as the stages of one fused kernel.

graph.py's partition decides which element-wise nodes form a group and which of their tensors live in
memory (`group_tensors`: the descriptor table's slots, inputs first, then outputs); this module says,
for each node of the group in order, where each of its inputs comes from (a memory slot, or the
register copy of an earlier node's output) and whether its output is stored, and hands that to the
kernel builder, kernels/fusion.py (`compile_fused`), which stitches the nodes' own kernel variants
into one program. See docs/GRAPHS.md.
"""
from dmlemu.kernels.fusion import FusedStage, compile_fused


def fused_kernel(plan, group, inputs, outputs, kernels, half_precision, workgroup_size):
    """(CompiledKernel, source) of a fused group: `group` the nodes in order, `inputs` / `outputs` its
    memory tensors (graph.group_tensors), `kernels` each node's own CompiledKernel."""
    nodes = plan.nodes
    slot_of_input = {kj: i for i, ks in enumerate(inputs) for kj in ks}
    slot_of_output = {ko: len(inputs) + i for i, ko in enumerate(outputs)}
    position_of = {k: p for p, k in enumerate(group)}
    stages = []
    for k in group:
        info = nodes[k].info
        sources = []
        for j in range(len(info.inputs)):
            if (k, j) in slot_of_input:
                sources.append(("memory", slot_of_input[(k, j)]))
            else:
                source = plan.sources[(k, j)]
                sources.append(("stage", position_of[source[1]]))
        stages.append(FusedStage(node=k, label=nodes[k].label, info=info, kernel=kernels[k], inputs=tuple(sources),
                                 output=slot_of_output.get((k, 0))))
    tensors = [nodes[ks[0][0]].info.inputs[ks[0][1]] for ks in inputs] + \
              [nodes[k].info.outputs[o] for k, o in outputs]
    return compile_fused(stages, tensors, half_precision, workgroup_size)


__all__ = ["fused_kernel"]
