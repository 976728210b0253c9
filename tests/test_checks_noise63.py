"""False alarms of the real-history noise check left from round 18 (`bench/noise61-*`, issue 20), each
rebuilt as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

CONFIG = """def addV1System(snmpEngine, securityName, communityName, contextName=None):
    return (snmpEngine, securityName, communityName, contextName)
"""
USER = """from pkg.config import addV1System


def configure(engine):
    addV1System(engine, "my-area", "public")
"""
MERGED = """def addV1System(snmpEngine, communityIndex, communityName, contextName=None, securityName=None):
    return (snmpEngine, communityIndex, securityName is not None and securityName or communityIndex)
"""
INSERTED = """def addV1System(snmpEngine, communityIndex, communityName, contextName=None, securityName=None):
    return (snmpEngine, communityIndex, securityName, communityName, contextName)
"""


@pytest.mark.parametrize(("after", "expected"), [(MERGED, []), (INSERTED, [5])])
def test_the_old_slot_s_parameter_merged_by_an_and_or_conditional(
    git_repo: GitRepo, after: str, expected: list[int]
) -> None:
    """pysnmp b2d46549dd gives `addV1System`'s second slot to `communityIndex` and keeps `securityName` as
    a keyword that defaults to it, written `securityName is not None and securityName or communityIndex`
    (the conditional before Python 2.5): a positional argument means what it meant. Without the merge, the
    old value now lands on another parameter, which is reported."""
    files = {"pkg/__init__.py": "", "pkg/config.py": CONFIG, "pkg/user.py": USER}
    run = review(git_repo, files, {"pkg/config.py": after})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/user.py"] == expected


EXTRACTOR = """class Extractor:
    def _cache(self, func, maxage, keyarg=None):
        return (func, maxage, keyarg)

    def items(self):
        return []
"""
REDDIT = """from pkg.common import Extractor


class RedditAPI:
    def __init__(self, extractor: Extractor):
        self.token = extractor._cache(len, "#client", {arguments})
"""


@pytest.mark.parametrize(("arguments", "expected"), [("_mem=False", []), ("keyarg=1", [6])])
def test_a_call_the_removed_method_already_rejected_at_the_parent(
    git_repo: GitRepo, arguments: str, expected: list[int]
) -> None:
    """gallery-dl 4327cd636e removes `Extractor._cache(self, func, maxage, keyarg=None)`; reddit.py's
    `extractor._cache(func, key, _mem=False)` (an annotated receiver) already raised TypeError at the
    parent, so the PR breaks nothing that worked. A call the removed method took is still reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/common.py": EXTRACTOR,
        "pkg/reddit.py": REDDIT.replace("{arguments}", arguments),
    }
    after = EXTRACTOR.replace(
        "    def _cache(self, func, maxage, keyarg=None):\n        return (func, maxage, keyarg)\n\n", ""
    )
    run = review(git_repo, files, {"pkg/common.py": after})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/reddit.py"] == expected


CONTENT = """def to_xml(spec):
    return str(spec)


def to_element(spec):
    return spec
"""
HELLO = """from pkg import content
{header}

class HelloHandler(Listener):
    def build(self, spec):
        return content.to_xml(spec)
"""


BODY_READ = """from pkg import content
{header}

class SelectorItemLoaderTest:
    response = HtmlResponse(url="", body="<html></html>")

    def build(self, spec):
        return content.to_xml(spec)
"""


@pytest.mark.parametrize(
    ("module", "header", "expected"),
    [
        (HELLO, "", []),
        (HELLO, "from pkg.listener import Listener", [6]),
        (BODY_READ, "", []),
        (BODY_READ, "from pkg.listener import Listener as HtmlResponse", [8]),
    ],
)
def test_a_module_that_already_failed_on_import_with_a_name_error(
    git_repo: GitRepo, module: str, header: str, expected: list[int]
) -> None:
    """ncclient 65c6a607db removes `content.to_xml`; `transport/hello.py` still calls it, but its
    `class HelloHandler(Listener):` names a `Listener` the module never binds, so importing it raised
    NameError at the parent as now and the call never ran. itemloaders 8b5ecc8122's test module read an
    unbound `HtmlResponse` in a class body the same way. With the name imported, the call is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/content.py": CONTENT,
        "pkg/listener.py": "class Listener:\n    pass\n",
        "pkg/hello.py": module.replace("{header}", header),
    }
    after = CONTENT.replace("def to_xml(spec):\n    return str(spec)\n\n\n", "")
    run = review(git_repo, files, {"pkg/content.py": after})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/hello.py"] == expected


PALETTES = """def _autoprop(cls):
    for k, v in list(cls.__dict__.items()):
        if not k.startswith("_"):
            setattr(cls, k, property(v))
    return cls


{decorator}
class _PalettesModule:
    @property
    def Blues3(self):
        return ["#3182bd", "#9ecae1", "#deebf7"]


palettes = _PalettesModule()
"""
PLOT = """from pkg.palettes import palettes


