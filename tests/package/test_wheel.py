"""The wheel: what `pip install dmlemu` gives a user who has no checkout.

Builds the wheel from a copy of the repository (so the checkout gets no build/ folder, and no stale
build/lib of an earlier build can leak removed modules into the wheel), installs it into a fresh
virtual environment outside the checkout, offline (`--no-deps --no-index`), and runs it from a folder
that is not the checkout. The dependencies (numpy, simpy, ml_dtypes, matplotlib) are not installed
again: a .pth file in the fresh environment puts the outer environment's site-packages on sys.path
(a path line in a .pth file is only appended; the .pth files inside that folder, the editable install
of dmlemu among them, are not processed, so the checkout's sources stay out of reach).

Checked: the wheel has one top-level import name, `dmlemu`, and carries the kernel sources (*.s,
*.inc); the installed `dmlemu demo`, `python -m dmlemu adapters` and an example program run and
import dmlemu from the fresh environment; `dmlemu readme --check` and `dmlemu isa-doc` refuse with
one `dmlemu: error:` line, since an installed dmlemu has no checkout to regenerate.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Left out of the copy the wheel is built from: environments, VCS data and build outputs.
_NOT_SOURCES = shutil.ignore_patterns(".venv", "venv", ".git", "build", "dist", "*.egg-info", "__pycache__",
                                      "*.pyc", ".hypothesis", ".pytest_cache", "dmlemu-demo-out", "out")


def _run(args, cwd, timeout=300, env_extra=None, **kwargs):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    env.update(env_extra or {})
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return subprocess.run([str(a) for a in args], cwd=str(cwd), env=env, capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def _check(result):
    assert result.returncode == 0, (f"{' '.join(result.args)} exited with {result.returncode}\n"
                                    f"--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    return result


def _can_build_offline():
    """Whether the running environment's setuptools builds wheels by itself (setuptools >= 70.1 has
    bdist_wheel; older ones need the `wheel` package). A venv made by Python 3.11 has setuptools 65.5
    and no `wheel`; then pip builds in an isolated environment from the configured index."""
    probe = ("import importlib.util as u, setuptools; "
             "raise SystemExit(0 if u.find_spec('setuptools.command.bdist_wheel') or u.find_spec('wheel') else 1)")
    return _run([sys.executable, "-c", probe], cwd=ROOT).returncode == 0


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The path of the wheel built from a copy of the checkout."""
    base = tmp_path_factory.mktemp("wheel")
    source, dist = base / "source", base / "dist"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCES, symlinks=True)
    args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist]
    offline = _can_build_offline()
    if offline:
        args.append("--no-build-isolation")    # offline: the running environment's setuptools
    # The compiled units built without optimisation: what is checked here is the wheel's contents and that it
    # installs and runs, not its speed, and gcc -O0 builds them in about a quarter of the time (15 s against 65 s here).
    result = _run(args + [source], cwd=base, env_extra={"CFLAGS": "-O0"})
    assert result.returncode == 0 or offline, (
        "building the wheel in an isolated environment failed (it needs setuptools from the package index); "
        "offline, install setuptools>=70.1 or `wheel` into this environment\n" + result.stdout[-3000:] +
        result.stderr[-3000:])
    _check(result)
    wheels = [name for name in os.listdir(dist) if name.endswith(".whl")]
    assert len(wheels) == 1 and wheels[0].startswith("dmlemu-"), wheels
    return dist / wheels[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(bin folder, python) of a fresh virtual environment outside the checkout with the wheel installed."""
    base = tmp_path_factory.mktemp("venv")
    env_dir = base / "env"
    venv.EnvBuilder(with_pip=True, symlinks=(os.name != "nt")).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    # Install first, while the fresh environment sees nothing of the outer one (so pip finds no dmlemu there).
    _check(_run([python, "-m", "pip", "install", "--no-deps", "--no-index", wheel], cwd=base))
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=base)
    site_packages = _check(site).stdout.strip()
    outer = sysconfig.get_paths()["purelib"]
    assert os.path.realpath(site_packages) != os.path.realpath(outer)
    with open(os.path.join(site_packages, "zz_outer_dependencies.pth"), "w", encoding="utf-8") as f:
        f.write(outer + "\n")
    return bindir, python


@pytest.fixture
def workdir(tmp_path):
    assert not os.path.realpath(tmp_path).startswith(os.path.realpath(ROOT) + os.sep)
    return tmp_path


def test_wheel_has_one_import_name_and_the_kernel_sources(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        record = next(n for n in names if n.endswith(".dist-info/RECORD"))
        recorded = [line.split(",")[0] for line in z.read(record).decode().splitlines() if line]
    assert sorted(names) == sorted(recorded)
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"dmlemu"}, top
    for old in ("emulator", "isa", "kernels", "traces", "tools"):
        assert not any(n.startswith(old + "/") for n in names), old
    assert all(n.startswith("dmlemu/") for n in names if n.endswith(".py"))
    for package in ("dmlemu", "dmlemu/d3d12", "dmlemu/directml", "dmlemu/functional", "dmlemu/timing",
                    "dmlemu/isa", "dmlemu/kernels", "dmlemu/traces", "dmlemu/tools"):
        assert f"{package}/__init__.py" in names, package
    assert "dmlemu/__main__.py" in names
    kernel_files = {n for n in names if n.startswith("dmlemu/kernels/") and n.endswith((".s", ".inc"))}
    source_kernels = {f"dmlemu/kernels/{n}" for n in os.listdir(os.path.join(ROOT, "kernels"))
                      if n.endswith((".s", ".inc"))}
    assert source_kernels and kernel_files == source_kernels
    # Every module of the checkout's packages is in the wheel (a package left out of pyproject.toml is not).
    folders = {"emulator": "dmlemu", "isa": "dmlemu/isa", "kernels": "dmlemu/kernels", "traces": "dmlemu/traces",
               "tools": "dmlemu/tools"}
    for folder, package in folders.items():
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            rel = os.path.relpath(dirpath, os.path.join(ROOT, folder)).replace(os.sep, "/")
            for filename in filenames:
                if filename.endswith(".py"):
                    member = f"{package}/{filename}" if rel == "." else f"{package}/{rel}/{filename}"
                    assert member in names, member


def test_installed_wheel_imports_from_the_fresh_environment(installed, workdir):
    bindir, python = installed
    result = _check(_run([python, "-c", "import dmlemu, dmlemu.kernels.driver as k; print(dmlemu.__file__); "
                                        "print(k.KERNEL_DIR)"], cwd=workdir))
    module_file, kernel_dir = result.stdout.split()
    env_dir = os.path.realpath(os.path.dirname(bindir))
    assert os.path.realpath(module_file).startswith(env_dir + os.sep), module_file
    assert os.path.isfile(os.path.join(kernel_dir, "clip.s"))


def test_installed_demo_runs_bit_exact(installed, workdir):
    bindir, python = installed
    result = _check(_run([bindir / "dmlemu", "demo", "--out", workdir / "OUT"], cwd=workdir))
    assert "All outputs bit-exact." in result.stdout
    assert (workdir / "OUT" / "trace.json").is_file()


def test_installed_module_command_lists_adapters(installed, workdir):
    bindir, python = installed
    result = _check(_run([python, "-m", "dmlemu", "adapters"], cwd=workdir))
    from dmlemu.presets import PRESETS
    for preset in PRESETS:
        assert preset.key in result.stdout, preset.key


def test_installed_example_program_runs(installed, workdir):
    bindir, python = installed
    shutil.copy(os.path.join(ROOT, "examples", "threshold.py"), workdir / "threshold.py")
    result = _check(_run([python, "threshold.py"], cwd=workdir))
    assert "bit-exact" in result.stdout


@pytest.mark.parametrize("command", [["readme", "--check"], ["isa-doc"]])
def test_installed_doc_generators_need_a_checkout(installed, workdir, command):
    bindir, python = installed
    result = _run([bindir / "dmlemu"] + command, cwd=workdir)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dmlemu: error:"), result.stderr
    assert "checkout" in lines[0]
    assert not (workdir / "README.md").exists() and not (workdir / "docs").exists()
