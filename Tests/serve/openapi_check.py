"""Checks answers of `ucube serve` against docs/openapi.yaml: the operation (path template and method) must exist,
the status must be one it documents (or its `default`), and a JSON body must match the documented schema
(JSON Schema 2020-12, which OpenAPI 3.1 uses); an event stream's `data:` lines must each match its schema."""

import json
import re

import jsonschema
import yaml


class OpenAPI:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.document = yaml.safe_load(f)
        self.checked = 0
        self.operations = []
        for template, item in self.document["paths"].items():
            pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
            self.operations.append((re.compile(pattern), template, item))

    def _resolve(self, node):
        while isinstance(node, dict) and "$ref" in node and len(node) == 1:
            node = self._at(node["$ref"])
        return node

    def _at(self, ref):
        node = self.document
        for part in ref.lstrip("#/").split("/"):
            node = node[part]
        return node

    def _validate(self, schema, value, where):
        wrapper = dict(schema)
        wrapper["components"] = self.document["components"]
        jsonschema.Draft202012Validator(wrapper).validate(value)
        self.checked += 1

    def check(self, method, path, status, content_type, body):
        """Raises AssertionError (or jsonschema's ValidationError) when the answer is not the documented one."""
        path = path.split("?", 1)[0]
        error = {"$ref": "#/components/schemas/Error"}
        for pattern, template, item in self.operations:
            if pattern.match(path):
                break
        else:
            # Documented in info.description: any other path answers 404 with an Error.
            if status != 404:
                raise AssertionError(f"{method} {path}: no such path in openapi.yaml, and the answer is {status}")
            self._validate(error, json.loads(body), f"{method} {path}")
            return
        operation = item.get(method.lower())
        if operation is None:
            if status != 405:
                raise AssertionError(f"{method} {template}: not documented, and the answer is {status}")
            self._validate(error, json.loads(body), f"{method} {template}")
            return
        responses = operation["responses"]
        response = responses.get(str(status)) or responses.get("default")
        if response is None:
            raise AssertionError(f"{method} {template}: status {status} not documented")
        response = self._resolve(response)
        content = response.get("content", {})
        kind = (content_type or "").split(";")[0].strip()
        if kind not in content:
            raise AssertionError(f"{method} {template} {status}: content type {kind!r} not documented ({list(content)})")
        schema = content[kind].get("schema", {})
        where = f"{method} {template} {status}"
        if kind == "application/json":
            self._validate(schema, json.loads(body), where)
        elif kind == "text/event-stream":
            for line in body.splitlines():
                if line.startswith("data: "):
                    self._validate(schema, json.loads(line[len("data: "):]), where)
        else:
            self.checked += 1
