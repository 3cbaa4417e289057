"""The element-wise activations: one body per ACTIVATION_ operator, also what a FusedActivation applies.

`activation_body(name=...)` registers a body, fn(work, x, attributes, extra inputs) -> (working result,
canonical), in ACTIVATIONS and ACTIVATION_<name> as a golden operator (run through `activation`). The
transcendental activations (ELU, SIGMOID, GELU, ...) register theirs in dmlemu.golden.transcendental.
"""
import numpy as np

from dmlemu.golden.numbers import cast_bound, max_num, min_num
from dmlemu.golden.registry import register
from dmlemu.golden.working import Work, same_dtype

ACTIVATIONS = {}    # "ACTIVATION_<NAME>" -> body


def activation_body(*, name):
    """Register the decorated function as the body of activation `name` (e.g. "ACTIVATION_RELU")."""
    def decorate(fn):
        if name in ACTIVATIONS:
            raise ValueError(f"the activation {name} is registered twice")
        ACTIVATIONS[name] = fn
        register(name=name, function=activation, leading=(name[len("ACTIVATION_"):],), all_attributes=True,
                 half_precision=True)
        return fn
    return decorate


def register_dtype(dtype):
    """The kernels' register type of an integer tensor: 8- to 32-bit types widen to 32 bits."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        return dtype
    return np.dtype(np.int32 if dtype.kind == "i" else np.uint32)


def _fused(fused):
    if isinstance(fused, tuple):
        return fused[0], dict(fused[1] or {})
    return fused.name, dict(fused.attributes or {})


def apply_activation(fused, y, w):
    """A FusedActivation (a validated one, or (name, attributes)) on the working value y: (result, canonical)."""
    name, attributes = _fused(fused)
    with np.errstate(all="ignore"):
        return ACTIVATIONS[name.replace("DML_OPERATOR_", "")](w, y, attributes, ())


def activation(name, x, *extra, half_precision=False, **attributes):
    """ACTIVATION_<name> (RELU, LEAKY_RELU, LINEAR, PARAMETERIZED_RELU (extra: the slope), HARD_SIGMOID,
    HARD_SWISH, SHRINK, THRESHOLDED_RELU, RELU_GRAD (extra: the gradient), IDENTITY, and the transcendental
    ones) on x, with its FLOAT attributes by C field name (Alpha, Beta, Bias, Threshold, ...)."""
    arrays = same_dtype(x, *extra)
    w = Work(arrays[0].dtype, half_precision)
    with np.errstate(all="ignore"):
        y, canonical = ACTIVATIONS["ACTIVATION_" + name](w, w.widen(arrays[0]), attributes,
                                                         [w.widen(e) for e in arrays[1:]])
        return w.finish(y, canonical)


# ---- the bodies -----------------------------------------------------------------------------------------------
@activation_body(name="ACTIVATION_RELU")
def _relu(w, x, at, extra):
    return max_num(x, np.zeros_like(x)) if w.is_float else np.maximum(x, 0), False


@activation_body(name="ACTIVATION_LEAKY_RELU")
def _leaky_relu(w, x, at, extra):
    return np.where(x < 0, w.mul(x, w.param(at["Alpha"])), x), True


@activation_body(name="ACTIVATION_PARAMETERIZED_RELU")
def _parameterized_relu(w, x, at, extra):
    return np.where(x < 0, w.mul(x, extra[0]), x), True


@activation_body(name="ACTIVATION_LINEAR")
def _linear(w, x, at, extra):
    return w.mad(x, w.param(at["Alpha"]), w.param(at["Beta"])), False


@activation_body(name="ACTIVATION_HARD_SIGMOID")
def _hard_sigmoid(w, x, at, extra):
    y = w.mad(x, w.param(at["Alpha"]), w.param(at["Beta"]))
    return max_num(min_num(y, np.full_like(y, 1)), np.zeros_like(y)), False


@activation_body(name="ACTIVATION_HARD_SWISH")
def _hard_swish(w, x, at, extra):
    y, _ = _hard_sigmoid(w, x, at, extra)
    return w.mul(x, y), False


@activation_body(name="ACTIVATION_SHRINK")
def _shrink(w, x, at, extra):
    if not w.is_float:   # integers: Bias and Threshold cast to the type, arithmetic in the 32-bit register
        reg = register_dtype(w.storage)
        bias, threshold = (reg.type(cast_bound(at[f], w.storage)) for f in ("Bias", "Threshold"))
        xr = x.astype(reg)
        with np.errstate(all="ignore"):
            return np.where(xr < reg.type(0) - threshold, xr + bias,
                            np.where(xr > threshold, xr - bias, 0)).astype(reg), False
    bias, threshold = w.param(at["Bias"]), w.param(at["Threshold"])
    with np.errstate(invalid="ignore"):
        return np.where(x < -threshold, w.add(x, bias), np.where(x > threshold, w.sub(x, bias), 0)), True


@activation_body(name="ACTIVATION_THRESHOLDED_RELU")
def _thresholded_relu(w, x, at, extra):
    with np.errstate(invalid="ignore"):
        return np.where(x > w.param(at["Alpha"]), x, 0), True


@activation_body(name="ACTIVATION_RELU_GRAD")
def _relu_grad(w, x, at, extra):
    with np.errstate(invalid="ignore"):
        return np.where(x > 0, extra[0], 0), True


@activation_body(name="ACTIVATION_IDENTITY")
def _identity(w, x, at, extra):
    return x, False
