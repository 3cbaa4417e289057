"""ConversionError: what dmlemu.onnx raises for a model it cannot convert (a ValueError; one sentence
naming the node, its op and the reason, or the value and what it lacks)."""

__all__ = ["ConversionError"]


class ConversionError(ValueError):
    """The model has something the converter does not convert; the message says what, and where."""
