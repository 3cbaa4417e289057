"""Per-view state checks at Dispatch: the subresources a bound view holds, and the debug layer's sentence.

When a Dispatch executes, every resource bound through an SRV, UAV or CBV must be in a state that allows
the use (dispatch.py: UAV -> UNORDERED_ACCESS, SRV -> NON_PIXEL_SHADER_RESOURCE, CBV ->
VERTEX_AND_CONSTANT_BUFFER; COMMON is promoted where D3D12 promotes, resource.py). For a texture only the
subresources the view holds are checked (and promoted): its mips (an SRV's MostDetailedMip ..
+ MipLevels, a UAV's MipSlice) of its array slices, read from the descriptor's image stamp
(emulator/functional/image_descriptor.py); a view of mip 0 does not care what state mip 1 is in, as in
D3D12, where states are per subresource.

A use the state does not allow ends the Dispatch with DXGI_ERROR_INVALID_CALL (the queue removes the
device) and, under the debug layer, the message the real layer gives at ExecuteCommandLists for a
command list that uses a resource in the wrong state, D3D12_MESSAGE_ID_INVALID_SUBRESOURCE_STATE (#538,
category EXECUTION, d3d12sdklayers.h), worded after it:

    ExecuteCommandLists: Dispatch: Resource state (0x800: D3D12_RESOURCE_STATE_COPY_SOURCE) of resource
    (texture #1) (subresource: 0) is invalid for use as an unordered access view by the UAV u0 of the
    Dispatch of pipeline state #1 (k). Expected State Bits (all): 0x8: D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
    Actual State: 0x800: D3D12_RESOURCE_STATE_COPY_SOURCE, Missing State: 0x8:
    D3D12_RESOURCE_STATE_UNORDERED_ACCESS; record a transition barrier first. (in command list #1 on ...)

(messages.py classifies it by the phrase "is invalid for use as").
"""
from dmlemu.d3d12.enums import D3D12_HEAP_TYPE, D3D12_RESOURCE_DIMENSION_TEXTURE3D, state_name
from dmlemu.com import enum_name
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, HResultError
from dmlemu.functional.image_descriptor import unpack_image_descriptor
from dmlemu.isa.shader_binary import CBV, SRV, UAV

USE = {UAV: "an unordered access view", SRV: "a non-pixel shader resource", CBV: "a constant buffer"}


def view_subresources(resource, table_bytes, offset):
    """The subresource indices a texture view's descriptor (at `offset` of a binding table) holds; None for a
    buffer or a descriptor without an image stamp (then every subresource is checked)."""
    texture = resource._texture
    if texture is None:
        return None
    view = unpack_image_descriptor(table_bytes[offset:offset + 32].view("<u4"))
    if view is None:
        return None
    mips = range(view.first_mip, min(texture.mips, view.first_mip + view.mips))
    if texture.dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D:
        return list(mips)
    slices = range(view.first, min(texture.array_size, view.first + view.count))
    return [m + s * texture.mips for s in slices for m in mips]


def require_view_state(resource, required, kind, where, subresources):
    """resource._require_state for a bound view (`kind` UAV, SRV or CBV; `where` "UAV u0 of the Dispatch of
    ..."), with the debug layer's #538 sentence on a mismatch."""
    from dmlemu.d3d12.resource import COMMON, FIXED_STATE, _require_state
    try:
        _require_state(resource, required, f"the {where}", subresources)
    except HResultError:
        index, state = _unusable(resource, int(required), subresources)
        missing = int(required) & ~state
        if resource._heap_type in FIXED_STATE:
            hint = (f"a resource on a {enum_name(D3D12_HEAP_TYPE, resource._heap_type)} heap stays in "
                    f"{state_name(state)}")
        elif state == COMMON and resource._texture is not None:
            hint = ("a texture is not implicitly promoted from COMMON to a write state other than COPY_DEST; record "
                    "a transition barrier first")
        else:
            hint = "record a transition barrier first"
        raise HResultError(DXGI_ERROR_INVALID_CALL, (
            f"Dispatch: Resource state (0x{state:X}: {state_name(state)}) of resource ({resource._label}) "
            f"(subresource: {index}) is invalid for use as {USE[kind]} by the {where}. Expected State Bits (all): "
            f"0x{int(required):X}: {state_name(required)}, Actual State: 0x{state:X}: {state_name(state)}, Missing "
            f"State: 0x{missing:X}: {state_name(missing)}; {hint}.")) from None


def _unusable(resource, required, subresources):
    """(subresource index, state) of the first subresource the check refused."""
    if resource._texture is None:
        return 0, int(resource._state)
    entries = resource._subresource_states
    for index in range(len(entries)) if subresources is None else subresources:
        state = int(entries[index][0])
        if not state & required == required:
            return index, state
    return 0, int(entries[0][0])
