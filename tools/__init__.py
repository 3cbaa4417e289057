"""dmlemu's command line and the libraries behind it.

`tools.cli` is the `dmlemu` console script; each subcommand is a thin wrapper over a module here:
operators (run: one operator from plain arguments), demo, stepper (step: one wave, instruction by
instruction), compare, sweep, graph_view (graph), asm (asm / disasm), adapters, fidelity, microbench,
tracefiles (trace export, import and plots), docs (generated docs and README blocks), progress.
"""
