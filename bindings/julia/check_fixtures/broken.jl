# A deliberately broken binding, never loaded by Julia: it proves that check_ccalls.py fails.
# Every call whose first line ends in an EXPECT marker comment (function | where | text) is
# wrong in that way; every other call is right. check_ccalls_test.py asserts that check_ccalls.py reports exactly
# the marked mismatches (at the marked lines) and exits with status 1.
module Broken

const LIB = "libglia"
const P = Ptr{Cvoid}

# A ccall macro spelled like Glia.jl's: @g name Ret (Types...) values...
macro g(name, ret, types, args...)
    return :(ccall(($(QuoteNode(name)), LIB), $(esc(ret)), $(esc(types)), $(map(esc, args)...)))
end

"""glia_device: {glia_device_type type; int32_t index}, passed by value."""
struct Device
    type::Cint
    index::Int32
end

struct WideDevice            # wrong: 64-bit fields
    type::Int64
    index::Int64
end

mutable struct MutableDevice # wrong when passed by value: a mutable struct goes by reference
    type::Cint
    index::Int32
end

struct SGDOptions
    struct_size::Csize_t
    lr::Cdouble
    momentum::Cdouble
    dampening::Cdouble
    weight_decay::Cdouble
    nesterov::Int32
    maximize::Int32
end

struct SwappedSGDOptions     # wrong: the flags come before weight_decay
    struct_size::Csize_t
    lr::Cdouble
    momentum::Cdouble
    dampening::Cdouble
    nesterov::Int32
    maximize::Int32
    weight_decay::Cdouble
end

struct ShortAdamOptions      # wrong: betas is double[2] in C, one Float64 here
    struct_size::Csize_t
    lr::Cdouble
    betas::Cdouble
    eps::Cdouble
    weight_decay::Cdouble
    amsgrad::Int32
    maximize::Int32
end

struct ModuleDef
    struct_size::Csize_t
    forward::P
    extra_repr::P
    get_extra_state::P
    set_extra_state::P
    user_data::P
    free_user_data::P
end

# ---- right: none of these may be reported ------------------------------------------------

ok_numel(t, n) = ccall((:glia_tensor_numel, LIB), P, (P, Ref{Int64}), t, n)
ok_version() = @ccall LIB.glia_version()::UInt32
ok_to(t, d, out) = ccall((:glia_tensor_to, LIB), P, (P, Ref{Device}, Ptr{Cint}, Ref{P}), t, d, C_NULL, out)
ok_to_empty(m, d) = ccall((:glia_module_to_empty, LIB), P, (P, Device), m, d)
ok_sgd(ps, n, o, out) = ccall((:glia_optim_sgd, LIB), P, (Ptr{P}, Int64, Ref{SGDOptions}, Ref{P}), ps, n, o, out)
ok_zeros(s, n, out) = @g glia_tensor_zeros P (Ptr{Int64}, Int64, P, Ref{P}) s n C_NULL out
ok_name(e) = unsafe_string(@ccall LIB.glia_error_message(e::P)::Cstring)
ok_keys(ks, ms, n, out) = ccall((:glia_nn_module_dict, LIB), P, (Ptr{Cstring}, Ptr{P}, Int64, Ref{P}), ks, ms, n, out)
ok_multi(t, buf, cap, len) = ccall(
    (:glia_tensor_to_string, LIB),
    P,
    (P, Ptr{UInt8},
     Csize_t, Ref{Csize_t}),
    t, buf, cap, len)
for (jl, c) in ((:ok_relu, :glia_relu), (:ok_neg, :glia_neg))
    @eval $jl(a, out) = @g $c P (P, Ref{P}) a out
end

hook(ud::P, g::P, out::Ptr{P})::P = C_NULL
free_ud(ud::P)::Cvoid = nothing
const HOOK = @cfunction(hook, P, (P, P, Ptr{P}))
const FREE = Ref{P}(C_NULL)
FREE[] = @cfunction(free_ud, Cvoid, (P,))
ok_hook(t, ud, id) = ccall((:glia_tensor_register_hook, LIB), P, (P, P, P, P, Ref{UInt64}), t, HOOK, ud, FREE[], id)
forward(ud::P, self::P, ins::Ptr{P}, n::Int64, outs::Ptr{P}, cap::Int64, n_out::Ptr{Int64})::P = C_NULL
const FORWARD = @cfunction(forward, P, (P, P, Ptr{P}, Int64, Ptr{P}, Int64, Ptr{Int64}))
ok_module(name, out) = ccall((:glia_module_create, LIB), P, (Cstring, Ref{ModuleDef}, Ref{P}),
                             name, ModuleDef(56, FORWARD, C_NULL, C_NULL, C_NULL, C_NULL, FREE[]), out)

# ---- wrong ----------------------------------------------------------------------------------

