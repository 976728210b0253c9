"""False alarms of the real-history noise check from rounds 33 to 36 (`bench/noise76-*` to `noise79-*`,
issue 20), each rebuilt as a small repository of that shape, with a paired case still reported."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

LAYERS = """class LoraLayer:
    def update_layer(self, adapter_name, r, init_weights, use_rslora, use_dora=False{extra}):
        return adapter_name, r, init_weights, use_rslora, use_dora


class AdaLoraLayer(LoraLayer):
    def update_layer(self, {override}):
        return adapter_name, r


def build(layer: LoraLayer):
    return layer.update_layer("default", 8, True, False, lora_bias=True)
"""


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("adapter_name, r, init_weights", []),
        ("adapter_name, r, init_weights, use_rslora, use_dora=False", [7]),
    ],
)
def test_an_override_that_refused_every_call_of_the_base_before_is_called_its_own_way(
    git_repo: GitRepo, override: str, expected: list[int]
) -> None:
    """peft 943daf1de4: `AdaLoraLayer.update_layer` never took `use_rslora`, which every call of the base
    passes, so no call made to the base's signature ran on it; the base gaining `lora_bias` breaks none of
    its callers. An override that took every base parameter and now misses `lora_bias` is reported."""
    files = {"pkg/__init__.py": "", "pkg/layers.py": LAYERS.format(extra="", override=override)}
    after = LAYERS.format(extra=", lora_bias=False", override=override)
    run = review(git_repo, files, {"pkg/layers.py": after})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


ENSEMBLE = """from sklearn.ensemble import BaggingClassifier


class EasyEnsembleClassifier(BaggingClassifier):
    def fit(self, X, y):
        return super().fit(X, y)
{removed}"""
DECISION = """
{comment}    def decision_function(self, X):
        return sum(e.decision_function(X) for e in self.estimators_) / len(self.estimators_)
"""
USE = """from pkg.ensemble import EasyEnsembleClassifier


def test_decision(X, y):
    eec = EasyEnsembleClassifier().fit(X, y)
    assert eec.decision_function(X) is not None
"""


@pytest.mark.parametrize(
    ("comment", "expected"),
    [("    # TODO: remove when minimum supported version of scikit-learn is 1.1\n", []), ("", [6])],
)
def test_a_method_kept_until_a_library_version_has_it_is_still_there_in_the_base(
    git_repo: GitRepo, comment: str, expected: list[int]
) -> None:
    """imbalanced-learn d55e27d06f drops `EasyEnsembleClassifier.decision_function`, marked to be removed
    once scikit-learn 1.1 is the minimum: `BaggingClassifier` has it from then on. With no such mark the
    class defined the method itself and the base is trusted not to have it: reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/ensemble.py": ENSEMBLE.format(removed=DECISION.format(comment=comment)),
        "tests/test_ensemble.py": USE,
    }
    run = review(git_repo, files, {"pkg/ensemble.py": ENSEMBLE.format(removed="")})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected
