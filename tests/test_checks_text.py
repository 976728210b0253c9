"""syntax-error, conflict-marker, debug-leftover and secret on real PR branches."""

from __future__ import annotations

import json

from prscope.analysis.checks import ChecksConfig
from prscope.analysis.checks.secrets import find_secrets, mask_secrets
from prscope.analysis.findings import Severity

from tests.gitrepo import GitRepo
from tests.test_checks_support import only, review, sites

GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS_KEY = "AKIA" + "Z7QW3RT5YU2IO4PL"
STRIPE_KEY = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"


def test_syntax_error_in_changed_file_is_reported_on_its_line(git_repo: GitRepo) -> None:
    run = review(
        git_repo, {"app.py": "def f():\n    return 1\n"}, {"app.py": "def f():\n    return (1\n\nx = 2\n"}
    )
    finding = only(run, "syntax-error")
    assert finding.path == "app.py"
    assert finding.severity is Severity.ERROR
    assert "no longer parses" in finding.message
    assert finding.line in (2, 4)


def test_file_already_broken_at_base_is_not_blamed_on_the_pr(git_repo: GitRepo) -> None:
    broken = "def f(:\n    pass\n"
    run = review(git_repo, {"old.py": broken}, {"old.py": broken + "\n# a comment\n"})
    assert sites(run, "syntax-error") == []


def test_conflict_block_is_one_finding_spanning_the_markers(git_repo: GitRepo) -> None:
    text = "a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> feature\n"
    run = review(git_repo, {"conf.py": "a = 1\n"}, {"conf.py": text})
    finding = only(run, "conflict-marker")
    assert (finding.line, finding.end_line) == (2, 6)
    assert sites(run, "syntax-error") == []  # the conflict says it better


def test_rst_underline_of_equals_signs_is_not_a_conflict(git_repo: GitRepo) -> None:
    doc = "Title\n=======\n\nSection\n-------\n\n=======\nOverline\n=======\n"
    run = review(git_repo, {"README.rst": "x\n"}, {"README.rst": doc})
    assert sites(run, "conflict-marker") == []


def test_debugger_calls_on_added_lines_are_warnings(git_repo: GitRepo) -> None:
    new = (
        "import pdb\n"
        "\n"
        "def f(x):\n"
        "    breakpoint()\n"
        "    y = x + 1\n"
        "    import pdb; pdb.set_trace()\n"
        "    return y\n"
    )
    run = review(git_repo, {"dbg.py": "def f(x):\n    return x + 1\n"}, {"dbg.py": new})
    assert sites(run, "debug-leftover") == [("dbg.py", 4), ("dbg.py", 6)]
    first = next(f for f in run.findings if f.line == 4)
    assert first.severity is Severity.WARNING
    assert first.suggestion is not None and first.suggestion.replacement == ""
    assert (first.suggestion.start_line, first.suggestion.end_line) == (4, 4)


def test_breakpoint_in_strings_comments_and_methods_is_not_a_leftover(git_repo: GitRepo) -> None:
    new = (
        '"""Call breakpoint() to debug."""\n'
        "# breakpoint()\n"
        "HELP = 'use pdb.set_trace() here'\n"
        "\n"
        "class Debugger:\n"
        "    def breakpoint(self):\n"
        "        return 1\n"
        "\n"
        "def g(d):\n"
        "    d.breakpoint()\n"
        "    return HELP\n"
    )
    run = review(git_repo, {"d.py": "x = 1\n"}, {"d.py": new})
    assert sites(run, "debug-leftover") == []


def test_preexisting_breakpoint_on_an_unchanged_line_is_not_reported(git_repo: GitRepo) -> None:
    base = "def f():\n    breakpoint()\n    return 1\n"
    run = review(git_repo, {"p.py": base}, {"p.py": base + "\ndef g():\n    return 2\n"})
    assert sites(run, "debug-leftover") == []


