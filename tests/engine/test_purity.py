"""games/engine must import nothing from Django: checked in a fresh interpreter."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_imports_nothing_from_django():
    code = (
        "import sys, pkgutil, importlib, games.engine\n"
        "for m in pkgutil.iter_modules(games.engine.__path__):\n"
        "    importlib.import_module('games.engine.' + m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'django' or n.startswith('django.'))\n"
        "print(','.join(bad))\n"
        "print(len([n for n in sys.modules if n.startswith('games.engine.')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    django_modules, engine_modules = done.stdout.splitlines()
    assert django_modules == ""
    assert int(engine_modules) >= 6  # cards, scoring, hand, handfile, fairness, __main__ were all imported
