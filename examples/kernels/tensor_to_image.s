; =============================================================================================
; tensor_to_image.s: a FLOAT16 NCHW tensor {1, 3, height, width} becomes an image in a Texture2D
; (the tensor -> image conversion shader of DirectML's image samples), run by
; examples/super_resolution.py through D3D12 Dispatch.
;
; One thread per pixel, 8 x 8 threads a group: Dispatch(ceil(width / 8), ceil(height / 8), 1).
; t0 is a RAW SRV of the tensor's buffer; u0 a typed UAV of the texture (R8G8B8A8_UNORM in the
; example: image_store clamps each channel to [0, 1] and rounds code * 255 to nearest even, NaN -> 0;
; alpha is written as 1.0).
; =============================================================================================
.numthreads 8, 8, 1
.root_constants b0, 2                ; s5 = width, s6 = height (texels)
.srv t0                              ; the tensor, FLOAT16, channels R, G, B one plane each
.uav u0                              ; the image (an image descriptor: s_load_dwordx8)
    s_lshl_b32 s24, s21, 3
    v_add_u32 v4, s24, v1                ; x = SV_DispatchThreadID.x
    s_lshl_b32 s25, s22, 3
    v_add_u32 v5, s25, v2                ; y = SV_DispatchThreadID.y
    v_cmp_gt_u32 vcc, s5, v4
    s_and_b64 exec, exec, vcc
    v_cmp_gt_u32 vcc, s6, v5
    s_and_b64 exec, exec, vcc
    s_cbranch_execz done
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_T0}   ; buffer descriptor of the tensor
    s_load_dwordx8 s[8:15], s[0:1], ${SLOT_U0}    ; image descriptor of the texture view
    s_waitcnt 0
    v_mad_u32 v12, v5, s5, v4            ; pixel index y * width + x
    v_lshl_b32 v12, v12, 1               ; its byte offset in the R plane
    s_mul_i32 s26, s5, s6
    s_lshl_b32 s26, s26, 1               ; bytes of one channel plane
    buffer_load_ushort v8, v12, s[16:19], 0
    v_add_u32 v12, s26, v12
    buffer_load_ushort v9, v12, s[16:19], 0
    v_add_u32 v12, s26, v12
    buffer_load_ushort v10, v12, s[16:19], 0
    s_waitcnt 0
    v_cvt_f32_f16 v8, v8                 ; exact widening
    v_cvt_f32_f16 v9, v9
    v_cvt_f32_f16 v10, v10
    v_mov_b32 v11, 0x3f800000            ; alpha 1.0: opaque
    v_mov_b32 v6, 0
    v_mov_b32 v7, 0
    image_store v[8:11], v[4:7], s[8:15]
done:
    s_endpgm
