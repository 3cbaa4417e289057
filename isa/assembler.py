"""The assembler: kernel source text -> instructions -> dwords.

Syntax, one instruction per line:
    label:                        ; a branch target
    v_add_f32 v1, v2, s4          ; mnemonic, then operands separated by commas
    buffer_load_ushort v3, v2, s[8:11], 0
    s_cbranch_execz done
Comments start with `;` or `//`. Numbers: decimal (an integer or a float), or 0x hexadecimal (raw
bits). Directives, for one source to serve several data types:
    .set NAME, value       define a symbol (number or text)
    ${NAME}                replaced by the symbol's text anywhere on a line
    .if EXPR / .else / .endif   keep lines when EXPR holds: a symbol, a number, `not`, `and`, `or`,
                           `==`, `!=`, parentheses (symbols are also defined by the caller)
    .include "file"        insert another source, relative to the including file
A symbol may stand for a number operand too (e.g. `s_load_dword s5, s[2:3], CB_COUNT`).
"""
import ast
import os
import re

from dmlemu.isa import opcodes as op
from dmlemu.isa.constants import encode_number
from dmlemu.isa.encoding import Instruction, encode
from dmlemu.isa.operands import Operand, parse_register


class AssemblyError(ValueError):
    """A source line the assembler cannot accept; the message names the file, line and reason."""


_SUBST = re.compile(r"\$\{(\w+)\}")
_LABEL = re.compile(r"^([A-Za-z_.][\w.]*):\s*(.*)$")


def _strip_comment(line):
    for marker in (";", "//"):
        i = line.find(marker)
        if i >= 0:
            line = line[:i]
    return line.strip()