bad_count(s, n, out) = ccall((:glia_tensor_zeros, LIB), P, (Ptr{Int64}, Int64, Ref{P}), s, n, out)  # EXPECT: glia_tensor_zeros | count | 3 argument types for 4 C parameters
bad_int32(t, d, out) = ccall((:glia_softmax, LIB), P, (P, Int32, Ref{P}), t, d, out)  # EXPECT: glia_softmax | argument 2 | C is a signed 64-bit integer, Julia a signed 32-bit integer
bad_unsigned(t, d, out) = @g glia_softmax P (P, UInt64, Ref{P}) t d out  # EXPECT: glia_softmax | argument 2 | Julia a unsigned 64-bit integer
bad_unknown(t) = ccall((:glia_tensor_frobnicate, LIB), P, (P,), t)  # EXPECT: glia_tensor_frobnicate | - | not declared in glia.h
bad_order(ps, n, o, out) = ccall((:glia_optim_sgd, LIB), P, (Ptr{P}, Int64, Ref{SwappedSGDOptions}, Ref{P}), ps, n, o, out)  # EXPECT: glia_optim_sgd | argument 3 | C field weight_decay is double at offset 32 (8 bytes), Julia field nesterov is Int32 at offset 32 (4 bytes)
bad_short(o) = ccall((:glia_adam_options_init, LIB), Cvoid, (Ref{ShortAdamOptions},), o)  # EXPECT: glia_adam_options_init | argument 1 | C field betas is double[2] at offset 16 (16 bytes), Julia field betas is Cdouble at offset 16 (8 bytes)
bad_by_value(m, d) = ccall((:glia_module_to_empty, LIB), P, (P, WideDevice), m, d)  # EXPECT: glia_module_to_empty | argument 2 | layout differs
bad_mutable(m, d) = ccall((:glia_module_to_empty, LIB), P, (P, MutableDevice), m, d)  # EXPECT: glia_module_to_empty | argument 2 | a mutable struct is passed by reference
bad_ret() = ccall(  # EXPECT: glia_version | return value | C is a unsigned 32-bit integer, Julia a signed 64-bit integer
    (:glia_version, LIB),
    Int64,
    ())
bad_multi(t, buf, cap, len) = ccall(  # EXPECT: glia_tensor_to_string | argument 4 | points to size_t (a unsigned 64-bit integer), Julia's pointee is a signed 32-bit integer
    (:glia_tensor_to_string, LIB),
    P,
    (P, Ptr{UInt8},
     Csize_t, Ref{Int32}),
    t, buf, cap, len)
bad_cstring(t, buf, cap, len) = ccall((:glia_tensor_to_string, LIB), P, (P, Cstring, Csize_t, Ref{Csize_t}), t, buf, cap, len)  # EXPECT: glia_tensor_to_string | argument 2 | C writes into this char buffer
bad_hidden(t, n) = ccall((:glia_tensor_ndim, LIB), P, (P, P), t, n)  # EXPECT: glia_tensor_ndim | argument 2 | Ptr{Cvoid} hides the C pointee type int64_t
bad_inline(v) = ccall((:glia_scalar_float, LIB), Cvoid, (Cdouble,), v)  # EXPECT: glia_scalar_float | - | static inline
bad_enum(d) = @ccall LIB.glia_dtype_size(d::Int64)::Csize_t  # EXPECT: glia_dtype_size | argument 1 | C is a signed 32-bit integer, Julia a signed 64-bit integer
bad_bool(on) = ccall((:glia_grad_mode_set, LIB), Cvoid, (Bool,), on)  # EXPECT: glia_grad_mode_set | argument 1 | Julia a bool of 1 byte
bad_ref_ret() = ccall((:glia_version_string, LIB), Ref{UInt8}, ())  # EXPECT: glia_version_string | return value | Ref is not a valid return type
bad_handle(t) = ccall((:glia_tensor_retain, LIB), P, (Ptr{Int64},), t)  # EXPECT: glia_tensor_retain | argument 1 | opaque handle
bad_values(t) = ccall((:glia_tensor_retain, LIB), P, (P,), t, t)  # EXPECT: glia_tensor_retain | count | 2 values passed for 1 argument types
bad_out(t, out) = ccall((:glia_tensor_grad, LIB), P, (P, Ref{Int64}), t, out)  # EXPECT: glia_tensor_grad | argument 2 | points to a pointer
for (jl, c) in ((:ok_sigmoid, :glia_sigmoid), (:bad_loop, :glia_bogus))
    @eval $jl(a, out) = @g $c P (P, Ref{P}) a out  # EXPECT: glia_bogus | - | not declared in glia.h
end

bad_hook_fn(ud::P, g::P)::P = C_NULL
const BAD_HOOK = @cfunction(bad_hook_fn, P, (P, P))  # EXPECT: @cfunction(bad_hook_fn) | count | 2 argument types for 3 C parameters
bad_hook(t, ud, id) = ccall((:glia_tensor_register_hook, LIB), P, (P, P, P, P, Ref{UInt64}), t, BAD_HOOK, ud, FREE[], id)
bad_forward_fn(ud::P, self::P, ins::Ptr{P}, n::Int32, outs::Ptr{P}, cap::Int64, n_out::Ptr{Int64})::P = C_NULL
const BAD_FORWARD = @cfunction(bad_forward_fn, P, (P, P, Ptr{P}, Int32, Ptr{P}, Int64, Ptr{Int64}))  # EXPECT: @cfunction(bad_forward_fn) | argument 4 | C is a signed 64-bit integer, Julia a signed 32-bit integer
bad_module(name, out) = ccall((:glia_module_create, LIB), P, (Cstring, Ref{ModuleDef}, Ref{P}),
                              name, ModuleDef(56, BAD_FORWARD, C_NULL, C_NULL, C_NULL, C_NULL, FREE[]), out)

end # module
