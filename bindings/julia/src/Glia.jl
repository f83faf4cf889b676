"""
    Glia

Julia binding of libglia (an embeddable neural-network engine with PyTorch's torch.nn
semantics) over its C API, `include/glia/glia.h`.

- Library: `ENV["GLIA_LIBRARY"]` (a path or a name), else `"libglia"` from the loader's path;
  read when the module is loaded (`__init__`).
- Ownership: `Tensor`, `NNModule`, `Optimizer` and `TensorDict` own one glia handle each; a
  finalizer releases it, `release!(x)` releases it now (idempotent). Using a released object
  throws `GliaError(GLIA_ERR_INVALID_HANDLE, ...)`.
- Layout: a `Tensor` has torch's (row-major) shape; `Tensor(a::Array)` and `Array(t)` keep
  the logical indices (`Array(Tensor(a)) == a`, `t[i, j]` in torch is `a[i+1, j+1]`), copying
  through a permuted view. Dimension arguments (`dims`, `dim`) are torch's: 0-based, negative
  from the end.
- Errors: glia's errors are thrown as `GliaError(code, message)`.
"""
module Glia

using Base.Libc.Libdl: dlopen, dlsym

export Tensor, NNModule, Optimizer, TensorDict, GliaError, ErrorCode
export item, release!, grad, backward!, requires_grad!, requires_grad, no_grad, manual_seed
export relu, sigmoid, softmax, log_softmax, mean, matmul, mse_loss, cross_entropy
export Linear, ReLU, Tanh, Sigmoid, Sequential, Flatten, Conv2d, MaxPool2d, CrossEntropyLoss, MSELoss
export register_parameter!, parameter, parameters, state_dict, load_state_dict!, save, load!
export register_hook!, SGD, Adam, step!, zero_grad!, load_tensor_dict, train!, eval!

# ---------------------------------------------------------------------------------------
# Library and symbols: `@g name Ret (ArgTypes...) args...` is a ccall through a function
# pointer resolved once in __init__ (a ccall library must otherwise be a constant).

const _NAMES = Symbol[]                     # every symbol used, collected at macro expansion
const _PTRS = Dict{Symbol,Ptr{Cvoid}}()     # filled by __init__, read-only afterwards

macro g(name, ret, types, args...)
    name isa Symbol || error("@g: the C function name must be a symbol")
    name in _NAMES || push!(_NAMES, name)
    return :(ccall(_PTRS[$(QuoteNode(name))], $(esc(ret)), $(esc(types)), $(map(esc, args)...)))
end

const P = Ptr{Cvoid}  # any glia handle or error

# ---------------------------------------------------------------------------------------
# Errors

@enum ErrorCode::Int32 begin
    GLIA_OK = 0
    GLIA_ERR_INVALID_ARGUMENT = 1
    GLIA_ERR_INVALID_HANDLE = 2
    GLIA_ERR_SHAPE = 3
    GLIA_ERR_DTYPE = 4
    GLIA_ERR_DEVICE = 5
    GLIA_ERR_OUT_OF_MEMORY = 6
    GLIA_ERR_IO = 7
    GLIA_ERR_FORMAT = 8
    GLIA_ERR_NOT_FOUND = 9
    GLIA_ERR_STATE = 10
    GLIA_ERR_CALLBACK = 11
    GLIA_ERR_UNSUPPORTED = 12
    GLIA_ERR_INTERNAL = 13
end
for c in instances(ErrorCode)
    @eval export $(Symbol(c))
end

"""An error returned by glia: its code and message."""
struct GliaError <: Exception
    code::ErrorCode
    message::String
end
Base.showerror(io::IO, e::GliaError) = print(io, "GliaError(", e.code, "): ", e.message)

"""Throws the glia_error `e` (freeing it) unless it is NULL."""
function check(e::P)
    e == C_NULL && return nothing
    code = @g glia_error_code Cint (P,) e
    msg = unsafe_string(@g glia_error_message Cstring (P,) e)
    @g glia_error_free Cvoid (P,) e
    throw(GliaError(ErrorCode(code), msg))
end

_released(kind) = throw(GliaError(GLIA_ERR_INVALID_HANDLE, "Glia.jl: $kind used after release!"))

# ---------------------------------------------------------------------------------------
# Tensors

const _DTYPE_OF = Dict{DataType,Cint}(Float32 => 0, Float64 => 1, Float16 => 2, Int64 => 4, Int32 => 5,
                                      UInt8 => 6, Bool => 7, Int8 => 8, Int16 => 9)
const _TYPE_OF = Dict{Cint,DataType}(v => k for (k, v) in _DTYPE_OF)

"""A reference to a glia tensor. Finalized by the GC; `release!(t)` frees it now."""
mutable struct Tensor
    h::P
    function Tensor(h::P)
        t = new(h)
        finalizer(_free!, t)
        return t
    end
end

function _free!(t::Tensor)
    h = t.h
    t.h = C_NULL
    if h != C_NULL
        e = @g glia_tensor_release P (P,) h
        e == C_NULL || @g glia_error_free Cvoid (P,) e
    end
    return nothing
end

"""Releases the handle now (idempotent). Modules, dicts and optimizers keep their own references."""
release!(t::Tensor) = _free!(t)
release!(::Nothing) = nothing

