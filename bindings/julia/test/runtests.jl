# Tests of the Julia binding, mirroring the Go and Python suites: tensors and the
# row-/column-major conversion, autograd against hand-computed gradients, a module defined
# in Julia, hooks, a training loop whose loss falls, save/load round trips, errors.
# Run: GLIA_LIBRARY=<build>/src/libglia.so julia --project=bindings/julia bindings/julia/test/runtests.jl
using Test
using Glia
using Glia: GLIA_ERR_SHAPE, GLIA_ERR_IO, GLIA_ERR_CALLBACK, GLIA_ERR_INVALID_HANDLE, GLIA_ERR_INVALID_ARGUMENT

function err_of(f)
    try
        f()
    catch e
        return e
    end
    return nothing
end

@testset "Glia" begin

@testset "tensors" begin
    a = Float32[1 2 3; 4 5 6]
    t = Tensor(a)
    @test size(t) == (2, 3)                 # torch's shape = Julia's size
    @test length(t) == 6
    @test eltype(t) == Float32
    @test Array(t) == a                     # logical indices survive both conversions
    @test Array(sum(t; dims=(1,))) == Float32[6, 15]  # torch dim 1: along each row
    @test Array(sum(t; dims=(0,))) == Float32[5, 7, 9]
    @test Glia.item(sum(t)) == 21
    @test Array(t * Tensor(Float32[1 0; 0 1; 1 1])) == Float32[4 5; 10 11]   # * is matmul
    @test Array(t .* t) == a .* a
    @test Array(t + Glia.ones(3)) == a .+ 1                                   # torch broadcasting
    @test Array(2 * t - 1) == 2 .* a .- 1
    @test Array(permutedims(t, [1, 0])) == permutedims(a, (2, 1))
    @test Array(reshape(t, 3, 2)) == Float32[1 2; 3 4; 5 6]                   # row-major reshape
    b = reshape(Float64.(1:24), 2, 3, 4)
    @test Array(Tensor(b)) == b                                               # 3-D round trip
    @test Array(Tensor(Int64[3, 1, 2])) == [3, 1, 2]
    @test sprint(show, Tensor(Float32[1, 2])) == "tensor([1., 2.])"
    s = Array(softmax(t, 1))
    @test vec(sum(s; dims=2)) ≈ [1, 1]
end

@testset "autograd" begin
    x = requires_grad!(Tensor(Float32[1, 2, 3]))
    y = sum(3 * (x .* x) + 2 * x)          # dy/dx = 6x + 2
    backward!(y)
    @test Array(grad(x)) == Float32[8, 14, 20]
    @test grad(Tensor(Float32[1])) === nothing
    z = no_grad(() -> x .* x)
    @test !requires_grad(z)
    @test requires_grad(x .* x)
end

function affine()
    m = NNModule("Affine") do self, inputs
        inputs[1] .* parameter(self, "w") + parameter(self, "b")
    end
    register_parameter!(m, "w", Tensor(Float32[2, 3]))
    register_parameter!(m, "b", Tensor(Float32[0.5, -1]))
    return m
end

@testset "custom module" begin
    m = affine()
    @test sprint(show, m) == "Affine()"
    x = Tensor(Float32[1 2; 3 4])
    y = m(x)
    @test Array(y) == Float32[2.5 5; 6.5 11]
    backward!(sum(y))
    @test Array(grad(parameter(m, "w"))) == Float32[4, 6]   # column sums of x
    @test Array(grad(parameter(m, "b"))) == Float32[2, 2]
    @test keys(state_dict(m)) == ["w", "b"]
    seq = Sequential(m, ReLU())
    @test Array(seq(x)) == Float32[2.5 5; 6.5 11]
    # free_user_data unpins the closure when the module dies.
    GC.@preserve m seq begin
        GC.gc(); GC.gc()      # finalizers of earlier garbage run first
        n = Glia.live_callbacks()
        tmp = affine()
        @test Glia.live_callbacks() == n + 1
        release!(tmp)
        @test Glia.live_callbacks() == n
    end
end

@testset "tensor hook" begin
    v = requires_grad!(Tensor(Float32[1, 2, 3]))
    seen = Ref{Any}(nothing)
    register_hook!(v) do g
        seen[] = Array(g)
        g * 10
    end
    backward!(sum(v .* v))
    @test seen[] == Float32[2, 4, 6]
    @test Array(grad(v)) == Float32[20, 40, 60]
end

@testset "training loop" begin
    manual_seed(0)
    xs = Float32.(range(-1, 1; length=32))
    x = Tensor(reshape(xs, 32, 1))
    y = Tensor(reshape(2 .* xs .- 1, 32, 1))
    model = Sequential(Linear(1, 16), Tanh(), Linear(16, 1))
    lossfn = MSELoss()
    opt = Adam(parameters(model); lr=0.05)
    losses = Float64[]
    for step in 1:200
        zero_grad!(opt)
        loss = lossfn(model(x), y)
        backward!(loss)
        step!(opt)
        push!(losses, item(loss))
    end
    @test losses[end] < losses[1] / 20
    @test losses[end] < 0.01
end

@testset "conv net" begin
    net = Sequential(Conv2d(1, 4, 3; padding=1), ReLU(), MaxPool2d(2), Flatten(), Linear(64, 3))
    logits = net(Glia.randn(2, 1, 8, 8))
    @test size(logits) == (2, 3)
    loss = CrossEntropyLoss()(logits, Tensor(Int64[0, 2]))
    backward!(loss)
    @test grad(parameter(net, "0.weight")) !== nothing
end

@testset "save and load" begin
    dir = mktempdir()
    a = Sequential(Linear(3, 4), ReLU(), Linear(4, 2))
    b = Sequential(Linear(3, 4), ReLU(), Linear(4, 2))
    x = Glia.randn(5, 3)
    path = joinpath(dir, "model.safetensors")
    save(a, path)
    load!(b, path)
    @test Array(b(x)) == Array(a(x))
    d = TensorDict()
    d["weights"] = Tensor(Float32[1.5, -2, 3])
    d["epoch"] = Tensor(Int64[7])
    for fmt in (:safetensors, :torch)
        p = joinpath(dir, "dict.$fmt")
        save(d, p; format=fmt)
        e = load_tensor_dict(p)
        @test keys(e) == ["weights", "epoch"]
        @test Array(e["weights"]) == Float32[1.5, -2, 3]
        @test Array(e["epoch"]) == [7]
    end
end

@testset "errors" begin
    e = err_of(() -> Glia.ones(2, 3) + Glia.ones(4))
    @test e isa GliaError && e.code == GLIA_ERR_SHAPE
    @test occursin("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1", e.message)
    e = err_of(() -> load_tensor_dict(joinpath(mktempdir(), "missing.safetensors")))
    @test e isa GliaError && e.code == GLIA_ERR_IO
    bad = NNModule((self, xs) -> error("boom"), "Bad")
    e = err_of(() -> bad(Glia.ones(2)))
    @test e isa GliaError && e.code == GLIA_ERR_CALLBACK && occursin("boom", e.message)
    t = Glia.ones(2)
    release!(t)
    release!(t)                                   # idempotent
    e = err_of(() -> sum(t))
    @test e isa GliaError && e.code == GLIA_ERR_INVALID_HANDLE
    e = err_of(() -> SGD([requires_grad!(Glia.ones(2))]; lr=-1))
    @test e isa GliaError && e.code == GLIA_ERR_INVALID_ARGUMENT && occursin("Invalid learning rate: -1.0", e.message)
end

end
