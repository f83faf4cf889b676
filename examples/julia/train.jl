# Trains a small classifier on two interleaved spirals with glia from Julia: Sequential of
# Linear and ReLU, CrossEntropyLoss, Adam; prints the falling loss, saves the model, loads it
# into a fresh one and checks both agree.
#   GLIA_LIBRARY=build/release/src/libglia.so julia --project=bindings/julia examples/julia/train.jl
using Glia

function spirals(n)
    xs = Matrix{Float32}(undef, 2n, 2)   # Julia's (row, column) = torch's [sample, feature]
    ys = Vector{Int64}(undef, 2n)
    for class in 0:1, i in 0:n-1
        r = i / n
        a = 3pi * r + pi * class
        xs[class * n + i + 1, :] = Float32[r * cos(a), r * sin(a)]
        ys[class * n + i + 1] = class    # class indices are 0-based, as in torch
    end
    return Tensor(xs), Tensor(ys)
end

newmodel() = Sequential(Linear(2, 32), ReLU(), Linear(32, 32), ReLU(), Linear(32, 2))

function main()
    manual_seed(0)
    x, y = spirals(100)
    model = newmodel()
    lossfn = CrossEntropyLoss()
    opt = Adam(parameters(model); lr=0.01)
    first = last = 0.0
    for epoch in 0:300
        zero_grad!(opt)
        loss = lossfn(model(x), y)
        backward!(loss)
        step!(opt)
        last = item(loss)
        epoch == 0 && (first = last)
        epoch % 50 == 0 && println("epoch $(lpad(epoch, 3))  loss $(round(last; digits=4))")
    end
    last < first / 2 || error("the loss did not fall: $first -> $last")

    path = joinpath(mktempdir(), "spirals.safetensors")
    save(model, path)
    fresh = load!(newmodel(), path)
    a, b = no_grad(() -> (Array(model(x)), Array(fresh(x))))
    a == b || error("the loaded model disagrees")
    println("loss $(round(first; digits=4)) -> $(round(last; digits=4)); saved and reloaded $(basename(path))")
end

main()
