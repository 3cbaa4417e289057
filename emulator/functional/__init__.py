"""dmlemu.functional: the functional model, what every bit becomes.

Device memory (`device_memory`), 128-bit buffer descriptors (`buffer_descriptor`), the wave
dispatcher that forms a dispatch's waves (`wave_dispatcher`), the executor that runs a decoded kernel
over batches of waves (`executor`) and the wave register state (`wave`). Nothing here knows about
time; what a run hands to the timing model is `dmlemu.dispatch_record`.
"""
