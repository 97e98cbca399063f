"""JSON form of the model: one generic encoder/decoder over the frozen dataclasses.

The shape is plain: a dataclass becomes an object of its fields, an enum its
value, a tuple a list. ``from_json`` rebuilds objects from the type hints, so the
dataclasses are the single source of the format; ``schema.json`` documents it
and tests check that every emitted document validates against it.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from enum import Enum
from typing import Any, TypeVar

SCHEMA_VERSION = "1.1"

T = TypeVar("T")


def to_json(obj: Any) -> Any:
    """Encode a model object (or containers of them) to JSON-compatible values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, (list, tuple)):
        return [to_json(x) for x in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(to_json(x) for x in obj)
    if isinstance(obj, dict):
        return {str(to_json(k)): to_json(v) for k, v in obj.items()}
    return obj


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json(cls: type[T], data: Any) -> T:
    """Decode ``data`` produced by :func:`to_json` back into ``cls``."""
    return _decode(cls, data)


def _decode(tp: Any, data: Any) -> Any:
    if tp is Any or data is None:
        return data
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        for a in non_none:
            try:
                return _decode(a, data)
            except (TypeError, ValueError, KeyError):
                continue
        raise ValueError(f"cannot decode {data!r} as {tp}")
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], x) for x in data)
        if args:
            return tuple(_decode(a, x) for a, x in zip(args, data))
        return tuple(data)
    if origin is list:
        return [_decode(args[0] if args else Any, x) for x in data]
    if origin in (set, frozenset):
        return origin(_decode(args[0] if args else Any, x) for x in data)
    if origin is dict:
        kt, vt = args if args else (Any, Any)
        return {_decode(kt, k): _decode(vt, v) for k, v in data.items()}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(data)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = _decode(hints[f.name], data[f.name])
        return tp(**kwargs)
    if tp is float and isinstance(data, int):
        return float(data)
    return data