handle(t::Tensor) = t.h == C_NULL ? _released("Tensor") : t.h

"""Runs `f(out::Ref{P})`, a glia call writing one new tensor, and wraps the result."""
function _out_tensor(f)
    out = Ref{P}(C_NULL)
    check(f(out))
    return Tensor(out[])
end

"""Borrowed handle -> a Tensor with its own reference (NULL -> nothing)."""
function _borrow_tensor(h::P)
    h == C_NULL && return nothing
    check(@g glia_tensor_retain P (P,) h)
    return Tensor(h)
end

_shape_ptr(s::Vector{Int64}) = isempty(s) ? Ptr{Int64}(C_NULL) : pointer(s)

function _factory(kind::Symbol, dims::Tuple)
    shape = Int64[dims...]
    GC.@preserve shape begin
        if kind === :zeros
            _out_tensor(out -> @g glia_tensor_zeros P (Ptr{Int64}, Int64, P, Ref{P}) _shape_ptr(shape) length(shape) C_NULL out)
        elseif kind === :ones
            _out_tensor(out -> @g glia_tensor_ones P (Ptr{Int64}, Int64, P, Ref{P}) _shape_ptr(shape) length(shape) C_NULL out)
        elseif kind === :rand
            _out_tensor(out -> @g glia_tensor_rand P (Ptr{Int64}, Int64, P, Ref{P}) _shape_ptr(shape) length(shape) C_NULL out)
        else
            _out_tensor(out -> @g glia_tensor_randn P (Ptr{Int64}, Int64, P, Ref{P}) _shape_ptr(shape) length(shape) C_NULL out)
        end
    end
end

"""`Glia.zeros(2, 3)`: a float32 tensor of torch shape [2, 3] (also `Glia.ones`, `Glia.rand`,
`Glia.randn`; not exported, so that Base's stay what they are)."""
zeros(dims::Integer...) = _factory(:zeros, dims)
ones(dims::Integer...) = _factory(:ones, dims)
rand(dims::Integer...) = _factory(:rand, dims)
randn(dims::Integer...) = _factory(:randn, dims)

"""
    Tensor(a::AbstractArray)

A new tensor holding a copy of `a`, with shape `size(a)` and the same logical indices. Julia
stores arrays column-major and glia row-major: the column-major bytes of `a` are the row-major
bytes of the reversed shape, so they are copied as that and the dimensions permuted back.
"""
function Tensor(a::AbstractArray{T,N}) where {T,N}
    haskey(_DTYPE_OF, T) || throw(ArgumentError("Glia.jl: no glia dtype for $T"))
    data = Array{T,N}(a)
    rshape = Int64[reverse(size(data))...]
    raw = GC.@preserve data rshape _out_tensor(out -> @g glia_tensor_from_data P (P, Csize_t, Ptr{Int64}, Int64, Cint, Ref{P}) pointer(data) sizeof(data) _shape_ptr(rshape) N _DTYPE_OF[T] out)
    N <= 1 && return raw
    v = permutedims(raw, collect(Int64, N-1:-1:0))
    release!(raw)
    c = contiguous(v)
    release!(v)
    return c
end

"""A 0-dim tensor holding `x` (Float32 for floats)."""
Tensor(x::Real) = Tensor(fill(x isa AbstractFloat ? Float32(x) : x))

function Base.ndims(t::Tensor)
    n = Ref{Int64}(0)
    GC.@preserve t check(@g glia_tensor_ndim P (P, Ref{Int64}) handle(t) n)
    return Int(n[])
end

function Base.size(t::Tensor)
    n = ndims(t)
    shape = Vector{Int64}(undef, n)
    GC.@preserve t shape check(@g glia_tensor_shape P (P, Int64, Ptr{Int64}) handle(t) n _shape_ptr(shape))
    return Tuple(Int.(shape))
end
Base.size(t::Tensor, d::Integer) = size(t)[d]

function Base.length(t::Tensor)
    n = Ref{Int64}(0)
    GC.@preserve t check(@g glia_tensor_numel P (P, Ref{Int64}) handle(t) n)
    return Int(n[])
end

function Base.eltype(t::Tensor)
    d = Ref{Cint}(0)
    GC.@preserve t check(@g glia_tensor_dtype P (P, Ref{Cint}) handle(t) d)
    haskey(_TYPE_OF, d[]) || throw(ArgumentError("Glia.jl: no Julia type for glia dtype $(d[]) (bfloat16)"))
    return _TYPE_OF[d[]]
end

"""
    Array(t::Tensor)

A copy with shape `size(t)` and the same logical indices. glia copies the elements in
row-major order of the view permuted to the reversed shape, which is the column-major order
of `size(t)`.
"""
function Base.Array(t::Tensor)
    T = eltype(t)
    shp = size(t)
    N = length(shp)
    out = Array{T,N}(undef, shp...)
    src = N <= 1 ? t : permutedims(t, collect(Int64, N-1:-1:0))
    GC.@preserve src out check(@g glia_tensor_copy_to_host P (P, P, Csize_t) handle(src) pointer(out) sizeof(out))
    src === t || release!(src)
    return out
end

"""The single element (torch's .item()), as a Float64."""
function item(t::Tensor)
    v = Ref{Cdouble}(0)
    GC.@preserve t check(@g glia_tensor_item_double P (P, Ref{Cdouble}) handle(t) v)
    return v[]
