"""dmlemu.timing: the timing model, when every bit moves.

The command processor (`command_processor`), the workgroup dispatcher (`workgroup_dispatcher`),
compute units and their SIMDs (`compute_unit`), the memory system (`memory_system`) and the copy
engine (`copy_engine`), simulated with SimPy in integer cycles. It reads what the functional model
hands over in `dmlemu.dispatch_record` and never changes a result.
"""
