"""The package as a partner gets it: installed with pip into a new virtual environment with no
package index, and as a wheel whose contents are exactly the package."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from examples import examples, new_venv, pip, source_copy

MODULES = ["__init__", "_convert", "_params", "_session", "_settings", "_tables", "_transport", "_version", "client", "errors", "feed", "models",
           "paging", "webhooks"]


def test_installed_package_comes_from_the_environment_and_needs_nothing(installed_python: Path) -> None:
    script = ("import importlib.metadata as m, partner_analytics as pa, pathlib, sys\n"
              "print(pa.__version__)\n"
              "print(pathlib.Path(pa.__file__).parent.parent == pathlib.Path(sys.prefix, 'lib', f'python{sys.version_info[0]}.{sys.version_info[1]}', 'site-packages'))\n"
              "print([r.split(';')[1].replace(' ', '').replace(chr(34), chr(39)) for r in m.requires('partner-analytics') or []])\n"
              "print((pathlib.Path(pa.__file__).parent / 'py.typed').exists())\n"
              "print('pandas' in sys.modules)\n")
    done = subprocess.run([str(installed_python), "-c", script], capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["0.1.0", "True", '["extra==\'pandas\'"]', "True", "False"]


def test_the_wheel_holds_the_package_and_nothing_else(installed_python: Path, tmp_path: Path) -> None:
    source = source_copy(tmp_path)
    pip(installed_python, "wheel", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(source), cwd=tmp_path)
    [wheel] = sorted((tmp_path / "dist").iterdir())
    assert wheel.name == "partner_analytics-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(archive.namelist())
        metadata = archive.read("partner_analytics-0.1.0.dist-info/METADATA").decode()
    assert names == sorted([f"partner_analytics/{module}.py" for module in MODULES] + ["partner_analytics/py.typed"] +
                           [f"partner_analytics-0.1.0.dist-info/{name}" for name in ("METADATA", "WHEEL", "RECORD", "top_level.txt")])
    assert "Requires-Python: >=3.9" in metadata and "Provides-Extra: pandas" in metadata
    assert "# partner-analytics" in metadata, "the README is the long description"
    # Installing the wheel elsewhere needs no build at all.
    other = new_venv(tmp_path / "other")
    pip(other, "install", str(wheel), cwd=tmp_path)
    done = subprocess.run([str(other), "-c", "import partner_analytics; print(partner_analytics.Client)"], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "<class 'partner_analytics.client.Client'>"


def test_every_module_is_in_the_wheel_list() -> None:
    package = Path(__file__).resolve().parents[1] / "partner_analytics"
    assert sorted(path.stem for path in package.glob("*.py")) == sorted(MODULES)


def test_an_unnamed_example_is_refused(tmp_path: Path) -> None:
    stray = tmp_path / "stray.md"
    stray.write_text("Text.\n\n```python\nprint(1)\n```\n")
    with pytest.raises(AssertionError, match="a python example without <!-- example: NAME --> before it"):
        examples(stray)
