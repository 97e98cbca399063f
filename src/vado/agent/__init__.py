"""The agent: findings no rule can fix go to a model; an edit is kept only when verify passes.

:func:`vado.agent.loop.run_agent` runs the loop; providers, context, parsing,
verification and the JSONL transcript each have their own module.
"""
