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

Hostile sources stop with an AssemblyError naming the file and line, never with Python's own
errors or unbounded memory: sources are UTF-8 regular files; everything read for one assembly, the
includes together, is at most MAX_SOURCE_BYTES; includes nest at most MAX_INCLUDE_DEPTH deep and
`.if` blocks MAX_IF_DEPTH deep; a line, after `${NAME}` substitution, is at most MAX_LINE_CHARS
characters and a `.if` expression MAX_EXPRESSION_CHARS; a decimal number past the float range (1e400)
is an error rather than infinity.
"""
import ast
import functools
import os
import re
import stat

from dmlemu.isa import opcodes as op
from dmlemu.isa.constants import encode_number
from dmlemu.isa.encoding import Instruction, encode, slot_problem
from dmlemu.isa.operands import Operand, parse_register


class AssemblyError(ValueError):
    """A source line the assembler cannot accept; the message names the file, line and reason."""


MAX_SOURCE_BYTES = 16 << 20      # all the text one assembly reads, includes together
MAX_INCLUDE_DEPTH = 8            # .include inside .include ...
MAX_IF_DEPTH = 64                # .if inside .if ...
MAX_LINE_CHARS = 10_000          # one line, after ${NAME} substitution
MAX_EXPRESSION_CHARS = 1_000     # one .if expression
_MAX_EXPRESSION_NESTING = 100    # operators and parentheses inside one .if expression


class _Budget:
    """What is left of MAX_SOURCE_BYTES for one assembly (shared by a source and its includes)."""

    def __init__(self, total=None):
        self.left = MAX_SOURCE_BYTES if total is None else total


def read_source(path, budget=None, where=None):
    """The text of a source file: a UTF-8 regular file within the byte budget; AssemblyError
    otherwise (OSError, such as a missing file, passes through for the caller to name)."""
    budget = budget or _Budget()
    shown = f"{where}: " if where else ""   # the including line, for an include
    with open(path, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise AssemblyError(f"{shown}{path} is not a regular file; a source must be a text file")
        data = f.read(budget.left + 1)
    if len(data) > budget.left:
        raise AssemblyError(f"{shown}{path} goes past the {MAX_SOURCE_BYTES}-byte limit on the source text "
                            f"of one assembly (includes together)")
    budget.left -= len(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise AssemblyError(f"{path}:{line}: byte 0x{data[e.start]:02x} at offset {e.start} is not UTF-8 text; "
                            f"sources are UTF-8") from None


_SUBST = re.compile(r"\$\{(\w+)\}")
_LABEL = re.compile(r"^([A-Za-z_.][\w.]*):\s*(.*)$")


def _strip_comment(line):
    for marker in (";", "//"):
        i = line.find(marker)
        if i >= 0:
            line = line[:i]
    return line.strip()


@functools.lru_cache(maxsize=4096)
def _parsed_condition(expr):
    """The syntax tree of an .if expression (None where Python's parser refuses it: SyntaxError, ValueError for
    a NUL byte or an integer past its digit limit, RecursionError or MemoryError for nesting its stack cannot
    hold), parsed once per distinct text: kernels evaluate the same few expressions thousands of times."""
    try:
        return ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_CACHED_SOURCE_CHARS = 1 << 18   # texts up to this long have their lines kept (the kernels' sources are < 64 KiB)


def _source_lines(text):
    """The lines of a source text the preprocessor reads: (line number, raw length, the line without its
    comment, its first word, the rest) for each line that is not empty once its comment is removed, or that
    is too long (the preprocessor refuses it). Kept once per distinct text up to _CACHED_SOURCE_CHARS (an
    include is read by every kernel variant, thousands of times when a graph compiles)."""
    return _cached_lines(text) if len(text) <= _CACHED_SOURCE_CHARS else _lines(text)


def _lines(text):
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw) if len(raw) <= MAX_LINE_CHARS else ""
        if line:
            word = line.split(None, 1)[0]
            lines.append((number, len(raw), line, word, line[len(word):].strip()))
        elif len(raw) > MAX_LINE_CHARS:
            lines.append((number, len(raw), "", "", ""))
    return tuple(lines)


_cached_lines = functools.lru_cache(maxsize=64)(_lines)


def _eval_condition(expr, symbols, where):
    if len(expr) > MAX_EXPRESSION_CHARS:
        raise AssemblyError(f"{where}: .if expression is {len(expr)} characters long; "
                            f"the limit is {MAX_EXPRESSION_CHARS}")

    def value(node, depth=0):
        if depth > _MAX_EXPRESSION_NESTING:
            raise AssemblyError(f"{where}: .if expression nests more than {_MAX_EXPRESSION_NESTING} deep")
        if isinstance(node, ast.Expression):
            return value(node.body, depth + 1)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in symbols:
                raise AssemblyError(f"{where}: .if uses undefined symbol {node.id}")
            return symbols[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand, depth + 1)
        if isinstance(node, ast.BoolOp):
            vals = [value(v, depth + 1) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            a, b = value(node.left, depth + 1), value(node.comparators[0], depth + 1)
            return (str(a) == str(b)) if isinstance(node.ops[0], ast.Eq) else (str(a) != str(b))
        raise AssemblyError(f"{where}: .if expression {_shown(expr)} is not supported")
    tree = _parsed_condition(expr)
    if tree is None:
        raise AssemblyError(f"{where}: .if expression {_shown(expr)} is not valid")
    result = value(tree)
    if isinstance(result, str):
        result = result not in ("", "0")
    return bool(result)


def _shown(text, limit=80):
    """Text for an error message: repr, cut to `limit` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