end

function Base.show(io::IO, t::Tensor)
    if t.h == C_NULL
        print(io, "Tensor(<released>)")
        return
    end
    h = t.h
    GC.@preserve t print(io, _read_string((buf, cap, len) -> @g glia_tensor_to_string P (P, Ptr{UInt8}, Csize_t, Ref{Csize_t}) h buf cap len))
end

"""Calls an snprintf-style glia function twice: to size, then to fill."""
function _read_string(f)
    len = Ref{Csize_t}(0)
    check(f(Ptr{UInt8}(C_NULL), Csize_t(0), len))
    buf = Vector{UInt8}(undef, len[] + 1)
    GC.@preserve buf check(f(pointer(buf), Csize_t(length(buf)), len))
    return String(buf[1:len[]])
end

# ---- operators ------------------------------------------------------------------------

for (jl, c) in ((:neg, :glia_neg), (:relu, :glia_relu), (:sigmoid, :glia_sigmoid), (:_tanh, :glia_tanh),
                (:_exp, :glia_exp), (:_log, :glia_log), (:_abs, :glia_abs), (:_sqrt, :glia_sqrt),
                (:contiguous, :glia_tensor_contiguous), (:detach, :glia_tensor_detach),
                (:_clone, :glia_tensor_clone))
    @eval $jl(a::Tensor) = GC.@preserve a _out_tensor(out -> @g $c P (P, Ref{P}) handle(a) out)
end
Base.tanh(a::Tensor) = _tanh(a)
Base.exp(a::Tensor) = _exp(a)
Base.log(a::Tensor) = _log(a)
Base.abs(a::Tensor) = _abs(a)
Base.sqrt(a::Tensor) = _sqrt(a)
Base.copy(a::Tensor) = _clone(a)

for (jl, c) in ((:mul, :glia_mul), (:matmul, :glia_matmul), (:maximum_, :glia_maximum))
    @eval $jl(a::Tensor, b::Tensor) = GC.@preserve a b _out_tensor(out -> @g $c P (P, P, Ref{P}) handle(a) handle(b) out)
end
add(a::Tensor, b::Tensor; alpha::Real=1) =
    GC.@preserve a b _out_tensor(out -> @g glia_add P (P, P, Cdouble, Ref{P}) handle(a) handle(b) alpha out)
sub(a::Tensor, b::Tensor; alpha::Real=1) =
    GC.@preserve a b _out_tensor(out -> @g glia_sub P (P, P, Cdouble, Ref{P}) handle(a) handle(b) alpha out)
divide(a::Tensor, b::Tensor) =
    GC.@preserve a b _out_tensor(out -> @g glia_div P (P, P, Ptr{UInt8}, Ref{P}) handle(a) handle(b) C_NULL out)

# glia_scalar, passed by value: {int type; int32 reserved; double f; int64 i}.
struct GliaScalar
    kind::Cint
    reserved::Int32
    f::Cdouble
    i::Int64
end
_scalar(x::AbstractFloat) = GliaScalar(0, 0, x, 0)
_scalar(x::Bool) = GliaScalar(2, 0, 0, x)
_scalar(x::Integer) = GliaScalar(1, 0, 0, x)

add_scalar(a::Tensor, s::Real) =
    GC.@preserve a _out_tensor(out -> @g glia_add_scalar P (P, GliaScalar, Cdouble, Ref{P}) handle(a) _scalar(s) 1.0 out)
mul_scalar(a::Tensor, s::Real) =
    GC.@preserve a _out_tensor(out -> @g glia_mul_scalar P (P, GliaScalar, Ref{P}) handle(a) _scalar(s) out)
div_scalar(a::Tensor, s::Real) =
    GC.@preserve a _out_tensor(out -> @g glia_div_scalar P (P, GliaScalar, Ptr{UInt8}, Ref{P}) handle(a) _scalar(s) C_NULL out)
pow_scalar(a::Tensor, s::Real) =
    GC.@preserve a _out_tensor(out -> @g glia_pow_scalar P (P, GliaScalar, Ref{P}) handle(a) _scalar(s) out)

