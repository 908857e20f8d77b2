"""What a launch did wrong, counted per cause (races, memory errors, barrier and warp-sync divergence), and
the exit status a command gives for them: `--error-exitcode N` with `--error-on`, today's memory-error exit
and `--allow-errors` (the matrix is in docs/json.md and tested in tests/test_exit_codes.py)."""

from __future__ import annotations

from dataclasses import dataclass

from gpuviz.core.analysis.report import race_report
from gpuviz.core.error_report import error_report
from gpuviz.core.errors import GpuvizError
from gpuviz.core.trace.model import Trace

CAUSES = ("races", "memory", "barrier", "warp-sync")
# `gpuviz run` without --error-exitcode: what has always failed it (exit 1 unless --allow-errors); races never did
RUN_DEFAULT = ("memory", "barrier", "warp-sync")


@dataclass(frozen=True)
class Findings:
    """One launch's counts: racy locations (None: not looked for, level threads), memory errors, blocks with
    barrier divergence and warps with warp-sync divergence."""

    races: int | None
    memory: int
    barrier: int
    warp_sync: int

    def count(self, cause: str) -> int:
        """How many of one cause (a cause that was not looked for counts 0)."""
        value = {"races": self.races, "memory": self.memory, "barrier": self.barrier, "warp-sync": self.warp_sync}
        return value[cause] or 0

    def to_json(self) -> dict:
        return {"races": self.races, "memory_errors": self.memory, "barrier_divergence": self.barrier,
                "warp_sync_divergence": self.warp_sync}  # fmt: skip


def findings_of(trace: Trace) -> Findings:
    errors = error_report(trace)
    races = race_report(trace)
    return Findings(None if races is None else races.locations, errors.memory, errors.divergent_blocks,
                    errors.divergent_warps)  # fmt: skip


@dataclass(frozen=True)
class ExitRule:
    """`--error-exitcode N --error-on CAUSES` (code None: the command's default), and `--allow-errors`."""

    code: int | None = None
    causes: tuple[str, ...] = CAUSES
    allow_errors: bool = False


def exit_rule(code: int | None, causes: str | None, allow_errors: bool = False) -> ExitRule:
    """The rule from the command line's words, or one line saying what is wrong with them."""
    if code is not None and not 1 <= code <= 255:
        raise GpuvizError(f"--error-exitcode {code}: give an exit status from 1 to 255")
    if causes is not None and code is None:
        raise GpuvizError("--error-on chooses what --error-exitcode N fails on: give --error-exitcode too")
    if code is not None and allow_errors:
        raise GpuvizError("--allow-errors and --error-exitcode contradict each other: choose what fails with "
                          "--error-on (e.g. --error-on races) instead")  # fmt: skip
    chosen = CAUSES if causes is None else tuple(part.strip() for part in causes.split(",") if part.strip())
    unknown = [cause for cause in chosen if cause not in CAUSES]
    if unknown or not chosen:
        raise GpuvizError(f"--error-on {causes!r}: give one or more of {', '.join(CAUSES)}, separated by commas")
    return ExitRule(code, chosen, allow_errors)


def exit_status(rule: ExitRule, found: list[Findings], default: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """(exit status, the causes that set it). Without a code, `default`'s causes give 1 unless --allow-errors
    (`gpuviz run` passes RUN_DEFAULT; commands that read a trace pass none and exit 0)."""
    code, causes = (rule.code, rule.causes) if rule.code is not None else (1, () if rule.allow_errors else default)
    failed = [cause for cause in causes if any(f.count(cause) for f in found)]
    return (code if failed else 0), failed


def unchecked_races(rule: ExitRule, found: list[Findings]) -> bool:
    """Whether --error-on races was asked for a launch whose races were not looked for (level threads)."""
    return rule.code is not None and "races" in rule.causes and any(f.races is None for f in found)
