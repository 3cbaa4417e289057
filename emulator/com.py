"""The COM / C calling convention shared by the DXGI, D3D12 and DirectML mirrors.

Everything the three API mirrors do the same way lives here once:

- `hresult_method`: a method that returns an HRESULT in C. On a removed device it raises
  DXGI_ERROR_DEVICE_REMOVED; a failure raises HResultError (and is reported to the device's debug
  layer first); a MemoryError inside (the host could not back a request) is E_OUTOFMEMORY with a
  sentence naming the method and what to lower (`out_of_memory`).
- `void_method`: a method that returns nothing in C. On a removed device it does nothing; misuse is
  raised inside as `VoidMisuse` and removes the device; a MemoryError inside removes it with
  E_OUTOFMEMORY.
- `c_value` / `c_arguments`: a NumPy integer scalar becomes the Python int it holds wherever C takes
  an integer (every wrapped method's arguments and every struct field), so no check downstream tells
  np.uint64(256) from 256;
- the argument checks used at the boundary (`check_uint`, `check_enum`, `check_flags`,
  `check_sequence`, `check_float`, `is_integer`, `is_one_of`): each raises E_INVALIDARG with one sentence naming
  the field, its value and the rule. Only arguments are checked; a bug inside the mirror propagates
  as the Python exception it is.
- `query_interface` / `as_guid`: IUnknown::QueryInterface over a table of interface IDs (E_NOINTERFACE
  for any other).
- `CStruct` / `define_struct`: the C structs (C field names, C order, C zero defaults).
- `c_enum` / `enum_name`: the C enums (IntEnum / IntFlag named like the C type) and their C names.

The wrappers work on any object with a `_device` (the device that owns removal: an ID3D12Device or
an IDMLDevice, itself included) and `_call_name(method_name)` (how sentences name the method). The
device provides `_check_not_removed(where)`, `_is_removed()`, `_report_failure(sentence)` and
`_report_misuse(hresult, sentence)` (hresult None: the API's default removal reason).
"""
import functools
import numbers
import operator
import uuid
from enum import IntEnum, IntFlag

import numpy as np

from dmlemu.errors import E_INVALIDARG, E_NOINTERFACE, E_OUTOFMEMORY, HResultError

UINT32_MAX = (1 << 32) - 1
UINT64_MAX = (1 << 64) - 1


# ---- calling conventions ------------------------------------------------------------------------------
class VoidMisuse(Exception):
    """Misuse found inside a void method; `hresult` (None: the API's default) becomes the removal reason."""

    def __init__(self, message, hresult=None):
        super().__init__(message)
        self.message = message
        self.hresult = hresult


class COMObject:
    """Base of every mirror object whose methods use the wrappers below."""

    def _call_name(self, method_name):
        """How error sentences name a method of this object (D3D12: the bare C method name)."""
        return method_name


def c_value(value):
    """A NumPy integer scalar as the Python int it holds (C has one integer); anything else as it is."""
    return int(value) if isinstance(value, np.integer) else value


def c_arguments(args, kwargs):
    """A call's arguments with NumPy integer scalars as Python ints (c_value)."""
    return tuple(c_value(a) for a in args), {k: c_value(v) for k, v in kwargs.items()}


def prefixed(where, message):
    """`where: message`, the form every reported sentence takes; a message that already begins with
    that prefix is returned as it is (a method's name never appears twice in a row)."""
    prefix = f"{where}: "
    return message if message.startswith(prefix) else prefix + message


def hresult_method(method):
    """Wrap an HRESULT method: removed device -> DXGI_ERROR_DEVICE_REMOVED; failures reported, then raised."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        where = self._call_name(method.__name__)
        device = self._device
        device._check_not_removed(where)
        args, kwargs = c_arguments(args, kwargs)
        try:
            return method(self, *args, **kwargs)
        except HResultError as error:
            if not getattr(error, "reported", False):   # a debug-layer break was reported where it was found
                device._report_failure(prefixed(where, error.message))
            raise
        except MemoryError:
            # The host could not back what the call asked for: E_OUTOFMEMORY, as a driver that cannot allocate.
            error = HResultError(E_OUTOFMEMORY, prefixed(where, out_of_memory()))
            device._report_failure(error.message)
            raise error from None

    return wrapper


def out_of_memory():
    """The sentence of a MemoryError met inside a mirror method (after its name), naming what to lower."""
    return ("the host could not provide the memory this call needed (MemoryError); lower the sizes and counts in "
            f"its arguments (Sizes, Width, NumDescriptors, the number of objects or nodes), or, for a dispatch's "
            f"timing, DMLEMU_TIMING_RECORD_BYTES or the timing model off")


def void_method(method):
    """Wrap a void method: a no-op on a removed device; a VoidMisuse removes the device."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        device = self._device
        if device._is_removed():
            return None
        args, kwargs = c_arguments(args, kwargs)
        try:
            return method(self, *args, **kwargs)
        except VoidMisuse as misuse:
            device._report_misuse(misuse.hresult, prefixed(self._call_name(method.__name__), misuse.message))
            return None
        except MemoryError:
            # Nothing to return an HRESULT through: the device is removed with E_OUTOFMEMORY and the sentence.
            where = self._call_name(method.__name__)
            device._report_misuse(E_OUTOFMEMORY, prefixed(where, out_of_memory()))
            return None

    return wrapper


