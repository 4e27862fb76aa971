"""The module's attributes: __version__, __all__, and the stub's view of
them (__init__.pyi: the same __all__, @final exactly on the classes that
cannot be subclassed)."""

import ast
import importlib.metadata
import pathlib
import re
import types

import dents

PKG = pathlib.Path(__file__).resolve().parents[1]
STUB = ast.parse((PKG / "python/dents/__init__.pyi").read_text(encoding="utf-8"))


def stub_all():
    for node in STUB.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]:
            return ast.literal_eval(node.value)
    raise AssertionError("the stub has no __all__")


def test_version_is_the_crates_and_the_wheels():
    cargo = (PKG / "Cargo.toml").read_text(encoding="utf-8")
    want = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert dents.__version__ == want
    assert importlib.metadata.version("dents") == want


def test_all_is_the_public_names():
    public = {
        n for n, v in vars(dents).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType)
    }
    assert sorted(dents.__all__) == sorted(public)
    assert len(set(dents.__all__)) == len(dents.__all__)


def test_stub_all_is_the_modules():
    assert stub_all() == dents.__all__


def test_stub_declares_every_public_name():
    declared = {n.name for n in STUB.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    declared |= {n.target.id for n in STUB.body if isinstance(n, ast.AnnAssign)}
    assert set(dents.__all__) | {"__version__"} <= declared


def can_subclass(cls):
    try:
        type("Sub", (cls,), {})
        return True
    except TypeError:
        return False


def test_stub_final_is_exactly_the_unsubclassable_classes():
    final = {
        n.name for n in STUB.body if isinstance(n, ast.ClassDef)
        and any(isinstance(d, ast.Name) and d.id == "final" for d in n.decorator_list)
    }
    classes = {n for n in dents.__all__ if isinstance(getattr(dents, n), type)}
    assert classes, "no class in __all__"
    assert final == {n for n in classes if not can_subclass(getattr(dents, n))}
