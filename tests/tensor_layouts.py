"""Tensor layouts the operator tests draw (tests/directml/test_reduce.py, test_gemm.py): packed, padded rows,
permuted dimensions, or broadcast dimensions (stride 0), as DirectML strides."""


def layout_strides(sizes, layout, rng):
    """(strides or None, the dimensions broadcast through stride 0) of a tensor of `sizes` in `layout`
    ("packed", "padded", "permuted" or "broadcast"); `rng` a numpy Generator."""
    if layout == "packed":
        return None, ()
    order = list(range(len(sizes)))
    if layout == "permuted":
        rng.shuffle(order)
    strides, step = [0] * len(sizes), 1
    for d in reversed(order):
        strides[d] = step
        step *= sizes[d] + (1 if layout == "padded" else 0)
    broadcast = ()
    if layout == "broadcast":
        broadcast = tuple(d for d in range(len(sizes)) if sizes[d] > 1 and rng.random() < 0.4)
        for d in broadcast:
            strides[d] = 0
    return strides, broadcast
