"""The examples of the documentation, and the package installed the way a partner installs it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Mapping

from servers import REPO, base_env

PACKAGE = REPO / "clients" / "python"
DEBIAN_WHEELS = Path("/usr/share/python-wheels")
# pip as on a machine with no package index: no configuration file, no index, only Debian's wheels.
OFFLINE_PIP = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(DEBIAN_WHEELS),
               "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}


def examples(document: Path) -> Dict[str, str]:
    """The python code blocks of a Markdown file by name; every one must be named
    (``<!-- example: NAME -->`` on the line before its fence)."""
    found: Dict[str, str] = {}
    lines = document.read_text(encoding="utf-8").split("\n")
    for index, line in enumerate(lines):
        if line.strip() != "```python":
            continue
        marker = re.fullmatch(r"<!-- example: ([a-z-]+) -->", lines[index - 1].strip()) if index > 0 else None
        assert marker, f"{document.name}:{index + 1}: a python example without <!-- example: NAME --> before it"
        end = lines.index("```", index + 1)
        found[marker.group(1)] = "\n".join(lines[index + 1:end]) + "\n"
    return found


def source_copy(into: Path) -> Path:
    """clients/python as handed over: the package without tests or build leftovers."""
    target = into / "python"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache"))
    return target


def pip(python: Path, *args: str, cwd: Path) -> str:
    missing = [name for name in ("setuptools", "wheel") if not list(DEBIAN_WHEELS.glob(f"{name}-*.whl"))]
    assert not missing, f"no {', '.join(missing)} wheel in {DEBIAN_WHEELS}: apt-get install python3-setuptools-whl python3-wheel-whl"
    done = subprocess.run([str(python), "-m", "pip", *args], cwd=cwd, env=base_env(OFFLINE_PIP), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def new_venv(path: Path) -> Path:
    """A virtual environment of the interpreter running the tests (Debian's python3-venv)."""
    done = subprocess.run([sys.executable, "-m", "venv", str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"python -m venv failed (apt-get install python3-venv?):\n{done.stderr}"
    return path / "bin" / "python"


def run_example(python: Path, code: str, cwd: Path, env: Mapping[str, str], timeout: float = 300) -> str:
    """Runs an example as a script of its own; its standard output (an AssertionError with both streams if it fails)."""
    script = cwd / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([str(python), str(script)], cwd=cwd, env=base_env(env), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0 and done.stderr == "", f"the example failed ({done.returncode}):\n{code}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    return done.stdout
