"""Census of hostile inputs: for each public entry, how many hostile inputs its property tests tried and how
each ended (refused with its documented error, or accepted and run correctly); a failing one is a bug.

Runs the property tests of each entry under pytest with hypothesis statistics and reads the outcome events
the tests note (tests/operator_cases.py `outcome`). The CI profile is what `make test` runs; the long profile
(DMLEMU_FUZZ_PROFILE=long) tries 25 times more, from random seeds: every run draws one seed, prints it and passes it
to each entry's pytest (--hypothesis-seed), so `--seed N` repeats the same draws; a failing entry's falsifying
examples (and the reproduction blobs the long profile prints) are written to stderr, so a failure seen once is kept.

    .venv/bin/python bench/hostile_census.py [--profile ci|long] [--seed N] [--markdown] [--only TEXT ...]
                                             [--skip TEXT ...]

--only / --skip keep or leave out the entries whose name contains one of the texts (the long profile of the
dispatch fuzz alone takes hours on a loaded 2-core machine; docs/RELIABILITY.md says which run gave which row).
"""
import argparse
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# entry -> the property tests that feed it hostile input (pytest node ids, relative to the checkout)
ENTRIES = [
    ("D3D12 mirror methods", ["tests/d3d12/test_d3d12_hostile_input.py::test_d3d12_methods_only_raise_hresult_errors"]),
    ("DirectML device, operators, bindings", ["tests/directml/test_directml_fuzz.py"]),
    ("DirectML operator descs (dispatched)",
     ["tests/directml/test_directml_dispatch_fuzz.py::test_invalid_cases_fail_cleanly_with_a_sentence",
      "tests/directml/test_directml_dispatch_fuzz.py::test_valid_cases_match_golden_bit_for_bit"]),
    ("DirectML operator descs (every schema, CreateOperator)",
     ["tests/directml/test_operator_schemas.py::test_descs_are_validated_exactly_as_the_tables_say",
      "tests/directml/test_operator_schemas.py::test_hostile_attribute_values_are_refused_with_a_sentence"]),
    ("IDMLDevice1::CompileGraph (graph descs)",
     ["tests/directml/test_graph.py::test_broken_random_graphs_are_refused_with_a_sentence",
      "tests/directml/test_graph.py::test_hostile_graph_descs_only_give_sentences"]),
    ("dmlemu graph (JSON graph files)",
     ["tests/directml/test_graph.py::test_dmlemu_graph_turns_a_hostile_json_graph_into_one_error_line"]),
    ("run_operator", ["tests/directml/test_run_operator_hostile_inputs.py::test_any_argument_ends_in_outputs_or_a_documented_error"]),
    ("dmlemu onnx (ONNX model files and nodes)", ["tests/onnx/test_onnx_hostile_input.py"]),
    ("D3D12 heaps, placed resources, footprints",
     ["tests/d3d12/test_d3d12_heaps.py::test_hostile_heap_descs_give_a_heap_or_an_hresult_error",
      "tests/d3d12/test_d3d12_heaps.py::test_a_placed_resource_never_reaches_outside_its_heap",
      "tests/d3d12/test_d3d12_footprints.py"]),
    ("root signatures and compute-shader bytecode",
     ["tests/d3d12/test_compute_shader_path.py::test_random_bytes_as_a_root_signature_blob_are_refused_with_a_sentence",
      "tests/d3d12/test_compute_shader_path.py::test_random_root_signature_descs_serialize_and_round_trip_or_are_refused",
      "tests/d3d12/test_compute_shader_path.py::test_random_and_mutated_bytecode_is_refused_with_a_sentence_or_accepted"]),
    ("dmlemu run", ["tests/tools/test_cli_hostile_input.py::test_hostile_run_arguments_give_one_line_or_run"]),
    ("every dmlemu command", ["tests/tools/test_cli_commands_hostile.py"]),
    ("dmlemu asm / assembler", ["tests/isa/test_asm_hostile_input.py::test_hostile_sources_give_one_line_or_a_program_that_decodes",
                                "tests/isa/test_asm_hostile_input.py::test_the_assembler_raises_only_assembly_errors_and_its_output_decodes"]),
    ("dmlemu disasm / disassembler", ["tests/isa/test_asm_hostile_input.py::test_hostile_binaries_give_one_line_or_a_listing",
                                      "tests/isa/test_program_validation.py::test_random_words_disassemble_to_text_that_assembles_back_or_are_rejected"]),
    ("program loader and executor", ["tests/isa/test_program_validation.py::test_random_programs_are_rejected_or_run_to_an_end"]),
    ("trace reader", ["tests/traces/test_trace_files_hostile.py"]),
    ("adapter preset construction", ["tests/timing/test_preset_hostile_input.py"]),
    ("image descriptors (image_load / image_store)",
     ["tests/functional/test_image_descriptor_hostile.py"]),
    ("one-dispatch REDUCE (temporary resource, counters)",
     ["tests/directml/test_reduce_chunks_hostile.py::test_hostile_temporary_bindings_of_a_split_reduce_end_in_their_documented_outcome"]),
    ("MULTIHEAD_ATTENTION / MULTIHEAD_ATTENTION1 descs (compiled)",
     ["tests/directml/test_attention.py::test_hostile_descs_are_refused_with_a_sentence_or_run",
      "tests/directml/test_attention.py::test_hostile_attention1_descs_are_refused_with_a_sentence_or_run"]),
    ("MEAN_VARIANCE_NORMALIZATION2 descs (dispatched)",
     ["tests/directml/test_normalization2.py::test_hostile_descs_are_refused_with_a_sentence_or_run_bit_exact"]),
    ("microbenchmark rig (root views, root constants)",
     ["tests/d3d12/test_root_views_hostile.py::test_hostile_root_views_and_constants_write_only_inside_their_buffer"]),
]

