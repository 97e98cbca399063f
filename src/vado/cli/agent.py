"""``vado agent PATH --model M``: a model resolves what the port left; verify decides what is kept."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional

import typer


def agent(
    path: Path = typer.Argument(..., help="CUDA file or directory (only read; the result goes to -o)."),
    model: str = typer.Option(..., "--model", "-m", help="Model name as the endpoint knows it."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible API root (http://127.0.0.1:8080/v1 for llama.cpp, vLLM, Ollama)."),
    provider: Optional[Literal["openai", "anthropic"]] = typer.Option(None, "--provider", help="API flavour (default: anthropic for claude-* without --base-url, else openai)."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="Environment variable holding the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="New directory for the ported and agent-edited tree."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Write nothing but the transcript; show the proposed diffs."),
    target: str = typer.Option("rocm-7.2", "--target", "-t", help="Port target (rocm-7.2, rocm-6.4, hip-5.2)."),
    arch: list[str] = typer.Option([], "--arch", help="Offload architecture to compile candidates for (repeatable; default: the target's, gfx942 and gfx950 for rocm-7.2, as vado verify)."),
    code: list[str] = typer.Option([], "--code", help="Work only on these finding codes (repeatable; COMPILE for compiler errors)."),
    attempts: int = typer.Option(3, "--attempts", min=1, help="Answers asked per item before it is reported open."),
    max_tokens: int = typer.Option(200_000, "--max-tokens", min=1, help="Token budget for the whole run (input + output)."),
    max_seconds: float = typer.Option(900.0, "--max-seconds", min=1.0, help="Wall-clock budget for the whole run."),
    answer_tokens: int = typer.Option(1024, "--answer-tokens", min=16, help="Most tokens per answer."),
    context_lines: Optional[int] = typer.Option(None, "--context-lines", min=0, help="Lines shown around a finding (default 12; 60 for library findings)."),
    doc_chars: int = typer.Option(1500, "--doc-chars", min=0, help="Characters of each rule documentation section in the prompt."),
    price_in: Optional[float] = typer.Option(None, "--price-in", help="Dollars per million input tokens (to report cost)."),
    price_out: Optional[float] = typer.Option(None, "--price-out", help="Dollars per million output tokens."),
    transcript: Path = typer.Option(Path("vado-agent-transcript.jsonl"), "--transcript", help="JSONL record of every attempt."),
    hipcc: Optional[str] = typer.Option(None, "--hipcc", help="hipcc to verify with (default: $VADO_HIPCC or PATH)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
) -> None:
    """Port PATH, then ask a model to fix what the port could not; keep an edit only when verify passes.

    Exit codes: 0 nothing left open, 1 items remain open, 2 usage error, 3 tool or endpoint failure.
    """
    from vado.agent.loop import AgentOptions, Budget, run_agent
    from vado.agent.providers import Pricing, make_provider
    from vado.cli.terminal import get_terminal
    from vado.errors import KnowledgeError, VadoError

    term = get_terminal(quiet=quiet)
    if (price_in is None) != (price_out is None):
        term.error("--price-in and --price-out go together", "give both, or neither")
        raise typer.Exit(2)
    if output is None and not dry_run:
        term.error("no output directory", "pass -o OUT, or --dry-run to only see the proposed diffs")
        raise typer.Exit(2)
    try:
        prov = make_provider(model, provider=provider, base_url=base_url, api_key_env=api_key_env)
        from vado.knowledge.targets import get_target

        options = AgentOptions(
            target=target,
            archs=tuple(arch) or get_target(target).default_arch,
            budget=Budget(attempts_per_item=attempts, max_tokens=max_tokens, max_seconds=max_seconds, max_answer_tokens=answer_tokens),
            dry_run=dry_run,
            hipcc=hipcc,
            pricing=Pricing(price_in, price_out) if price_in is not None and price_out is not None else None,
            codes=tuple(c.upper() for c in code),
            margin=context_lines,
            doc_chars=doc_chars,
        )
        result = run_agent(path, None if dry_run else output, prov, options, transcript=transcript,
                           progress=None if quiet else term.info)
    except KnowledgeError as exc:  # an unknown target is the caller's mistake
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(2)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)

    lines = [f"vado agent {result.source} with {result.model}" + (" (dry run)" if result.dry_run else f" → {result.output}")]
    for r in result.items:
        lines.append(f"  {r.status:9} {r.item['id']}  ({r.attempts} attempt{'s' if r.attempts != 1 else ''}) {r.reason.splitlines()[0] if r.reason else ''}")
    cost = f", ${result.cost_usd:.4f}" if result.cost_usd is not None else ""
    lines.append(f"{result.fixed} fixed, {result.still_open} open; {result.attempts} attempts, "
                 f"{result.input_tokens}+{result.output_tokens} tokens{cost}, {result.duration_s:.1f}s")
    if result.stopped_by:
        lines.append(f"stopped: {result.stopped_by}")
    lines.append(f"transcript: {result.transcript}")
    term.data("\n".join(lines))
    if dry_run and result.diffs:
        term.data("".join(result.diffs[k] for k in sorted(result.diffs)).rstrip("\n"))
    if result.stopped_by.startswith("the model endpoint failed"):
        # Also on stderr as an error: the run did not finish, and stdout may go to a file.
        term.error(result.stopped_by.removeprefix("the model endpoint failed: "))
        raise typer.Exit(3)
    raise typer.Exit(1 if result.still_open else 0)