def colors():
    return palettes.Blues3
"""


@pytest.mark.parametrize(("decorator", "expected"), [("@_autoprop", []), ("", [5])])
def test_a_class_decorator_that_sets_the_class_s_members(
    git_repo: GitRepo, decorator: str, expected: list[int]
) -> None:
    """bokeh e74a50ea3e drops each palette's `@property` and decorates the class with `@_autoprop`, which
    makes every method a property with `setattr(cls, k, property(v))`: `palettes.Blues3` still reads the
    value. Without such a decorator, the plain method is a bound method there, which is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/palettes.py": PALETTES.replace("{decorator}", ""),
        "pkg/plot.py": PLOT,
    }
    after = PALETTES.replace("{decorator}", decorator).replace("    @property\n", "")
    run = review(git_repo, files, {"pkg/palettes.py": after})
    assert [line for path, line in sites(run, "property-mismatch") if path == "pkg/plot.py"] == expected


ESTIMATOR = """from functools import singledispatchmethod


class Estimator:
    {decorator}
    def __init__(self, experiment_list, obj_function=None, regularization=None, tee=False):
        self.experiments = experiment_list

    {register}
    def _deprecated_init(self, model, data, theta_names, obj_function=None, tee=False):
        self.experiments = [model]
"""
TEST = """from pkg.parmest import Estimator


def test_basics(model, data):
    return Estimator(model, data, ["theta"], "SSE")
"""


@pytest.mark.parametrize(
    ("decorator", "register", "expected"),
    [("@singledispatchmethod", "@__init__.register(object)", []), ("", "", [5])],
)
def test_a_single_dispatch_constructor_s_calls_may_reach_a_registered_one(
    git_repo: GitRepo, decorator: str, register: str, expected: list[int]
) -> None:
    """pyomo 60753457cb moves `tee` before `regularization` in `Estimator.__init__`, a
    `@singledispatchmethod`: the old-style calls pass a model first and reach the registered
    `_deprecated_init`, with parameters of its own. A plain constructor's call that now passes its third
    argument to `tee` is reported."""
    old = ESTIMATOR.replace("{decorator}", decorator).replace("{register}", register)
    new = old.replace("regularization=None, tee=False):", "tee=False, regularization=None):")
    files = {"pkg/__init__.py": "", "pkg/parmest.py": old, "tests/test_parmest.py": TEST}
    run = review(git_repo, files, {"pkg/parmest.py": new})
    assert [line for path, line in sites(run, "breaking-call") if path == "tests/test_parmest.py"] == expected


UTILS = """class MessagesStore:
    pass


def category_id(name):
    return name
"""
PACKAGE = """{new_home}from pkg.utils.utils import MessagesStore, category_id
"""
LINT = """from pkg.utils import MessagesStore


def make_store():
    return MessagesStore()
"""


@pytest.mark.parametrize(
    ("new_home", "expected"),
    [
        ("from pkg.utils.message_store import MessagesStore\n", [("pkg/utils/__init__.py", 2)]),
        ("", [("pkg/lint.py", 1), ("pkg/lint.py", 5), ("pkg/utils/__init__.py", 1)]),
    ],
)
def test_a_package_that_re_exports_the_moved_class_from_its_new_home(
    git_repo: GitRepo, new_home: str, expected: list[tuple[str, int]]
) -> None:
    """pylint 20976c36f1 moves `MessagesStore` to `pylint/utils/message_store.py` and re-exports it from
    `pylint/utils/__init__.py`, but leaves it in the package's old `from pylint.utils.utils import (...)`:
    that line is the break, and `from pylint.utils import MessagesStore` elsewhere needs no change. When
    the package re-exports it only from where it no longer is, its users are reported too."""
    files = {
        "pkg/__init__.py": "",
        "pkg/utils/__init__.py": PACKAGE.replace("{new_home}", ""),
        "pkg/utils/utils.py": UTILS,
        "pkg/lint.py": LINT,
    }
    pr = {
        "pkg/utils/__init__.py": PACKAGE.replace("{new_home}", new_home),
        "pkg/utils/message_store.py": "class MessagesStore:\n    pass\n",
        "pkg/utils/utils.py": UTILS.replace("class MessagesStore:\n    pass\n\n\n", ""),
    }
    run = review(git_repo, files, pr)
    assert sorted(sites(run, "dangling-reference")) == expected


COMMON = """class InfoExtractor:
    def extract_subtitles(self, *args, **kwargs):
        return self._get_subtitles(*args, **kwargs)

    def _get_subtitles(self, {base}):
        raise NotImplementedError("This method must be implemented by subclasses")
"""
TIKTOK = """from pkg.common import InfoExtractor


class TikTokBaseIE(InfoExtractor):
    def _get_subtitles(self, aweme_detail, aweme_id{extra}):
        return aweme_detail, aweme_id

    def _parse(self, aweme_detail, aweme_id, user_url):
        return self.extract_subtitles(aweme_detail, aweme_id{passed})
"""