# Julia's operators: + - on tensors (torch's broadcasting), * is the matrix product (as for
# Julia matrices), .* ./ .+ .- .^ are elementwise (evaluated eagerly, one glia op each).
Base.:+(a::Tensor, b::Tensor) = add(a, b)
Base.:-(a::Tensor, b::Tensor) = sub(a, b)
Base.:-(a::Tensor) = neg(a)
Base.:*(a::Tensor, b::Tensor) = matmul(a, b)
Base.:+(a::Tensor, s::Real) = add_scalar(a, s)
Base.:+(s::Real, a::Tensor) = add_scalar(a, s)
Base.:-(a::Tensor, s::Real) = add_scalar(a, -s)
Base.:-(s::Real, a::Tensor) = add_scalar(neg(a), s)
Base.:*(a::Tensor, s::Real) = mul_scalar(a, s)
Base.:*(s::Real, a::Tensor) = mul_scalar(a, s)
Base.:/(a::Tensor, s::Real) = div_scalar(a, s)
Base.:^(a::Tensor, s::Real) = pow_scalar(a, s)
Base.broadcasted(::typeof(+), a::Tensor, b::Tensor) = add(a, b)
Base.broadcasted(::typeof(-), a::Tensor, b::Tensor) = sub(a, b)
Base.broadcasted(::typeof(*), a::Tensor, b::Tensor) = mul(a, b)
Base.broadcasted(::typeof(/), a::Tensor, b::Tensor) = divide(a, b)
Base.broadcasted(::typeof(+), a::Tensor, s::Real) = add_scalar(a, s)
Base.broadcasted(::typeof(-), a::Tensor, s::Real) = add_scalar(a, -s)
Base.broadcasted(::typeof(*), a::Tensor, s::Real) = mul_scalar(a, s)
Base.broadcasted(::typeof(*), s::Real, a::Tensor) = mul_scalar(a, s)
Base.broadcasted(::typeof(/), a::Tensor, s::Real) = div_scalar(a, s)
Base.broadcasted(::typeof(Base.literal_pow), ::typeof(^), a::Tensor, ::Val{n}) where {n} = pow_scalar(a, n)
Base.broadcasted(f::Union{typeof(exp),typeof(log),typeof(tanh),typeof(abs),typeof(sqrt),typeof(relu),typeof(sigmoid)}, a::Tensor) = f(a)

function _reduce(kind::Symbol, a::Tensor, dims, keepdim::Bool)
    d = dims === nothing ? Int64[] : Int64[dims...]
    GC.@preserve a d begin
        if kind === :sum
            _out_tensor(out -> @g glia_sum P (P, Ptr{Int64}, Int64, Int32, Ref{P}) handle(a) _shape_ptr(d) length(d) keepdim out)
        else
            _out_tensor(out -> @g glia_mean P (P, Ptr{Int64}, Int64, Int32, Ref{P}) handle(a) _shape_ptr(d) length(d) keepdim out)
        end
    end
end
"""`sum(t)`: a 0-dim tensor; `sum(t; dims=(0,), keepdim=false)` over torch's (0-based) dims."""
Base.sum(a::Tensor; dims=nothing, keepdim::Bool=false) = _reduce(:sum, a, dims, keepdim)
"""`mean(t; dims=nothing, keepdim=false)`, as `sum`."""
mean(a::Tensor; dims=nothing, keepdim::Bool=false) = _reduce(:mean, a, dims, keepdim)

softmax(a::Tensor, dim::Integer) =
    GC.@preserve a _out_tensor(out -> @g glia_softmax P (P, Int64, Ref{P}) handle(a) dim out)
log_softmax(a::Tensor, dim::Integer) =
    GC.@preserve a _out_tensor(out -> @g glia_log_softmax P (P, Int64, Ref{P}) handle(a) dim out)

"""`reshape(t, dims...)` with torch's shape (one entry may be -1)."""
function Base.reshape(a::Tensor, dims::Integer...)
    s = Int64[dims...]
    GC.@preserve a s _out_tensor(out -> @g glia_reshape P (P, Ptr{Int64}, Int64, Ref{P}) handle(a) _shape_ptr(s) length(s) out)
end

"""`permutedims(t, perm)` with torch's 0-based dims: a view."""
function Base.permutedims(a::Tensor, perm::AbstractVector{<:Integer})
    p = Int64[perm...]
    GC.@preserve a p _out_tensor(out -> @g glia_permute P (P, Ptr{Int64}, Int64, Ref{P}) handle(a) _shape_ptr(p) length(p) out)
end

"""torch.nn.functional.mse_loss(input, target) (mean)."""
mse_loss(a::Tensor, b::Tensor) =
    GC.@preserve a b _out_tensor(out -> @g glia_mse_loss P (P, P, Cint, Ref{P}) handle(a) handle(b) 1 out)
"""torch.nn.functional.cross_entropy(input, target) (int64 class indices, 0-based)."""
cross_entropy(a::Tensor, b::Tensor) =
    GC.@preserve a b _out_tensor(out -> @g glia_cross_entropy P (P, P, P, Ref{P}) handle(a) handle(b) C_NULL out)

# ---- autograd -------------------------------------------------------------------------

"""Whether gradients are recorded for `t`."""
function requires_grad(t::Tensor)
    v = Ref{Int32}(0)
    GC.@preserve t check(@g glia_tensor_requires_grad P (P, Ref{Int32}) handle(t) v)
    return v[] != 0
end

"""torch's requires_grad_(flag); returns `t`."""
function requires_grad!(t::Tensor, flag::Bool=true)
    GC.@preserve t check(@g glia_tensor_set_requires_grad P (P, Int32) handle(t) flag)
    return t
end

"""The accumulated gradient (.grad), or `nothing`."""
function grad(t::Tensor)
    out = Ref{P}(C_NULL)
    GC.@preserve t check(@g glia_tensor_grad P (P, Ref{P}) handle(t) out)
    return out[] == C_NULL ? nothing : Tensor(out[])
end

"""`backward!(loss)`: torch's loss.backward(); `gradient` for a non-scalar root."""
function backward!(t::Tensor; gradient::Union{Tensor,Nothing}=nothing, retain_graph::Bool=false)
    g = gradient === nothing ? C_NULL : handle(gradient)
    GC.@preserve t gradient check(@g glia_tensor_backward P (P, P, Int32) handle(t) g retain_graph)
    return nothing
