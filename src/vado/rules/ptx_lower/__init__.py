"""Lowering inline PTX to HIP C++: the rewrite behind PTX001's fix.

:func:`lower` turns one parsed ``asm`` statement into C++ for one target, or
explains why it cannot (:class:`Refusal`). It models just enough of PTX to be
exact:

- *Operands.* ``%N`` and ``%[name]`` refer to the asm operands, outputs first.
  Constraint letters give the register each operand lives in (``h`` 16-bit,
  ``r`` 32-bit, ``l`` 64-bit, ``f`` float, ``d`` double, ``n``/``i``
  immediates). A read at another class than the constraint's is a bit cast
  (``__float_as_uint``), as in PTX, where a register is just bits.
- *Registers.* ``.reg .b32 t, u<2>;`` become C++ locals named ``_ptx_t``,
  ``_ptx_u0``, ``_ptx_u1``; ``.pred`` registers become ``bool``. The carry flag of
  ``add.cc``/``addc`` chains is a local ``_ptx_cc``.
- *Order of effects.* GCC asm reads every input before it writes any output.
  A single-instruction template becomes one expression (``d = __brev(a)``) in
  place of the ``asm(...)``; anything longer becomes a block in which outputs
  are temporaries assigned back at the end, so an output that is also an input
  can never be clobbered early, and every operand expression is evaluated once.

Each instruction's translation carries an applicability (:class:`Applicability`):
safe when C++ computes exactly what PTX does, unsafe when it differs at the
edges or on wave64 hardware, display-only when a person must choose; the
statement's is the weakest of its instructions'. The choices and their reasons
are listed per idiom in ``vado/knowledge/data/ptx.yaml`` and, for the
handlers in this package, in their docstrings.

Layout: :mod:`.core` (types, operand slots, the :class:`Lowerer`), one module per instruction family of
handlers (:mod:`.handlers_data`, :mod:`.handlers_int`, :mod:`.handlers_warp`, :mod:`.handlers_misc`) and
:mod:`.lower` (the handler table and :func:`lower`). A new idiom is a handler in its family's module and
a row in the table.
"""

from __future__ import annotations

from vado.rules.ptx_lower.core import Lowering, Refusal
from vado.rules.ptx_lower.lower import lower

__all__ = ["Lowering", "Refusal", "lower"]