REFUSED, ACCEPTED = "refused with its documented error", "accepted"
_PHASE = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")
_EVENT = re.compile(r"\*\s+([\d.]+)%, (.+)$")


def census(node_ids, profile, seed=None):
    """(inputs tried, refused, accepted, failing) summed over the property tests named by node_ids; `seed`: the
    hypothesis seed of the long profile (the CI profile is derandomized). A failure's report goes to stderr."""
    env = dict(os.environ, DMLEMU_FUZZ_PROFILE=profile)
    seed_option = [f"--hypothesis-seed={seed}"] if seed is not None and profile != "ci" else []
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "--hypothesis-show-statistics", *seed_option, *node_ids], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    if result.returncode not in (0, 5):
        print(failure_report(result.stdout), file=sys.stderr, flush=True)
    tried = refused = accepted = failing = 0
    test = passing = None
    for line in result.stdout.splitlines():
        if "::" in line and line.rstrip().endswith(":") and not line.startswith(" "):
            test = line.strip()
            continue
        phase = _PHASE.search(line)
        if phase:
            passing = int(phase.group(1))
            tried += passing
            failing += int(phase.group(2))
            # The dispatch fuzz draws its cases valid or invalid by construction (its own events name them).
            if "test_valid_cases" in test:
                accepted += passing
            elif "test_invalid_cases" in test:
                refused += passing
            continue
        event = _EVENT.search(line.strip())
        if event and passing:
            count = round(float(event.group(1)) * passing / 100)
            if event.group(2) == REFUSED:
                refused += count
            elif event.group(2) == ACCEPTED:
                accepted += count
    if result.returncode not in (0, 5):
        failing = max(failing, 1)
    return tried, refused, accepted, failing


def failure_report(stdout):
    """The part of a failing pytest run's output that repeats the failure: its FAILURES section (the falsifying
    examples, the assertion, any @reproduce_failure blob), else its last 60 lines."""
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if "= FAILURES =" in line), max(0, len(lines) - 60))
    end = next((i for i in range(start, len(lines)) if "Hypothesis Statistics" in lines[i] or
                "short test summary" in lines[i]), len(lines))
    return "\n".join(lines[start:end] + [line for line in lines[end:] if line.startswith("FAILED")])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("ci", "long"), default="ci")
    parser.add_argument("--seed", type=int, help="the long profile's hypothesis seed (default: drawn, and printed)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="only the entries whose name contains a TEXT")
    parser.add_argument("--skip", nargs="+", metavar="TEXT", help="leave out the entries whose name contains a TEXT")
    args = parser.parse_args(argv)
    chosen = [(name, nodes) for name, nodes in ENTRIES
              if (not args.only or any(t in name for t in args.only)) and not any(t in name for t in args.skip or ())]
    seed = None
    if args.profile != "ci":
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
        print(f"# seed {seed} (repeat with --seed {seed})", file=sys.stderr, flush=True)
    rows = []
    for name, nodes in chosen:
        rows.append((name, *census(nodes, args.profile, seed)))
        print(f"# {name}: {rows[-1][1:]}", file=sys.stderr, flush=True)     # progress, for long runs
    if args.markdown:
        print("| entry | hostile inputs tried | refused with a documented error | accepted and correct | failing |")
        print("|---|---:|---:|---:|---:|")
        for name, tried, refused, accepted, failing in rows:
            print(f"| {name} | {tried} | {refused} | {accepted} | {failing} |")
    else:
        print(f"{'entry':<40} {'tried':>8} {'refused':>8} {'accepted':>9} {'failing':>8}")
        for name, tried, refused, accepted, failing in rows:
            print(f"{name:<40} {tried:>8} {refused:>8} {accepted:>9} {failing:>8}")
    total = [sum(r[i] for r in rows) for i in range(1, 5)]
    print(f"total: {total[0]} hostile inputs tried, {total[1]} refused with a documented error, {total[2]} accepted "
          f"and correct, {total[3]} failing ({args.profile} profile{'' if seed is None else f', seed {seed}'})")
    return 1 if total[3] else 0


if __name__ == "__main__":
    sys.exit(main())