end

"""
    no_grad(f)

Runs `f()` with glia's grad mode off (torch.no_grad). glia's grad mode belongs to the OS
thread and Julia may move a task to another thread when it yields, so `f` must not yield
(no I/O, `sleep`, `wait`, `@sync`).
"""
function no_grad(f)
    prev = @g glia_grad_mode_enabled Int32 ()
    @g glia_grad_mode_set Cvoid (Int32,) 0
    try
        return f()
    finally
        @g glia_grad_mode_set Cvoid (Int32,) prev
    end
end

"""Seeds glia's generators (one per OS thread)."""
manual_seed(seed::Integer) = @g glia_manual_seed Cvoid (UInt64,) seed

# ---------------------------------------------------------------------------------------
# Callbacks: a Julia function is pinned in _CALLBACKS under an id; the id is the C
# user_data; glia calls free_user_data (_free_tramp) exactly once, which unpins it.

const _CALLBACKS = Dict{UInt,Any}()
const _CB_LOCK = Threads.SpinLock()   # no task switch: usable from finalizers
const _NEXT_ID = Ref{UInt}(0)
const _FORWARD_CB = Ref{P}(C_NULL)
const _TENSOR_HOOK_CB = Ref{P}(C_NULL)
const _FREE_CB = Ref{P}(C_NULL)

function _pin(f)
    lock(_CB_LOCK)
    try
        _NEXT_ID[] += 1
        _CALLBACKS[_NEXT_ID[]] = f
        return _NEXT_ID[]
    finally
        unlock(_CB_LOCK)
    end
end

function _pinned(ud::P)
    lock(_CB_LOCK)
    try
        return _CALLBACKS[UInt(ud)]
    finally
        unlock(_CB_LOCK)
    end
end

function _free_tramp(ud::P)::Cvoid
    lock(_CB_LOCK)
    try
        delete!(_CALLBACKS, UInt(ud))
    finally
        unlock(_CB_LOCK)
    end
    return nothing
end

"""The number of Julia callbacks glia holds (for tests)."""
function live_callbacks()
    lock(_CB_LOCK)
    try
        return length(_CALLBACKS)
    finally
        unlock(_CB_LOCK)
    end
end

"""A glia_error for a failed callback; glia turns it into GLIA_ERR_CALLBACK with its message."""
function _callback_error(e)::P
    msg = replace(sprint(showerror, e), '\0' => ' ')
    code = e isa GliaError && e.code != GLIA_OK ? Int32(e.code) : Int32(GLIA_ERR_CALLBACK)
    return @g glia_error_new P (Cint, Cstring) code msg
end

"""Writes a new reference to each tensor into `dst` (capacity `cap`); all or nothing."""
function _write_tensors(ts::Vector, dst::Ptr{P}, cap::Integer)
    length(ts) <= cap || error("Glia.jl: a callback returned $(length(ts)) tensors, at most $cap allowed")
    written = P[]
    try
        for (i, t) in enumerate(ts)
            h = t === nothing ? C_NULL : handle(t)
            h == C_NULL || check(@g glia_tensor_retain P (P,) h)
            push!(written, h)
            unsafe_store!(dst, h, i)
        end
    catch
        for h in written
            h == C_NULL || @g glia_error_free Cvoid (P,) (@g glia_tensor_release P (P,) h)
        end
        rethrow()
    end
    return length(ts)
end

function _forward_tramp(ud::P, self::P, inputs::Ptr{P}, n_in::Int64, outputs::Ptr{P}, cap::Int64,
                        n_out::Ptr{Int64})::P
    try
        f = _pinned(ud)
        check(@g glia_module_retain P (P,) self)
        m = NNModule(self)
        ins = Union{Tensor,Nothing}[_borrow_tensor(unsafe_load(inputs, i)) for i in 1:n_in]
        try
            r = f(m, ins)
            outs = r isa Tensor ? Any[r] : collect(Any, r)
            n = _write_tensors(outs, outputs, cap)
            unsafe_store!(n_out, n)
        finally
            release!(m)
            foreach(release!, ins)
        end
        return C_NULL
    catch e
        return _callback_error(e)
    end
end

function _tensor_hook_tramp(ud::P, g::P, out_replacement::Ptr{P})::P
    try
        f = _pinned(ud)
        gt = _borrow_tensor(g)
        try
            r = f(gt)
            r === nothing || _write_tensors(Any[r], out_replacement, 1)
        finally
            release!(gt)
        end
        return C_NULL
    catch e
        return _callback_error(e)
    end
end

"""
    register_hook!(f, t::Tensor) -> id

torch's register_hook: `f(grad)` runs during backward with the gradient flowing into `t` and
returns `nothing` (keep it) or a replacement tensor.
"""
function register_hook!(f, t::Tensor)
    h = handle(t)
    id = _pin(f)  # glia unpins it (free_user_data), also when registration fails
    hid = Ref{UInt64}(0)
    GC.@preserve t check(@g glia_tensor_register_hook P (P, P, P, P, Ref{UInt64}) h _TENSOR_HOOK_CB[] Ptr{Cvoid}(id) _FREE_CB[] hid)
    return hid[]
end

# ---------------------------------------------------------------------------------------
# Modules (torch.nn.Module). Named NNModule: `Module` is Julia's own.