def _substitute(line, symbols, where, missing=None):
    """`line` with every ${NAME} replaced by its symbol's text (`missing` for an undefined one, or
    an error when None), refusing before it is built a line longer than MAX_LINE_CHARS."""
    matches = list(_SUBST.finditer(line))
    if not matches:
        return line
    texts = [_symbol_text(symbols, m.group(1), where) if missing is None or m.group(1) in symbols else missing
             for m in matches]
    length = len(line) - sum(m.end() - m.start() for m in matches) + sum(len(t) for t in texts)
    if length > MAX_LINE_CHARS:
        raise AssemblyError(f"{where}: the line is {length} characters long after ${{NAME}} substitution; "
                            f"the limit is {MAX_LINE_CHARS}")
    parts, end = [], 0
    for m, t in zip(matches, texts):
        parts += [line[end:m.start()], t]
        end = m.end()
    parts.append(line[end:])
    return "".join(parts)


def preprocess(text, symbols=None, filename="<source>", _depth=0, _budget=None):
    """Resolve directives; returns a list of (where, line) with comments and directives removed."""
    symbols = dict(symbols or {})
    budget = _budget or _Budget(max(0, MAX_SOURCE_BYTES - len(text)))   # the includes share what is left
    out = []
    stack = []  # (active_before, this_branch_taken, in_else)
    active = True
    for number, raw_length, line, word, rest in _source_lines(text):
        where = f"{filename}:{number}"
        if raw_length > MAX_LINE_CHARS:
            raise AssemblyError(f"{where}: the line is {raw_length} characters long; the limit is {MAX_LINE_CHARS}")
        if word == ".if":
            if len(stack) >= MAX_IF_DEPTH:
                raise AssemblyError(f"{where}: .if blocks nest more than {MAX_IF_DEPTH} deep")
            taken = active and _eval_condition(_substitute(rest, symbols, where, missing=""), symbols, where)
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
        line = _substitute(line, symbols, where)
        if not line.strip():
            continue
        word = line.split(None, 1)[0]
        rest = line[len(word):].strip()
        if word == ".set":
            name, _, value = rest.partition(",")
            symbols[name.strip()] = _parse_symbol_value(value.strip())
            continue
        if word == ".include":
            if _depth >= MAX_INCLUDE_DEPTH:
                raise AssemblyError(f"{where}: .include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)")
            name = rest.strip().strip('"')
            if not name:
                raise AssemblyError(f'{where}: .include needs a file name: .include "file"')
            path = os.path.join(os.path.dirname(filename), name)
            try:
                included = read_source(path, budget, where)
            except OSError as e:
                raise AssemblyError(f"{where}: cannot include {name}: {e.strerror or e}") from None
            sub = preprocess(included, symbols, path, _depth + 1, budget)
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


class _NumberError(ValueError):
    """Number text that reads as a number the operand cannot have (the message says why)."""


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
    value = float(t)
    if value != value or value in (float("inf"), float("-inf")):
        # float() turns 1e400 into inf (and 'infinity' or '-nan' into inf and nan): only the words
        # inf and nan may name those values.
        raise _NumberError(f"{text.strip()!r} is outside the range of a float (it would be {value}); "
                           f"write inf, -inf or nan for those values")
    return value, False


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
    except _NumberError as e:
        raise AssemblyError(f"{where}: {mnemonic} operand {e}") from None
    except ValueError:
        raise AssemblyError(f"{where}: {mnemonic} operand {_shown(text)} is neither a register nor a number") from None
    try:
        return encode_number(number, type_name, is_hex)
    except ValueError as e:
        raise AssemblyError(f"{where}: {mnemonic}: {e}") from None


