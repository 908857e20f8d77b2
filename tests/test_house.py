"""The house keeps its shape: rooms by role, views that are views, no reaching into other objects,
only the window knows the window, and nothing imports a path the move retired. Qt-free (syntax only)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "gpuviz"
APP = PACKAGE / "app"


def parsed(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_the_views_folder_holds_only_the_table_views():
    table = (APP / "views" / "table.py").read_text()
    listed = set(re.findall(r'"gpuviz\.app\.views\.(\w+):\w+"', table))
    modules = {p.stem for p in (APP / "views").glob("*.py")} - {"__init__", "table", "base"}
    assert modules == listed


def test_every_table_view_is_a_view():
    files = [*(APP / "views").glob("*_view.py"), APP / "views" / "animation_bar.py"]
    source = "\n".join(p.read_text() for p in files)
    classes = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)]
    views = [c for c in classes if c.name.endswith(("View", "Bar"))]
    assert views and all("View" in [ast.unparse(b) for b in c.bases] for c in views), [c.name for c in views]


def literal_attribute_lookups(tree: ast.AST) -> list[str]:
    """getattr/hasattr/setattr with a literal name, on anything but an imported module (a platform probe
    such as `getattr(os, "O_NOFOLLOW", 0)` asks the system, not a view)."""
    modules = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}  # fmt: skip
    found = []
    for node in ast.walk(tree):
        lookup = isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "hasattr", "setattr")
        named = lookup and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
        if named and isinstance(node.args[1].value, str) and ast.unparse(node.args[0]) not in modules:
            found.append(ast.unparse(node))
    return found


def test_no_view_or_widget_is_asked_for_an_attribute_by_name():
    """A `getattr(view, "legend_items", None)` is a contract nobody can find: the View base says it."""
    found = {str(p.relative_to(ROOT)): literal_attribute_lookups(tree) for p, tree in parsed(APP)}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_lookup_check_finds_one():
    assert literal_attribute_lookups(ast.parse('getattr(view, "legend_items", None)'))


def underscore_reaches(tree: ast.AST) -> list[str]:
    """Attributes with a leading underscore (dunders aside) read or set on anything but self or cls."""
    found = []
    for node in ast.walk(tree):
        private = isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__")
        if private and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            found.append(ast.unparse(node))
    return found


def test_nothing_in_the_app_reaches_into_another_objects_underscore_attributes():
    found = {str(p.relative_to(ROOT)): underscore_reaches(tree) for p, tree in parsed(APP)}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_underscore_check_finds_one():
    assert underscore_reaches(ast.parse("window._lessons = 1")) == ["window._lessons"]
    assert underscore_reaches(ast.parse("self._x = type(a).__name__")) == []


def names_the_window(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            found += [n for n in names if "main_window" in n or n == "MainWindow"]
        elif isinstance(node, ast.arg) and node.arg in ("window", "main_window"):
            found.append(f"parameter {node.arg}")
        elif isinstance(node, ast.Attribute) and node.attr in ("window", "main_window"):
            found.append(ast.unparse(node))
    return found


def test_only_the_window_takes_or_reads_the_main_window():
    """Controllers, pictures, views and widgets are given what they use; the window assembles them
    (the app's entry point, app/__init__.py, makes the window)."""
    outside = [(p, t) for p, t in parsed(APP) if "window" not in p.relative_to(APP).parts and p != APP / "__init__.py"]
    found = {str(p.relative_to(ROOT)): names_the_window(tree) for p, tree in outside}
    assert {k: v for k, v in found.items() if v} == {}


RETIRED = (
    "gpuviz.app.render", "gpuviz.app.clip", "gpuviz.app.picture", "gpuviz.app.main_window", "gpuviz.app.state",
    "gpuviz.app.run_service", "gpuviz.app.run_controller", "gpuviz.app.course", "gpuviz.app.tooltips",
    "gpuviz.app.views.editor", "gpuviz.app.views.launch_editor", "gpuviz.app.views.when_shown",
    "gpuviz.app.views.data_pictures", "gpuviz.app.views.cell_labels", "gpuviz.run.service",
    "gpuviz.core.trace_codec", "gpuviz.core.trace_schema", "gpuviz.core.trace_file", "gpuviz.core.records",
    "gpuviz.backends.gpu.records", "gpuviz.backends.sim.engine", "gpuviz.backends.sim.memory",
    "gpuviz.backends.sim.warp", "gpuviz.backends.sim.simt_engine", "gpuviz.backends.sim.simt_warp",
)  # fmt: skip


def test_no_module_or_shim_is_left_at_a_retired_path():
    for name in RETIRED:
        assert not (ROOT / (name.replace(".", "/") + ".py")).exists(), name
    assert not (PACKAGE / "core" / "trace.py").exists()  # the trace is a package now


def test_nothing_imports_a_retired_path():
    texts = [p for folder in ("gpuviz", "tests", "bench", "docs") for p in (ROOT / folder).rglob("*.py")]
    texts += [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    pattern = re.compile("|".join(re.escape(name) + r"(?![\w.])" for name in RETIRED))
    found = {str(p.relative_to(ROOT)): pattern.findall(p.read_text(encoding="utf-8"))
             for p in texts if p != Path(__file__)}  # fmt: skip
    assert {k: v for k, v in found.items() if v} == {}
