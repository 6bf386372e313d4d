"""A minimal TOML writer for resolved configurations (stdlib has a reader, not a writer).

Handles exactly what our configs hold: tables of strings, numbers, booleans, lists of those,
and nested tables.  Floats are written with ``repr`` so a value read back is bit-identical,
which is what makes a run reproducible from its ``config.toml``.
"""

from __future__ import annotations

from typing import Any


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r if ("." in r or "e" in r or "inf" in r or "nan" in r) else r + ".0"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_scalar(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else _scalar(k)


def dumps(data: dict[str, Any]) -> str:
    out: list[str] = []

    def emit(table: dict[str, Any], path: list[str]) -> None:
        scalars = {k: v for k, v in table.items() if not isinstance(v, dict)}
        tables = {k: v for k, v in table.items() if isinstance(v, dict)}
        if path and (scalars or not tables):
            out.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in scalars.items():
            out.append(f"{_key(k)} = {_scalar(v)}")
        if scalars or (path and not tables):
            out.append("")
        for k, v in tables.items():
            emit(v, [*path, k])

    emit(data, [])
    return "\n".join(out).rstrip() + "\n"
