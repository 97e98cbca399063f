"""Build configuration that pyproject.toml cannot express: vado's optional C extension.

``vado._native_ext`` holds compiled drop-ins for the hot paths of audit and port
(the lexer first). It is optional: where no C compiler is available the build
goes on without it and vado runs its pure-Python implementations (see
``vado.native``), which stay the reference the tests compare against.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "vado._native_ext",
            sources=["src/vado/_native/module.c", "src/vado/_native/lexer.c", "src/vado/_native/facts.c",
                     "src/vado/_native/intern.c", "src/vado/_native/tokens.c", "src/vado/_native/diff.c",
                     "src/vado/_native/pairs.c", "src/vado/_native/functions.c"],
            depends=["src/vado/_native/native.h"],
            extra_compile_args=["-O2", "-std=c11"],
            optional=True,
        )
    ]
)
