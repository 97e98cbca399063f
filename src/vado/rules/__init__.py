"""Rules: facts × target → findings. One module per family, one class per rule.

See :mod:`vado.rules.base` for the contract and :mod:`vado.rules.registry` for
how rules are found.
"""
