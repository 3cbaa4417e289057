"""ConversionError: what dmlemu.onnx raises for a model it cannot convert (a ValueError; one sentence
naming the node, its op and the reason, or the value and what it lacks)."""

__all__ = ["ConversionError"]


class ConversionError(ValueError):
    """The model has something the converter does not convert; the message says what, and where. A control or
    other unprintable character the model put in a name (a newline in an op type) is shown as its escape, so
    the message stays one line."""

    def __init__(self, message):
        message = str(message)
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in message))