# ---- IUnknown::QueryInterface ------------------------------------------------------------------------
IID_IUnknown = uuid.UUID("00000000-0000-0000-c000-000000000046")


def as_guid(value, where):
    """A GUID argument (uuid.UUID or its string form) as a uuid.UUID; E_INVALIDARG for anything else."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise HResultError(E_INVALIDARG, f"{where} is {value!r}; it must be a GUID (uuid.UUID or its string).") from None


def query_interface(obj, riid, interfaces, what, where=None):
    """QueryInterface: `obj` when `riid` is one of `interfaces` (a dict IID -> C interface name, IUnknown
    always included); else E_NOINTERFACE with a sentence naming `what` and the interfaces it has
    (prefixed with `where`, the method's name, when the API's sentences carry it)."""
    try:
        iid = as_guid(riid, "riid")
    except HResultError as error:
        raise HResultError(error.hresult, error.message if where is None else prefixed(where, error.message)) from None
    if iid == IID_IUnknown or iid in interfaces:
        return obj
    names = ", ".join(["IUnknown"] + list(interfaces.values()))
    message = f"riid {iid} is not an interface of {what}; it implements {names}."
    raise HResultError(E_NOINTERFACE, message if where is None else prefixed(where, message))


# ---- argument checks ----------------------------------------------------------------------------------
def invalid(message):
    """An E_INVALIDARG HResultError."""
    return HResultError(E_INVALIDARG, message)


def is_integer(value):
    """A Python or NumPy integer (bool excluded)."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_one_of(value, allowed):
    """True when `value` is an integer (Python or NumPy) equal to one of `allowed` (never raises)."""
    return is_integer(value) and int(value) in allowed


def check_uint(value, where, max_value=UINT32_MAX, min_value=0):
    """An integer in [min_value, max_value], returned as a Python int."""
    if not is_integer(value):
        raise invalid(f"{where} is {value!r}; it must be an integer from {min_value} to {max_value}.")
    value = operator.index(value)
    if not min_value <= value <= max_value:
        raise invalid(f"{where} is {value}; it must be an integer from {min_value} to {max_value}.")
    return value


def check_float(value, where):
    """A C FLOAT: any real number, returned as np.float32 (out-of-range values become +/-inf)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise invalid(f"{where} is {value!r}; it must be a number (a C FLOAT).")
    try:
        wide = float(value)
    except OverflowError:
        raise invalid(f"{where} is {value!r}; it is out of the range of a C FLOAT.") from None
    with np.errstate(over="ignore"):
        return np.float32(wide)


def _range_length(value):
    """len(range) without OverflowError for ranges longer than sys.maxsize."""
    step = value.step
    return max(0, (value.stop - value.start + step + (-1 if step > 0 else 1)) // step)


def check_sequence(value, where, what="a sequence of integers", max_length=UINT32_MAX, limit=None):
    """A list/tuple/range/1-D array as a tuple; strings, bytes, sets and scalars are rejected.

    A range is the one lazy sequence taken: its length is checked against `max_length` (the field's
    documented maximum, `limit` the sentence naming it; by default a C count, a UINT) before anything is
    allocated, and it is refused outright where `what` names a sequence of objects (max_length 0)."""
    if isinstance(value, range):
        length = _range_length(value)
        if max_length == 0:
            raise invalid(f"{where} is {value!r}; it must be {what}.")
        if length > max_length:
            limit = limit or f"its C count is a UINT, at most {max_length}"
            raise invalid(f"{where} is a range of {length} elements; {limit}.")
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise invalid(f"{where} is a {value.ndim}-D array; it must be {what}.")
        return tuple(value.tolist() if value.dtype.kind in "iu" else value)
    if isinstance(value, (list, tuple, range)):
        return tuple(value)
    raise invalid(f"{where} is {value!r}; it must be {what}.")


def check_enum(value, enum_type, where):
    """A value of `enum_type`, returned as its member."""
    if not is_integer(value):
        raise invalid(f"{where} is {value!r}; it must be a {enum_type.__name__} value.")
    try:
        return enum_type(operator.index(value))
    except ValueError:
        raise invalid(f"{where} is {value!r}, which is not a {enum_type.__name__} value.") from None


def check_flags(value, flag_type, where):
    """An integer whose bits are all defined by `flag_type`."""
    if not is_integer(value):
        raise invalid(f"{where} is {value!r}; it must be a combination of {flag_type.__name__} flags.")
    value = operator.index(value)
    known = 0
    for member in flag_type:
        known |= int(member)
    if value < 0 or value & ~known:
        raise invalid(f"{where} is 0x{value & 0xFFFFFFFF:X}; bits 0x{(value & ~known) & 0xFFFFFFFF:X} are not "
                      f"{flag_type.__name__} flags.")
    return value


# ---- structs ------------------------------------------------------------------------------------------
class Count:
    """The default of a count field paired with a sequence field: it reads as the sequence's length."""

    def __init__(self, sequence_field):
        self.sequence_field = sequence_field


