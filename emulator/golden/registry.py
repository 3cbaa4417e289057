"""The golden model's operator table: one `GoldenOperator` per DirectML operator, filled by registration.

Each operator function is registered where it is defined, by the `operator` decorator (or `register`, for a
function that serves a family, such as `compare`), with explicit keyword fields that say how `run` calls it:

  name                the DirectML operator name without DML_OPERATOR_ (e.g. "ELEMENT_WISE_CLIP")
  leading             fixed arguments before the input arrays (a family's member, e.g. "EQUALS")
  attributes          desc fields passed positionally after the inputs, in this order (a trailing field the
                      caller leaves out takes the function's default)
  keyword_attributes  desc fields passed by keyword where given
  all_attributes      every given desc field by keyword (the activations; FusedActivation excepted)
  scale_bias          pass the ScaleBias as `scale_bias=`
  half_precision      pass the half-precision flag as `half_precision=`
  output_type         pass the output's data type as `output_type=`
  output_sizes        pass the (first) output's Sizes as `output_sizes=` (MAX_UNPOOLING: no desc field says them)

A second registration of a name is an error at import.
"""
from dataclasses import dataclass

__all__ = ["GoldenOperator", "OPERATORS", "operator", "register"]


@dataclass(frozen=True, kw_only=True)
class GoldenOperator:
    """One registered operator (see the module docstring for the fields); call it as `run` does."""
    name: str
    function: object
    leading: tuple = ()
    attributes: tuple = ()
    keyword_attributes: tuple = ()
    all_attributes: bool = False
    scale_bias: bool = False
    half_precision: bool = False
    output_type: bool = False
    output_sizes: bool = False

    def __call__(self, inputs, attributes, scale_bias, half_precision, output_type, output_sizes=None):
        args = [*self.leading, *inputs]
        for field in self.attributes:
            if field not in attributes:
                break
            args.append(attributes[field])
        kwargs = {}
        if self.all_attributes:
            kwargs.update((k, v) for k, v in attributes.items() if k != "FusedActivation")
        kwargs.update((k, attributes[k]) for k in self.keyword_attributes if k in attributes)
        if self.scale_bias:
            kwargs["scale_bias"] = scale_bias
        if self.half_precision:
            kwargs["half_precision"] = half_precision
        if self.output_type:
            kwargs["output_type"] = output_type
        if self.output_sizes:
            kwargs["output_sizes"] = output_sizes
        return self.function(*args, **kwargs)


OPERATORS = {}      # name -> GoldenOperator


def register(*, name, function, **fields):
    """Register `function` as operator `name` (fields: see the module docstring)."""
    if name in OPERATORS:
        raise ValueError(f"the golden operator {name} is registered twice")
    OPERATORS[name] = GoldenOperator(name=name, function=function, **fields)
    return function


def operator(*, name, **fields):
    """Decorator: register the decorated function as operator `name`."""
    def decorate(function):
        return register(name=name, function=function, **fields)
    return decorate
