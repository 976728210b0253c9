"""`prscope review`: parse the command line, merge it over the configuration file, run the review, write
the chosen format and turn the result into an exit code.

Exit codes: 0 reviewed, nothing at or above --fail-on; 1 something at or above it; 2 usage, configuration
or repository error (one line on stderr); 3 a model review was configured or required but did not
finish, or (--require-complete) the review is partial for any reason (the report is still written);
4 (--require-post) the review could not be posted on the pull request. When findings gate the build and
the model also failed, 1 wins: CI setups that tolerate 3 (a flaky model) must still be blocked by real
findings. Without --require-post, posting never changes the exit code.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from prscope.analysis.changeset import DiffSpec
from prscope.analysis.config import ConfigOverrides, PrscopeConfig, load_config
from prscope.analysis.errors import ConfigError, PrscopeError
from prscope.analysis.findings import Severity
from prscope.analysis.formats import FORMATS, Format, RenderContext, render, status_line
from prscope.analysis.review import ReviewRequest, ReviewResult, run_review

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR, EXIT_MODEL, EXIT_POST = 0, 1, 2, 3, 4
POST_CHOICES = ("off", "auto", "github", "gitlab")  # prscope.analysis.publish.POST_CHOICES, not imported
TOKEN_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "PRSCOPE_GITLAB_TOKEN",
    "GITLAB_TOKEN",
)
FAIL_ON_CHOICES = ("error", "warning", "note", "never")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"{message} (see 'prscope review --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="prscope review",
        description="Review the changes of a pull request (or staged/uncommitted work) in a git repository.",
        epilog="Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 usage, "
        "configuration or repository error; 3 a configured or required model review did not finish, "
        "or with --require-complete the review is partial; 4 with --require-post the review could not "
        "be posted on the pull request.",
    )
    parser.add_argument("path", nargs="?", default=".", help="a directory inside the repository (default: .)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--base", metavar="REF", help="review the current branch against REF")
    which.add_argument("--staged", action="store_true", help="review the staged changes")
    which.add_argument(
        "--uncommitted", action="store_true", help="review staged, unstaged and untracked changes"
    )
    which.add_argument("--commits", metavar="A..B", help="review a commit range")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument(
        "--fail-on", choices=FAIL_ON_CHOICES, help="lowest severity that fails the run (default: error)"
    )
    parser.add_argument("--offline", action="store_true", help="deterministic checks only, even with a key")
    parser.add_argument(
        "--require-model", action="store_true", help="exit 3 unless a model review runs and finishes"
    )
    parser.add_argument(
        "--require-complete",
        action="store_true",
        help="exit 3 when the review is partial (a check out of time or cancelled, a file too large "
        "to check, a model phase that did not finish)",
    )
    parser.add_argument("--provider", choices=("anthropic", "openai"), help="model provider")
    parser.add_argument("--model", metavar="ID", help="model id")
    parser.add_argument("--base-url", metavar="URL", help="API base URL (OpenAI-compatible servers, proxies)")
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="configuration file (default: .prscope.toml or "
        "[tool.prscope] in pyproject.toml of the repository)",
    )
    parser.add_argument(
        "--also",
        metavar="FMT=FILE",
        action="append",
        default=[],
        help="also write format FMT to FILE from the same review (repeatable; CI: sarif + markdown summary)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="review with the model again even when this change (or part of it) was reviewed before",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress display on stderr")
    parser.add_argument(
        "--post",
        choices=POST_CHOICES,
        default="off",
        help="post the review on the pull request: a summary comment edited in place and inline comments "
        "(github), a merge-request note (gitlab), or wherever CI allows (auto: not on fork pull requests); "
        "reads the pull request and token from the CI environment (default: off)",
    )
    parser.add_argument(
        "--require-post", action="store_true", help="exit 4 when the review could not be posted"
    )
    parser.add_argument(
        "--request-changes",
        action="store_true",
        help="with --post github: a review that requests changes while errors remain (default: comments)",
    )
    return parser


def main(argv: Sequence[str]) -> int:
    try:
        args = build_parser().parse_args(list(argv))
    except SystemExit as done:  # --help
        return int(done.code or 0)
    try:
        return _run(args)
    except PrscopeError as err:
        print(f"prscope: error: {err}", file=sys.stderr)
        return err.exit_code
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:  # a bug must not exit 1, which means "findings" to a CI gate
        if os.environ.get("PRSCOPE_DEBUG"):
            raise
        print(
            f"prscope: internal error: {type(err).__name__}: {_masked(str(err))} "
            "(set PRSCOPE_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_ERROR


def _masked(text: str) -> str:
    from prscope.analysis.checks.secrets import mask_secrets

    masked = mask_secrets(" ".join(text.split()))
    for variable in TOKEN_VARIABLES:
        key = os.environ.get(variable, "")
        if len(key) >= 8:
            masked = masked.replace(key, "***")
    return masked


def _run(args: argparse.Namespace) -> int:
    if args.offline and args.require_model:
        raise ConfigError("--offline and --require-model contradict each other")
    extra_outputs = _extra_outputs(args.also)
    request = ReviewRequest(
        repo_path=Path(args.path),
        spec=_spec(args),
        config=load_config(Path("."), Path(args.config)) if args.config else None,
        overrides=ConfigOverrides(
            fail_on=args.fail_on, provider=args.provider, model=args.model, base_url=args.base_url
        ),
        offline=args.offline,
        require_model=args.require_model,
        use_cache=not args.no_cache,
    )
    result = _review(request, show_progress=not args.no_progress)
    for warning in result.warnings:
        print(f"prscope: warning: {_masked(warning)}", file=sys.stderr)
    _write(result, args.format, args.output, result.config)
    for fmt, target in extra_outputs:
        _write(result, fmt, target, result.config)
    _announce_status(result, args.format, args.output)
    posted = _post(result, args)
    code = exit_code(result, result.config)
    if code == EXIT_OK and args.require_complete and result.report.status == "partial":
        return EXIT_MODEL
    if code == EXIT_OK and args.require_post and not posted:
        return EXIT_POST
    return code


def _post(result: ReviewResult, args: argparse.Namespace) -> bool:
    """Post the review on its pull request when asked; True when it was posted. A failure is one line on
    stderr, never an exception: the review's result stands whatever happens here."""
    if args.post == "off":
        if args.require_post or args.request_changes:
            raise ConfigError("--require-post and --request-changes need --post")
        return False
    from prscope.analysis.publish import PostOptions, publish

    context = render_context(result, result.config, color=False, width=100)
    options = PostOptions(target=args.post, request_changes=args.request_changes)
    outcome = publish(result.report, context, Path(args.path), options, run_id=result.run_id)
    print(_masked(outcome.line), file=sys.stderr)
    return outcome.posted


