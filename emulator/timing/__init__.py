"""dmlemu.timing: the timing model, when every bit moves.

The command processor (`command_processor`), the workgroup dispatcher (`workgroup_dispatcher`),
compute units and their SIMDs (`compute_unit`), the memory system (`memory_system`) and the copy
engine (`copy_engine`), simulated in integer cycles. Each unit is written once, in Python; Cython
compiles the units where a C compiler is (`physics` says which build a device runs), and the event
heap (`events`) or SimPy (`simpy_driver`, the reference order) drives them. It reads what the
functional model hands over in `dmlemu.dispatch_record` and never changes a result.
"""
