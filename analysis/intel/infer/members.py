"""Attributes of what the inference holds: a module's members, a class's methods and class attributes, an
instance's attributes as the class declares them (`attr: T`) or its methods assign them
(`self.attr = ...`, containers filled with `self.attr.append(...)`), and a builtin container's methods.
"""

from __future__ import annotations

import ast
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator

from prscope.analysis.intel.infer.code import CodeReader
from prscope.analysis.intel.infer.frames import FunctionNode, Place, Step, own_nodes, target_steps
from prscope.analysis.intel.infer.values import (
    FOREIGN,
    FOREIGN_TYPES,
    NONE,
    NONE_TYPES,
    UNKNOWN_TYPES,
    AbstractValue,
    Awaitable,
    Bound,
    ClassRef,
    Entered,
    ForeignClass,
    Func,
    Inst,
    Map,
    Mod,
    Returns,
    Seq,
    Tup,
    Types,
    known,
    or_unknown,
    union,
)
from prscope.analysis.intel.resolve import Resolver, Value
from prscope.analysis.intel.units import Unit

_MAX_BASES = 32
_ADDERS = frozenset({"append", "add", "appendleft", "put_nowait", "put"})
_MAP_METHODS = {"get", "pop", "setdefault"}
Member = tuple[ast.stmt, Place]
Target = tuple[str, str]  # ("name", n) for a local, ("attr", a) for `<self>.a`


