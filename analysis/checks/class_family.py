"""Where a class's family still provides a name a PR removed from it: another base of a subclass, every
subclass of a mixin, a subclass that still defines it, or a class never instantiated."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from prscope.analysis.checks.defs import decorator_names
from prscope.analysis.checks.framework_members import framework_class_has
from prscope.analysis.checks.sites import RepoView, Site
from prscope.analysis.checks.stores import source_text
from prscope.analysis.intel.scopes import class_bases, is_super_call, statement_names


def provided_elsewhere(view: RepoView, site: Site, name: str, class_aliases: set[str]) -> bool:
    """For `self.name` in a subclass: whether another base of that class (not the changed one) has `name`.
    In the changed class itself, or in a subclass: whether every class deriving from it gets `name` from
    another base (slixmpp bb219595a7 moves `add_event_handler` from the `basexmpp` mixin into `XMLStream`,
    the other base of both its subclasses)."""
    if site.owner is None:
        return False
    stop = class_aliases | {view.names.canonical(c) for c in class_aliases}
    if site.owner in class_aliases:
        key = (site.owner, name)
        if key not in view.mixin_answers:
            # Still defined there (a changed signature), it comes first in the subclasses' order; a class
            # built on its own has instances that lack the name. Cheapest test first.
            view.mixin_answers[key] = (
                name not in (view.class_members(site.owner) or set())
                and _every_subclass_provides(view, site.owner, name, stop)
                and not _constructed_directly(view, site.owner)
            )
        return view.mixin_answers[key]
    found = view.class_node(site.owner)
    if found is None:
        return False
    if view.bases_provide(found[0], found[1], name, stop) is not False:
        return True
    return _every_subclass_provides(view, site.owner, name, stop)


def _constructed_directly(view: RepoView, dotted: str) -> bool:
    """Whether any file calls the class by its name (`BaseXMPP(...)`), a class header's bases aside: a
    cheap textual test that errs towards yes."""
    leaf = dotted.rsplit(".", 1)[-1]
    call = re.compile(rf"(?<![\w.]){re.escape(leaf)}\s*\(")
    header = re.compile(r"^\s*class\s")
    for path in view.files_with_word(leaf):
        if any(call.search(line) and not header.match(line) for line in view.lines(path) if leaf in line):
            return True
    return False


def _every_subclass_provides(view: RepoView, owner: str, name: str, stop: set[str]) -> bool:
    """Whether each class deriving from the site's class gets `name` from another of its bases: a mixin's
    `super().setUp()` reaches `unittest.TestCase.setUp` in `class QueueTest(BaseQueueTestMixin,
    unittest.TestCase)` (janus ec8592b9 drops the mixin base's `setUp`)."""
    lineage = {owner, *view.ancestors({owner})} | stop
    # The direct subclasses are enough: a class deriving from one of them inherits what it gets.
    subclasses = view.subclasses({owner}, depth=1) - {owner}
    if not subclasses:
        return False
    for dotted in subclasses:
        found = view.class_node(dotted)
        if found is None or view.bases_provide(found[0], found[1], name, lineage) is not True:
            return False
    return True


def abstract_members(node: ast.ClassDef) -> set[str]:
    """The `@abstractmethod` members of an ABC (`metaclass=ABCMeta`, or `ABC` among its bases): a
    subclass lacking one cannot be instantiated."""
    is_abc = any(
        source_text(k.value).endswith("ABCMeta") for k in node.keywords if k.arg == "metaclass"
    ) or any(source_text(b) in ("ABC", "abc.ABC") for b in node.bases)
    if not is_abc:
        return set()
    return {
        statement.name
        for statement in node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
        and "abstractmethod" in decorator_names(statement)
    }


def never_instantiated(view: RepoView, classes: set[str], abstract: set[str], stop: set[str]) -> set[str]:
    """The classes that lack one of the changed ABC's abstract members (build cda46947's test classes,
    each defining one old member to show that `Env()` still raises TypeError): no instance of theirs
    ever reads the removed name."""
    if not abstract:
        return set()
    return {c for c in classes if any(_lacks(view, c, member, stop) for member in abstract)}


def _lacks(view: RepoView, dotted: str, name: str, stop: set[str]) -> bool:
    """Whether the class surely lacks `name` below the changed class (`stop`): a class inside a function
    (a test's own subclass) is read from its statement, when its bases are all the changed class."""
    local = view.classes.local_class(dotted)
    if local is None:
        return view.provides(dotted, name, stop) is False
    names, node = local
    if not all(names.dotted(base) in stop for base in class_bases(node)):
        return False
    return not any(name in statement_names(statement) for statement in node.body)


def still_has(view: RepoView, dotted: str, name: str, stop: set[str], seen: dict[str, bool]) -> bool:
    """Whether a subclass of the changed class defines `name` itself or gets it from a base other than the
    changed class, walked through the class headers alone (sympy: 2,000 subclasses of `Basic`, many with
    several bases); `seen` is shared by the family's classes."""
    if dotted in seen:
        return seen[dotted]
    seen[dotted] = False  # a cycle, or the changed class: not through here
    if dotted in stop:
        return False
    members = view.class_members(dotted)
    if name in (members or set()) or (members is None and framework_class_has(dotted, name)):
        seen[dotted] = True  # or a framework's base has it (flask-jeroboam c3738f7ec0: `Flask.get`)
        return True
    resolver = view.names.resolver
    value = view.names.value(dotted)
    facts = resolver.class_facts(value) if value is not None else None
    if value is None or facts is None:
        return False
    for chain in facts.bases:
        for base in resolver.chain_values(value.module, chain, None) if chain else ():
            if still_has(view, str(base), name, stop, seen):
                seen[dotted] = True
                return True
    return False


def super_reaches_another_base(view: RepoView, site: Site, name: str, class_aliases: set[str]) -> bool:
    """For `super().name` in a class: whether the class, or every class deriving from it, has another base
    with `name` (janus ec8592b9: a test mixin's `super().setUp()` reaches `unittest.TestCase.setUp`)."""
    if not (isinstance(site.node, ast.Attribute) and is_super_call(site.node.value)):
        return False
    module, tree = view.module(site.path), view.tree(site.path)
    if module is None or tree is None:
        return False
    around = [
        c for c in tree.body if isinstance(c, ast.ClassDef) and c.lineno <= site.line <= (c.end_lineno or 0)
    ]
    if not around:
        return False
    return provided_elsewhere(view, replace(site, owner=f"{module}.{around[0].name}"), name, class_aliases)


def subclasses_provide(view: RepoView, site: Site, name: str) -> bool:
    """For `self.name`: whether a subclass of the class it is written in defines `name`. The method moved
    down from the base into its subclasses, and `self` is one of them whenever the line runs."""
    if site.owner is None:
        return False
    below = view.subclasses({site.owner}) - {site.owner}
    return any(name in (view.class_members(c) or set()) for c in below)


def outside_base_shown_to_have(view: RepoView, dotted: str, name: str, family: set[str]) -> bool:
    """Whether the repository shows that a third-party base of class `dotted` has `name`: another class,
    outside the family, derives from a class of the same third-party package and reaches `name` through
    `super()` with no repository base of its own defining it (mayavi f43f32fea8 drops `AdderNode(HasTraits)`'s
    `trait_view`, and `Base(TreeNodeObject)`, another traits class, calls `super(Base, self).trait_view`)."""
    found = view.class_node(dotted)
    if found is None:
        return False
    packages = {_outside_package(view, b) for b in view.classes.outside_bases(*found)}
    if not packages:
        return False
    reached = re.compile(rf"\bsuper\([^)]*\)\s*\.\s*{re.escape(name)}\b")
    for path in view.files_with_word(name):
        text = view.text(path) or ""
        for match in reached.finditer(text):
            owner = _class_around(view, path, text.count("\n", 0, match.start()) + 1)
            if owner is None or owner in family:
                continue
            other = view.class_node(owner)
            if other is None or view.bases_provide(other[0], other[1], name, set()) is not None:
                continue
            if {_outside_package(view, b) for b in view.classes.outside_bases(*other)} & packages:
                return True
    return False


def _class_around(view: RepoView, path: str, line: int) -> str | None:
    """The dotted name of the top-level class whose method holds `line`."""
    unit = view.index.unit_at(path, line)
    module = view.module(path)
    if unit is None or unit.class_name is None or module is None:
        return None
    return f"{module}.{unit.class_name}"


def _outside_package(view: RepoView, dotted: str) -> str:
    """The third-party package a class comes from: the shortest prefix of its module that is not the
    repository's (`enthought.traits` for `enthought.traits.ui.api.TreeNodeObject` in mayavi, whose own
    code is `enthought.mayavi`)."""
    parts = dotted.split(".")[:-1]
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if not view.names.resolver.source.in_repo(prefix):
            return prefix
    return ".".join(parts)


def held_by_an_outside_base(view: RepoView, site: Site) -> bool:
    """Whether a receiver of unknown type is `self.attr` in a class with a third-party base, where no class
    of its lineage in the repository (nor one deriving from it) defines `attr` and no code assigns it: the
    attribute comes from the third-party base and holds that library's object (taiga-back 701220b21d:
    `self.client.login(...)` in a Django `TestCase` is the test client's `login`, not the removed
    `UsersViewSet.login`)."""
    node = site.node
    if site.evidence != "probable" or not isinstance(node, ast.Attribute):
        return False
    receiver = node.value
    if not (
        isinstance(receiver, ast.Attribute)
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == "self"
    ):
        return False
    owner = _class_around(view, site.path, site.line)
    found = view.class_node(owner) if owner is not None else None
    if owner is None or found is None or not view.classes.outside_bases(*found):
        return False
    lineage = {owner} | view.ancestors({owner}) | view.subclasses({owner})
    if any(receiver.attr in (view.class_members(dotted) or set()) for dotted in lineage):
        return False
    assigned = re.compile(rf"\b{re.escape(receiver.attr)}\s*=(?!=)")  # `self.attr = ...`, `attr=...`
    return not any(assigned.search(view.text(path) or "") for path in view.files_with_word(receiver.attr))
