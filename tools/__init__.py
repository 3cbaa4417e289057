"""dmlemu's command line and the libraries behind it.

`tools.cli` is the `dmlemu` console script; each subcommand is a thin wrapper over a module here:
operators (one operator from plain arguments), mirror (several operators on one device), demo,
stepper (one wave, instruction by instruction), asm (assemble / disassemble), adapters,
tracefiles (trace export, import and plots), docs (generated docs and README blocks), progress.
"""
