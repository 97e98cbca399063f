"""``vado bench`` and ``vado tune``: measure a workload on the hardware at hand, then tune it."""
