"""The schema → Python mapping of generate_models.py: one declaration per schema of the document.

  - an answer's body is a frozen dataclass, every object inside one a TypedDict, and a schema
    that is one of several objects (``anyOf`` of references, told apart by a member holding a
    constant, such as an event's ``type``) a Union of them, parsed by that member;
  - ``number`` is Decimal, ``integer`` int, ``format: date`` date, ``format: date-time`` datetime;
  - an object declared inline is named after its schema's ``title``, else after where it sits:
    its owner and member (``AggReport.aggregates`` → ``AggReportAggregates``), with ``Item`` for
    the items of a list (``AnalyticsUpdatedData.accounts[]`` → ``AnalyticsUpdatedDataAccountsItem``).
Every ``parse_NAME`` turns the decoded JSON (numbers already Decimal) into the declared value.
"""

from __future__ import annotations

import json
import keyword
import re
from typing import Any, Dict, List, Optional, Tuple

Schema = Dict[str, Any]


def pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part)


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def one_line(text: str) -> str:
    return " ".join(text.split())


def sentence(text: Any) -> str:
    """A description as one line ending with a period ("" when there is none)."""
    line = one_line(str(text or ""))
    return line if line == "" or line.endswith(".") else line + "."


def literal(values: List[Any]) -> str:
    return "Literal[" + ", ".join(json.dumps(value) for value in values) + "]"


def tuple_text(items: List[str]) -> str:
    if not items:
        return "()"
    return "(" + ", ".join(json.dumps(item) for item in items) + ("," if len(items) == 1 else "") + ")"


def ref_name(schema: Schema) -> str:
    return str(schema["$ref"]).rsplit("/", 1)[-1]


