"""A parser for the small C dialect of the Indigo kernels: functions, declarations, if/for/while, and C's
expressions. It yields plain tuples; anything outside the dialect is a CSyntaxError naming the line.

Statements: ("block", [stmts]), ("decl", shared, type, name, size, init), ("if", cond, then, else),
("for", init, cond, update, body), ("while", cond, body), ("break",), ("continue",), ("return", expr),
("expr", expr), ("comment", text). Expressions: ("num", text), ("name", id), ("member", obj, field),
("index", array, i), ("call", name, [args]), ("unary", op, x), ("binary", op, a, b),
("ternary", cond, a, b), ("cast", type, x), ("post", op, x), ("assign", op, target, value).
"""

from __future__ import annotations

import re

TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<comment>//[^\n]*)|(?P<long_comment>/\*.*?\*/)"
    r"|(?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op><<=|>>=|\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|==|!=|<=|>=|&&|\|\||<<|>>|[-+*/%<>=!~&|^?:;,.(){}\[\]])",
    re.S,
)
TYPES = {"int", "unsigned", "data_t", "float", "double", "bool", "char", "long", "void"}
BINARY = {"||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9, "<": 10, ">": 10, "<=": 10, ">=": 10,
          "<<": 11, ">>": 11, "+": 12, "-": 12, "*": 13, "/": 13, "%": 13}  # fmt: skip
ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


class CSyntaxError(ValueError):
    """Source outside the dialect the translator knows."""


def tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, line) of every token; block comments are dropped, line comments kept."""
    found, line, at = [], 1, 0
    while at < len(text):
        match = TOKEN.match(text, at)
        if match is None:
            raise CSyntaxError(f"line {line}: unexpected character {text[at]!r}")
        kind = match.lastgroup
        if kind not in ("space", "long_comment"):
            found.append((kind, match.group(), line))
        line += match.group().count("\n")
        at = match.end()
    return found


class Parser:
    def __init__(self, text: str):
        self.toks = tokens(text)
        self.at = 0

    # ---- tokens ----
    def peek(self, ahead: int = 0) -> str:
        at = self.at + ahead
        return self.toks[at][1] if at < len(self.toks) else ""

    def kind(self) -> str:
        return self.toks[self.at][0] if self.at < len(self.toks) else ""

    def line(self) -> int:
        return self.toks[min(self.at, len(self.toks) - 1)][2] if self.toks else 0

    def take(self, expected: str | None = None) -> str:
        if self.at >= len(self.toks):
            raise CSyntaxError(f"the source ends where {expected or 'more'} was expected")
        text = self.toks[self.at][1]
        if expected is not None and text != expected:
            raise CSyntaxError(f"line {self.line()}: expected {expected!r}, found {text!r}")
        self.at += 1
        return text

    def name(self) -> str:
        if self.kind() != "name":
            raise CSyntaxError(f"line {self.line()}: expected a name, found {self.peek()!r}")
        return self.take()

    # ---- functions ----
    def functions(self) -> list[tuple]:
        """(qualifier, return type, name, [(type, is_pointer, name)], body) of every function."""
        found = []
        while self.at < len(self.toks):
            if self.kind() == "comment":
                self.take()
                continue
            qualifier = self.take()
            if qualifier not in ("__global__", "__device__"):
                raise CSyntaxError(f"line {self.line()}: expected a __global__ or __device__ function")
            result, name = self.type_name(), self.name()
            self.take("(")
            params = []
            while self.peek() != ")":
                kind = self.type_name()
                pointer = self.peek() == "*"
                if pointer:
                    self.take()
                params.append((kind, pointer, self.name()))
                if self.peek() == ",":
                    self.take()
            self.take(")")
            found.append((qualifier, result, name, params, self.statement()))
        return found

    def type_name(self) -> str:
        words = []
        while self.peek() in TYPES:
            words.append(self.take())
        if not words:
            raise CSyntaxError(f"line {self.line()}: expected a type, found {self.peek()!r}")
        return " ".join(words)

    # ---- statements ----
    def statement(self) -> tuple:
        word = self.peek()
        if self.kind() == "comment":
            return ("comment", self.take()[2:].strip())
        if word == "{":
            self.take()
            body = []
            while self.peek() != "}":
                body.append(self.statement())
            self.take("}")
            return ("block", body)
        if word == "if":
            self.take()
            cond = self.condition()
            then = self.statement()
            other = None
            if self.peek() == "else":
                self.take()
                other = self.statement()
            return ("if", cond, then, other)
        if word == "for":
            return self.for_loop()
        if word == "while":
            self.take()
            cond = self.condition()
            return ("while", cond, self.statement())
        if word in ("break", "continue"):
            self.take()
            self.take(";")
            return (word,)
        if word == "return":
            self.take()
            value = None if self.peek() == ";" else self.expression()
            self.take(";")
            return ("return", value)
        if word == "__shared__" or (word in TYPES and self.peek(1) != ")"):
            statement = self.declaration()
            self.take(";")
            return statement
        statement = ("expr", self.assignment())
        self.take(";")
        return statement

    def condition(self) -> tuple:
        self.take("(")
        cond = self.expression()
        self.take(")")
        return cond

    def for_loop(self) -> tuple:
        self.take("for")
        self.take("(")
        init = None
        if self.peek() != ";":
            init = self.declaration() if self.peek() in TYPES else ("expr", self.assignment())
        self.take(";")
        cond = None if self.peek() == ";" else self.expression()
        self.take(";")
        update = None if self.peek() == ")" else self.assignment()
        self.take(")")
        return ("for", init, cond, update, self.statement())

    def declaration(self) -> tuple:
        shared = self.peek() == "__shared__"
        if shared:
            self.take()
        kind, name = self.type_name(), self.name()
        size = None
        if self.peek() == "[":
            self.take()
            size = self.expression()
            self.take("]")
        init = None
        if self.peek() == "=":
            self.take()
            init = self.expression()
        if self.peek() == ",":
            raise CSyntaxError(f"line {self.line()}: several names in one declaration")
        return ("decl", shared, kind, name, size, init)

    # ---- expressions ----
    def assignment(self) -> tuple:
        target = self.expression()
        if self.peek() in ASSIGN:
            op = self.take()
            return ("assign", op, target, self.assignment())
        return target

    def expression(self, floor: int = 0) -> tuple:
        left = self.unary()
        while True:
            op = self.peek()
            if op == "?" and floor <= 3:
                self.take()
                then = self.expression()
                self.take(":")
                left = ("ternary", left, then, self.expression(3))
            elif op in BINARY and BINARY[op] > floor:
                self.take()
                left = ("binary", op, left, self.expression(BINARY[op]))
            else:
                return left

    def unary(self) -> tuple:
        op = self.peek()
        if op in ("-", "!", "~", "&", "+"):
            self.take()
            return ("unary", op, self.unary())
        if op in ("++", "--", "*"):
            raise CSyntaxError(f"line {self.line()}: prefix {op} is outside the translated dialect")
        if op == "(" and self.peek(1) in TYPES:
            self.take()
            kind = self.type_name()
            self.take(")")
            return ("cast", kind, self.unary())
        return self.postfix(self.primary())

    def primary(self) -> tuple:
        if self.peek() == "(":
            self.take()
            inner = self.expression()
            self.take(")")
            return inner
        if self.kind() == "num":
            return ("num", self.take())
        name = self.name()
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.expression())
                if self.peek() == ",":
                    self.take()
            self.take(")")
            return ("call", name, args)
        return ("name", name)

    def postfix(self, node: tuple) -> tuple:
        while True:
            op = self.peek()
            if op == "[":
                self.take()
                index = self.expression()
                self.take("]")
                node = ("index", node, index)
            elif op == ".":
                self.take()
                node = ("member", node, self.name())
            elif op in ("++", "--"):
                self.take()
                node = ("post", op, node)
            else:
                return node


def parse(text: str) -> list[tuple]:
    """The functions of a kernel file's device code."""
    return Parser(text).functions()
