"""``vado plan``: audit a fleet of repositories, order the migration, and place each workload.

:func:`vado.plan.pipeline.plan_fleet` is the library entry point; the CLI calls it.
Modules: :mod:`~vado.plan.fleet` (manifests, repository resolution),
:mod:`~vado.plan.cache` (content-hash cache), :mod:`~vado.plan.aggregate`
(verdicts, blockers, order), :mod:`~vado.plan.placement` (Kubernetes patches,
Ray options), :mod:`~vado.plan.executors` (process pool, Ray),
:mod:`~vado.plan.render` (Markdown, HTML, JSON, text).
"""

from vado.plan.pipeline import plan_fleet

__all__ = ["plan_fleet"]