def _extra_outputs(values: list[str]) -> list[tuple[Format, str]]:
    outputs: list[tuple[Format, str]] = []
    for value in values:
        fmt, _, target = value.partition("=")
        if fmt not in FORMATS or not target:
            raise ConfigError(f"--also expects FMT=FILE with FMT one of {', '.join(FORMATS)}, got {value!r}")
        outputs.append((fmt, target))  # type: ignore[arg-type]
    return outputs


def _spec(args: argparse.Namespace) -> DiffSpec:
    if args.staged:
        return DiffSpec(mode="staged")
    if args.uncommitted:
        return DiffSpec(mode="uncommitted")
    if args.commits is not None:
        if ".." not in args.commits:
            raise ConfigError(f"--commits expects a range A..B, got {args.commits!r}")
        return DiffSpec(mode="commits", commits=args.commits)
    return DiffSpec(mode="branch", base=args.base)


def _review(request: ReviewRequest, *, show_progress: bool) -> ReviewResult:
    from prscope.analysis.formats.progress import ProgressDisplay

    live = sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
    with ProgressDisplay(sys.stderr, live=live, enabled=show_progress) as display:
        return asyncio.run(_review_async(request, display))


async def _review_async(request: ReviewRequest, display: object) -> ReviewResult:
    from prscope.analysis.formats.progress import ProgressDisplay

    assert isinstance(display, ProgressDisplay)
    cancel = asyncio.Event()
    with _first_interrupt_cancels(cancel):
        return await run_review(request, events=display.on_event, cancel=cancel, progress=display.stage)


@contextlib.contextmanager
def _first_interrupt_cancels(cancel: asyncio.Event) -> Iterator[None]:
    """The first Ctrl-C asks the model review to wrap up (its partial report is still written); the
    second one interrupts at once."""
    loop = asyncio.get_running_loop()

    def on_interrupt() -> None:
        if cancel.is_set():
            # Not KeyboardInterrupt: asyncio.run would wait for the worker threads before exiting.
            print("prscope: aborted", file=sys.stderr, flush=True)
            os._exit(130)
        print("prscope: stopping; the report so far will be written (Ctrl-C again to abort)", file=sys.stderr)
        cancel.set()

    try:
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
        installed = True
    except (NotImplementedError, RuntimeError, ValueError):
        installed = False
    try:
        yield
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)


def render_context(result: ReviewResult, config: PrscopeConfig, *, color: bool, width: int) -> RenderContext:
    return RenderContext(
        sources=result.sources,
        change_summary=result.change_summary,
        dismissed=frozenset(config.dismissed),
        dismissal_reasons=result.dismissal_reasons,
        color=color,
        width=width,
    )


def _write(result: ReviewResult, fmt: Format, output: str | None, config: PrscopeConfig) -> None:
    to_terminal = output is None and sys.stdout.isatty()
    color = to_terminal and fmt == "text" and not os.environ.get("NO_COLOR")
    width = shutil.get_terminal_size((100, 24)).columns if to_terminal else 100
    text = render(result.report, fmt, render_context(result, config, color=color, width=width))
    if output is None:
        _emit(sys.stdout, text)
        return
    target = Path(output)
    try:
        if target.parent and not target.parent.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot write {output}: {err.strerror or err}") from None


def _emit(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:  # `prscope review | head`
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _announce_status(result: ReviewResult, fmt: Format, output: str | None = None) -> None:
    """The review's status on stderr when it is not a plain success (and always for rdjsonl and
    codequality, which have no field for it): one line, e.g. that the review ran offline and why. Not
    when the text report on the terminal just ended with the same line."""
    if fmt == "text" and output is None and sys.stdout.isatty():
        return
    if result.report.status != "complete" or fmt in ("rdjsonl", "codequality"):
        print(status_line(result.report), file=sys.stderr)


def exit_code(result: ReviewResult, config: PrscopeConfig) -> int:
    if _gates(result, config):
        return EXIT_FINDINGS
    if result.model_incomplete:
        return EXIT_MODEL
    return EXIT_OK


def _gates(result: ReviewResult, config: PrscopeConfig) -> bool:
    if config.fail_on == "never":
        return False
    threshold = Severity(config.fail_on).rank
    dismissed = set(config.dismissed)
    return any(f.severity.rank >= threshold and f.id not in dismissed for f in result.report.findings)