class Declarations:
    """Declares the document's schemas, and the inline objects found on the way."""

    def __init__(self, schemas: Dict[str, Schema]) -> None:
        self.schemas = schemas
        # TypedDicts of objects declared inline: name -> schema.
        self.inline: Dict[str, Schema] = {}

    # Annotations -------------------------------------------------------------------------------

    def inline_name(self, schema: Schema, owner: str, field: str) -> str:
        name = pascal(str(schema["title"])) if schema.get("title") else owner + pascal(field)
        known = self.inline.get(name)
        if name in self.schemas or (known is not None and known != schema):
            raise SystemExit(f"{owner}.{field}: the inline object's name {name} is taken by another schema; give it a title")
        self.inline[name] = schema
        return name

    def annotation(self, schema: Schema, owner: str, field: str) -> str:
        if "$ref" in schema:
            return ref_name(schema)
        options = schema.get("anyOf")
        if options is not None:
            nullable = any(option.get("type") == "null" for option in options)
            rest = [option for option in options if option.get("type") != "null"]
            if rest and all("const" in option for option in rest):
                inner = literal([option["const"] for option in rest])
            else:
                parts: List[str] = []
                for option in rest:
                    text = self.annotation(option, owner, field)
                    if text not in parts:
                        parts.append(text)
                inner = parts[0] if len(parts) == 1 else "Union[" + ", ".join(parts) + "]"
            return f"Optional[{inner}]" if nullable else inner
        if "const" in schema:
            return literal([schema["const"]])
        if "enum" in schema:
            return literal(list(schema["enum"]))
        kind = schema.get("type")
        if kind == "string":
            return {"date": "_dt.date", "date-time": "_dt.datetime"}.get(schema.get("format", ""), "str")
        simple = {"integer": "int", "number": "Decimal", "boolean": "bool", "null": "None"}
        if kind in simple:
            return simple[kind]
        if kind == "array":
            return f"List[{self.annotation(schema.get('items', {}), owner, field + '_item')}]"
        if kind == "object":
            if schema.get("properties"):
                return self.inline_name(schema, owner, field)
            values = schema.get("additionalProperties")
            if isinstance(values, dict) and values:
                return f"Dict[str, {self.annotation(values, owner, field + '_value')}]"
            return "Dict[str, Any]"
        return "Any"

    # Conversions (an expression turning the JSON value `source` into the annotated value) ------

    def conversion(self, schema: Schema, source: str, owner: str, field: str, depth: int = 0) -> Optional[str]:
        if "$ref" in schema:
            return f"parse_{snake(ref_name(schema))}({source})"
        options = schema.get("anyOf")
        if options is not None:
            rest = [option for option in options if option.get("type") != "null"]
            converted = [self.conversion(option, source, owner, field, depth) for option in rest]
            if all(item is None for item in converted):
                return None
            if len(rest) != 1:
                raise SystemExit(f"{owner}.{field}: a union of several convertible types is not supported")
            inner = converted[0]
            return f"(None if {source} is None else {inner})" if len(rest) < len(options) else inner
        if "const" in schema or "enum" in schema:
            return None
        kind = schema.get("type")
        if kind == "string":
            return {"date": f"to_date({source})", "date-time": f"to_datetime({source})"}.get(schema.get("format", ""))
        if kind == "number":
            return f"to_decimal({source})"
        if kind == "array":
            item = f"item{depth}"
            inner = self.conversion(schema.get("items", {}), item, owner, field + "_item", depth + 1)
            return None if inner is None else f"[{inner} for {item} in {source}]"
        if kind == "object" and schema.get("properties"):
            return f"parse_{snake(self.inline_name(schema, owner, field))}({source})"
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            key, item = f"key{depth}", f"value{depth}"
            inner = self.conversion(schema["additionalProperties"], item, owner, field + "_value", depth + 1)
            return None if inner is None else f"{{{key}: {inner} for {key}, {item} in {source}.items()}}"
        return None

    # Declarations ------------------------------------------------------------------------------

    @staticmethod
    def check_name(owner: str, field: str) -> None:
        if not field.isidentifier() or keyword.iskeyword(field):
            raise SystemExit(f"{owner}.{field}: not a Python identifier; extend the generator before using it")

    @staticmethod
    def comment(schema: Schema, indent: str) -> List[str]:
        description = schema.get("description")
        if description is None and "anyOf" in schema:
            description = next((option.get("description") for option in schema["anyOf"] if option.get("description")), None)
        return [f"{indent}#: {one_line(str(description))}"] if description else []

    @staticmethod
    def parser_head(name: str, required: List[str]) -> List[str]:
        return [f"def parse_{snake(name)}(raw: Any) -> {name}:",
                f'    """One {name} from its decoded JSON (numbers as Decimal); AnswerMismatch when it does not fit."""',
                f"    value = record(raw, {json.dumps(name)}, {tuple_text(required)})"]

    def member_conversions(self, name: str, properties: Dict[str, Schema], required: List[str]) -> List[str]:
        """Statements converting `value`'s members in place (a member that is not required, only when present)."""
        lines: List[str] = []
        for field in properties:
            source = f"value[{json.dumps(field)}]"
            expression = self.conversion(properties[field], source, name, field)
            if expression is None:
                continue
            if field in required:
                lines.append(f"    {source} = {expression}")
            else:
                lines += [f"    if {json.dumps(field)} in value:", f"        {source} = {expression}"]
        return lines

    def typed_dict(self, name: str, schema: Schema) -> List[str]:
        properties: Dict[str, Schema] = schema.get("properties", {})
        required = [field for field in properties if field in schema.get("required", [])]
        optional = [field for field in properties if field not in required]
        lines: List[str] = []
        doc = sentence(schema.get("description")) or f"The {name} object of the API."
        fields = [(field, self.annotation(properties[field], name, field)) for field in properties]
        for field, _ in fields:
            self.check_name(name, field)
        if optional and required:
            lines += [f"class _{name}Required(TypedDict):", f'    """The members every {name} has."""', ""]
            for field, annotation in fields:
                if field in required:
                    lines += [*self.comment(properties[field], "    "), f"    {field}: {annotation}"]
            lines += ["", "", f"class {name}(_{name}Required, total=False):", f'    """{doc} Members below are present only where the API says."""', ""]
            for field, annotation in fields:
                if field in optional:
                    lines += [*self.comment(properties[field], "    "), f"    {field}: {annotation}"]
        else:
            total = "" if required else ", total=False"
            lines += [f"class {name}(TypedDict{total}):", f'    """{doc}"""', ""]
            for field, annotation in fields:
                lines += [*self.comment(properties[field], "    "), f"    {field}: {annotation}"]
        lines += ["", "", *self.parser_head(name, required), *self.member_conversions(name, properties, required)]
        lines += [f"    return cast({name}, value)", "", ""]
        return lines

    def dataclass(self, name: str, schema: Schema) -> List[str]:
        properties: Dict[str, Schema] = schema.get("properties", {})
        required = [field for field in properties if field in schema.get("required", [])]
        optional = [field for field in properties if field not in required]
        doc = sentence(schema.get("description")) or f"The {name} answer of the API."
        has_rows = properties.get("data", {}).get("type") == "array"
        # A report page (POST /reports) holds its rows in `rows`, each with nested metrics.
        has_report_rows = properties.get("rows", {}).get("type") == "array"
        bases = "(Table)" if has_rows else "(ReportTable)" if has_report_rows else ""
        lines = ["@dataclass(frozen=True)", f"class {name}{bases}:", f'    """{doc}"""', ""]
        for field in [*required, *optional]:
            self.check_name(name, field)
            annotation = self.annotation(properties[field], name, field)
            if field in optional and not annotation.startswith("Optional["):
                annotation = f"Optional[{annotation}]"
            default = " = None" if field in optional else ""
            lines += [*self.comment(properties[field], "    "), f"    {field}: {annotation}{default}"]
        lines += ["", "", *self.parser_head(name, required), f"    return {name}("]
        for field in [*required, *optional]:
            source = f"value[{json.dumps(field)}]"
            converted = self.conversion(properties[field], source, name, field)
            expression = converted or source
            if field in optional:
                # Absent and null are the same on an answer's own members: None.
                key = json.dumps(field)
                expression = f"value.get({key})" if converted is None else f"{converted} if value.get({key}) is not None else None"
            lines.append(f"        {field}={expression},")
        lines += ["    )", "", ""]
        return lines

    # Unions of objects -------------------------------------------------------------------------

    @staticmethod
    def is_union(schema: Schema) -> bool:
        options = schema.get("anyOf")
        return isinstance(options, list) and len(options) > 1 and all("$ref" in option for option in options)

    def tag_of(self, name: str, options: List[Tuple[str, Schema]]) -> Tuple[str, List[Any]]:
        """The member that tells the options apart: required in each, a different constant in each."""
        first = options[0][1]
        for field in first.get("required", []):
            values = [schema.get("properties", {}).get(field, {}).get("const") for _, schema in options]
            required = all(field in schema.get("required", []) for _, schema in options)
            if required and None not in values and len(set(map(json.dumps, values))) == len(values):
                return field, values
        raise SystemExit(f"{name}: no member holds a different constant in each of its options; the generator cannot tell them apart")

    def union(self, name: str, schema: Schema) -> Tuple[List[str], List[str]]:
        """The parser (declared with the others) and the Union alias (declared once its options are).

        An object whose tag this client does not know yet (a newer API) is handed over as its JSON,
        with the members every option declares alike converted: the API's compatibility rules let
        new kinds appear, and a reader should be able to skip one rather than fail on it.
        """
        options = [(ref_name(option), self.schemas[ref_name(option)]) for option in schema["anyOf"]]
        tag, values = self.tag_of(name, options)
        shared: Dict[str, Schema] = {}
        for field, member in options[0][1].get("properties", {}).items():
            if field != tag and all(other.get("properties", {}).get(field) == member for _, other in options):
                shared[field] = member
        shared_required = [field for field in shared if all(field in other.get("required", []) for _, other in options)]
        description = sentence(schema.get("description")) or f"One of the {name} objects of the API."
        alias = [f"#: {description}", f"{name} = Union[{', '.join(option for option, _ in options)}]"]
        lines = [f"def parse_{snake(name)}(raw: Any) -> {name}:",
                 f'    """One {name}, by its {json.dumps(tag)}; one of a {json.dumps(tag)} this client does not know comes as its JSON."""',
                 f"    value = record(raw, {json.dumps(name)}, {tuple_text([tag, *shared_required])})"]
        for (option, _), value in zip(options, values):
            lines += [f"    if value[{json.dumps(tag)}] == {json.dumps(value)}:", f"        return parse_{snake(option)}(value)"]
        lines += self.member_conversions(name, shared, shared_required)
        lines += [f"    return cast({name}, value)", "", ""]
        return lines, alias