class Members(ABC):
    code: CodeReader
    resolver: Resolver

    @abstractmethod
    def expr(self, node: ast.expr, place: Place) -> Types: ...

    @abstractmethod
    def annotation(self, node: ast.expr | None, place: Place) -> Types: ...

    @abstractmethod
    def returns(self, func: Func, receiver: Types | None) -> Types: ...

    @abstractmethod
    def value_types(self, values: tuple[Value, ...]) -> Types: ...

    @abstractmethod
    def elements(self, types: Types) -> Types: ...

    @abstractmethod
    def decorator_names(self, function: FunctionNode, place: Place) -> list[str]: ...

    def attribute(self, types: Types, attr: str) -> Types:
        """`<types>.attr`."""
        found: list[Types] = []
        for value in types:
            if isinstance(value, Mod):
                found.append(
                    self.value_types(self.resolver.attribute((Value("module", value.module),), attr))
                )
            elif isinstance(value, Inst):
                found.append(self.instance_attribute(value, attr))
            elif isinstance(value, ClassRef):
                found.append(self.class_attribute(value, attr))
            elif value is FOREIGN or isinstance(value, ForeignClass | Awaitable):
                found.append(FOREIGN_TYPES)
            elif isinstance(value, Seq | Map | Tup):
                found.append(self._container_method(value, attr))
            elif value is not NONE:
                found.append(UNKNOWN_TYPES)
        return or_unknown(union(*found))

    def instance_attribute(self, inst: Inst, attr: str) -> Types:
        receiver: Types = frozenset({inst})
        classes, complete = self.linearize(inst.cls)
        class_level: list[Types] = []
        for cls in classes:
            members = self._members(cls).get(attr, [])
            for statement, place in members:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    chosen, stubs = _implementation(members)
                    return self._method(cls, chosen or statement, place, receiver, inst.cls, stubs)
                if isinstance(statement, ast.AnnAssign):
                    declared = self.annotation(statement.annotation, place)
                    if known(declared):
                        return self._filled(classes, attr, receiver, declared)
                    if statement.value is not None:
                        class_level.append(self.expr(statement.value, place))
                elif isinstance(statement, ast.Assign):
                    class_level.append(self.expr(statement.value, place))
            if class_level:
                break
        assigned = [self._assigned(cls, attr, receiver) for cls in classes]
        found = union(*class_level, *assigned)
        if not found and not attr.startswith("__"):
            return self._dynamic(classes, attr, receiver)
        if not found or (not complete and not class_level and not any(assigned)):
            return UNKNOWN_TYPES
        return self._filled(classes, attr, receiver, found)

    def _dynamic(self, classes: list[Value], attr: str, receiver: Types) -> Types:
        """An attribute the class answers in `__getattr__` (`db.users` -> `Database.__getattr__`'s
        `Collection`)."""
        for cls in classes:
            for statement, place in self._members(cls).get("__getattr__", []):
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    return self.returns(Func(place.path, statement.lineno, statement.name, cls), receiver)
        return UNKNOWN_TYPES

    def class_attribute(self, ref: ClassRef, attr: str) -> Types:
        classes, _complete = self.linearize(ref.cls)
        for cls in classes:
            for statement, place in self._members(cls).get(attr, []):
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    roles = self.decorator_names(statement, place)
                    func = Func(place.path, statement.lineno, statement.name, cls)
                    if "classmethod" in roles:
                        return frozenset({Bound(func, frozenset({ref}))})
                    if any(r.endswith("property") for r in roles):
                        return UNKNOWN_TYPES
                    return frozenset({func})
                if isinstance(statement, ast.Assign):
                    return self.expr(statement.value, place)
                if isinstance(statement, ast.AnnAssign) and statement.value is not None:
                    return self.expr(statement.value, place)
        return UNKNOWN_TYPES

    def _method(
        self,
        cls: Value,
        node: FunctionNode,
        place: Place,
        receiver: Types,
        own: Value,
        stubs: tuple[int, ...] = (),
    ) -> Types:
        roles = self.decorator_names(node, place)
        func = Func(place.path, node.lineno, node.name, cls, stubs)
        if any(r.endswith("property") for r in roles):
            return self.returns(func, receiver)
        if "staticmethod" in roles:
            return frozenset({func})
        if "classmethod" in roles:
            return frozenset({Bound(func, frozenset({ClassRef(own)}))})
        return frozenset({Bound(func, receiver)})

    def linearize(self, cls: Value) -> tuple[list[Value], bool]:
        """The class and its repository bases, nearest first; False when a base is from outside the
        repository or cannot be followed (it may define any attribute)."""
        order: list[Value] = []
        complete = True
        pending = [cls]
        while pending and len(order) < _MAX_BASES:
            current = pending.pop(0)
            if current in order:
                continue
            facts = self.resolver.class_facts(current)
            if facts is None:
                complete = False
                continue
            order.append(current)
            for base in facts.bases:
                if base is None:
                    complete = False
                    continue
                if base in (("object",), ("Generic",), ("typing", "Generic"), ("Protocol",), ("ABC",)):
                    continue
                resolved = self.resolver.chain_values(current.module, base, None)
                if not resolved:
                    complete = False
                pending.extend(resolved)
        return order, complete

    def _members(self, cls: Value) -> _ClassMembers:
        cache: dict[Value, _ClassMembers] = self.__dict__.setdefault("_member_cache", {})
        if cls not in cache:
            path = self.code.source.module_path(cls.module)
            cache[cls] = _ClassMembers(self.code, path, cls.name)
        return cache[cls]

    def _assigned(self, cls: Value, attr: str, receiver: Types) -> Types:
        """What the class's methods assign to `self.attr` (evaluated for this receiver)."""
        found: list[Types] = []
        for method, place in self._methods(cls, attr):
            self_name = _first_parameter(method)
            if self_name is None:
                continue
            inside = place.inner(method).with_self(receiver)
            for value, steps, annotation in _attribute_assignments(method, self_name, attr):
                if annotation is not None:
                    declared = self.annotation(annotation, inside)
                    if known(declared):
                        found.append(declared)
                        continue
                if value is not None:
                    found.append(self._at(self.expr(value, inside), steps))
        return union(*found)

    def _filled(self, classes: list[Value], attr: str, receiver: Types, types: Types) -> Types:
        """A container attribute with what the methods add to it (`self.items.append(Item())`)."""
        if not any(isinstance(v, Seq | Map) for v in types):
            return types
        added: list[Types] = []
        for cls in classes:
            for method, place in self._methods(cls, attr):
                self_name = _first_parameter(method)
                if self_name is not None:
                    inside = place.inner(method).with_self(receiver)
                    added.append(self.added_to(method, ("attr", attr), inside, self_name))
        return filled(types, union(*added))

    def added_to(self, frame: ast.AST, target: Target, place: Place, self_name: str = "") -> Types:
        """What a scope puts into a container (`x.append(v)`, `x[k] = v`, `x.extend(vs)`)."""
        added: list[Types] = []
        for node in own_nodes(frame):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if not _is_target(node.func.value, target, self_name) or not node.args:
                    continue
                method = node.func.attr
                if method in _ADDERS or method == "insert":
                    added.append(self.expr(node.args[-1], place))
                elif method == "extend":
                    added.append(self.elements(self.expr(node.args[0], place)))
                elif method == "setdefault" and len(node.args) == 2:
                    added.append(self.expr(node.args[1], place))
            elif isinstance(node, ast.Assign):
                for subscript in node.targets:
                    if isinstance(subscript, ast.Subscript) and _is_target(
                        subscript.value, target, self_name
                    ):
                        added.append(self.expr(node.value, place))
        return union(*added)

    def _methods(self, cls: Value, attr: str) -> Iterator[tuple[FunctionNode, Place]]:
        """The class's methods that mention `.attr` (only those parts of a big class are parsed)."""
        for statement, place in self._members(cls).mentioning(rf"\.\s*{re.escape(attr)}\b"):
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                yield statement, place

    def _at(self, types: Types, steps: tuple[Step, ...]) -> Types:
        for step in steps:
            if step == "*":
                types = frozenset({Seq(self.elements(types))})
                continue
            items = [v.items[step] for v in types if isinstance(v, Tup) and step < len(v.items)]
            types = union(*items) if items and len(items) == len(types) else UNKNOWN_TYPES
        return types

    def _container_method(self, value: Seq | Map | Tup, method: str) -> Types:
        """Methods of builtin containers that give back what the container holds."""
        if isinstance(value, Map):
            if method == "values":
                return frozenset({Returns(frozenset({Seq(value.values)}))})
            if method == "items":
                return frozenset({Returns(frozenset({Seq(frozenset({Tup((UNKNOWN_TYPES, value.values))}))}))})
            if method in _MAP_METHODS:
                return frozenset({Returns(union(value.values, NONE_TYPES))})
        if isinstance(value, Seq) and method == "pop":
            return frozenset({Returns(value.elements)})
        if method == "copy":
            return frozenset({Returns(frozenset({value}))})
        return FOREIGN_TYPES  # any other method is the builtin container's own


