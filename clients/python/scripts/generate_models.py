"""Generates partner_analytics/models.py from the API's OpenAPI document.

The document is packages/client/openapi.json, the service's own GET /openapi.json, which
`npm run generate -w @partner-analytics/client` rewrites after a route changes (and then runs this
script). `--check` exits 1, naming the file, when the checked-in module differs from a fresh
generation; tests/test_models.py does the same in the test suite.

Mapping (docs/client-python.md, "Types"; the schemas' own in model_declarations.py):
  - the body of a successful answer (Token, Health, Me, the reports, the pages) is a frozen
    dataclass: attribute access, and `to_pandas()` / `to_csv()` when it holds a `data` list;
  - every object inside one (entries, posts, brands, events, …) and the error bodies are
    TypedDicts: a dict whose keys are exactly the JSON's, since an absent member means something
    (a platform-specific field that does not apply) and null means something else; a schema that
    is one of several objects (an event) is their Union, parsed by the member that tells them apart;
  - JSON Schema `number` is `decimal.Decimal`, exactly as written in the answer; `integer` is int;
    `format: date` is `datetime.date` and `format: date-time` a UTC `datetime.datetime`;
  - the closed sets of words the query parameters accept become `Literal` aliases, each named
    after its schema's `title` (the API's own name for the set: "report type", "event type"), else
    after its parameter; OPERATIONS lists every operation's parameters, which tests/test_models.py
    holds the client's methods to.
Standard library only, so it runs wherever the package does.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

from model_declarations import Declarations, Schema, literal, pascal, ref_name, tuple_text

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE.parent.parent.parent / "packages" / "client" / "openapi.json"
TARGET = HERE.parent / "partner_analytics" / "models.py"


def enum_alias(parameter: Schema) -> Tuple[str, List[Any]]:
    """The name and values of a parameter's closed set of words (("", []) when it has none).

    The set is named after its schema's title (a list's: its items' title), else after the
    parameter: the same parameter name may mean different things on different routes (`type` is a
    report type on /analytics/ and an event type on /changes), while a title names the set itself.
    """
    schema = parameter.get("schema", {})
    words = schema.get("items", {}) if schema.get("type") == "array" else schema
    values = words.get("enum")
    if not values:
        return "", []
    return pascal(str(words.get("title") or schema.get("title") or parameter["name"])), list(values)


class Generator:
    def __init__(self, document: Schema) -> None:
        self.document = document
        self.schemas: Dict[str, Schema] = document["components"]["schemas"]
        self.bodies = self._response_bodies()
        self.declarations = Declarations(self.schemas)

    def _response_bodies(self) -> Set[str]:
        names: Set[str] = set()
        for operations in self.document["paths"].values():
            for operation in operations.values():
                for status, response in operation["responses"].items():
                    if not status.startswith("2"):
                        continue
                    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
                    for option in [schema, *schema.get("anyOf", [])]:
                        if "$ref" in option:
                            names.add(ref_name(option))
        return names

    # Operations --------------------------------------------------------------------------------

    def operations(self) -> Tuple[List[str], List[str]]:
        """The enum aliases and the OPERATIONS table; one alias name must mean one set of words."""
        enums: Dict[str, Tuple[List[Any], str]] = {}
        table: List[str] = []
        for path, operations in self.document["paths"].items():
            for method, operation in operations.items():
                names = []
                for parameter in operation.get("parameters", []):
                    if parameter.get("in") != "query":
                        continue
                    names.append(parameter["name"])
                    alias, values = enum_alias(parameter)
                    where = f"{method.upper()} {path} {parameter['name']}"
                    if not alias:
                        continue
                    if alias in enums and set(map(json.dumps, enums[alias][0])) != set(map(json.dumps, values)):
                        raise SystemExit(f"{alias}: {enums[alias][1]} and {where} accept different words under one name; "
                                         "give one of them a title in the service's schema (the name of its set of words)")
                    enums.setdefault(alias, (values, where))
                table.append(f"    {json.dumps(operation['operationId'])}: Operation({json.dumps(method.upper())}, {json.dumps(path)}, {tuple_text(names)}),")
        enum_lines = [f"{alias} = {literal(values)}" for alias, (values, _) in enums.items()]
        return enum_lines, table

    # The module --------------------------------------------------------------------------------

    def module(self) -> str:
        declare = self.declarations
        declarations: List[str] = []
        # A Union is an expression, evaluated where it stands: declared after every class.
        aliases: List[str] = []
        for name, schema in self.schemas.items():
            if declare.is_union(schema):
                parser, alias = declare.union(name, schema)
                declarations += parser
                aliases += alias
            elif name in self.bodies:
                declarations += declare.dataclass(name, schema)
            else:
                declarations += declare.typed_dict(name, schema)
        # Inline objects found on the way (their own inline objects are found while declaring them).
        declared: Set[str] = set()
        while set(declare.inline) - declared:
            for name in sorted(set(declare.inline) - declared):
                declared.add(name)
                declarations += declare.typed_dict(name, declare.inline[name])
        declarations += aliases
        enum_lines, table = self.operations()
        info = self.document.get("info", {})
        body = [
            "# Values of the query parameters that accept a closed set of words.",
            *enum_lines,
            "",
            "",
            "class Operation(NamedTuple):",
            '    """One operation of the document: its method, path and query parameters."""',
            "",
            "    method: str",
            "    path: str",
            "    parameters: Tuple[str, ...]",
            "",
            "",
            "#: Every operation of the document by operationId.",
            "OPERATIONS: Dict[str, Operation] = {",
            *table,
            "}",
            "",
            "",
            *declarations,
        ]
        text = "\n".join(body).rstrip() + "\n"

        def used(*names: str) -> List[str]:
            return [name for name in names if re.search(rf"\b{name}\b", text)]

        imports = ["from __future__ import annotations", ""]
        if used("_dt"):
            imports.append("import datetime as _dt")
        if used("dataclass"):
            imports.append("from dataclasses import dataclass")
        if used("Decimal"):
            imports.append("from decimal import Decimal")
        imports.append(f"from typing import {', '.join(used('Any', 'Dict', 'List', 'Literal', 'NamedTuple', 'Optional', 'Tuple', 'TypedDict', 'Union', 'cast'))}")
        imports.append("")
        imports.append(f"from ._convert import {', '.join(used('record', 'to_date', 'to_datetime', 'to_decimal'))}")
        tables = used("ReportTable", "Table")
        if tables:
            imports.append(f"from ._tables import {', '.join(tables)}")
        head = [
            "# Generated by clients/python/scripts/generate_models.py from packages/client/openapi.json",
            "# (the service's GET /openapi.json). Do not edit: run `npm run generate -w @partner-analytics/client`.",
            f'"""Types of the Partner Analytics API {info.get("version", "")}, generated from its OpenAPI document.',
            "",
            "Answers are frozen dataclasses; the objects inside them are TypedDicts holding exactly the",
            "members of the JSON. Numbers are Decimal, dates datetime.date, instants UTC datetime.datetime.",
            '"""',
            "",
            *imports,
            "",
        ]
        return "\n".join(head) + "\n" + text


def generate(document_path: Path = DOCUMENT) -> str:
    """The text of models.py for this document."""
    return Generator(json.loads(document_path.read_text(encoding="utf-8"))).module()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the checked-in module is stale, writing nothing")
    parser.add_argument("--document", type=Path, default=DOCUMENT, help="the OpenAPI document (default: %(default)s)")
    arguments = parser.parse_args(argv)
    text = generate(arguments.document)
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if arguments.check:
        if current != text:
            print(f"{TARGET} is stale: run npm run generate -w @partner-analytics/client", file=sys.stderr)
            return 1
        return 0
    if current != text:
        TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(HERE.parent.parent.parent)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
