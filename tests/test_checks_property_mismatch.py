"""property-mismatch: uses left behind when a method becomes a property (or a property a method)."""

from __future__ import annotations

from prscope.analysis.checks import ChecksConfig
from prscope.analysis.findings import Finding

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

MODEL = """\
import functools


class User:
    def __init__(self, name):
        self._name = name

    def display_name(self) -> str:
        return self._name.title()

    def initials(self):
        return self._name[:1]

    @property
    def is_admin(self):
        return self._name == "root"

    @property
    def handler(self):
        return print
"""

TO_PROPERTY = MODEL.replace(
    "    def display_name(self) -> str:", "    @property\n    def display_name(self) -> str:"
).replace("    def initials(self):", "    @functools.cached_property\n    def initials(self):")
TO_METHOD = MODEL.replace("    @property\n    def is_admin(self):", "    def is_admin(self):")


def _run(git_repo: GitRepo, new_model: str, callers: dict[str, str]) -> list[Finding]:
    run = review(
        git_repo, {"app/__init__.py": "", "app/models.py": MODEL, **callers}, {"app/models.py": new_model}
    )
    assert run.errors == []
    return sorted((f for f in run.findings if f.rule == "property-mismatch"), key=lambda f: (f.path, f.line))


VIEWS = """\
from app.models import User


def greet(user: User):
    print(user.display_name())
    return user.initials().lower()


def render(name):
    user = User(name)
    label = user.display_name
    return f"{label} {user.display_name()}"


def unknown(user):
    return user.display_name()
"""


def test_calling_what_became_a_property_is_an_error_with_the_parentheses_dropped(git_repo: GitRepo) -> None:
    findings = _run(git_repo, TO_PROPERTY, {"views.py": VIEWS})

    assert [(f.path, f.line) for f in findings] == [("views.py", 5), ("views.py", 6), ("views.py", 12)]
    first = findings[0]
    assert first.severity == "error"
    assert first.column == 16
    assert "TypeError: 'str' object is not callable" in first.message
    assert first.suggestion is not None and first.suggestion.replacement == "    print(user.display_name)"
    assert findings[1].suggestion is not None
    assert findings[1].suggestion.replacement == "    return user.initials.lower()"
    assert findings[2].suggestion is not None
    assert findings[2].suggestion.replacement == '    return f"{label} {user.display_name}"'
    assert first.related[0].path == "app/models.py" and first.related[0].line == 9


def test_reading_what_became_a_method_is_an_error_with_the_call_added(git_repo: GitRepo) -> None:
    caller = (
        "from app.models import User\n\n\n"
        "class Admin(User):\n"
        "    def check(self):\n"
        "        if self.is_admin:\n"
        "            return True\n"
        "        return self.is_admin()\n\n\n"
        "def allowed(user: User, other):\n"
        "    user.is_admin = True\n"
        "    return user.is_admin and other.is_admin\n"
    )
    findings = _run(git_repo, TO_METHOD, {"perms.py": caller})

    assert [(f.path, f.line) for f in findings] == [("perms.py", 6), ("perms.py", 13)]
    assert "bound method" in findings[0].message and "always true" in findings[0].message
    assert findings[0].suggestion is not None
    assert findings[0].suggestion.replacement == "        if self.is_admin():"
    assert findings[1].suggestion is not None
    assert findings[1].suggestion.replacement == "    return user.is_admin() and other.is_admin"


def test_a_property_that_hands_out_a_callable_may_still_be_called(git_repo: GitRepo) -> None:
    model = MODEL.replace("    @property\n    def handler(self):", "    def handler(self):")
    new = MODEL.replace(
        "    @property\n    def handler(self):\n        return print",
        "    @property\n    def handler(self):\n        return lambda *a: print(*a)",
    )
    caller = "from app.models import User\n\n\ndef go(user: User):\n    user.handler('x')\n"
    run = review(
        git_repo, {"app/__init__.py": "", "app/models.py": model, "go.py": caller}, {"app/models.py": new}
    )
    assert sites(run, "property-mismatch") == []


def test_class_level_access_and_unchanged_kinds_are_not_reported(git_repo: GitRepo) -> None:
    caller = (
        "from app.models import User\n\n\n"
        "doc = User.display_name.__doc__\n"
        "getter = User.display_name\n\n\n"
        "def go(user: User):\n"
        "    return user.is_admin\n"
    )
    assert _run(git_repo, TO_PROPERTY, {"meta.py": caller}) == []


def test_a_method_that_now_needs_arguments_gets_no_suggestion(git_repo: GitRepo) -> None:
    new = MODEL.replace("    @property\n    def is_admin(self):", "    def is_admin(self, scope):")
    caller = "from app.models import User\n\n\ndef go(user: User):\n    return user.is_admin\n"
    (finding,) = _run(git_repo, new, {"go.py": caller})
    assert finding.suggestion is None
    assert "with the arguments it now takes" in finding.message


def test_the_rule_can_be_switched_off(git_repo: GitRepo) -> None:
    base = {"app/__init__.py": "", "app/models.py": MODEL, "views.py": VIEWS}
    run = review(
        git_repo, base, {"app/models.py": TO_PROPERTY}, ChecksConfig(enabled={"property-mismatch": False})
    )
    assert sites(run, "property-mismatch") == []


def test_a_property_returning_a_container_of_any_is_not_taken_for_a_callable(git_repo: GitRepo) -> None:
    new = MODEL.replace(
        "    def initials(self):\n        return self._name[:1]",
        "    @property\n    def initials(self) -> dict[str, Any]:\n        return {'first': self._name[:1]}",
    )
    caller = "from app.models import User\n\n\ndef go(user: User):\n    return user.initials()\n"
    (finding,) = _run(git_repo, new, {"go.py": caller})
    assert (finding.path, finding.line) == ("go.py", 5)


def test_a_property_that_hands_out_a_class_may_still_be_called(git_repo: GitRepo) -> None:
    model = (
        "class Amqp:\n"
        "    def TaskConsumer(self, channel):\n"
        "        return Consumer(channel)\n\n\n"
        "class Consumer:\n"
        "    pass\n"
    )
    new = (
        "class Amqp:\n"
        "    @property\n"
        "    def TaskConsumer(self):\n"
        "        return self.app.subclass_with_self(Consumer)\n"
    )
    caller = (
        "from app.models import Amqp\n\n\n"
        "def consume(amqp: Amqp, channel):\n"
        "    return amqp.TaskConsumer(channel)\n"
    )
    base = {"app/__init__.py": "", "app/models.py": model, "c.py": caller}
    assert sites(review(git_repo, base, {"app/models.py": new}), "property-mismatch") == []


BACKEND = """\
class Backend:
    @property
    def priority(self):
        \"\"\"Each backend says how well it fits.\"\"\"

    def viable(self, errors):
        try:
            self.priority
        except RuntimeError as exc:
            errors.append(exc)
        return not errors

    def rank(self):
        return self.priority or 0
"""


def test_a_read_that_only_probes_a_property_that_did_nothing_breaks_nothing(git_repo: GitRepo) -> None:
    """keyring 697f2ab3 turns the stub `priority` back into a plain method; `viable` reads `cls.priority`
    only to see whether it raises, which the stub never did and a method never does. `rank` uses the
    value: that read is reported."""
    to_method = BACKEND.replace("    @property\n    def priority", "    def priority")
    run = review(git_repo, {"app/__init__.py": "", "app/backend.py": BACKEND}, {"app/backend.py": to_method})
    assert run.errors == []
    assert sites(run, "property-mismatch") == [("app/backend.py", 13)]


PY2_EXAMPLE = """\
import sys

from app.models import User

try:
    user = User("root")
except ValueError:
    print "could not make a user"
    sys.exit(1)


class Greeter(object):
    def greet(self, value):
        if isinstance(value, User) and value.display_name() == "Root":
            return value.initials()
"""


def test_a_python_2_file_still_counts_where_its_statements_parse(git_repo: GitRepo) -> None:
    """mongo-python-driver 3262cfc2: `examples/custom_type.py` has a Python 2 `print` statement, so the
    file does not parse, and with it went the import that types `value`. The module statements that parse
    on their own still bind `User`, and the method's call of what became a property is reported."""
    found = _run(git_repo, TO_PROPERTY, {"examples/custom_type.py": PY2_EXAMPLE})
    assert [(f.path, f.line) for f in found] == [
        ("examples/custom_type.py", 14),
        ("examples/custom_type.py", 15),
    ]


CLIENT = """\
class Client:
    def __init__(self):
        self._on_connect = None
        self._name = ""

    def on_connect(self):
        return self._on_connect

    def name(self):
        return self._name

    def connected(self, rc):
        if self.on_connect:
            self.on_connect(self, rc)
        return self.name()
"""

CLIENT_PROPERTIES = CLIENT.replace(
    "    def on_connect(self):\n        return self._on_connect\n",
    "    @property\n    def on_connect(self):\n        return self._on_connect\n\n"
    "    @on_connect.setter\n    def on_connect(self, func):\n        self._on_connect = func\n",
).replace(
    "    def name(self):\n        return self._name\n",
    "    @property\n    def name(self):\n        return self._name\n\n"
    "    @name.setter\n    def name(self, value):\n        self._name = value.strip()\n",
)


def test_a_property_that_hands_back_what_its_setter_stored_may_be_called(git_repo: GitRepo) -> None:
    """paho.mqtt 4af8776b makes the callbacks properties whose setter stores the user's function and whose
    getter returns it: `self.on_connect(self, rc)` calls that function, as intended. A setter that stores
    something else (`value.strip()`, a string) says nothing of the kind: `self.name()` is reported."""
    run = review(
        git_repo, {"app/__init__.py": "", "app/client.py": CLIENT}, {"app/client.py": CLIENT_PROPERTIES}
    )
    assert run.errors == []
    assert sites(run, "property-mismatch") == [("app/client.py", 25)]
