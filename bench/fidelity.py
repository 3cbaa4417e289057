"""Fidelity of the timing model against published GPU behaviour (the library is dmlemu.tools.fidelity).

    .venv/bin/python bench/fidelity.py                 # print the table
    .venv/bin/python bench/fidelity.py --write docs/FIDELITY.md
"""


from dmlemu.tools.fidelity import main

if __name__ == "__main__":
    main()
