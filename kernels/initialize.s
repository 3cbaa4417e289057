; =============================================================================================
; DirectML operator initialization: copy dwords into an operator's persistent resource.
;
; An IDMLOperatorInitializer dispatch runs this kernel once per region of each target operator's
; persistent resource: the operator's precomputed constants (the constant buffer of
; kernels/constant_buffer.py: element count, dimension records with their division constants,
; Min/Max, Scale/Bias) and the data of each DML_TENSOR_FLAG_OWNED_BY_DML input. One lane copies
; one dword; both sides are reached through buffer descriptors, so nothing outside the source
; range is read (it reads 0) and nothing outside the persistent binding is written.
;
; Launch ABI:
;   s[0:1]  the initializer's descriptor table range of this operator: slot 0 = the persistent
;           resource (the initializer's output); slots 1.. = the operator's inputs
;   s[2:3]  the copy's constants (kernels/constant_buffer.py COPY_FIELDS, ${CB_COPY_<FIELD>}):
;           dword count, threads per workgroup, destination byte offset, and the address of the
;           source's buffer descriptor (an input's slot of the table, or DirectML's own copy of
;           the operator's constants)
;   s4      workgroup id;   v0  thread id inside the workgroup
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_PERSISTENT}   ; descriptor of the persistent resource
    s_load_dwordx4 s[12:15], s[2:3], ${CB_COPY_DWORDS}    ; dwords, workgroup size, offset, (reserved)
    s_load_dwordx2 s[16:17], s[2:3], ${CB_COPY_SOURCE_LO} ; where the source's descriptor is
    s_waitcnt 0
    s_load_dwordx4 s[20:23], s[16:17], ${DESC_SOURCE}   ; the source's descriptor
    s_mul_i32 s27, s4, s13               ; first dword of this workgroup
    v_add_u32 v1, s27, v0                ; v1 = this lane's dword
    v_cmp_gt_u32 vcc, s12, v1            ; lanes past the count do nothing
    s_and_b64 exec, exec, vcc
    s_cbranch_execz done
    v_lshl_b32 v2, v1, 2                 ; source byte offset
    v_add_u32 v3, s14, v2                ; destination byte offset in the persistent resource
    s_waitcnt 0                          ; wait for the source's descriptor
    buffer_load_dword v10, v2, s[20:23], 0
    s_waitcnt 0
    buffer_store_dword v10, v3, s[8:11], 0
done:
    s_endpgm