"""A reference to a glia module; calling it runs Module.__call__."""
mutable struct NNModule
    h::P
    function NNModule(h::P)
        m = new(h)
        finalizer(_free!, m)
        return m
    end
end

function _free!(m::NNModule)
    h = m.h
    m.h = C_NULL
    if h != C_NULL
        e = @g glia_module_release P (P,) h
        e == C_NULL || @g glia_error_free Cvoid (P,) e
    end
    return nothing
end
release!(m::NNModule) = _free!(m)
handle(m::NNModule) = m.h == C_NULL ? _released("NNModule") : m.h

function _out_module(f)
    out = Ref{P}(C_NULL)
    check(f(out))
    return NNModule(out[])
end

# glia_module_def: {size_t struct_size; forward; extra_repr; get_extra_state; set_extra_state;
# void *user_data; free_user_data}.
struct ModuleDef
    struct_size::Csize_t
    forward::P
    extra_repr::P
    get_extra_state::P
    set_extra_state::P
    user_data::P
    free_user_data::P
end

"""
    NNModule(forward, type_name)
    NNModule(type_name) do self, inputs ... end

A module whose forward is a Julia function `forward(self::NNModule, inputs::Vector)` returning
a Tensor or a collection of them. Register parameters with `register_parameter!` and reach
them through `self` (a closure that captures its own module keeps it alive forever: glia
pins the closure as long as the module lives). Inputs are released when forward returns. A
thrown exception fails the call with GLIA_ERR_CALLBACK carrying its text.
"""
function NNModule(forward::Function, type_name::AbstractString)
    id = _pin(forward)  # glia unpins it when the module dies or creation fails
    def = Ref(ModuleDef(sizeof(ModuleDef), _FORWARD_CB[], C_NULL, C_NULL, C_NULL, Ptr{Cvoid}(id), _FREE_CB[]))
    return _out_module(out -> @g glia_module_create P (Cstring, Ref{ModuleDef}, Ref{P}) type_name def out)
end

"""Module.__call__: one output is returned as a Tensor, several as a Vector."""
function (m::NNModule)(xs::Union{Tensor,Nothing}...)
    hs = P[x === nothing ? C_NULL : handle(x) for x in xs]
    outs = fill(C_NULL, 64)  # GLIA_MODULE_MAX_OUTPUTS
    n = Ref{Int64}(0)
    GC.@preserve m xs check(@g glia_module_forward P (P, Ptr{P}, Int64, Ptr{P}, Int64, Ref{Int64}) handle(m) hs length(hs) outs 64 n)
    res = Union{Tensor,Nothing}[h == C_NULL ? nothing : Tensor(h) for h in outs[1:n[]]]
    return length(res) == 1 ? res[1] : res
end

"""register_parameter: the module keeps `t` itself (a floating tensor is made to require grad)."""
function register_parameter!(m::NNModule, name::AbstractString, t::Tensor)
    GC.@preserve m t check(@g glia_module_register_parameter P (P, Cstring, P) handle(m) name handle(t))
    return m
end

"""The parameter at a dotted path ("0.weight")."""
parameter(m::NNModule, path::AbstractString) =
    GC.@preserve m _out_tensor(out -> @g glia_module_get_parameter P (P, Cstring, Ref{P}) handle(m) path out)

"""Every parameter, recursively, each once (new references)."""
function parameters(m::NNModule)
    d = TensorDict(GC.@preserve m _out_ref(out -> @g glia_module_named_parameters P (P, Ptr{UInt8}, Int32, Int32, Ref{P}) handle(m) C_NULL 1 1 out))
    try
        return [d[k] for k in keys(d)]
    finally
        release!(d)
    end
end

function _out_ref(f)
    out = Ref{P}(C_NULL)
    check(f(out))
    return out[]
end

"""train(mode) / eval(), recursive."""
function train!(m::NNModule, mode::Bool=true)
    GC.@preserve m check(@g glia_module_train P (P, Int32) handle(m) mode)
    return m
end
eval!(m::NNModule) = train!(m, false)

function Base.show(io::IO, m::NNModule)
    if m.h == C_NULL
        print(io, "NNModule(<released>)")
        return
    end
    h = m.h
    GC.@preserve m print(io, _read_string((buf, cap, len) -> @g glia_module_to_string P (P, Ptr{UInt8}, Csize_t, Ref{Csize_t}) h buf cap len))
end

"""state_dict(): detached tensors sharing the module's storage."""
state_dict(m::NNModule) = TensorDict(GC.@preserve m _out_ref(out -> @g glia_module_state_dict P (P, Ref{P}) handle(m) out))

"""load_state_dict(d, strict); all-or-nothing."""
function load_state_dict!(m::NNModule, d::TensorDict; strict::Bool=true)
    GC.@preserve m d check(@g glia_module_load_state_dict P (P, P, Int32, Int32, P) handle(m) handle(d) strict 0 C_NULL)
    return m
end

"""Saves the state dict as safetensors (atomically)."""
save(m::NNModule, path::AbstractString) = GC.@preserve m check(@g glia_module_save P (P, Cstring) handle(m) path)

