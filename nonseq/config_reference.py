"""docs/configuration.md, generated from the settings models: `python -m nonseq.config_reference`.

Nothing imports this module at run time (the CLI never needs it); tests/test_docs.py checks that the
file in the repository is what it prints.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types as at
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from nonseq.config import ENV_PREFIX, SECTIONS, Settings, _toml_value

COMMAND = "python -m nonseq.config_reference > docs/configuration.md"

INTRO = f"""\
# Configuration reference

<!-- Generated from the settings models in nonseq/config.py by `{COMMAND}`.
     Do not edit by hand: tests/test_docs.py fails when this file and the models differ. -->

Every key is optional; the defaults below apply when a key, a section or the whole file is missing.

- **Which file**: `--config PATH` (before or after the subcommand), else `${ENV_PREFIX}CONFIG`, else
  `./config.toml`; with none, the built-in defaults. `nonseq init` writes the commented defaults
  (the repository's `config.toml` is exactly that file); `nonseq config show` prints the effective
  settings and `nonseq config path` the file in use.
- **Environment**: `{ENV_PREFIX}<SECTION>__<KEY>` overrides one key, e.g.
  `{ENV_PREFIX}SEARXNG__URL=http://127.0.0.1:8888`; the value is read as a TOML literal (`true`, `3`,
  `["a", "b"]`), else as a string. `nonseq config show` marks each value that came from one.
- **Checked once, at load**: an unknown section or key, a wrong type or a value out of range is one
  line naming the key (or the variable) and what is allowed, with exit code 2, e.g.
  `error: /home/me/writing/config.toml: fetch.timeout: Input should be greater than 0 (got -1)`.
- **Paths**: the `[paths]` keys and `[qdrant] path` resolve from the config file's folder (from the
  current folder without one); `~` is expanded.

How to point nonseq at your own LLM server, SearXNG or Qdrant: [backends.md](backends.md).
"""

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}
_BOUNDS = ((at.Ge, "≥", "ge"), (at.Gt, ">", "gt"), (at.Le, "≤", "le"), (at.Lt, "<", "lt"))


def type_name(annotation: Any) -> str:
    """A field's type in words: string, integer, one of `a`, `b`, list of strings..."""
    origin = get_origin(annotation)
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if origin is Literal:
        return "one of " + ", ".join(f"`{_toml_value(v)}`" for v in get_args(annotation))
    if origin in (list, tuple, set):
        (item, *_) = get_args(annotation) or (Any,)
        return f"list of {type_name(item)}s"
    if origin is dict:
        return f"table of {type_name(get_args(annotation)[1])}s" if get_args(annotation) else "table"
    if origin in (Union, types.UnionType):
        return " or ".join(type_name(a) for a in get_args(annotation) if a is not type(None))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table"
    return getattr(annotation, "__name__", str(annotation))


def constraints(field: FieldInfo) -> str:
    """The field's bounds, e.g. `≥ 1, ≤ 10`; empty when it has none."""
    parts = []
    for meta in field.metadata:
        for kind, sign, attr in _BOUNDS:
            if isinstance(meta, kind):
                parts.append(f"{sign} {_toml_value(getattr(meta, attr))}")
    return ", ".join(parts)


def _checks(model: type[BaseModel]) -> dict[str, list[str]]:
    """The first docstring line of each field validator, by field name."""
    found: dict[str, list[str]] = {}
    for decorator in model.__pydantic_decorators__.field_validators.values():
        doc = (decorator.func.__doc__ or "").strip().splitlines()
        for name in decorator.info.fields:
            if doc:
                found.setdefault(name, []).append(doc[0].rstrip("."))
    return found


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def default_text(field: FieldInfo) -> str:
    """The default as written in config.toml."""
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        value = value.model_dump()
    return f"`{_cell(_toml_value(value))}`"


def section_reference(name: str, model: type[BaseModel]) -> str:
    """One section: its heading, what it is for, and a table of its keys."""
    doc = (model.__doc__ or "").strip().split("] ", 1)[-1]
    checks = _checks(model)
    lines = [f"## [{name}]", "", doc, "", "| key | type | default | allowed | what it does |",
             "|---|---|---|---|---|"]
    for key, field in model.model_fields.items():
        allowed = "; ".join(filter(None, [constraints(field), *checks.get(key, [])]))
        lines.append(f"| `{key}` | {_cell(type_name(field.annotation))} | {default_text(field)} "
                     f"| {_cell(allowed)} | {_cell(field.description or '')} |")
    return "\n".join(lines) + "\n"


def reference(settings: type[Settings] = Settings) -> str:
    """The whole of docs/configuration.md."""
    index = " ".join(f"[`[{name}]`](#{name})" for name in SECTIONS)
    parts = [INTRO, f"Sections: {index}\n"]
    for name in SECTIONS:
        model = settings.model_fields[name].annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        parts.append(section_reference(name, model))
    return "\n".join(parts)


if __name__ == "__main__":
    print(reference(), end="")
