"""Cross-lane semantics: how the lanes of a wave read each other's registers.

The rules of the instructions that move values between lanes of one wave without memory: the
VALU's readlane / readfirstlane / writelane and DPP-style moves, and the LDS crossbar's swizzle and
permutes (isa/opcodes.py names each row's rule here). Every function works on whole batches of
waves: values are (W, width) arrays, `exec` the (W, width) EXEC mask; the executor reads the
operands and writes the result under EXEC. A row is 16 lanes, as in AMD's DPP.
"""
import numpy as np

ROW = 16


def _lanes(width):
    return np.arange(width, dtype=np.int64)


def _gather(values, source, width):
    """values[w, source[l]] for every wave w: `source` a (width,) or (W, width) array of lanes."""
    values = np.broadcast_to(values, (values.shape[0], width))
    source = np.broadcast_to(source, values.shape)
    return np.take_along_axis(values, source, axis=1)


def read_lane(exec_mask, old, values, lane):
    """v_readlane_b32: lane (lane mod width) of each wave, as a (W, 1) scalar."""
    width = exec_mask.shape[1]
    lane = (np.asarray(lane, dtype=np.int64) % width).reshape(-1, 1)
    values = np.broadcast_to(values, (max(values.shape[0], lane.shape[0], exec_mask.shape[0]), width))
    return _gather(values, np.broadcast_to(lane, (values.shape[0], 1)), width)[:, :1]


def read_first_lane(exec_mask, old, values):
    """v_readfirstlane_b32: the first active lane of each wave (lane 0 when none is), (W, 1)."""
    values = np.asarray(values)
    if values.ndim == 2 and values.shape[1] == 1:
        # One value per wave (or one for all): the first active lane (or lane 0) holds it, without a pass over EXEC.
        return np.broadcast_to(values, (exec_mask.shape[0], 1))
    width = exec_mask.shape[1]
    first = np.argmax(exec_mask, axis=1).reshape(-1, 1)     # 0 when no lane is active
    values = np.broadcast_to(values, (exec_mask.shape[0], width))
    return np.take_along_axis(values, first, axis=1)


def write_lane(exec_mask, old, value, lane):
    """v_writelane_b32: d with lane (lane mod width) set to the scalar `value`, whatever EXEC says."""
    waves, width = exec_mask.shape
    lane = (np.asarray(lane, dtype=np.int64) % width).reshape(-1, 1)
    hit = _lanes(width).reshape(1, width) == lane
    return np.where(hit, np.asarray(value, dtype=np.uint32).reshape(-1, 1),
                    np.broadcast_to(np.asarray(old, dtype=np.uint32), (waves, width)))


def row_shift_right(exec_mask, old, values, shift):
    """DPP row_shr:shift with bound_ctrl:0: lane l of a row reads lane l - shift of the row, 0 before its start."""
    width = exec_mask.shape[1]
    lanes = _lanes(width)
    source = lanes - shift
    valid = (lanes % ROW) >= shift
    return np.where(valid, _gather(np.asarray(values), np.where(valid, source, lanes), width), np.uint32(0))


def row_mirror(exec_mask, old, values):
    """DPP row_mirror: lane l of a row reads lane 15 - l of the row."""
    width = exec_mask.shape[1]
    lanes = _lanes(width)
    return _gather(np.asarray(values), (lanes & ~(ROW - 1)) | (ROW - 1 - lanes % ROW), width) if width >= ROW else \
        _gather(np.asarray(values), width - 1 - lanes, width)


def lane_xor(exec_mask, old, values, mask):
    """Butterfly: lane l reads lane l ^ mask (mask < width)."""
    width = exec_mask.shape[1]
    return _gather(np.asarray(values), _lanes(width) ^ (mask % width), width)


def broadcast_lane(exec_mask, old, values, lane):
    """Every lane reads lane `lane` (< width)."""
    width = exec_mask.shape[1]
    return _gather(np.asarray(values), np.full(width, lane % width, dtype=np.int64), width)


def swizzle(exec_mask, values, pattern):
    """ds_swizzle_b32 with GCN's offset encoding given as a per-wave value `pattern` (W, 1) or (1, 1):
    bit 15 clear: within each 32 lanes, lane l reads ((l & and) | or) ^ xor (and = bits 4:0, or =
    bits 9:5, xor = bits 14:10); bit 15 set: within each 4 lanes, lane l reads the quad lane in bits
    2(l & 3) + 1 : 2(l & 3). A source lane that is inactive gives 0."""
    waves, width = exec_mask.shape
    pattern = np.broadcast_to(np.asarray(pattern, dtype=np.int64).reshape(-1, 1), (waves, 1))
    lanes = _lanes(width).reshape(1, width)
    and_mask, or_mask, xor_mask = pattern & 31, (pattern >> 5) & 31, (pattern >> 10) & 31
    in_32 = ((lanes & 31 & and_mask) | or_mask) ^ xor_mask
    bitmask = (lanes & ~31) | (in_32 & 31)
    quad = (lanes & ~3) | ((pattern >> (2 * (lanes & 3))) & 3)
    source = np.where((pattern >> 15) & 1 == 1, quad, bitmask) % width
    values = np.broadcast_to(np.asarray(values, dtype=np.uint32), (waves, width))
    live = np.broadcast_to(exec_mask, (waves, width))
    return np.where(np.take_along_axis(live, source, axis=1), np.take_along_axis(values, source, axis=1),
                    np.uint32(0))


def permute_forward(exec_mask, addresses, values):
    """ds_permute_b32: each active lane l writes its value to lane (address[l] / 4) mod width; the
    highest such lane wins; lanes no active lane writes to get 0."""
    waves, width = exec_mask.shape
    target = (np.broadcast_to(np.asarray(addresses, dtype=np.int64), (waves, width)) >> 2) % width
    values = np.broadcast_to(np.asarray(values, dtype=np.uint32), (waves, width))
    live = np.broadcast_to(exec_mask, (waves, width))
    out = np.zeros((waves, width), dtype=np.uint32)
    rows = np.broadcast_to(np.arange(waves).reshape(-1, 1), (waves, width))
    # Assignment with repeated indices keeps the last in index order: lanes ascending, the highest wins.
    out[rows[live], target[live]] = values[live]
    return out


def permute_backward(exec_mask, addresses, values):
    """ds_bpermute_b32: lane l reads the value of lane (address[l] / 4) mod width; 0 when that lane is inactive."""
    waves, width = exec_mask.shape
    source = (np.broadcast_to(np.asarray(addresses, dtype=np.int64), (waves, width)) >> 2) % width
    values = np.broadcast_to(np.asarray(values, dtype=np.uint32), (waves, width))
    live = np.broadcast_to(exec_mask, (waves, width))
    return np.where(np.take_along_axis(live, source, axis=1), np.take_along_axis(values, source, axis=1),
                    np.uint32(0))