"""Loads a checkpoint (safetensors or PyTorch, by content) into `m`; all-or-nothing."""
function load!(m::NNModule, path::AbstractString; strict::Bool=true)
    GC.@preserve m check(@g glia_module_load P (P, Cstring, Int32, P) handle(m) path strict C_NULL)
    return m
end

# ---- built-in layers ------------------------------------------------------------------

"""torch.nn.Linear(in_features, out_features; bias=true)."""
Linear(in_features::Integer, out_features::Integer; bias::Bool=true) =
    _out_module(o -> @g glia_nn_linear P (Int64, Int64, Int32, P, Ref{P}) in_features out_features bias C_NULL o)
ReLU() = _out_module(o -> @g glia_nn_relu P (P, Ref{P}) C_NULL o)
Tanh() = _out_module(o -> @g glia_nn_tanh P (P, Ref{P}) C_NULL o)
Sigmoid() = _out_module(o -> @g glia_nn_sigmoid P (P, Ref{P}) C_NULL o)
"""torch.nn.Flatten(start_dim, end_dim) (torch's dims; defaults 1, -1)."""
Flatten(start_dim::Integer=1, end_dim::Integer=-1) =
    _out_module(o -> @g glia_nn_flatten P (Int64, Int64, P, Ref{P}) start_dim end_dim C_NULL o)
CrossEntropyLoss() = _out_module(o -> @g glia_nn_cross_entropy_loss P (P, P, Ref{P}) C_NULL C_NULL o)
MSELoss() = _out_module(o -> @g glia_nn_mse_loss P (Cint, P, Ref{P}) 1 C_NULL o)

"""torch.nn.Sequential(mods...); it keeps its own references to the children."""
function Sequential(mods::NNModule...)
    hs = P[handle(m) for m in mods]
    GC.@preserve mods _out_module(o -> @g glia_nn_sequential P (Ptr{P}, Int64, Ref{P}) hs length(hs) o)
end

# glia_nn_conv2d_options: {size_t; int64 stride[2], padding[2], dilation[2]; int64 groups;
# int32 bias; int padding_kind; int padding_mode}.
struct Conv2dOptions
    struct_size::Csize_t
    stride::NTuple{2,Int64}
    padding::NTuple{2,Int64}
    dilation::NTuple{2,Int64}
    groups::Int64
    bias::Int32
    padding_kind::Cint
    padding_mode::Cint
end

"""torch.nn.Conv2d(in, out, kernel; stride=1, padding=0, bias=true) (square kernel)."""
function Conv2d(in_channels::Integer, out_channels::Integer, kernel::Integer; stride::Integer=1, padding::Integer=0, bias::Bool=true)
    o = Ref{Conv2dOptions}()
    @g glia_nn_conv2d_options_init Cvoid (Ref{Conv2dOptions},) o
    d = o[]
    o[] = Conv2dOptions(d.struct_size, (stride, stride), (padding, padding), d.dilation, d.groups, bias,
                        d.padding_kind, d.padding_mode)
    _out_module(r -> @g glia_nn_conv2d P (Int64, Int64, Int64, Int64, Ref{Conv2dOptions}, P, Ref{P}) in_channels out_channels kernel kernel o C_NULL r)
end

# glia_max_pool2d_options: {size_t; int64 kernel_size[2], stride[2], padding[2], dilation[2]; int32 ceil_mode}.
struct MaxPool2dOptions
    struct_size::Csize_t
    kernel_size::NTuple{2,Int64}
    stride::NTuple{2,Int64}
    padding::NTuple{2,Int64}
    dilation::NTuple{2,Int64}
    ceil_mode::Int32
end

"""torch.nn.MaxPool2d(kernel) (stride = kernel)."""
function MaxPool2d(kernel::Integer)
    o = Ref{MaxPool2dOptions}()
    @g glia_max_pool2d_options_init Cvoid (Ref{MaxPool2dOptions},) o
    d = o[]
    o[] = MaxPool2dOptions(d.struct_size, (kernel, kernel), d.stride, d.padding, d.dilation, d.ceil_mode)
    _out_module(r -> @g glia_nn_max_pool2d P (Ref{MaxPool2dOptions}, P, Ref{P}) o C_NULL r)
end

# ---------------------------------------------------------------------------------------
# Optimizers

"""A reference to a glia optimizer."""
mutable struct Optimizer
    h::P
    function Optimizer(h::P)
        o = new(h)
        finalizer(_free!, o)
        return o
    end
end
function _free!(o::Optimizer)
    h = o.h
    o.h = C_NULL
    if h != C_NULL
        e = @g glia_optimizer_release P (P,) h
        e == C_NULL || @g glia_error_free Cvoid (P,) e
    end
    return nothing
end
release!(o::Optimizer) = _free!(o)
handle(o::Optimizer) = o.h == C_NULL ? _released("Optimizer") : o.h

# glia_sgd_options: {size_t; double lr, momentum, dampening, weight_decay; int32 nesterov, maximize}.
struct SGDOptions
    struct_size::Csize_t
    lr::Cdouble
    momentum::Cdouble
    dampening::Cdouble
    weight_decay::Cdouble
    nesterov::Int32
    maximize::Int32
end

# glia_adam_options: {size_t; double lr; double betas[2]; double eps, weight_decay; int32 amsgrad, maximize}.
struct AdamOptions
    struct_size::Csize_t
    lr::Cdouble
    betas::NTuple{2,Cdouble}
    eps::Cdouble
    weight_decay::Cdouble
    amsgrad::Int32
    maximize::Int32
