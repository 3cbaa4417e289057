; =============================================================================================
; image_to_tensor.s: an image in a Texture2D becomes a FLOAT16 NCHW tensor {1, 3, height, width}
; (the image -> tensor conversion shader of DirectML's SuperResolution, yolov4 and style-transfer
; samples), run by examples/super_resolution.py through D3D12 Dispatch.
;
; One thread per pixel, 8 x 8 threads a group: Dispatch(ceil(width / 8), ceil(height / 8), 1).
; t0 is a typed SRV of the texture (R8G8B8A8_UNORM in the example; any format works: image_load
; converts it, docs/TEXTURES.md "Image loads and stores"); u0 a RAW UAV of the tensor's buffer.
; Launch ABI: docs/KERNEL_ABI.md (s21, s22 SV_GroupID.xy; v1, v2 SV_GroupThreadID.xy).
; =============================================================================================
.numthreads 8, 8, 1
.root_constants b0, 2                ; s5 = width, s6 = height (texels)
.srv t0                              ; the image (an image descriptor: s_load_dwordx8)
.uav u0                              ; the tensor, FLOAT16, channels R, G, B one plane each
    s_lshl_b32 s24, s21, 3
    v_add_u32 v4, s24, v1                ; x = SV_DispatchThreadID.x
    s_lshl_b32 s25, s22, 3
    v_add_u32 v5, s25, v2                ; y = SV_DispatchThreadID.y
    v_cmp_gt_u32 vcc, s5, v4             ; x < width ...
    s_and_b64 exec, exec, vcc
    v_cmp_gt_u32 vcc, s6, v5             ; ... and y < height keep running
    s_and_b64 exec, exec, vcc
    s_cbranch_execz done
    s_load_dwordx8 s[8:15], s[0:1], ${SLOT_T0}    ; image descriptor of the texture view
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}   ; buffer descriptor of the tensor
    s_waitcnt 0
    v_mov_b32 v6, 0                      ; z (no array slice)
    v_mov_b32 v7, 0                      ; mip 0 of the view
    image_load v[8:11], v[4:7], s[8:15]  ; R, G, B, A as float32 (UNORM: code / 255)
    v_mad_u32 v12, v5, s5, v4            ; pixel index y * width + x
    v_lshl_b32 v12, v12, 1               ; its byte offset in the R plane
    s_mul_i32 s26, s5, s6
    s_lshl_b32 s26, s26, 1               ; bytes of one channel plane
    s_waitcnt 0
    v_cvt_f16_f32 v13, v8                ; round to FLOAT16, nearest even
    buffer_store_short v13, v12, s[16:19], 0
    v_add_u32 v12, s26, v12
    v_cvt_f16_f32 v13, v9
    buffer_store_short v13, v12, s[16:19], 0
    v_add_u32 v12, s26, v12
    v_cvt_f16_f32 v13, v10
    buffer_store_short v13, v12, s[16:19], 0
done:
    s_endpgm