class _ClassMembers:
    """A class's members as its parts are read on demand: the header at once, a method's part only when
    that member (or text it holds) is asked for, so a class of hundreds of methods costs what is used."""

    def __init__(self, code: CodeReader, path: str | None, name: str) -> None:
        self.code = code
        self.path = path
        self.name = name
        self._units = code.class_units(path, name) if path is not None else None
        self._loaded: dict[int, list[Member]] = {}
        self._found: dict[str, list[Member]] = {}
        self._eager: dict[str, list[Member]] | None = None
        if self._units is None:
            self._eager = {}
            for statement, place in code.class_body(path, name) if path is not None else []:
                for member in _member_names(statement):
                    self._eager.setdefault(member, []).append((statement, place))

    def get(self, member: str, default: list[Member] | None = None) -> list[Member]:
        if self._eager is not None:
            return self._eager.get(member, default or [])
        found = self._found.get(member)
        if found is None:
            found = self._found[member] = self._find(member)
        return list(found) or (default or [])

    def _find(self, member: str) -> list[Member]:
        word = re.compile(rf"(?<![\w.]){re.escape(member)}\b")
        found: list[Member] = []
        for unit in self._units or []:
            if unit.kind == "method" and unit.name != member and not word.search(self._text(unit)):
                continue  # a method's part holds that member only if it mentions the name
            for statement, place in self._statements(unit):
                if member in _member_names(statement):
                    found.append((statement, place))
        return found

    def mentioning(self, pattern: str) -> list[Member]:
        """Statements of the parts whose text matches `pattern`."""
        if self._eager is not None:
            return [m for members in self._eager.values() for m in members]
        text = re.compile(pattern)
        return [m for u in self._units or [] if text.search(self._text(u)) for m in self._statements(u)]

    def _text(self, unit: Unit) -> str:
        return self.code.unit_text(self.path or "", unit)

    def _statements(self, unit: Unit) -> list[Member]:
        if unit.start not in self._loaded:
            self._loaded[unit.start] = self.code.unit_statements(self.path or "", unit, self.name) or []
        return self._loaded[unit.start]


def filled(types: Types, added: Types) -> Types:
    """Containers with the items added to them after they were made."""
    if not added:
        return types
    result: set[AbstractValue] = set()
    for value in types:
        if isinstance(value, Seq):
            result.add(Seq(union(value.elements, added)))
        elif isinstance(value, Map):
            result.add(Map(union(value.values, added)))
        else:
            result.add(value)
    return frozenset(result)


def _implementation(members: list[Member]) -> tuple[FunctionNode | None, tuple[int, ...]]:
    """A method's implementation (its `def` without `@overload`) and the `def` lines of its stubs."""
    functions = [s for s, _ in members if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    stubs = tuple(f.lineno for f in functions if _is_overload(f))
    implementation = next((f for f in reversed(functions) if not _is_overload(f)), None)
    return implementation, stubs


def _is_overload(function: FunctionNode) -> bool:
    return any(getattr(d, "id", getattr(d, "attr", "")) == "overload" for d in function.decorator_list)


def _member_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    if isinstance(statement, ast.Assign):
        return [name for target in statement.targets for name, _steps in target_steps(target)]
    return []


def _first_parameter(method: FunctionNode) -> str | None:
    positional = [*method.args.posonlyargs, *method.args.args]
    decorators = {getattr(d, "id", getattr(d, "attr", "")) for d in method.decorator_list}
    if not positional or "staticmethod" in decorators:
        return None
    return positional[0].arg


def _attribute_assignments(
    method: FunctionNode, self_name: str, attr: str
) -> Iterator[tuple[ast.expr | None, tuple[Step, ...], ast.expr | None]]:
    """(value, where the attribute sits in it, annotation) of each `self.attr = ...` in the method."""
    for node in own_nodes(method):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for steps in _attribute_steps(target, self_name, attr, ()):
                    yield node.value, steps, None
        elif isinstance(node, ast.AnnAssign) and _is_target(node.target, ("attr", attr), self_name):
            yield node.value, (), node.annotation


def _attribute_steps(
    target: ast.expr, self_name: str, attr: str, steps: tuple[Step, ...]
) -> list[tuple[Step, ...]]:
    if _is_target(target, ("attr", attr), self_name):
        return [steps]
    if isinstance(target, ast.Tuple | ast.List) and not any(isinstance(e, ast.Starred) for e in target.elts):
        found: list[tuple[Step, ...]] = []
        for index, element in enumerate(target.elts):
            found.extend(_attribute_steps(element, self_name, attr, (*steps, index)))
        return found
    return []


def _is_target(node: ast.expr, target: Target, self_name: str) -> bool:
    kind, name = target
    if kind == "name":
        return isinstance(node, ast.Name) and node.id == name
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    )


__all__ = ["Entered", "Members"]