end

"""torch.optim.SGD(params; lr, momentum=0, weight_decay=0). The optimizer keeps its own references."""
function SGD(params::AbstractVector{Tensor}; lr::Real, momentum::Real=0, weight_decay::Real=0)
    o = Ref{SGDOptions}()
    @g glia_sgd_options_init Cvoid (Ref{SGDOptions},) o
    d = o[]
    o[] = SGDOptions(d.struct_size, lr, momentum, d.dampening, weight_decay, d.nesterov, d.maximize)
    hs = P[handle(p) for p in params]
    Optimizer(GC.@preserve params _out_ref(r -> @g glia_optim_sgd P (Ptr{P}, Int64, Ref{SGDOptions}, Ref{P}) hs length(hs) o r))
end

"""torch.optim.Adam(params; lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0)."""
function Adam(params::AbstractVector{Tensor}; lr::Real=1e-3, betas=(0.9, 0.999), eps::Real=1e-8, weight_decay::Real=0)
    o = Ref{AdamOptions}()
    @g glia_adam_options_init Cvoid (Ref{AdamOptions},) o
    d = o[]
    o[] = AdamOptions(d.struct_size, lr, (Float64(betas[1]), Float64(betas[2])), eps, weight_decay, d.amsgrad, d.maximize)
    hs = P[handle(p) for p in params]
    Optimizer(GC.@preserve params _out_ref(r -> @g glia_optim_adam P (Ptr{P}, Int64, Ref{AdamOptions}, Ref{P}) hs length(hs) o r))
end

"""One update of every parameter that has a grad."""
step!(o::Optimizer) = GC.@preserve o check(@g glia_optimizer_step P (P,) handle(o))
"""Clears every parameter's grad (set_to_none)."""
zero_grad!(o::Optimizer) = GC.@preserve o check(@g glia_optimizer_zero_grad P (P, Int32) handle(o) 1)

# ---------------------------------------------------------------------------------------
# Tensor dicts and checkpoints

"""An ordered name -> tensor map (state dicts, checkpoint files)."""
mutable struct TensorDict
    h::P
    function TensorDict(h::P)
        d = new(h)
        finalizer(_free!, d)
        return d
    end
end
function _free!(d::TensorDict)
    h = d.h
    d.h = C_NULL
    if h != C_NULL
        e = @g glia_tensor_dict_release P (P,) h
        e == C_NULL || @g glia_error_free Cvoid (P,) e
    end
    return nothing
end
release!(d::TensorDict) = _free!(d)
handle(d::TensorDict) = d.h == C_NULL ? _released("TensorDict") : d.h

"""An empty dict."""
TensorDict() = TensorDict(_out_ref(r -> @g glia_tensor_dict_create P (Ref{P},) r))

function Base.length(d::TensorDict)
    n = Ref{Int64}(0)
    GC.@preserve d check(@g glia_tensor_dict_size P (P, Ref{Int64}) handle(d) n)
    return Int(n[])
end

function Base.keys(d::TensorDict)
    h = handle(d)
    ks = GC.@preserve d [_read_string((buf, cap, len) -> @g glia_tensor_dict_key_at P (P, Int64, Ptr{UInt8}, Csize_t, Ref{Csize_t}) h (i - 1) buf cap len) for i in 1:length(d)]
    return ks
end

Base.getindex(d::TensorDict, key::AbstractString) =
    GC.@preserve d _out_tensor(r -> @g glia_tensor_dict_get P (P, Cstring, Ref{P}) handle(d) key r)

function Base.setindex!(d::TensorDict, t::Tensor, key::AbstractString)
    GC.@preserve d t check(@g glia_tensor_dict_set P (P, Cstring, P) handle(d) key handle(t))
    return d
end

const _FORMATS = Dict(:auto => 0, :safetensors => 1, :torch => 2)

"""Writes the dict (atomically): format :safetensors (default) or :torch (torch.save's zip)."""
save(d::TensorDict, path::AbstractString; format::Symbol=:safetensors) =
    GC.@preserve d check(@g glia_tensor_dict_save P (P, Cstring, Cint) handle(d) path _FORMATS[format])

"""Reads a checkpoint (safetensors or PyTorch; :auto picks by content)."""
load_tensor_dict(path::AbstractString; format::Symbol=:auto) =
    TensorDict(_out_ref(r -> @g glia_tensor_dict_load P (Cstring, Cint, Ref{P}) path _FORMATS[format] r))

# ---------------------------------------------------------------------------------------

function __init__()
    lib = dlopen(get(ENV, "GLIA_LIBRARY", "libglia"))
    empty!(_PTRS)
    for name in _NAMES
        _PTRS[name] = dlsym(lib, name)
    end
    _FORWARD_CB[] = @cfunction(_forward_tramp, P, (P, P, Ptr{P}, Int64, Ptr{P}, Int64, Ptr{Int64}))
    _TENSOR_HOOK_CB[] = @cfunction(_tensor_hook_tramp, P, (P, P, Ptr{P}))
    _FREE_CB[] = @cfunction(_free_tramp, Cvoid, (P,))
    return nothing
end

end # module