def test_secrets_are_found_and_masked_everywhere(git_repo: GitRepo) -> None:
    new = f'TOKEN = "{GITHUB_TOKEN}"\naws = "{AWS_KEY}"\nstripe = "{STRIPE_KEY}"\n'
    run = review(git_repo, {"settings.py": "DEBUG = False\n"}, {"settings.py": new})
    found = [f for f in run.findings if f.rule == "secret"]
    assert [f.line for f in found] == [1, 2, 3]
    dumped = json.dumps([f.model_dump(mode="json") for f in run.findings])
    for secret in (GITHUB_TOKEN, AWS_KEY, STRIPE_KEY):
        assert secret not in dumped
        assert secret[-12:] not in dumped
    assert "ghp_" in found[0].message and "GitHub token" in found[0].title
    assert all(f.suggestion is None for f in found)


def test_secret_fingerprint_uses_the_masked_line(git_repo: GitRepo) -> None:
    from prscope.analysis.findings import fingerprint

    line = f'TOKEN = "{GITHUB_TOKEN}"'
    run = review(git_repo, {"s.py": "x = 1\n"}, {"s.py": line + "\n"})
    finding = only(run, "secret")
    assert finding.id == fingerprint("secret", "s.py", mask_secrets(line))
    assert finding.id != fingerprint("secret", "s.py", line)


def test_private_key_block_is_a_secret(git_repo: GitRepo) -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\n-----END RSA PRIVATE KEY-----\n"
    run = review(git_repo, {"README.md": "hi\n"}, {"deploy/id_rsa": key})
    assert sites(run, "secret") == [("deploy/id_rsa", 1)]


def test_fake_looking_keys_in_fixtures_do_not_fire(git_repo: GitRepo) -> None:
    fixture = (
        'FAKE_GH = "ghp_1234"\n'
        'EXAMPLE_AWS = "AKIAIOSFODNN7EXAMPLE"\n'
        'PLACEHOLDER = "AKIAXXXXXXXXXXXXXXXX"\n'
        'TEST_STRIPE = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"\n'
        'OPENAI = "sk-proj-..."\n'
    )
    run = review(git_repo, {"tests/conftest.py": "x = 1\n"}, {"tests/conftest.py": fixture})
    assert sites(run, "secret") == []


def test_mask_secrets_keeps_only_the_public_prefix() -> None:
    masked = mask_secrets(f"token={GITHUB_TOKEN}\n")
    assert masked.startswith("token=ghp_") and masked.endswith("\n")
    assert GITHUB_TOKEN not in masked
    assert [m.kind for m in find_secrets(f"x {AWS_KEY} y {GITHUB_TOKEN}")] == [
        "AWS access key id",
        "GitHub token",
    ]


def test_binary_and_non_utf8_files_are_skipped_not_fatal(git_repo: GitRepo) -> None:
    run = review(
        git_repo,
        {"a.py": "x = 1\n"},
        {
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
            "latin.py": b"name = '\xe9t\xe9'\n",
            "a.py": "x = 2\n",
        },
    )
    assert run.errors == []
    skipped = {s.path: s.reason for s in run.skipped}
    assert "binary" in skipped["logo.png"]
    assert "UTF-8" in skipped["latin.py"]


def test_config_disables_rules_overrides_severity_and_excludes_paths(git_repo: GitRepo) -> None:
    new = "def f():\n    breakpoint()\n    return 1\n"
    config = ChecksConfig(severity={"debug-leftover": Severity.ERROR}, exclude=["vendor/**"])
    run = review(git_repo, {"x.py": "y = 1\n"}, {"x.py": new, "vendor/lib.py": new}, config)
    assert sites(run, "debug-leftover") == [("x.py", 2)]
    assert only(run, "debug-leftover").severity is Severity.ERROR


def test_disabled_rule_does_not_run(git_repo: GitRepo) -> None:
    config = ChecksConfig(enabled={"secret": False})
    run = review(git_repo, {"x.py": "y = 1\n"}, {"x.py": f'T = "{GITHUB_TOKEN}"\n'}, config)
    assert sites(run, "secret") == []