@pytest.mark.parametrize(
    ("base", "expected"), [("*args, **kwargs", []), ("aweme_detail, *args, **kwargs", [5])]
)
def test_a_stub_that_names_no_parameter_reached_only_through_a_relay(
    git_repo: GitRepo, base: str, expected: list[int]
) -> None:
    """yt-dlp eef1e9f44f adds a required `user_url` to `TikTokBaseIE._get_subtitles`, over the stub
    `InfoExtractor._get_subtitles(self, *args, **kwargs)`, which only `extract_subtitles(*args, **kwargs)`
    calls, handing on what its callers pass: a stub that names no parameter promises none. A stub that
    names one still promises that calls with it alone work, which is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/common.py": COMMON.replace("{base}", base),
        "pkg/tiktok.py": TIKTOK.replace("{extra}", "").replace("{passed}", ""),
    }
    after = TIKTOK.replace("{extra}", ", user_url").replace("{passed}", ", user_url")
    run = review(git_repo, files, {"pkg/tiktok.py": after})
    assert [line for path, line in sites(run, "override-mismatch") if path == "pkg/tiktok.py"] == expected


MODELS = """class HTTPMessage:
    def __init__(self, raw):
        self.raw = raw

    @classmethod
    def from_request(cls, request):
        return cls(request)
"""
CORE = """from pkg.models import HTTPMessage


def get_output(request):
    return HTTPMessage.from_request(request)
"""


def test_a_removed_classmethod_called_through_its_class_fitted_at_the_parent(git_repo: GitRepo) -> None:
    """httpie 67ad5980b2 (the stale-reference second set) removes the classmethod
    `HTTPMessage.from_request(cls, request)`; `HTTPMessage.from_request(request)` passes `cls` implicitly,
    so the call fitted the removed method and is a break (not a call it rejected at the parent)."""
    files = {"pkg/__init__.py": "", "pkg/models.py": MODELS, "pkg/core.py": CORE}
    after = MODELS.split("    @classmethod")[0].rstrip() + "\n"
    run = review(git_repo, files, {"pkg/models.py": after})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/core.py"] == [5]


COMPARE = """def deprecate_parameter(old, new_name=None):
    def wrap(func):
        def wrapped(*args, **kwargs):
            if old in kwargs and new_name is not None:
                kwargs[new_name] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapped

    return wrap


{decorator}
def compare_images(image0, image1=None, image2=None, *, method="diff"):
    return image0, image1, method
"""
USE_COMPARE = """from pkg.compare import compare_images


def test_compare(img1, img2):
    return compare_images(img1, image2=img2)
"""


@pytest.mark.parametrize(
    ("decorator", "kept", "expected"),
    [
        ('@deprecate_parameter("image2", new_name="image1")', True, []),
        ("", True, [5]),
        ('@deprecate_parameter("image2", new_name="image1")', False, [5]),
    ],
)
def test_a_decorator_given_a_parameter_s_name_binds_calls_its_own_way(
    git_repo: GitRepo, decorator: str, kept: bool, expected: list[int]
) -> None:
    """scikit-image 32eadf6949 makes `image1` of `compare_images` required; the tests' calls pass the
    deprecated `image2=`, which `@deprecate_parameter("image2", new_name="image1")` hands on as `image1`.
    Without such a decorator, the call now lacks `image1`, which is reported; so it is when the PR drops
    the decorator (sunpy 4f40dd1d03 drops `@deprecated_renamed_argument("pattern", None)`): the calls it
    made work now bind to the bare signature."""
    old = COMPARE.replace("{decorator}", decorator)
    new = old.replace("image1=None, image2=None", "image1, image2=None")
    if not kept:
        new = new.replace(decorator + "\n", "")
    files = {"pkg/__init__.py": "", "pkg/compare.py": old, "tests/test_compare.py": USE_COMPARE}
    run = review(git_repo, files, {"pkg/compare.py": new})
    assert [line for path, line in sites(run, "breaking-call") if path == "tests/test_compare.py"] == expected


SYNC = "class SyncTrioEventLoop:\n    def run(self):\n        return 1\n{broken}"
LOOP = "def sync_loop():\n    from .sync import SyncTrioEventLoop\n\n    return SyncTrioEventLoop()\n"


@pytest.mark.parametrize(("broken", "expected"), [("      def stop(self):\n        pass\n", []), ("", [2])])
def test_a_deleted_module_no_python_compiled_at_the_parent(
    git_repo: GitRepo, broken: str, expected: list[int]
) -> None:
    """trio-asyncio a73f0aaf93 deletes `sync.py`, whose indentation no Python accepted at the parent:
    `from .sync import SyncTrioEventLoop` already failed. A module that compiled is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/sync.py": SYNC.replace("{broken}", broken),
        "pkg/loop.py": LOOP,
    }
    run = review(git_repo, files, {"pkg/sync.py": None})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/loop.py"] == expected
