"""Scanning: find files, classify them, lex them, and hand them to the rules."""