# VOP3P modifiers (AMD's packed-math syntax) and the values of the plain form, the only one dmlemu has:
# each operation reads the same half of every source, nothing negated, no clamp (isa/opcodes.py, v_pk_*).
VOP3P_PLAIN = {"op_sel": "[0,0,0]", "op_sel_hi": "[1,1,1]", "neg_lo": "[0,0,0]", "neg_hi": "[0,0,0]"}
_VOP3P_MODIFIER = re.compile(r"\s*([A-Za-z_]\w*)(?:\s*:\s*(\[[^\]]*\]|[^\s\[]+))?")


def _plain_vop3p(texts, count, where, mnemonic):
    """The operand texts of a VOP3P instruction with its modifiers taken off: a modifier written with
    its plain value (VOP3P_PLAIN) is accepted; any other, and clamp, is an AssemblyError naming it."""
    if len(texts) < count:
        return texts
    last = texts[count - 1].split(None, 1)
    modifiers = " ".join(([last[1]] if len(last) > 1 else []) + list(texts[count:]))
    texts = list(texts[:count - 1]) + last[:1]
    at = 0
    while at < len(modifiers):
        m = _VOP3P_MODIFIER.match(modifiers, at)
        if m is None or m.end() == at:
            raise AssemblyError(f"{where}: {mnemonic}: {_shown(modifiers[at:].strip())} is not a VOP3P modifier")
        at = m.end()
        while at < len(modifiers) and modifiers[at].isspace():
            at += 1
        name, value = m.group(1).lower(), re.sub(r"\s+", "", m.group(2) or "")
        if name in VOP3P_PLAIN and value == VOP3P_PLAIN[name]:
            continue
        written = name + (f":{value}" if value else "")
        if name in VOP3P_PLAIN or name == "clamp":
            raise AssemblyError(
                f"{where}: {mnemonic}: the modifier {written} is not supported; dmlemu's packed instructions have "
                f"the plain form only (each operation reads the same half of every source, nothing negated, no "
                f"clamp: op_sel:[0,0,0] op_sel_hi:[1,1,1] neg_lo:[0,0,0] neg_hi:[0,0,0])")
        raise AssemblyError(f"{where}: {mnemonic}: {written} is not a VOP3P modifier (op_sel, op_sel_hi, neg_lo, "
                            f"neg_hi, clamp)")
    return texts


def parse(text, symbols=None, filename="<source>"):
    """Assemble source text into a list of Instructions (branch offsets resolved)."""
    return [inst for _, inst in _parse_located(text, symbols, filename)]


def _parse_located(text, symbols, filename):
    """parse(), each Instruction with the `file:line` it came from."""
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
        if entry.fmt == "VOP3P":
            texts = _plain_vop3p(texts, len(entry.operands), where, mnemonic)
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
        program.append((where, Instruction(entry, tuple(operands), size)))
    return program


def symbols_value(text, symbols, where, mnemonic):
    value_text = str(symbols.get(text.strip(), text)).strip()
    try:
        return int(value_text, 0)
    except ValueError:
        raise AssemblyError(f"{where}: {mnemonic} immediate {text!r} is not an integer") from None


def assemble(text, symbols=None, filename="<source>"):
    """Assemble source text into program dwords (a list of ints). Every operand is also held to the
    decoder's rules (isa.encoding.slot_problem), so whatever assembles also loads."""
    dwords = []
    for where, inst in _parse_located(text, symbols, filename):
        entry = inst.opcode
        for position, (kind, value) in enumerate(zip(entry.operands, inst.operands)):
            if kind not in (op.LABEL, op.IMM):
                problem = slot_problem(entry, position, value.code)
                if problem:
                    raise AssemblyError(f"{where}: {entry.mnemonic} operand {position + 1} ({kind}): {problem}")
        try:
            dwords.extend(encode(inst))
        except ValueError as e:
            raise AssemblyError(f"{where}: {entry.mnemonic}: {e}") from None
    return dwords


def assemble_file(path, symbols=None):
    """Assemble a source file (see read_source for what it must be)."""
    return assemble(read_source(path), symbols, path)
