"""The knowledge base: vado's own data files (under ``data/``) and lazy loaders.

Every table names its ``source``. Loading happens on first use and is cached;
importing this package reads nothing.
"""