class _CountField:
    """A count field: the value given, or the paired sequence's length when none was given."""

    def __init__(self, name, sequence_field):
        self.name = name
        self.sequence_field = sequence_field

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__.get(self.name)
        if value is not None:
            return value
        sequence = obj.__dict__.get(self.sequence_field)
        return len(sequence) if hasattr(sequence, "__len__") else 0

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value


class CStruct:
    """Base of every struct of the mirror: C field names, C order, C zero defaults, mutable.

    Built with the C field names as keyword arguments (or positionally, in C order). A field left out
    takes C's zero: 0, None for a pointer, or a fresh zeroed struct for an embedded struct. A C
    (count, pointer) pair becomes one sequence field; its count field may be omitted and then reads
    as the sequence's length. Fields are checked by the API calls that consume the struct, not here;
    assigning a field the struct does not have raises AttributeError; a NumPy integer scalar assigned
    to a field is stored as the Python int it holds. Two structs are equal when their
    types and fields are equal.
    """

    _fields_ = ()      # field names in C order
    _defaults_ = {}    # field name -> zero value, or a struct class for an embedded struct

    def __init__(self, *args, **kwargs):
        name = type(self).__name__
        if len(args) > len(self._fields_):
            raise TypeError(f"{name} has {len(self._fields_)} fields; {len(args)} values were given")
        for field, value in zip(self._fields_, args):
            if field in kwargs:
                raise TypeError(f"{name}.{field} was given twice")
            kwargs[field] = value
        for field in kwargs:
            if field not in self._fields_:
                raise TypeError(f"{name} has no field {field!r}; its fields are {', '.join(self._fields_)}")
        for field in self._fields_:
            if field in kwargs:
                value = kwargs[field]
            else:
                default = self._defaults_[field]
                value = default() if isinstance(default, type) else default
            setattr(self, field, value)

    def __setattr__(self, name, value):
        if name not in self._fields_:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r}; its fields are {', '.join(self._fields_)}")
        object.__setattr__(self, name, c_value(value))     # a NumPy integer is the C integer it holds

    def explicit_count(self, count_field):
        """A count field as given (None when it was left out and reads as its sequence's length)."""
        return self.__dict__.get(count_field)

    def _copy(self):
        """A deep copy (embedded structs copied too; objects behind pointers shared)."""
        copy = object.__new__(type(self))
        copy.__dict__.update({name: value._copy() if isinstance(value, CStruct) else value
                              for name, value in self.__dict__.items()})
        return copy

    def __eq__(self, other):
        if not isinstance(other, CStruct) or other._fields_ != self._fields_:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._fields_)

    __hash__ = None  # mutable, like a C struct

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._fields_)})"


def define_struct(namespace, name, doc, fields):
    """Define a struct class named like the C struct in `namespace` (listing it in its __all__).

    `fields`: (name, default) pairs in C order; a default is a zero value, a struct class (an
    embedded struct) or `Count(sequence_field)` (a count field).
    """
    attributes = {"__doc__": doc, "__module__": namespace["__name__"], "_fields_": tuple(f for f, _ in fields),
                  "_defaults_": {}}
    for field, default in fields:
        if isinstance(default, Count):
            attributes[field] = _CountField(field, default.sequence_field)
            default = None
        attributes["_defaults_"][field] = default
    cls = type(name, (CStruct,), attributes)
    namespace[name] = cls
    namespace["__all__"].append(name)
    return cls


# ---- enums --------------------------------------------------------------------------------------------
def c_enum(namespace, type_name, prefix, members, flag=False):
    """Define an IntEnum (IntFlag) named like the C type in `namespace`; export it and each member's C name.

    `members`: (name without prefix, value) pairs; a later name for a value already given is a C alias.
    The first name given to a value is its C name (`enum_name`).
    """
    base = IntFlag if flag else IntEnum
    cls = base(type_name, [(prefix + name, value) for name, value in members], module=namespace["__name__"])
    cls._c_names_ = {}
    namespace[type_name] = cls
    namespace["__all__"].append(type_name)
    for name, value in members:
        namespace[prefix + name] = cls(value)
        namespace["__all__"].append(prefix + name)
        cls._c_names_.setdefault(value, prefix + name)
    return cls


def enum_name(enum_type, value):
    """The C name of `value` in `enum_type` (for sentences), or the bare number when it names nothing."""
    if is_integer(value) and int(value) in enum_type._c_names_:
        return enum_type._c_names_[int(value)]
    return str(int(value)) if is_integer(value) else repr(value)