def _eval_condition(expr, symbols, where):
    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in symbols:
                raise AssemblyError(f"{where}: .if uses undefined symbol {node.id}")
            return symbols[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.BoolOp):
            vals = [value(v) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            a, b = value(node.left), value(node.comparators[0])
            return (str(a) == str(b)) if isinstance(node.ops[0], ast.Eq) else (str(a) != str(b))
        raise AssemblyError(f"{where}: .if expression {expr!r} is not supported")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise AssemblyError(f"{where}: .if expression {expr!r} is not valid") from None
    result = value(tree)
    if isinstance(result, str):
        result = result not in ("", "0")
    return bool(result)


def preprocess(text, symbols=None, filename="<source>", _depth=0):
    """Resolve directives; returns a list of (where, line) with comments and directives removed."""
    symbols = dict(symbols or {})
    out = []
    stack = []  # (active_before, this_branch_taken, in_else)
    active = True
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{filename}:{number}"
        line = _strip_comment(raw)
        if not line:
            continue
        word = line.split(None, 1)[0]
        rest = line[len(word):].strip()
        if word == ".if":
            taken = active and _eval_condition(_SUBST.sub(lambda m: str(symbols.get(m.group(1), "")), rest), symbols, where)
            stack.append((active, taken, False))
            active = taken
            continue
        if word == ".else":
            if not stack or stack[-1][2]:
                raise AssemblyError(f"{where}: .else without .if")
            before, taken, _ = stack.pop()
            stack.append((before, taken, True))
            active = before and not taken
            continue
        if word == ".endif":
            if not stack:
                raise AssemblyError(f"{where}: .endif without .if")
            active = stack.pop()[0]
            continue
        if not active:
            continue
        line = _SUBST.sub(lambda m: _symbol_text(symbols, m.group(1), where), line)
        word = line.split(None, 1)[0]
        rest = line[len(word):].strip()
        if word == ".set":
            name, _, value = rest.partition(",")
            symbols[name.strip()] = _parse_symbol_value(value.strip())
            continue
        if word == ".include":
            if _depth > 8:
                raise AssemblyError(f"{where}: .include nested too deeply")
            name = rest.strip().strip('"')
            path = os.path.join(os.path.dirname(filename), name)
            try:
                with open(path, encoding="utf-8") as f:
                    included = f.read()
            except OSError as e:
                raise AssemblyError(f"{where}: cannot include {name}: {e.strerror}") from None
            sub = preprocess(included, symbols, path, _depth + 1)
            out.extend(sub.lines)
            symbols.update(sub.symbols)
            continue
        if word.startswith("."):
            raise AssemblyError(f"{where}: unknown directive {word}")
        out.append((where, line))
    if stack:
        raise AssemblyError(f"{filename}: .if without .endif")
    return _Preprocessed(out, symbols)


class _Preprocessed:
    def __init__(self, lines, symbols):
        self.lines = lines
        self.symbols = symbols


def _symbol_text(symbols, name, where):
    if name not in symbols:
        raise AssemblyError(f"{where}: ${{{name}}} is not defined")
    return str(symbols[name])


def _parse_symbol_value(text):
    try:
        return int(text, 0)
    except ValueError:
        return text


def _parse_number(text):
    t = text.strip().lower()
    neg = t.startswith("-")
    body = t[1:] if neg else t
    if body.startswith("0x"):
        v = int(body, 16)
        return (-v if neg else v), True
    if body in ("inf", "nan"):
        return float(t), False
    try:
        return int(t, 10), False
    except ValueError:
        pass
    return float(t), False


def _split_operands(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _parse_operand(text, kind, type_name, width, symbols, where, mnemonic):
    reg = None
    try:
        reg = parse_register(text)
    except ValueError as e:
        raise AssemblyError(f"{where}: {mnemonic}: {e}") from None
    if reg is not None:
        code, n = reg
        operand = Operand(code, n)
        if n != width:
            raise AssemblyError(f"{where}: {mnemonic} operand {text} spans {n} dword(s); "
                                f"a {type_name} operand needs {width}")
        ok = {
            op.VDST: operand.is_vgpr, op.VREG: operand.is_vgpr,
            op.SDST: not operand.is_vgpr, op.SSRC: not operand.is_vgpr,
            op.SREG: operand.is_sgpr, op.VSRC: True, op.VCCO: text.strip().lower() == "vcc",
        }[kind]
        if not ok:
            raise AssemblyError(f"{where}: {mnemonic} operand {text} is not allowed as a {kind} operand")
        return operand
    if kind not in (op.VSRC, op.SSRC):
        raise AssemblyError(f"{where}: {mnemonic} operand {text!r} must be a register ({kind})")
    value_text = str(symbols.get(text.strip(), text))
    try:
        number, is_hex = _parse_number(value_text)
    except ValueError:
        raise AssemblyError(f"{where}: {mnemonic} operand {text!r} is neither a register nor a number") from None
    try:
        return encode_number(number, type_name, is_hex)
    except ValueError as e:
        raise AssemblyError(f"{where}: {mnemonic}: {e}") from None


def parse(text, symbols=None, filename="<source>"):
    """Assemble source text into a list of Instructions (branch offsets resolved)."""
    pre = preprocess(text, symbols, filename)
    syms = pre.symbols
    items, labels, address = [], {}, 0
    for where, line in pre.lines:
        m = _LABEL.match(line)
        while m:
            name, line = m.group(1), m.group(2).strip()
            if name in labels:
                raise AssemblyError(f"{where}: label {name} defined twice")
            labels[name] = address
            m = _LABEL.match(line) if line else None
        if not line:
            continue
        mnemonic, _, rest = line.partition(" ")
        mnemonic = mnemonic.lower()
        entry = op.BY_MNEMONIC.get(mnemonic)
        if entry is None:
            raise AssemblyError(f"{where}: unknown instruction {mnemonic}")
        texts = _split_operands(rest)
        if len(texts) != len(entry.operands):
            raise AssemblyError(f"{where}: {mnemonic} takes {len(entry.operands)} operand(s) "
                                f"({', '.join(entry.operands) or 'none'}), got {len(texts)}")
        operands, pending, literal = [], None, None
        for text, kind, type_name, width in zip(texts, entry.operands, entry.types, entry.widths):
            if kind == op.LABEL:
                operands.append(text.strip())
                pending = text.strip()
            elif kind == op.IMM:
                v = symbols_value(text, syms, where, mnemonic)
                operands.append(v)
            else:
                o = _parse_operand(text, kind, type_name, width, syms, where, mnemonic)
                if o.literal is not None:
                    if literal is not None and literal != o.literal:
                        raise AssemblyError(f"{where}: {mnemonic} uses two different literals; only one fits")
                    literal = o.literal
                operands.append(o)
        size = 3 if literal is not None else 2
        items.append([where, entry, operands, address, size, pending])
        address += size
    program = []
    for where, entry, operands, address, size, pending in items:
        if pending is not None:
            if pending not in labels:
                raise AssemblyError(f"{where}: {entry.mnemonic} jumps to undefined label {pending}")
            offset = labels[pending] - (address + size)
            operands = [offset if isinstance(o, str) else o for o in operands]
        program.append(Instruction(entry, tuple(operands), size))
    return program


def symbols_value(text, symbols, where, mnemonic):
    value_text = str(symbols.get(text.strip(), text)).strip()
    try:
        return int(value_text, 0)
    except ValueError:
        raise AssemblyError(f"{where}: {mnemonic} immediate {text!r} is not an integer") from None


def assemble(text, symbols=None, filename="<source>"):
    """Assemble source text into program dwords (a list of ints)."""
    dwords = []
    for inst in parse(text, symbols, filename):
        try:
            dwords.extend(encode(inst))
        except ValueError as e:
            raise AssemblyError(f"{filename}: {inst.opcode.mnemonic}: {e}") from None
    return dwords


def assemble_file(path, symbols=None):
    with open(path, encoding="utf-8") as f:
        return assemble(f.read(), symbols, path)
